/*
 * The strict JSON reader: recursive descent over the text, a tree of
 * struct json.  Only what RFC 8259 allows is accepted; what mmlab reads
 * is its own output, so anything else means a damaged or foreign file.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mmlab/files.h>
#include <mmlab/json_read.h>

struct parser {
	const char *s, *end, *p;
	int depth;
	char *err;
	size_t errlen;
	bool failed;
};

static void __attribute__((format(printf, 2, 3))) perr(struct parser *ps, const char *fmt, ...)
{
	int line = 1, col = 1;
	const char *q;
	char what[160];
	va_list ap;

	if (ps->failed)
		return;
	ps->failed = true;
	for (q = ps->s; q < ps->p; q++, col++)
		if (*q == '\n') {
			line++;
			col = 0;
		}
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(ps->err, ps->errlen, "line %d, column %d: %s", line, col, what);
}

static void skip_space(struct parser *ps)
{
	while (ps->p < ps->end && strchr(" \t\n\r", *ps->p) && *ps->p)
		ps->p++;
}

static struct json *new_node(struct parser *ps, enum json_type type)
{
	struct json *j = calloc(1, sizeof(*j));

	if (!j)
		perr(ps, "out of memory");
	else
		j->type = type;
	return j;
}

static struct json *parse_value(struct parser *ps);

static int hex4(struct parser *ps, unsigned *u)
{
	int i;

	*u = 0;
	for (i = 0; i < 4; i++, ps->p++) {
		char c = ps->p < ps->end ? *ps->p : 0;

		*u <<= 4;
		if (c >= '0' && c <= '9')
			*u |= c - '0';
		else if (c >= 'a' && c <= 'f')
			*u |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			*u |= c - 'A' + 10;
		else
			return -1;
	}
	return 0;
}

static void put_utf8(char *out, size_t *n, unsigned u)
{
	if (u < 0x80) {
		out[(*n)++] = u;
	} else if (u < 0x800) {
		out[(*n)++] = 0xc0 | u >> 6;
		out[(*n)++] = 0x80 | (u & 0x3f);
	} else if (u < 0x10000) {
		out[(*n)++] = 0xe0 | u >> 12;
		out[(*n)++] = 0x80 | ((u >> 6) & 0x3f);
		out[(*n)++] = 0x80 | (u & 0x3f);
	} else {
		out[(*n)++] = 0xf0 | u >> 18;
		out[(*n)++] = 0x80 | ((u >> 12) & 0x3f);
		out[(*n)++] = 0x80 | ((u >> 6) & 0x3f);
		out[(*n)++] = 0x80 | (u & 0x3f);
	}
}

/* \uXXXX, a surrogate pair as one code point; ps->p is past the 'u'. */
static int parse_unicode(struct parser *ps, char *out, size_t *n)
{
	unsigned hi, lo;

	if (hex4(ps, &hi))
		return perr(ps, "bad \\u escape"), -1;
	if (hi >= 0xdc00 && hi <= 0xdfff)
		return perr(ps, "lone low surrogate"), -1;
	if (hi >= 0xd800 && hi <= 0xdbff) {
		if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u')
			return perr(ps, "lone high surrogate"), -1;
		ps->p += 2;
		if (hex4(ps, &lo) || lo < 0xdc00 || lo > 0xdfff)
			return perr(ps, "bad surrogate pair"), -1;
		hi = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
	}
	put_utf8(out, n, hi);
	return 0;
}

static int parse_escape(struct parser *ps, char *out, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;

	if (ps->p >= ps->end)
		return perr(ps, "unterminated string"), -1;
	if (*ps->p == 'u') {
		ps->p++;
		return parse_unicode(ps, out, n);
	}
	e = strchr(from, *ps->p);
	if (!e || !*ps->p)
		return perr(ps, "bad escape '\\%c'", *ps->p), -1;
	out[(*n)++] = to[e - from];
	ps->p++;
	return 0;
}

/* A string at ps->p (the opening quote); a malloc'ed copy, decoded. */
static char *parse_string(struct parser *ps)
{
	const char *q = ++ps->p;
	char *out;
	size_t n = 0;

	while (q < ps->end && *q != '"')
		q += *q == '\\' ? 2 : 1;
	/* decoded text is never longer than the escaped one */
	out = malloc(q - ps->p + 1);
	if (!out)
		return perr(ps, "out of memory"), NULL;
	while (ps->p < ps->end && *ps->p != '"') {
		unsigned char c = *ps->p;

		if (c < 0x20) {
			perr(ps, "control character in a string");
			break;
		}
		if (c != '\\') {
			out[n++] = c;
			ps->p++;
		} else if (ps->p++, parse_escape(ps, out, &n)) {
			break;
		}
	}
	if (!ps->failed && ps->p >= ps->end)
		perr(ps, "unterminated string");
	if (ps->failed) {
		free(out);
		return NULL;
	}
	ps->p++;
	out[n] = '\0';
	return out;
}

static bool is_digit(struct parser *ps)
{
	return ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9';
}

static void skip_digits(struct parser *ps)
{
	while (is_digit(ps))
		ps->p++;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static struct json *parse_number(struct parser *ps)
{
	const char *start = ps->p;
	struct json *j;

	if (*ps->p == '-')
		ps->p++;
	if (!is_digit(ps))
		return perr(ps, "expected a digit"), NULL;
	if (*ps->p++ == '0' && is_digit(ps))
		return perr(ps, "leading zero in a number"), NULL;
	skip_digits(ps);
	if (ps->p < ps->end && *ps->p == '.') {
		ps->p++;
		if (!is_digit(ps))
			return perr(ps, "expected a digit after '.'"), NULL;
		skip_digits(ps);
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (!is_digit(ps))
			return perr(ps, "expected a digit in the exponent"), NULL;
		skip_digits(ps);
	}
	j = new_node(ps, JSON_NUMBER);
	if (!j)
		return NULL;
	j->text = strndup(start, ps->p - start);
	if (!j->text) {
		free(j);
		return perr(ps, "out of memory"), NULL;
	}
	j->num = strtod(j->text, NULL);
	return j;
}

static struct json *parse_literal(struct parser *ps)
{
	static const struct { const char *word; enum json_type type; double num; } lit[] = {
		{ "true", JSON_BOOL, 1 }, { "false", JSON_BOOL, 0 }, { "null", JSON_NULL, 0 },
	};
	struct json *j;
	size_t i, n;

	for (i = 0; i < 3; i++) {
		n = strlen(lit[i].word);
		if ((size_t)(ps->end - ps->p) >= n && !strncmp(ps->p, lit[i].word, n)) {
			ps->p += n;
			j = new_node(ps, lit[i].type);
			if (j)
				j->num = lit[i].num;
			return j;
		}
	}
	return perr(ps, "unexpected '%c'", *ps->p), NULL;
}

static bool has_key(const struct json *obj, const char *key)
{
	const struct json *m;

	for (m = obj->child; m; m = m->next)
		if (!strcmp(m->key, key))
			return true;
	return false;
}

/* One member of an object ("key": value), or an array element. */
static struct json *parse_member(struct parser *ps, struct json *parent)
{
	struct json *j;
	char *key = NULL;

	skip_space(ps);
	if (parent->type == JSON_OBJECT) {
		if (ps->p >= ps->end || *ps->p != '"')
			return perr(ps, "expected a key"), NULL;
		key = parse_string(ps);
		if (!key)
			return NULL;
		if (has_key(parent, key)) {
			perr(ps, "duplicate key '%s'", key);
			free(key);
			return NULL;
		}
		skip_space(ps);
		if (ps->p >= ps->end || *ps->p != ':') {
			free(key);
			return perr(ps, "expected ':'"), NULL;
		}
		ps->p++;
	}
	j = parse_value(ps);
	if (!j)
		free(key);
	else
		j->key = key;
	return j;
}

static struct json *parse_container(struct parser *ps, enum json_type type, char close)
{
	struct json *j = new_node(ps, type), **tail;

	if (!j)
		return NULL;
	if (++ps->depth > JSON_MAX_DEPTH) {
		perr(ps, "nested deeper than %d", JSON_MAX_DEPTH);
		goto bad;
	}
	ps->p++;
	tail = &j->child;
	skip_space(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		ps->depth--;
		return j;
	}
	for (;;) {
		*tail = parse_member(ps, j);
		if (!*tail)
			goto bad;
		tail = &(*tail)->next;
		j->nr++;
		skip_space(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close)
			break;
		perr(ps, "expected ',' or '%c'", close);
		goto bad;
	}
	ps->p++;
	ps->depth--;
	return j;
bad:
	json_free(j);
	return NULL;
}

static struct json *parse_value(struct parser *ps)
{
	struct json *j;

	skip_space(ps);
	if (ps->p >= ps->end)
		return perr(ps, "unexpected end of input"), NULL;
	switch (*ps->p) {
	case '{':
		return parse_container(ps, JSON_OBJECT, '}');
	case '[':
		return parse_container(ps, JSON_ARRAY, ']');
	case '"':
		j = new_node(ps, JSON_STRING);
		if (j && !(j->text = parse_string(ps))) {
			free(j);
			j = NULL;
		}
		return j;
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return parse_number(ps);
	}
	return parse_literal(ps);
}

struct json *json_parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct parser ps = { text, text + len, text, 0, err, errlen, false };
	struct json *j = parse_value(&ps);

	if (j) {
		skip_space(&ps);
		if (ps.p < ps.end) {
			perr(&ps, "unexpected text after the value");
			json_free(j);
			j = NULL;
		}
	}
	return j;
}

struct json *json_read_file(const char *path, char *err, size_t errlen)
{
	char why[200], *buf;
	size_t len;
	struct json *j;

	if (lab_read_file(path, &buf, &len, err, errlen))
		return NULL;
	j = json_parse(buf, len, why, sizeof(why));
	if (!j)
		snprintf(err, errlen, "'%s' is not valid JSON: %s", path, why);
	free(buf);
	return j;
}

void json_free(struct json *j)
{
	while (j) {
		struct json *next = j->next;

		json_free(j->child);
		free(j->key);
		free(j->text);
		free(j);
		j = next;
	}
}

const struct json *json_get(const struct json *j, const char *key)
{
	const struct json *m;

	if (!j || j->type != JSON_OBJECT)
		return NULL;
	for (m = j->child; m; m = m->next)
		if (!strcmp(m->key, key))
			return m;
	return NULL;
}

const struct json *json_get_type(const struct json *j, const char *key, enum json_type type)
{
	const struct json *m = json_get(j, key);

	return m && m->type == type ? m : NULL;
}

bool json_equal(const struct json *a, const struct json *b)
{
	const struct json *x, *y;

	if (!a || !b || a->type != b->type || a->nr != b->nr)
		return a == b;
	switch (a->type) {
	case JSON_NULL:
		return true;
	case JSON_BOOL:
	case JSON_NUMBER:
		return a->num == b->num;
	case JSON_STRING:
		return !strcmp(a->text, b->text);
	case JSON_ARRAY:
	case JSON_OBJECT:
		break;
	}
	for (x = a->child, y = b->child; x && y; x = x->next, y = y->next)
		if ((a->type == JSON_OBJECT && strcmp(x->key, y->key)) || !json_equal(x, y))
			return false;
	return !x && !y;
}

struct sbuf {
	char *buf;
	size_t len, used;
};

static void __attribute__((format(printf, 2, 3))) sput(struct sbuf *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (s->used >= s->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(s->buf + s->used, s->len - s->used, fmt, ap);
	va_end(ap);
	s->used = n < 0 ? s->len : s->used + n;
}

static void compact_string(struct sbuf *s, const char *t)
{
	const unsigned char *p = (const unsigned char *)t;

	sput(s, "\"");
	for (; *p; p++)
		if (*p == '"' || *p == '\\')
			sput(s, "\\%c", *p);
		else if (*p < 0x20)
			sput(s, "\\u%04x", *p);
		else
			sput(s, "%c", *p);
	sput(s, "\"");
}

static void compact(struct sbuf *s, const struct json *j, bool spaced)
{
	const struct json *m;

	switch (j->type) {
	case JSON_NULL:		sput(s, "null"); break;
	case JSON_BOOL:		sput(s, j->num ? "true" : "false"); break;
	case JSON_NUMBER:	sput(s, "%s", j->text); break;
	case JSON_STRING:	compact_string(s, j->text); break;
	case JSON_ARRAY:
	case JSON_OBJECT:
		sput(s, j->type == JSON_ARRAY ? "[" : "{");
		for (m = j->child; m; m = m->next) {
			if (j->type == JSON_OBJECT) {
				compact_string(s, m->key);
				sput(s, spaced ? ": " : ":");
			}
			compact(s, m, spaced);
			if (m->next)
				sput(s, spaced ? ", " : ",");
		}
		sput(s, j->type == JSON_ARRAY ? "]" : "}");
		break;
	}
}

void json_compact(const struct json *j, bool spaced, char *buf, size_t len)
{
	struct sbuf s = { buf, len, 0 };

	if (len)
		buf[0] = '\0';
	if (j)
		compact(&s, j, spaced);
}
