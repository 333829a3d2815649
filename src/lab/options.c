/*
 * Command-line options of `mmlab run NAME`: the global ones every
 * experiment takes and the experiment's own.  Parsing never exits: every
 * error is returned as one line naming the option, the bad value and what
 * is valid, and the caller prints it and exits 2.  Nothing is clamped.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <mmlab/lab.h>

enum global_opt { G_VARIANT, G_SCALE, G_REPEAT, G_SEED, G_JSON, G_MEM, G_CI_TARGET, G_SHARD,
		  NR_GLOBALS };

struct global_desc {
	const char *name, *metavar, *help;
};

static const struct global_desc globals[NR_GLOBALS] = {
	[G_VARIANT] = { "variant", "LIST", "comma-separated variant names, or all" },
	[G_SCALE]   = { "scale", "tiny|default|full", "preset of every option's default" },
	[G_REPEAT]  = { "repeat", "R|auto[:S]", "samples per variant and point, interleaved across variants; "
			"auto[:S]: until every ratio's 95% interval is within --ci-target, "
			"for at most S seconds (default 60)" },
	[G_SEED]    = { "seed", "S", "seed of every random choice" },
	[G_JSON]    = { "json", "FILE", "also write the results as JSON to FILE" },
	[G_MEM]     = { "mem", "SIZE", "memory of the simulated machine" },
	[G_CI_TARGET] = { "ci-target", "PCT", "with --repeat auto: the widest half-width of a ratio's "
			  "interval, in % of the ratio" },
	[G_SHARD]   = { "shard", "I/N", "run only the points whose index % N is I (merge the shards "
			"with mmlab merge)" },
};

static const char *const scale_names[NR_SCALES] = {
	[SCALE_TINY] = "tiny", [SCALE_DEFAULT] = "default", [SCALE_FULL] = "full",
};

const char *lab_scale_name(enum scale s)
{
	return s < NR_SCALES ? scale_names[s] : "?";
}

static int __attribute__((format(printf, 3, 4)))
fail(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* --- numbers and sizes ------------------------------------------------------ */

/* A decimal integer at the start of @s; *end is set past it. */
static int scan_ll(const char *s, long long *v, const char **end)
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

static int parse_ll(const char *s, long long *v)
{
	const char *end;

	return scan_ll(s, v, &end) || *end ? -1 : 0;
}

static int parse_u64(const char *s, uint64_t *v)
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

static void describe_valid(const struct exp_option *o, char *buf, size_t len)
{
	char lo[64], hi[64], choices[128];
	size_t i;

	switch (o->type) {
	case OPT_INT:
		snprintf(buf, len, "an integer in %.0f..%.0f", o->min, o->max);
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

static const char *metavar(const struct exp_option *o)
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

static int parse_int(const struct exp_option *o, const char *text,
		     const struct lab_machine *m, struct opt_value *v,
		     char *why, size_t len)
{
	long long x;

	if (!strcmp(text, "nproc"))
		x = m->cpus;
	else if (parse_ll(text, &x))
		return fail(why, len, "not an integer");
	if (!in_range(o, (double)x))
		return fail(why, len, "out of range");
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
		return fail(why, len, "not a number");
	if (!in_range(o, x))
		return fail(why, len, "out of range");
	v->d = x;
	return 0;
}

static int parse_size_opt(const struct exp_option *o, const char *text,
			  const struct lab_machine *m, struct opt_value *v,
			  char *why, size_t len)
{
	unsigned long long b;

	if (!strcmp(text, "machine"))
		b = m->mem_bytes;
	else if (lab_parse_size(text, &b))
		return fail(why, len, "not a size");
	if (b > LLONG_MAX || !in_range(o, (double)b))
		return fail(why, len, "out of range");
	v->i = (long long)b;
	return 0;
}

static int append_range(long long **list, int *nr, long long a, long long b,
			char *why, size_t len)
{
	long long x;

	if (b - a >= LAB_MAX_LIST - *nr)
		return fail(why, len, "more than %d values", LAB_MAX_LIST);
	if (!*list) {
		*list = malloc(LAB_MAX_LIST * sizeof(**list));
		if (!*list)
			return fail(why, len, "out of memory");
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

	if (scan_ll(p, &a, end))
		goto bad;
	b = a;
	if (**end == '-' && scan_ll(*end + 1, &b, end))
		goto bad;
	if (**end && **end != ',')
		goto bad;
	if (b < a)
		return fail(why, len, "range %lld-%lld is empty", a, b);
	if (!in_range(o, (double)a))
		return fail(why, len, "%lld is out of range", a);
	if (!in_range(o, (double)b))
		return fail(why, len, "%lld is out of range", b);
	return append_range(list, nr, a, b, why, len);
bad:
	return fail(why, len, "'%.*s' is not an integer or a range a-b", item_len, p);
}

static int parse_list(const struct exp_option *o, const char *text,
		      const struct lab_machine *m, struct opt_value *v,
		      char *why, size_t len)
{
	const char *p = text, *end = NULL;

	if (!strcmp(text, "nproc")) {
		if (!in_range(o, 1) || !in_range(o, m->cpus))
			return fail(why, len, "1-%d is out of range", m->cpus);
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
	return fail(why, len, "not one of the choices");
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
			return fail(why, len, "'%.*s' is not a word", (int)n, p);
		snprintf(word, sizeof(word), "%.*s", (int)n, p);
		if (parse_choice(o, word, &one, why, len))
			return fail(why, len, "'%s' is not one of the choices", word);
		if (append_range(&v->list, &v->nr_list, one.choice, one.choice, why, len))
			return -1;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

static int parse_typed(const struct exp_option *o, const char *text,
		       const struct lab_machine *m, struct opt_value *v,
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
	return fail(why, len, "option of unknown type");
}

int lab_parse_value(const struct exp_option *o, const char *text,
		    const struct lab_machine *m, struct opt_value *v,
		    char *err, size_t len)
{
	char why[128] = "", valid[256];

	memset(v, 0, sizeof(*v));
	v->opt = o;
	v->text = text;
	if (!parse_typed(o, text, m, v, why, sizeof(why)))
		return 0;
	lab_value_free(v);
	describe_valid(o, valid, sizeof(valid));
	return fail(err, len, "--%s: invalid value '%s' (%s); valid: %s",
		    o->name, text, why, valid);
}

void lab_value_free(struct opt_value *v)
{
	free(v->list);
	v->list = NULL;
	v->nr_list = 0;
}

/* The text of @o's default at @s, NULL if it has none. */
static const char *option_default(const struct exp_option *o, enum scale s)
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

/* --- the command line ------------------------------------------------------- */

struct given {
	const char *global[NR_GLOBALS];
	const char **exp;		/* [exp->nr_options] */
};

static int default_repeat(const struct experiment *exp, enum scale s)
{
	if (exp->default_repeat[s] > 0)
		return exp->default_repeat[s];
	if (exp->default_repeat[SCALE_DEFAULT] > 0)
		return exp->default_repeat[SCALE_DEFAULT];
	return 5;
}

static const char *default_mem(const struct experiment *exp, enum scale s)
{
	if (exp->default_mem[s])
		return exp->default_mem[s];
	if (exp->default_mem[SCALE_DEFAULT])
		return exp->default_mem[SCALE_DEFAULT];
	return LAB_DEFAULT_MEM;
}

static void describe_global(int g, const struct experiment *exp,
			    const struct lab_machine *m, char *buf, size_t len)
{
	char hi[64];
	size_t used;
	int i;

	switch (g) {
	case G_VARIANT:
		used = snprintf(buf, len, "all, or comma-separated names out of");
		for (i = 0; i < exp->nr_variants && used < len; i++)
			used += snprintf(buf + used, len - used, "%s %s", i ? "," : "",
					 exp->variants[i].name);
		break;
	case G_SCALE:
		snprintf(buf, len, "one of tiny|default|full");
		break;
	case G_REPEAT:
		snprintf(buf, len, "an integer in 1..%d, or auto, or auto:SECONDS with SECONDS in 1..%d "
			 "(auto: %d to %d repetitions)", LAB_MAX_REPEAT, LAB_AUTO_MAX_SECONDS,
			 LAB_AUTO_MIN_REPEAT, LAB_AUTO_MAX_REPEAT);
		break;
	case G_CI_TARGET:
		snprintf(buf, len, "a percentage in %g..%g, with --repeat auto only",
			 LAB_CI_TARGET_MIN, LAB_CI_TARGET_MAX);
		break;
	case G_SHARD:
		snprintf(buf, len, "I/N with N in 1..%d and I in 0..N-1", LAB_MAX_SHARDS);
		break;
	case G_SEED:
		snprintf(buf, len, "an integer in 0..%llu", (unsigned long long)UINT64_MAX);
		break;
	case G_JSON:
		snprintf(buf, len, "a file name");
		break;
	case G_MEM:
		if (m->mem_bytes) {
			lab_format_size(hi, sizeof(hi), m->mem_bytes);
			snprintf(buf, len, "a size in 4M..%s (the machine's memory)", hi);
		} else {
			snprintf(buf, len, "a size of at least 4M");
		}
		break;
	}
}

static int global_error(char *err, size_t len, int g, const char *value,
			const char *why, const struct experiment *exp,
			const struct lab_machine *m)
{
	char valid[LAB_ERR_LEN / 2];

	describe_global(g, exp, m, valid, sizeof(valid));
	return fail(err, len, "--%s: invalid value '%s' (%s); valid: %s",
		    globals[g].name, value, why, valid);
}

/* Finds --NAME (@n characters): 0 and *idx for a global, 1 for the experiment's. */
static int lookup(const struct experiment *exp, const char *name, size_t n, int *idx)
{
	int i;

	for (i = 0; i < NR_GLOBALS; i++)
		if (strlen(globals[i].name) == n && !strncmp(globals[i].name, name, n)) {
			*idx = i;
			return 0;
		}
	for (i = 0; i < exp->nr_options; i++)
		if (strlen(exp->options[i].name) == n && !strncmp(exp->options[i].name, name, n)) {
			*idx = i;
			return 1;
		}
	return -1;
}

static int unknown_option(const struct experiment *exp, const char *name, size_t n,
			  char *err, size_t len)
{
	char names[LAB_ERR_LEN / 2];
	size_t used = 0;
	int i;

	names[0] = '\0';
	for (i = 0; i < NR_GLOBALS + exp->nr_options && used < sizeof(names); i++)
		used += snprintf(names + used, sizeof(names) - used, "%s--%s", i ? ", " : "",
				 i < NR_GLOBALS ? globals[i].name : exp->options[i - NR_GLOBALS].name);
	return fail(err, len, "unknown option '--%.*s' for %s; valid: %s, --help",
		    (int)n, name, exp->name, names);
}

static bool wants_help(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

static int collect(const struct experiment *exp, const struct lab_machine *m,
		   int argc, char **argv, struct given *g, char *err, size_t len)
{
	int i, idx, kind;

	for (i = 0; i < argc; i++) {
		const char *arg = argv[i], *name = arg + 2, *eq, *value;
		char valid[LAB_ERR_LEN / 2];
		size_t n;

		if (strncmp(arg, "--", 2) || !arg[2])
			return fail(err, len, "unexpected argument '%s' for %s; options are --NAME VALUE or --NAME=VALUE",
				    arg, exp->name);
		eq = strchr(name, '=');
		n = eq ? (size_t)(eq - name) : strlen(name);
		kind = lookup(exp, name, n, &idx);
		if (kind < 0)
			return unknown_option(exp, name, n, err, len);
		if (eq) {
			value = eq + 1;
		} else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2)) {
			value = argv[++i];
		} else {
			if (kind == 0)
				describe_global(idx, exp, m, valid, sizeof(valid));
			else
				describe_valid(&exp->options[idx], valid, sizeof(valid));
			return fail(err, len, "--%.*s: missing value; valid: %s", (int)n, name, valid);
		}
		if (kind == 0)
			g->global[idx] = value;
		else
			g->exp[idx] = value;
	}
	return 0;
}

static int resolve_scale(struct lab_config *cfg, const struct given *g,
			 const struct lab_machine *m, char *err, size_t len)
{
	const char *text = g->global[G_SCALE] ? g->global[G_SCALE] : "default";
	int s;

	for (s = 0; s < NR_SCALES; s++)
		if (!strcmp(text, scale_names[s])) {
			cfg->scale = s;
			return 0;
		}
	return global_error(err, len, G_SCALE, text, "unknown scale", cfg->exp, m);
}

static int resolve_variants(struct lab_config *cfg, const struct given *g,
			    const struct lab_machine *m, char *err, size_t len)
{
	const struct experiment *exp = cfg->exp;
	const char *text = g->global[G_VARIANT] ? g->global[G_VARIANT] : "all";
	const char *p = text;
	char why[128];
	bool *pick;
	int i, ret = 0;

	pick = calloc(exp->nr_variants + 1, sizeof(*pick));
	cfg->variants = calloc(exp->nr_variants + 1, sizeof(*cfg->variants));
	if (!pick || !cfg->variants) {
		free(pick);
		return fail(err, len, "out of memory");
	}
	for (i = 0; i < exp->nr_variants; i++)
		pick[i] = !strcmp(text, "all");
	while (strcmp(text, "all")) {
		size_t n = strcspn(p, ",");

		for (i = 0; i < exp->nr_variants; i++)
			if (strlen(exp->variants[i].name) == n && !strncmp(exp->variants[i].name, p, n))
				break;
		if (i == exp->nr_variants) {
			snprintf(why, sizeof(why), "unknown variant '%.*s'", (int)n, p);
			ret = global_error(err, len, G_VARIANT, text, why, exp, m);
			break;
		}
		pick[i] = true;
		if (!p[n])
			break;
		p += n + 1;
	}
	for (i = 0; i < exp->nr_variants; i++)
		if (pick[i])
			cfg->variants[cfg->nr_variants++] = &exp->variants[i];
	free(pick);
	if (!ret && !cfg->nr_variants)
		ret = global_error(err, len, G_VARIANT, text, "no variant", exp, m);
	return ret;
}

/* "auto" or "auto:SECONDS"; 1 if @text is neither, 0 parsed, -1 error. */
static int resolve_auto(struct lab_config *cfg, const char *text,
			const struct lab_machine *m, char *err, size_t len)
{
	long long secs = LAB_AUTO_SECONDS;

	if (strncmp(text, "auto", 4) || (text[4] && text[4] != ':'))
		return 1;
	if (text[4] && parse_ll(text + 5, &secs))
		return global_error(err, len, G_REPEAT, text, "SECONDS is not an integer", cfg->exp, m);
	if (secs < 1 || secs > LAB_AUTO_MAX_SECONDS)
		return global_error(err, len, G_REPEAT, text, "SECONDS out of range", cfg->exp, m);
	cfg->repeat_auto = true;
	cfg->auto_seconds = secs;
	cfg->repeat = LAB_AUTO_MAX_REPEAT;
	return 0;
}

static int resolve_ci_target(struct lab_config *cfg, const struct given *g,
			     const struct lab_machine *m, char *err, size_t len)
{
	const char *text = g->global[G_CI_TARGET];
	char *end;
	double t;

	cfg->ci_target_pct = LAB_CI_TARGET_PCT;
	if (!text)
		return 0;
	if (!cfg->repeat_auto)
		return global_error(err, len, G_CI_TARGET, text, "without --repeat auto", cfg->exp, m);
	errno = 0;
	t = strtod(text, &end);
	if (!*text || isspace((unsigned char)*text) || *end || errno || !isfinite(t))
		return global_error(err, len, G_CI_TARGET, text, "not a number", cfg->exp, m);
	if (t < LAB_CI_TARGET_MIN || t > LAB_CI_TARGET_MAX)
		return global_error(err, len, G_CI_TARGET, text, "out of range", cfg->exp, m);
	cfg->ci_target_pct = t;
	return 0;
}

static int resolve_shard(struct lab_config *cfg, const struct given *g,
			 const struct lab_machine *m, char *err, size_t len)
{
	const char *text = g->global[G_SHARD], *end;
	long long i, n;

	if (!text)
		return 0;
	if (scan_ll(text, &i, &end) || *end != '/' || parse_ll(end + 1, &n))
		return global_error(err, len, G_SHARD, text, "not I/N", cfg->exp, m);
	if (n < 1 || n > LAB_MAX_SHARDS)
		return global_error(err, len, G_SHARD, text, "N out of range", cfg->exp, m);
	if (i < 0 || i >= n)
		return global_error(err, len, G_SHARD, text, "I out of range", cfg->exp, m);
	cfg->shard_index = (int)i;
	cfg->shard_count = (int)n;
	return 0;
}

static int resolve_numbers(struct lab_config *cfg, const struct given *g,
			   const struct lab_machine *m, char *err, size_t len)
{
	const struct experiment *exp = cfg->exp;
	const char *text;
	long long repeat;
	int ret;

	text = g->global[G_REPEAT];
	ret = text ? resolve_auto(cfg, text, m, err, len) : 1;
	if (ret < 0)
		return -1;
	if (!ret) {
		repeat = cfg->repeat;
	} else if (text) {
		if (parse_ll(text, &repeat))
			return global_error(err, len, G_REPEAT, text, "not an integer", exp, m);
	} else {
		repeat = default_repeat(exp, cfg->scale);
		text = "the experiment's default";
	}
	if (repeat < 1 || repeat > LAB_MAX_REPEAT)
		return global_error(err, len, G_REPEAT, text, "out of range", exp, m);
	cfg->repeat = (int)repeat;

	cfg->seed = 1;
	text = g->global[G_SEED];
	if (text && parse_u64(text, &cfg->seed))
		return global_error(err, len, G_SEED, text, "not an unsigned 64-bit integer", exp, m);
	return resolve_ci_target(cfg, g, m, err, len) || resolve_shard(cfg, g, m, err, len) ? -1 : 0;
}

static int resolve_mem(struct lab_config *cfg, const struct given *g,
		       const struct lab_machine *m, char *err, size_t len)
{
	const char *text = g->global[G_MEM] ? g->global[G_MEM] : default_mem(cfg->exp, cfg->scale);
	char why[128];

	if (lab_parse_size(text, &cfg->mem_bytes))
		return global_error(err, len, G_MEM, text, "not a size", cfg->exp, m);
	if (cfg->mem_bytes < LAB_MIN_MEM)
		return global_error(err, len, G_MEM, text, "less than 4M", cfg->exp, m);
	if (m->mem_bytes && cfg->mem_bytes > m->mem_bytes) {
		if (g->global[G_MEM])
			snprintf(why, sizeof(why), "more than the machine's memory");
		else
			snprintf(why, sizeof(why), "%s's default at --scale %s, more than the machine's memory",
				 cfg->exp->name, scale_names[cfg->scale]);
		return global_error(err, len, G_MEM, text, why, cfg->exp, m);
	}
	return 0;
}

static int resolve_options(struct lab_config *cfg, const struct given *g,
			   const struct lab_machine *m, char *err, size_t len)
{
	const struct experiment *exp = cfg->exp;
	char valid[LAB_ERR_LEN / 2];
	int i;

	for (i = 0; i < exp->nr_options; i++) {
		const struct exp_option *o = &exp->options[i];
		const char *text = g->exp[i] ? g->exp[i] : option_default(o, cfg->scale);

		if (!text) {
			describe_valid(o, valid, sizeof(valid));
			return fail(err, len, "--%s is required; valid: %s", o->name, valid);
		}
		if (lab_parse_value(o, text, m, &cfg->values[i], err, len))
			return -1;
	}
	return 0;
}

int lab_parse_args(struct lab_config *cfg, const struct experiment *exp,
		   const struct lab_machine *m, int argc, char **argv,
		   char *err, size_t len)
{
	struct given g = { 0 };
	int ret = -1;

	memset(cfg, 0, sizeof(*cfg));
	cfg->exp = exp;
	err[0] = '\0';
	if (wants_help(argc, argv)) {
		cfg->help = true;
		return 0;
	}
	g.exp = calloc(exp->nr_options + 1, sizeof(*g.exp));
	cfg->values = calloc(exp->nr_options + 1, sizeof(*cfg->values));
	if (!g.exp || !cfg->values) {
		fail(err, len, "out of memory");
		goto out;
	}
	if (collect(exp, m, argc, argv, &g, err, len) ||
	    resolve_scale(cfg, &g, m, err, len) ||
	    resolve_variants(cfg, &g, m, err, len) ||
	    resolve_numbers(cfg, &g, m, err, len) ||
	    resolve_mem(cfg, &g, m, err, len) ||
	    resolve_options(cfg, &g, m, err, len))
		goto out;
	cfg->json_path = g.global[G_JSON];
	if (cfg->json_path && !*cfg->json_path) {
		global_error(err, len, G_JSON, "", "empty", exp, m);
		goto out;
	}
	ret = 0;
out:
	free(g.exp);
	if (ret)
		lab_config_free(cfg);
	return ret;
}

void lab_config_free(struct lab_config *cfg)
{
	int i;

	if (cfg->values && cfg->exp)
		for (i = 0; i < cfg->exp->nr_options; i++)
			lab_value_free(&cfg->values[i]);
	free(cfg->values);
	free(cfg->variants);
	cfg->values = NULL;
	cfg->variants = NULL;
	cfg->nr_variants = 0;
}

/* --- run NAME --help ----------------------------------------------------------- */

static void help_line(FILE *f, const char *name, const char *meta, const char *help,
		      const char *def, const char *valid)
{
	char head[64];

	snprintf(head, sizeof(head), "--%s %s", name, meta);
	fprintf(f, "  %-26s %s\n", head, help);
	fprintf(f, "  %-26s default %s; valid: %s\n", "", def, valid);
}

static void describe_default(const struct exp_option *o, const struct lab_machine *m,
			     char *buf, size_t len)
{
	const char *def = option_default(o, SCALE_DEFAULT);
	size_t used;
	char size[64];
	int s;

	if (!def) {
		snprintf(buf, len, "none (required)");
		return;
	}
	used = snprintf(buf, len, "%s", def);
	if (!strcmp(def, "nproc") && used < len)
		used += snprintf(buf + used, len - used, " (1-%d here)", m->cpus);
	if (!strcmp(def, "machine") && used < len) {
		lab_format_size(size, sizeof(size), m->mem_bytes);
		used += snprintf(buf + used, len - used, " (%s here)", size);
	}
	for (s = 0; s < NR_SCALES; s++) {
		if (s == SCALE_DEFAULT || !o->def[s] || !strcmp(o->def[s], def) || used >= len)
			continue;
		used += snprintf(buf + used, len - used, ", at --scale %s %s",
				 scale_names[s], o->def[s]);
	}
}

static void print_variants(FILE *f, const struct experiment *exp)
{
	int i;

	fprintf(f, "variants (%s is the baseline):\n", LAB_BASELINE);
	for (i = 0; i < exp->nr_variants; i++)
		fprintf(f, "  %-26s %s\n", exp->variants[i].name,
			exp->variants[i].desc ? exp->variants[i].desc : "");
}

static void print_globals(FILE *f, const struct experiment *exp, const struct lab_machine *m)
{
	char valid[LAB_ERR_LEN / 2], def[128];
	int g, s;
	size_t used;

	fprintf(f, "options of every experiment:\n");
	for (g = 0; g < NR_GLOBALS; g++) {
		describe_global(g, exp, m, valid, sizeof(valid));
		switch (g) {
		case G_VARIANT:	snprintf(def, sizeof(def), "all"); break;
		case G_SCALE:	snprintf(def, sizeof(def), "default"); break;
		case G_SEED:	snprintf(def, sizeof(def), "1"); break;
		case G_JSON:	snprintf(def, sizeof(def), "none"); break;
		case G_CI_TARGET: snprintf(def, sizeof(def), "%g", LAB_CI_TARGET_PCT); break;
		case G_SHARD:	snprintf(def, sizeof(def), "none (every point)"); break;
		case G_MEM:
			used = snprintf(def, sizeof(def), "%s", default_mem(exp, SCALE_DEFAULT));
			for (s = 0; s < NR_SCALES && used < sizeof(def); s++)
				if (strcmp(default_mem(exp, s), default_mem(exp, SCALE_DEFAULT)))
					used += snprintf(def + used, sizeof(def) - used, ", at --scale %s %s",
							 scale_names[s], default_mem(exp, s));
			break;
		case G_REPEAT:
			used = snprintf(def, sizeof(def), "%d", default_repeat(exp, SCALE_DEFAULT));
			for (s = 0; s < NR_SCALES && used < sizeof(def); s++)
				if (s != SCALE_DEFAULT)
					used += snprintf(def + used, sizeof(def) - used, ", at --scale %s %d",
							 scale_names[s], default_repeat(exp, s));
			break;
		}
		help_line(f, globals[g].name, globals[g].metavar, globals[g].help, def, valid);
	}
}

void lab_print_help(FILE *f, const struct experiment *exp, const struct lab_machine *m)
{
	char valid[LAB_ERR_LEN / 2], def[256];
	int i;

	fprintf(f, "usage: mmlab run %s [options]\n\n", exp->name);
	fprintf(f, "%s\n", exp->desc ? exp->desc : "");
	fprintf(f, "reproduces: %s\nmetric: %s (%s, %s is better)\n\n", exp->seed ? exp->seed : "-",
		exp->metric, exp->unit, exp->higher_is_better ? "higher" : "lower");
	print_variants(f, exp);
	fprintf(f, "\n");
	print_globals(f, exp, m);
	if (!exp->nr_options)
		return;
	fprintf(f, "\noptions of %s:\n", exp->name);
	for (i = 0; i < exp->nr_options; i++) {
		const struct exp_option *o = &exp->options[i];

		describe_valid(o, valid, sizeof(valid));
		describe_default(o, m, def, sizeof(def));
		help_line(f, o->name, metavar(o), o->help ? o->help : "", def, valid);
	}
}
