/*
 * The value of one option, by its type: integers, reals, sizes, lists,
 * choices.  Parsing never exits: an error is one line naming the option,
 * the bad value and what is valid.  Nothing is clamped.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mmlab/host_facts.h>
#include <mmlab/opt_value.h>
#include <mmlab/options.h>

int opt_fail(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* --- numbers and sizes ------------------------------------------------------ */

/* A decimal integer at the start of @s; *end is set past it. */
int opt_scan_ll(const char *s, long long *v, const char **end)
{
	const char *p = s;
	char *e;

	if (*p == '-' || *p == '+')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	*v = strtoll(s, &e, 10);
	if (errno)
		return -1;
	*end = e;
	return 0;
}

int opt_parse_ll(const char *s, long long *v)
{
	const char *end;

	return opt_scan_ll(s, v, &end) || *end ? -1 : 0;
}

int opt_parse_u64(const char *s, uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

static int size_shift(char c)
{
	switch (toupper((unsigned char)c)) {
	case 'K': return 10;
	case 'M': return 20;
	case 'G': return 30;
	case 'T': return 40;
	}
	return -1;
}

int lab_parse_size(const char *text, unsigned long long *bytes)
{
	const char *p = text;
	unsigned long long whole = 0, extra;
	double frac = 0, place = 0.1;
	bool has_frac = false;
	int shift = 0;

	if (!isdigit((unsigned char)*p))
		return -1;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned int d = *p - '0';

		if (whole > (ULLONG_MAX - d) / 10)
			return -1;
		whole = whole * 10 + d;
	}
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return -1;
		for (; isdigit((unsigned char)*p); p++, place /= 10)
			frac += (*p - '0') * place;
		has_frac = true;
	}
	if (*p) {
		shift = size_shift(*p++);
		if (shift < 0 || *p)
			return -1;
	}
	if (has_frac && !shift)
		return -1;		/* a fraction of a byte */
	if (whole > ULLONG_MAX >> shift)
		return -1;
	whole <<= shift;
	extra = (unsigned long long)(frac * (double)(1ULL << shift));
	if (whole > ULLONG_MAX - extra)
		return -1;
	*bytes = whole + extra;
	return 0;
}

/* Exact when that is short ("256M", "1536M"), else rounded down with the bytes. */
void lab_format_size(char *buf, size_t len, unsigned long long b)
{
	static const char suffix[] = "KMGT";
	int i;

	for (i = 3; i >= 0; i--) {
		unsigned long long unit = 1ULL << (10 * (i + 1));

		if (b && b % unit == 0 && b / unit < 10000) {
			snprintf(buf, len, "%llu%c", b / unit, suffix[i]);
			return;
		}
	}
	for (i = 3; i >= 0; i--) {
		unsigned long long unit = 1ULL << (10 * (i + 1));

		if (b >= unit) {
			snprintf(buf, len, "%.1f%c (%llu bytes)",
				 floor((double)b * 10 / (double)unit) / 10, suffix[i], b);
			return;
		}
	}
	snprintf(buf, len, "%llu", b);
}

/* --- one experiment option ------------------------------------------------------ */

void opt_describe_valid(const struct exp_option *o, char *buf, size_t len)
{
	char lo[64], hi[64], choices[128];
	size_t i;

	switch (o->type) {
	case OPT_INT:
		snprintf(buf, len, "an integer in %.0f..%.0f%s%s", o->min, o->max,
			 o->choices ? " or " : "", o->choices ? o->choices : "");
		break;
	case OPT_DOUBLE:
		snprintf(buf, len, "a number in %g..%g", o->min, o->max);
		break;
	case OPT_SIZE:
		lab_format_size(lo, sizeof(lo), (unsigned long long)o->min);
		lab_format_size(hi, sizeof(hi), (unsigned long long)o->max);
		snprintf(buf, len, "a size in %s..%s (suffix K, M, G, T: powers of 1024)", lo, hi);
		break;
	case OPT_INT_LIST:
		snprintf(buf, len, "comma-separated integers or ranges a-b, each in %.0f..%.0f",
			 o->min, o->max);
		break;
	case OPT_CHOICE:
	case OPT_CHOICE_LIST:
		snprintf(choices, sizeof(choices), "%s", o->choices ? o->choices : "");
		for (i = 0; choices[i]; i++)
			if (choices[i] == ',')
				choices[i] = '|';
		snprintf(buf, len, "%s %s", o->type == OPT_CHOICE ? "one of" :
			 "comma-separated words out of", choices);
		break;
	}
}

const char *opt_metavar(const struct exp_option *o)
{
	switch (o->type) {
	case OPT_INT:		return "N";
	case OPT_DOUBLE:	return "X";
	case OPT_SIZE:		return "SIZE";
	case OPT_INT_LIST:	return "LIST";
	case OPT_CHOICE:	return "WORD";
	case OPT_CHOICE_LIST:	return "LIST";
	}
	return "VALUE";
}

static bool in_range(const struct exp_option *o, double x)
{
	return x >= o->min && x <= o->max;
}

static int parse_choice(const struct exp_option *o, const char *text,
			struct opt_value *v, char *why, size_t len);

/* An OPT_INT may also take the words of its ->choices ("auto"): ->choice says which. */
static int parse_int(const struct exp_option *o, const char *text,
		     const struct host_facts *m, struct opt_value *v,
		     char *why, size_t len)
{
	long long x;

	v->choice = -1;
	if (o->choices && !parse_choice(o, text, v, why, len)) {
		v->i = 0;
		return 0;
	}
	if (!strcmp(text, "nproc"))
		x = m->cpus;
	else if (opt_parse_ll(text, &x))
		return opt_fail(why, len, "not an integer");
	if (!in_range(o, (double)x))
		return opt_fail(why, len, "out of range");
	v->i = x;
	return 0;
}

static int parse_double(const struct exp_option *o, const char *text,
			struct opt_value *v, char *why, size_t len)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(text, &end);
	if (!*text || isspace((unsigned char)*text) || *end || errno || !isfinite(x))
		return opt_fail(why, len, "not a number");
	if (!in_range(o, x))
		return opt_fail(why, len, "out of range");
	v->d = x;
	return 0;
}

static int parse_size_opt(const struct exp_option *o, const char *text,
			  const struct host_facts *m, struct opt_value *v,
			  char *why, size_t len)
{
	unsigned long long b;

	if (!strcmp(text, "machine"))
		b = m->mem_bytes;
	else if (lab_parse_size(text, &b))
		return opt_fail(why, len, "not a size");
	if (b > LLONG_MAX || !in_range(o, (double)b))
		return opt_fail(why, len, "out of range");
	v->i = (long long)b;
	return 0;
}

static int append_range(long long **list, int *nr, long long a, long long b,
			char *why, size_t len)
{
	long long x;

	if (b - a >= LAB_MAX_LIST - *nr)
		return opt_fail(why, len, "more than %d values", LAB_MAX_LIST);
	if (!*list) {
		*list = malloc(LAB_MAX_LIST * sizeof(**list));
		if (!*list)
			return opt_fail(why, len, "out of memory");
	}
	for (x = a; x <= b; x++)
		(*list)[(*nr)++] = x;
	return 0;
}

/* One "a" or "a-b" item of a list, at @p; *end is set past it. */
static int parse_list_item(const struct exp_option *o, const char *p,
			   long long **list, int *nr, const char **end,
			   char *why, size_t len)
{
	int item_len = (int)strcspn(p, ",");
	long long a, b;

	if (opt_scan_ll(p, &a, end))
		goto bad;
	b = a;
	if (**end == '-' && opt_scan_ll(*end + 1, &b, end))
		goto bad;
	if (**end && **end != ',')
		goto bad;
	if (b < a)
		return opt_fail(why, len, "range %lld-%lld is empty", a, b);
	if (!in_range(o, (double)a))
		return opt_fail(why, len, "%lld is out of range", a);
	if (!in_range(o, (double)b))
		return opt_fail(why, len, "%lld is out of range", b);
	return append_range(list, nr, a, b, why, len);
bad:
	return opt_fail(why, len, "'%.*s' is not an integer or a range a-b", item_len, p);
}

static int parse_list(const struct exp_option *o, const char *text,
		      const struct host_facts *m, struct opt_value *v,
		      char *why, size_t len)
{
	const char *p = text, *end = NULL;

	if (!strcmp(text, "nproc")) {
		if (!in_range(o, 1) || !in_range(o, m->cpus))
			return opt_fail(why, len, "1-%d is out of range", m->cpus);
		return append_range(&v->list, &v->nr_list, 1, m->cpus, why, len);
	}
	for (;;) {
		if (parse_list_item(o, p, &v->list, &v->nr_list, &end, why, len))
			return -1;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

static int parse_choice(const struct exp_option *o, const char *text,
			struct opt_value *v, char *why, size_t len)
{
	const char *p = o->choices;
	size_t n = strlen(text);
	int idx;

	for (idx = 0; p && *p; idx++) {
		size_t word = strcspn(p, ",");

		if (word == n && !strncmp(p, text, n)) {
			v->choice = idx;
			return 0;
		}
		p += word;
		if (*p)
			p++;
	}
	return opt_fail(why, len, "not one of the choices");
}

/* "a,b": each word's index into ->choices, in the order given. */
static int parse_choice_list(const struct exp_option *o, const char *text,
			     struct opt_value *v, char *why, size_t len)
{
	const char *p = text;

	for (;;) {
		size_t n = strcspn(p, ",");
		char word[64];
		struct opt_value one = { 0 };

		if (!n || n >= sizeof(word))
			return opt_fail(why, len, "'%.*s' is not a word", (int)n, p);
		snprintf(word, sizeof(word), "%.*s", (int)n, p);
		if (parse_choice(o, word, &one, why, len))
			return opt_fail(why, len, "'%s' is not one of the choices", word);
		if (append_range(&v->list, &v->nr_list, one.choice, one.choice, why, len))
			return -1;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

static int parse_typed(const struct exp_option *o, const char *text,
		       const struct host_facts *m, struct opt_value *v,
		       char *why, size_t len)
{
	switch (o->type) {
	case OPT_INT:		return parse_int(o, text, m, v, why, len);
	case OPT_DOUBLE:	return parse_double(o, text, v, why, len);
	case OPT_SIZE:		return parse_size_opt(o, text, m, v, why, len);
	case OPT_INT_LIST:	return parse_list(o, text, m, v, why, len);
	case OPT_CHOICE:	return parse_choice(o, text, v, why, len);
	case OPT_CHOICE_LIST:	return parse_choice_list(o, text, v, why, len);
	}
	return opt_fail(why, len, "option of unknown type");
}

int lab_parse_value(const struct exp_option *o, const char *text,
		    const struct host_facts *m, struct opt_value *v,
		    char *err, size_t len)
{
	char why[128] = "", valid[256];

	memset(v, 0, sizeof(*v));
	v->opt = o;
	v->text = text;
	if (!parse_typed(o, text, m, v, why, sizeof(why)))
		return 0;
	lab_value_free(v);
	opt_describe_valid(o, valid, sizeof(valid));
	return opt_fail(err, len, "--%s: invalid value '%s' (%s); valid: %s",
		    o->name, text, why, valid);
}

void lab_value_free(struct opt_value *v)
{
	free(v->list);
	v->list = NULL;
	v->nr_list = 0;
}

/* The text of @o's default at @s, NULL if it has none. */
const char *opt_default(const struct exp_option *o, enum scale s)
{
	return o->def[s] ? o->def[s] : o->def[SCALE_DEFAULT];
}

const struct opt_value *exp_opt(const struct exp_ctx *ctx, const char *name)
{
	int i;

	for (i = 0; i < ctx->exp->nr_options; i++)
		if (!strcmp(ctx->exp->options[i].name, name))
			return &ctx->values[i];
	fprintf(stderr, "mmlab: internal error: %s has no option '%s'\n",
		ctx->exp->name, name);
	abort();
}
