/*
 * Command-line options of `mmlab run NAME`: the global ones every
 * experiment takes, then the experiment's own (each parsed by
 * opt_value.c).  Parsing never exits: every error is returned as one line
 * naming the option, the bad value and what is valid, and the caller
 * prints it and exits 2.  Nothing is clamped.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <machine/vt.h>
#include <mmlab/host_facts.h>
#include <mmlab/kernel.h>
#include <mmlab/lab.h>
#include <mmlab/opt_global.h>
#include <mmlab/opt_value.h>
#include <mmlab/options.h>
#include <mmlab/vt_presets.h>

const struct global_desc lab_globals[NR_GLOBALS] = {
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
	[G_MACHINE] = { "machine", "NAME|FILE", "host (real threads on this machine's cores) or a simulated "
			"machine run in virtual time: a preset of `mmlab machines` or a machine file" },
	[G_PREEMPT] = { "preempt", "MODEL", "the simulated kernel's preemption model (its preempt= boot "
			"parameter): none and voluntary run cond_resched()'s checks at every preemption "
			"point, full makes it a call that returns at once" },
};

const char *const lab_scale_names[NR_SCALES] = {
	[SCALE_TINY] = "tiny", [SCALE_DEFAULT] = "default", [SCALE_FULL] = "full",
};

static const char *const lab_preempt_names[NR_PREEMPT_MODELS] = {
	[PREEMPT_MODEL_NONE] = "none", [PREEMPT_MODEL_VOLUNTARY] = "voluntary",
	[PREEMPT_MODEL_FULL] = "full",
};

const char *lab_preempt_name(int model)
{
	return model >= 0 && model < NR_PREEMPT_MODELS ? lab_preempt_names[model] : "?";
}

const char *lab_scale_name(enum scale s)
{
	return s < NR_SCALES ? lab_scale_names[s] : "?";
}

/* --- the command line ------------------------------------------------------- */

struct given {
	const char *global[NR_GLOBALS];
	const char **exp;		/* [exp->nr_options] */
};

int opt_default_repeat(const struct experiment *exp, enum scale s)
{
	if (exp->default_repeat[s] > 0)
		return exp->default_repeat[s];
	if (exp->default_repeat[SCALE_DEFAULT] > 0)
		return exp->default_repeat[SCALE_DEFAULT];
	return 5;
}

const char *opt_default_mem(const struct experiment *exp, enum scale s)
{
	if (exp->default_mem[s])
		return exp->default_mem[s];
	if (exp->default_mem[SCALE_DEFAULT])
		return exp->default_mem[SCALE_DEFAULT];
	return LAB_DEFAULT_MEM;
}

void opt_describe_global(int g, const struct experiment *exp,
			    const struct host_facts *m, char *buf, size_t len)
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
	case G_MACHINE:
		lab_vt_describe_valid(buf, len);
		break;
	case G_PREEMPT:
		snprintf(buf, len, "none, voluntary or full");
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
			const struct host_facts *m)
{
	char valid[LAB_ERR_LEN / 2];

	opt_describe_global(g, exp, m, valid, sizeof(valid));
	return opt_fail(err, len, "--%s: invalid value '%s' (%s); valid: %s",
		    lab_globals[g].name, value, why, valid);
}

/* Finds --NAME (@n characters): 0 and *idx for a global, 1 for the experiment's. */
static int lookup(const struct experiment *exp, const char *name, size_t n, int *idx)
{
	int i;

	for (i = 0; i < NR_GLOBALS; i++)
		if (strlen(lab_globals[i].name) == n && !strncmp(lab_globals[i].name, name, n)) {
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
				 i < NR_GLOBALS ? lab_globals[i].name : exp->options[i - NR_GLOBALS].name);
	return opt_fail(err, len, "unknown option '--%.*s' for %s; valid: %s, --help",
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

static int collect(const struct experiment *exp, const struct host_facts *m,
		   int argc, char **argv, struct given *g, char *err, size_t len)
{
	int i, idx, kind;

	for (i = 0; i < argc; i++) {
		const char *arg = argv[i], *name = arg + 2, *eq, *value;
		char valid[LAB_ERR_LEN / 2];
		size_t n;

		if (strncmp(arg, "--", 2) || !arg[2])
			return opt_fail(err, len, "unexpected argument '%s' for %s; options are --NAME VALUE or --NAME=VALUE",
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
				opt_describe_global(idx, exp, m, valid, sizeof(valid));
			else
				opt_describe_valid(&exp->options[idx], valid, sizeof(valid));
			return opt_fail(err, len, "--%.*s: missing value; valid: %s", (int)n, name, valid);
		}
		if (kind == 0)
			g->global[idx] = value;
		else
			g->exp[idx] = value;
	}
	return 0;
}

static int resolve_scale(struct lab_config *cfg, const struct given *g,
			 const struct host_facts *m, char *err, size_t len)
{
	const char *text = g->global[G_SCALE] ? g->global[G_SCALE] : "default";
	int s;

	for (s = 0; s < NR_SCALES; s++)
		if (!strcmp(text, lab_scale_names[s])) {
			cfg->scale = s;
			return 0;
		}
	return global_error(err, len, G_SCALE, text, "unknown scale", cfg->exp, m);
}

/*
 * Defined in build/mmlab by src/lab/designs.c; the runner's own tests link
 * without it, and there every variant counts as built.
 */
#pragma weak mm_kernels_not_built
#pragma weak mm_designs_built

const char *lab_variant_not_built(const struct exp_variant *v)
{
	const void *impl = v->impl;

	if (!mm_kernels_not_built || !impl)
		return NULL;
	for (int i = 0; mm_kernels_not_built[i]; i++) {
		const struct mm_kernel *k = mm_kernels_not_built[i];

		if (impl == k || *(const void *const *)impl == k)
			return k->name;
	}
	return NULL;
}

static int resolve_variants(struct lab_config *cfg, const struct given *g,
			    const struct host_facts *m, char *err, size_t len)
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
		return opt_fail(err, len, "out of memory");
	}
	/* all: every variant whose design this mmlab was built with */
	for (i = 0; i < exp->nr_variants; i++)
		pick[i] = !strcmp(text, "all") && !lab_variant_not_built(&exp->variants[i]);
	while (strcmp(text, "all")) {
		size_t n = strcspn(p, ",");
		const char *missing;

		for (i = 0; i < exp->nr_variants; i++)
			if (strlen(exp->variants[i].name) == n && !strncmp(exp->variants[i].name, p, n))
				break;
		if (i == exp->nr_variants) {
			snprintf(why, sizeof(why), "unknown variant '%.*s'", (int)n, p);
			ret = global_error(err, len, G_VARIANT, text, why, exp, m);
			break;
		}
		missing = lab_variant_not_built(&exp->variants[i]);
		if (missing) {
			ret = opt_fail(err, len, "--variant %s: %s's design %s is not built into this "
				       "mmlab; built: %s (make DESIGNS=...)", text, exp->variants[i].name,
				       missing, mm_designs_built);
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
			const struct host_facts *m, char *err, size_t len)
{
	long long secs = LAB_AUTO_SECONDS;

	if (strncmp(text, "auto", 4) || (text[4] && text[4] != ':'))
		return 1;
	if (text[4] && opt_parse_ll(text + 5, &secs))
		return global_error(err, len, G_REPEAT, text, "SECONDS is not an integer", cfg->exp, m);
	if (secs < 1 || secs > LAB_AUTO_MAX_SECONDS)
		return global_error(err, len, G_REPEAT, text, "SECONDS out of range", cfg->exp, m);
	cfg->repeat_auto = true;
	cfg->auto_seconds = secs;
	cfg->repeat = LAB_AUTO_MAX_REPEAT;
	return 0;
}

static int resolve_ci_target(struct lab_config *cfg, const struct given *g,
			     const struct host_facts *m, char *err, size_t len)
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
			 const struct host_facts *m, char *err, size_t len)
{
	const char *text = g->global[G_SHARD], *end;
	long long i, n;

	if (!text)
		return 0;
	if (opt_scan_ll(text, &i, &end) || *end != '/' || opt_parse_ll(end + 1, &n))
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
			   const struct host_facts *m, char *err, size_t len)
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
		if (opt_parse_ll(text, &repeat))
			return global_error(err, len, G_REPEAT, text, "not an integer", exp, m);
	} else {
		repeat = opt_default_repeat(exp, cfg->scale);
		text = "the experiment's default";
	}
	if (repeat < 1 || repeat > LAB_MAX_REPEAT)
		return global_error(err, len, G_REPEAT, text, "out of range", exp, m);
	cfg->repeat = (int)repeat;

	cfg->seed = 1;
	text = g->global[G_SEED];
	if (text && opt_parse_u64(text, &cfg->seed))
		return global_error(err, len, G_SEED, text, "not an unsigned 64-bit integer", exp, m);
	return resolve_ci_target(cfg, g, m, err, len) || resolve_shard(cfg, g, m, err, len) ? -1 : 0;
}

static int resolve_mem(struct lab_config *cfg, const struct given *g,
		       const struct host_facts *m, char *err, size_t len)
{
	const char *text = g->global[G_MEM] ? g->global[G_MEM] : opt_default_mem(cfg->exp, cfg->scale);
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
				 cfg->exp->name, lab_scale_names[cfg->scale]);
		return global_error(err, len, G_MEM, text, why, cfg->exp, m);
	}
	return 0;
}

/* --preempt: voluntary (the distributions' default) unless given. */
static int resolve_preempt(struct lab_config *cfg, const struct given *g,
			   const struct host_facts *m, char *err, size_t len)
{
	const char *text = g->global[G_PREEMPT];

	cfg->preempt = PREEMPT_MODEL_VOLUNTARY;
	if (!text)
		return 0;
	for (int i = 0; i < NR_PREEMPT_MODELS; i++) {
		if (!strcmp(text, lab_preempt_names[i])) {
			cfg->preempt = i;
			return 0;
		}
	}
	return global_error(err, len, G_PREEMPT, text, "not a preemption model", cfg->exp, m);
}

/*
 * --machine: host (NULL), or a simulated machine, which only experiments
 * that run in virtual time accept.  Virtual time is deterministic, so
 * --repeat defaults to the experiment's vt_default_repeat there (1 unless
 * its repetitions draw different interleavings).
 */
static int resolve_machine(struct lab_config *cfg, const struct given *g,
			   const struct host_facts *m, char *err, size_t len)
{
	const char *text = g->global[G_MACHINE];

	cfg->vt = NULL;
	if (!text || !strcmp(text, "host"))
		return 0;
	if (!cfg->exp->virtual_time)
		return opt_fail(err, len, "--machine %s: %s runs on the host only; valid: host", text, cfg->exp->name);
	cfg->vt = calloc(1, sizeof(*cfg->vt));
	if (!cfg->vt)
		return opt_fail(err, len, "out of memory");
	if (lab_vt_resolve(text, cfg->vt, err, len))
		return -1;
	if (!g->global[G_REPEAT] && !cfg->repeat_auto)
		cfg->repeat = cfg->exp->vt_default_repeat > 0 ? cfg->exp->vt_default_repeat : 1;
	/* Variants that measure the host itself have no place on a simulated machine. */
	for (int i = 0, j = 0; i < cfg->nr_variants; i++) {
		if (cfg->variants[i]->host_only && g->global[G_VARIANT])
			return opt_fail(err, len, "--variant %s: %s measures the host and cannot run with "
					"--machine %s", g->global[G_VARIANT], cfg->variants[i]->name, text);
		if (!cfg->variants[i]->host_only)
			cfg->variants[j++] = cfg->variants[i];
		if (i == cfg->nr_variants - 1)
			cfg->nr_variants = j;
	}
	return 0;
}

static int resolve_options(struct lab_config *cfg, const struct given *g,
			   const struct host_facts *m, char *err, size_t len)
{
	const struct experiment *exp = cfg->exp;
	char valid[LAB_ERR_LEN / 2];
	int i;

	for (i = 0; i < exp->nr_options; i++) {
		const struct exp_option *o = &exp->options[i];
		const char *text = g->exp[i] ? g->exp[i] : opt_default(o, cfg->scale);

		if (!text) {
			opt_describe_valid(o, valid, sizeof(valid));
			return opt_fail(err, len, "--%s is required; valid: %s", o->name, valid);
		}
		if (lab_parse_value(o, text, m, &cfg->values[i], err, len))
			return -1;
	}
	return 0;
}

int lab_parse_args(struct lab_config *cfg, const struct experiment *exp,
		   const struct host_facts *m, int argc, char **argv,
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
		opt_fail(err, len, "out of memory");
		goto out;
	}
	if (collect(exp, m, argc, argv, &g, err, len) ||
	    resolve_scale(cfg, &g, m, err, len) ||
	    resolve_variants(cfg, &g, m, err, len) ||
	    resolve_numbers(cfg, &g, m, err, len) ||
	    resolve_mem(cfg, &g, m, err, len) ||
	    resolve_preempt(cfg, &g, m, err, len) ||
	    resolve_machine(cfg, &g, m, err, len) ||
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
	free(cfg->vt);
	cfg->vt = NULL;
	cfg->values = NULL;
	cfg->variants = NULL;
	cfg->nr_variants = 0;
}
