/*
 * The JSON record of one run, in the shape of docs/INTERFACE.md, written
 * through a small emitter that owns commas and indentation so the output
 * is valid whatever the path through it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <machine/vt.h>
#include <mmlab/lab.h>
#include <mmlab/noise.h>
#include <mmlab/opt_global.h>
#include <mmlab/options.h>
#include <mmlab/output.h>
#include <mmlab/result.h>
#include <mmlab/stats.h>

#define JW_MAX_DEPTH	16

struct jw {
	FILE *f;
	int depth;
	bool first[JW_MAX_DEPTH];	/* nothing written yet at this depth */
	bool flat[JW_MAX_DEPTH];	/* elements on one line */
};

static void jw_quote(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* The comma, line break and key before a value. */
static void jw_sep(struct jw *w, const char *key)
{
	int d = w->depth;

	if (d) {
		if (!w->first[d])
			fputs(w->flat[d] ? ", " : ",", w->f);
		if (!w->flat[d])
			fprintf(w->f, "\n%*s", 2 * d, "");
		w->first[d] = false;
	}
	if (key) {
		jw_quote(w->f, key);
		fputs(": ", w->f);
	}
}

static void jw_open(struct jw *w, const char *key, char brace, bool flat)
{
	jw_sep(w, key);
	fputc(brace, w->f);
	if (w->depth + 1 >= JW_MAX_DEPTH)
		abort();
	w->depth++;
	w->first[w->depth] = true;
	w->flat[w->depth] = flat || w->flat[w->depth - 1];
}

static void jw_close(struct jw *w, char brace)
{
	bool multi_line = !w->flat[w->depth] && !w->first[w->depth];

	w->depth--;
	if (multi_line)
		fprintf(w->f, "\n%*s", 2 * w->depth, "");
	fputc(brace, w->f);
}

static void jw_string(struct jw *w, const char *key, const char *s)
{
	jw_sep(w, key);
	jw_quote(w->f, s ? s : "");
}

/* Non-finite numbers have no JSON spelling: null. */
static void jw_number(struct jw *w, const char *key, double d)
{
	jw_sep(w, key);
	if (isfinite(d))
		fprintf(w->f, "%.15g", d);
	else
		fputs("null", w->f);
}

/* A sample: 17 digits, so that reading it back (compare, merge) gives the same double. */
static void jw_number_exact(struct jw *w, const char *key, double d)
{
	jw_sep(w, key);
	if (isfinite(d))
		fprintf(w->f, "%.17g", d);
	else
		fputs("null", w->f);
}

static void jw_integer(struct jw *w, const char *key, long long i)
{
	jw_sep(w, key);
	fprintf(w->f, "%lld", i);
}

static void jw_unsigned(struct jw *w, const char *key, unsigned long long u)
{
	jw_sep(w, key);
	fprintf(w->f, "%llu", u);
}

static void jw_bool(struct jw *w, const char *key, bool b)
{
	jw_sep(w, key);
	fputs(b ? "true" : "false", w->f);
}

/* A JSON text the experiment made (a point, a counter): written as is. */
static void jw_raw(struct jw *w, const char *key, const char *json, const char *empty)
{
	jw_sep(w, key);
	fputs(json && json[0] ? json : empty, w->f);
}

/* A value read by json_read.c, written back as it was. */
static void jw_node(struct jw *w, const char *key, const struct json *j)
{
	const struct json *m;

	switch (j->type) {
	case JSON_NULL:
		jw_raw(w, key, "null", "null");
		break;
	case JSON_BOOL:
		jw_bool(w, key, j->num != 0);
		break;
	case JSON_NUMBER:
		jw_raw(w, key, j->text, "null");
		break;
	case JSON_STRING:
		jw_string(w, key, j->text);
		break;
	case JSON_ARRAY:
	case JSON_OBJECT:
		jw_open(w, key, j->type == JSON_ARRAY ? '[' : '{', j->type == JSON_ARRAY);
		for (m = j->child; m; m = m->next)
			jw_node(w, m->key, m);
		jw_close(w, j->type == JSON_ARRAY ? ']' : '}');
		break;
	}
}

/* --- sections ------------------------------------------------------------------- */

/* The seed's own measurements on the simulated machine, for reports to draw beside ours. */
static void write_seed_points(struct jw *w, const struct vt_machine *m, const char *experiment)
{
	bool any = false;

	for (int i = 0; i < m->nr_seed; i++)
		any |= !strcmp(m->seed[i].experiment, experiment);
	if (!any)
		return;
	jw_open(w, "seed_points", '[', false);
	for (int i = 0; i < m->nr_seed; i++) {
		const struct vt_seed_series *s = &m->seed[i];

		if (strcmp(s->experiment, experiment))
			continue;
		jw_open(w, NULL, '{', true);
		jw_string(w, "variant", s->variant);
		if (s->counter[0])
			jw_string(w, "counter", s->counter);
		jw_string(w, "source", s->src);
		/* A value, or [lo, hi] where the seed gives a range. */
		jw_open(w, "points", '{', true);
		for (int k = 0; k < s->nr; k++) {
			const char *key = s->point[k];

			if (s->lo[k] == s->hi[k]) {
				jw_number(w, key, s->lo[k]);
				continue;
			}
			jw_open(w, key, '[', false);
			jw_number(w, NULL, s->lo[k]);
			jw_number(w, NULL, s->hi[k]);
			jw_close(w, ']');
		}
		jw_close(w, '}');
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

/*
 * The simulated machine as a machine file (every number and its source),
 * so a run on a derived machine (host-model) can be repeated and explained.
 */
static void write_machine_file(struct jw *w, const struct vt_machine *m)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	vt_machine_print(f, m);
	if (fclose(f) == 0 && text)
		jw_string(w, "machine_file", text);
	free(text);
}

static void write_header(struct jw *w, const struct lab_results *r, const char *git)
{
	jw_open(w, "mmlab", '{', true);
	jw_string(w, "version", LAB_VERSION);
	jw_string(w, "git", git);
	jw_close(w, '}');
	jw_string(w, "experiment", r->exp->name);
	jw_string(w, "description", r->exp->desc);
	jw_string(w, "seed", r->exp->seed);
	jw_open(w, "machine", '{', true);
	jw_integer(w, "cpus", r->machine.cpus);
	jw_string(w, "cpu_model", r->machine.cpu_model);
	jw_unsigned(w, "mem_bytes", r->machine.mem_bytes);
	if (r->machine.name[0]) {
		jw_string(w, "name", r->machine.name);
		jw_string(w, "time", "virtual");
		if (r->cfg && r->cfg->vt) {
			jw_string(w, "line_order", vt_order_names[r->cfg->vt->line_order]);
			jw_number(w, "line_window", r->cfg->vt->line_window);
			jw_bool(w, "hierarchy", r->cfg->vt->hier);
			write_machine_file(w, r->cfg->vt);
			write_seed_points(w, r->cfg->vt, r->exp->name);
		}
	}
	jw_close(w, '}');
}

/* The @idx-th word of "a,b,c". */
static void write_choice(struct jw *w, const char *key, const char *choices, int idx)
{
	const char *p = choices ? choices : "";
	char word[64];
	size_t n;

	for (; idx > 0 && *p; idx--) {
		p += strcspn(p, ",");
		if (*p)
			p++;
	}
	n = strcspn(p, ",");
	snprintf(word, sizeof(word), "%.*s", (int)n, p);
	jw_string(w, key, word);
}

static void write_option(struct jw *w, const struct opt_value *v)
{
	const struct exp_option *o = v->opt;
	int i;

	switch (o->type) {
	case OPT_INT:
		if (o->choices && v->choice >= 0) {
			write_choice(w, o->name, o->choices, v->choice);
			break;
		}
		jw_integer(w, o->name, v->i);
		break;
	case OPT_SIZE:
		jw_integer(w, o->name, v->i);
		break;
	case OPT_DOUBLE:
		jw_number(w, o->name, v->d);
		break;
	case OPT_INT_LIST:
		jw_open(w, o->name, '[', true);
		for (i = 0; i < v->nr_list; i++)
			jw_integer(w, NULL, v->list[i]);
		jw_close(w, ']');
		break;
	case OPT_CHOICE:
		write_choice(w, o->name, o->choices, v->choice);
		break;
	case OPT_CHOICE_LIST:
		jw_open(w, o->name, '[', true);
		for (i = 0; i < v->nr_list; i++)
			write_choice(w, NULL, o->choices, (int)v->list[i]);
		jw_close(w, ']');
		break;
	}
}

/* Merged: the shards' params, with the repetitions the merged cells have. */
static void write_merged_params(struct jw *w, const struct lab_results *r)
{
	const struct json *m;

	jw_open(w, "params", '{', false);
	for (m = r->params->child; m; m = m->next)
		if (!strcmp(m->key, "repeat"))
			jw_integer(w, "repeat", r->max_samples);
		else
			jw_node(w, m->key, m);
	jw_close(w, '}');
}

static void write_params(struct jw *w, const struct lab_results *r)
{
	const struct lab_config *cfg = r->cfg;
	int i;

	if (r->params) {
		write_merged_params(w, r);
		return;
	}
	jw_open(w, "params", '{', false);
	jw_string(w, "scale", lab_scale_name(cfg->scale));
	/* with --repeat auto: the most any cell got (each result lists its own) */
	jw_integer(w, "repeat", cfg->repeat_auto ? r->max_samples : cfg->repeat);
	if (cfg->repeat_auto) {
		jw_open(w, "repeat_auto", '{', true);
		jw_number(w, "seconds", cfg->auto_seconds);
		jw_number(w, "ci_target_pct", cfg->ci_target_pct);
		jw_integer(w, "min", LAB_AUTO_MIN_REPEAT);
		jw_integer(w, "max", cfg->repeat);
		jw_close(w, '}');
	}
	jw_unsigned(w, "seed", cfg->seed);
	jw_unsigned(w, "mem", cfg->mem_bytes);
	jw_string(w, "preempt", lab_preempt_name(cfg->preempt));
	jw_string(w, "machine", cfg->vt ? cfg->vt->name : "host");
	jw_open(w, "variant", '[', true);
	for (i = 0; i < cfg->nr_variants; i++)
		jw_string(w, NULL, cfg->variants[i]->name);
	jw_close(w, ']');
	for (i = 0; i < r->exp->nr_options; i++)
		write_option(w, &cfg->values[i]);
	jw_close(w, '}');
}

/*
 * One counter of a cell: the median over the samples that carry it, or,
 * for a JSON counter, the text of the last sample that carries it.
 */
static void write_counter(struct jw *w, const struct lab_cell *c, const char *name)
{
	double *values = malloc((c->nr_samples + 1) * sizeof(*values));
	const char *json = NULL;
	int i, k, n = 0;

	if (!values)
		abort();
	for (i = 0; i < c->nr_samples; i++)
		for (k = 0; k < c->samples[i].nr_counters; k++) {
			const struct counter *ctr = &c->samples[i].counters[k];

			if (strcmp(ctr->name, name))
				continue;
			if (ctr->json)
				json = ctr->json;
			else
				values[n++] = ctr->value;
		}
	if (json)
		jw_raw(w, name, json, "null");
	else
		jw_number(w, name, lab_median(values, n));
	free(values);
}

static bool seen(const char **names, int nr, const char *name)
{
	int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

static void write_counters(struct jw *w, const struct lab_cell *c)
{
	const char **names = NULL;
	int nr = 0, cap = 0, i, k;

	if (c->counters) {
		jw_node(w, "counters", c->counters);
		return;
	}
	jw_open(w, "counters", '{', true);
	for (i = 0; i < c->nr_samples; i++)
		for (k = 0; k < c->samples[i].nr_counters; k++) {
			const char *name = c->samples[i].counters[k].name;

			if (seen(names, nr, name))
				continue;
			if (nr == cap) {
				cap = cap ? 2 * cap : MAX_COUNTERS;
				names = realloc(names, cap * sizeof(*names));
				if (!names)
					abort();
			}
			names[nr++] = name;
			write_counter(w, c, name);
		}
	jw_close(w, '}');
	free(names);
}

static void jw_count(struct jw *w, const char *key, long long n)
{
	if (n < 0)
		jw_raw(w, key, "null", "null");
	else
		jw_integer(w, key, n);
}

static void write_noise(struct jw *w, const struct lab_noise *n)
{
	jw_open(w, "host_noise", '{', true);
	jw_number(w, "steal_pct", n->steal_pct);
	jw_number(w, "max_steal_pct", n->max_steal_pct);
	jw_count(w, "nivcsw", n->nivcsw);
	jw_count(w, "cpu_migrations", n->cpu_migrations);
	jw_integer(w, "flagged_samples", n->flagged_samples);
	jw_number(w, "flag_steal_pct", LAB_STEAL_FLAG_PCT);
	jw_close(w, '}');
}

/* One variant at one point in one metric; every metric's result carries the counters. */
static void write_result(struct jw *w, const struct exp_metric *m, const struct lab_cell *c)
{
	int i;

	jw_open(w, NULL, '{', false);
	jw_string(w, "variant", c->variant->name);
	jw_raw(w, "point", c->point->json, "{}");
	jw_string(w, "metric", m->name);
	jw_string(w, "unit", m->unit);
	jw_bool(w, "higher_is_better", m->higher_is_better);
	jw_open(w, "samples", '[', true);
	for (i = 0; i < c->nr_samples; i++)
		jw_number_exact(w, NULL, c->values[i]);
	jw_close(w, ']');
	jw_number(w, "median", c->sum.median);
	jw_number(w, "min", c->sum.min);
	jw_number(w, "max", c->sum.max);
	write_counters(w, c);
	write_noise(w, &c->noise_sum);
	jw_close(w, '}');
}

static const char *verdict_name(enum lab_verdict v)
{
	switch (v) {
	case VERDICT_IMPROVEMENT:	return "improvement";
	case VERDICT_REGRESSION:	return "regression";
	case VERDICT_NONE:		break;
	}
	return "none";
}

/* @own: against the variant's own baseline (its exp_variant.base), not vanilla besides. */
static void write_comparison(struct jw *w, const struct exp_metric *m, const struct lab_cmp *cmp,
			     bool own)
{
	jw_open(w, NULL, '{', true);
	jw_string(w, "baseline", cmp->base->variant->name);
	jw_bool(w, "own_baseline", own);
	jw_string(w, "variant", cmp->cand->variant->name);
	jw_raw(w, "point", cmp->cand->point->json, "{}");
	jw_string(w, "metric", m->name);
	jw_number(w, "ratio", cmp->ratio);
	jw_number(w, "change_pct", cmp->change_pct);
	jw_bool(w, "significant", cmp->significant);
	jw_string(w, "verdict", verdict_name(cmp->verdict));
	jw_string(w, "test", LAB_TEST);
	jw_number(w, "p_value", cmp->p_value);
	jw_number(w, "ci95_low", cmp->ci_low);
	jw_number(w, "ci95_high", cmp->ci_high);
	jw_close(w, '}');
}

/* Metric by metric (the first metric's first), then point by point, variant by variant. */
static void write_results(struct jw *w, const struct lab_results *r)
{
	int nr = lab_nr_metrics(r->exp), m, p, v;

	jw_open(w, "results", '[', false);
	for (m = 0; m < nr; m++) {
		struct exp_metric me = lab_metric(r->exp, m);

		for (p = 0; p < r->nr_points; p++)
			for (v = 0; v < r->nr_variants; v++)
				write_result(w, &me, lab_metric_cell(r, m, p, v));
	}
	jw_close(w, ']');
	jw_open(w, "comparisons", '[', false);
	for (m = 0; m < nr; m++) {
		struct exp_metric me = lab_metric(r->exp, m);

		for (p = 0; p < r->nr_points; p++)
			for (v = 0; v < r->nr_variants; v++) {
				if (lab_base(r, v) >= 0)
					write_comparison(w, &me, lab_metric_cmp(r, m, p, v), true);
				if (lab_also_vanilla(r, v))
					write_comparison(w, &me, lab_metric_vcmp(r, m, p, v), false);
			}
	}
	jw_close(w, ']');
}

static void write_shard(struct jw *w, const struct lab_results *r)
{
	if (!r->shard_count)
		return;
	jw_open(w, "shard", '{', true);
	jw_integer(w, "index", r->shard_index);
	jw_integer(w, "count", r->shard_count);
	jw_close(w, '}');
}

/* Every point of the run, measured here or in another shard. */
static void write_points(struct jw *w, const struct lab_results *r)
{
	int i;

	jw_open(w, "points", '[', false);
	for (i = 0; i < r->nr_all_points; i++) {
		jw_open(w, NULL, '{', true);
		jw_integer(w, "index", i);
		jw_string(w, "label", r->all_points[i].label);
		jw_raw(w, "point", r->all_points[i].json, "{}");
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

static void write_checks(struct jw *w, const struct lab_results *r)
{
	jw_open(w, "checks", '{', true);
	jw_string(w, "invariants", r->invariants_failed ? "failed" : "passed");
	jw_string(w, "data", r->data_failed ? "failed" : "passed");
	jw_close(w, '}');
}

int lab_json_write(FILE *f, const struct lab_results *r, const char *git)
{
	struct jw w = { .f = f };

	jw_open(&w, NULL, '{', false);
	write_header(&w, r, git);
	write_params(&w, r);
	write_shard(&w, r);
	write_points(&w, r);
	write_results(&w, r);
	write_checks(&w, r);
	jw_close(&w, '}');
	fputc('\n', f);
	return fflush(f) || ferror(f) ? -1 : 0;
}
