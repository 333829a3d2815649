/*
 * The measurement loop shared by every experiment.  For each point and
 * repetition every selected variant runs once, in order, so slow drift of
 * the machine (frequency, thermal, neighbours) hits all variants alike
 * instead of biasing whichever ran last.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <machine/machine.h>
#include <machine/vt.h>
#include <mmlab/files.h>
#include <mmlab/host_facts.h>
#include <mmlab/lab.h>
#include <mmlab/noise.h>
#include <mmlab/options.h>
#include <mmlab/output.h>
#include <mmlab/result.h>
#include <mmlab/stats.h>

/* The points of shard I of N: index % N == I, every variant of a point together. */
static int select_points(struct lab_results *r, const struct lab_config *cfg,
			 const struct exp_ctx *ctx)
{
	int i;

	r->all_points = ctx->points;
	r->nr_all_points = ctx->nr_points;
	r->shard_index = cfg->shard_index;
	r->shard_count = cfg->shard_count;
	r->points = calloc(ctx->nr_points, sizeof(*r->points));
	r->point_index = calloc(ctx->nr_points, sizeof(*r->point_index));
	if (!r->points || !r->point_index)
		return -1;
	for (i = 0; i < ctx->nr_points; i++) {
		if (cfg->shard_count && i % cfg->shard_count != cfg->shard_index)
			continue;
		r->point_index[r->nr_points] = i;
		r->points[r->nr_points++] = &ctx->points[i];
	}
	return 0;
}

int lab_results_alloc(struct lab_results *r, int capacity, bool samples)
{
	int per_metric = r->nr_points * r->nr_variants;
	int nr_cells = lab_nr_metrics(r->exp) * per_metric, i;

	r->capacity = capacity;
	r->cells = calloc(nr_cells + 1, sizeof(*r->cells));
	r->cmps = calloc(nr_cells + 1, sizeof(*r->cmps));
	r->vcmps = calloc(nr_cells + 1, sizeof(*r->vcmps));
	r->bases = calloc(r->nr_variants + 1, sizeof(*r->bases));
	if (!r->cells || !r->cmps || !r->vcmps || !r->bases)
		return -1;
	for (i = 0; i < nr_cells; i++) {
		struct lab_cell *c = &r->cells[i];
		int in_metric = i % per_metric;

		c->point = r->points[in_metric / r->nr_variants];
		if (i >= per_metric) {
			c->samples = r->cells[in_metric].samples;
			c->noise = r->cells[in_metric].noise;
		} else if (samples) {
			c->samples = calloc(capacity, sizeof(*c->samples));
			c->noise = calloc(capacity, sizeof(*c->noise));
			if (!c->samples || !c->noise)
				return -1;
		}
		c->values = calloc(capacity + 1, sizeof(*c->values));
		if (!c->values)
			return -1;
	}
	return 0;
}

/*
 * Cells of every metric; a point's cells share the first metric's samples
 * and have values of their own.
 */
static int results_init(struct lab_results *r, const struct lab_config *cfg,
			const struct exp_ctx *ctx, const struct host_facts *m)
{
	int per_metric, i;

	memset(r, 0, sizeof(*r));
	r->exp = cfg->exp;
	r->cfg = cfg;
	r->ctx = ctx;
	r->machine = *m;
	if (cfg->vt) {
		/* The results are the simulated machine's, not this host's. */
		r->machine.cpus = cfg->vt->nr_cpus;
		snprintf(r->machine.cpu_model, sizeof(r->machine.cpu_model), "%.120s", cfg->vt->desc);
		snprintf(r->machine.name, sizeof(r->machine.name), "%s", cfg->vt->name);
	}
	r->nr_variants = cfg->nr_variants;
	r->base = -1;
	r->probe.perf_fd = -1;
	if (select_points(r, cfg, ctx) || lab_results_alloc(r, cfg->repeat, true))
		return -1;
	per_metric = r->nr_points * r->nr_variants;
	for (i = 0; i < lab_nr_metrics(r->exp) * per_metric; i++)
		r->cells[i].variant = cfg->variants[i % per_metric % r->nr_variants];
	return 0;
}

void lab_results_free(struct lab_results *r)
{
	int per_metric = r->nr_points * r->nr_variants, i, j, k;

	for (i = 0; r->cells && i < lab_nr_metrics(r->exp) * per_metric; i++) {
		struct lab_cell *c = &r->cells[i];

		free(c->values);
		if (i >= per_metric)
			continue;
		for (j = 0; c->samples && j < r->capacity; j++)
			for (k = 0; k < c->samples[j].nr_counters; k++)
				free(c->samples[j].counters[k].json);
		free(c->samples);
		free(c->noise);
	}
	free(r->cells);
	free(r->cmps);
	free(r->vcmps);
	free(r->bases);
	free(r->points);
	free(r->point_index);
	r->cells = NULL;
	r->cmps = NULL;
	r->vcmps = NULL;
	r->bases = NULL;
	r->points = NULL;
	r->point_index = NULL;
}

static const char *check_name(bool invariants, bool data)
{
	if (invariants && data)
		return "invariant and data checks";
	return invariants ? "invariant check" : "data check";
}

static void note_failure(struct lab_results *r, const struct lab_cell *c, int rep,
			 const struct sample *s)
{
	char point[96];

	r->invariants_failed |= s->invariants_failed;
	r->data_failed |= s->data_failed;
	if (r->nr_failed++)
		return;
	lab_format_point(point, sizeof(point), r->exp, c->point);
	snprintf(r->failure, sizeof(r->failure), "%s failed: %s (%s at %s, rep %d)",
		 check_name(s->invariants_failed, s->data_failed),
		 s->failure[0] ? s->failure : "no reason given", c->variant->name, point, rep);
}

/*
 * The sample's value of each extra metric into that metric's cell.  A
 * missing value is NAN in a sample whose check failed (it may have
 * stopped early), else an internal error, as is an undeclared name.
 */
static int take_metrics(struct lab_results *r, int point, int variant, int rep, FILE *err)
{
	const struct lab_cell *c = lab_cell(r, point, variant);
	const struct sample *s = &c->samples[rep];
	bool failed = s->invariants_failed || s->data_failed;
	int m, i, nr = lab_nr_metrics(r->exp);
	char where[128];

	lab_format_point(where, sizeof(where), r->exp, c->point);
	for (i = 0; i < s->nr_metrics; i++) {
		for (m = 1; m < nr; m++)
			if (!strcmp(s->metrics[i].name, lab_metric(r->exp, m).name))
				break;
		if (m == nr) {
			fprintf(err, "mmlab: %s: internal error: %s at %s, rep %d: metric '%s' is not declared\n",
				r->exp->name, c->variant->name, where, rep, s->metrics[i].name);
			return -1;
		}
	}
	for (m = 1; m < nr; m++) {
		struct lab_cell *mc = lab_metric_cell(r, m, point, variant);
		const char *name = lab_metric(r->exp, m).name;

		for (i = 0; i < s->nr_metrics; i++)
			if (!strcmp(s->metrics[i].name, name))
				break;
		if (i == s->nr_metrics && !failed) {
			fprintf(err, "mmlab: %s: internal error: %s at %s, rep %d: no value of metric '%s'\n",
				r->exp->name, c->variant->name, where, rep, name);
			return -1;
		}
		mc->values[rep] = i < s->nr_metrics ? s->metrics[i].value : NAN;
		mc->nr_samples = rep + 1;
	}
	return 0;
}

static void warn_noise(const struct lab_results *r, const struct lab_cell *c, int rep,
		       const struct lab_sample_noise *n, FILE *err)
{
	char point[96];

	lab_format_point(point, sizeof(point), r->exp, c->point);
	fprintf(err, "mmlab: warning: %s: %s at %s, rep %d: the host stole %.1f%% of the CPU time "
		"(flagged at >= %g%%); the sample may be disturbed\n", r->exp->name,
		c->variant->name, point, rep, n->steal_pct, LAB_STEAL_FLAG_PCT);
}

static int run_sample(struct lab_results *r, struct exp_ctx *ctx, int point, int variant,
		      int rep, FILE *progress, FILE *err)
{
	struct lab_cell *c = lab_cell(r, point, variant);
	struct sample *s = &c->samples[rep];
	struct lab_noise_mark before, after;
	int ret;
	char buf[64];

	memset(s, 0, sizeof(*s));
	/* A virtual-time sample does not depend on the host's load: its noise is not measured. */
	if (!ctx->machine->host_noise) {
		ret = r->exp->run_one(ctx, c->variant, (struct exp_point *)c->point, rep, s);
	} else {
		lab_noise_mark(&r->probe, &before);
		ret = r->exp->run_one(ctx, c->variant, (struct exp_point *)c->point, rep, s);
		lab_noise_mark(&r->probe, &after);
		lab_noise_delta(&before, &after, &c->noise[rep]);
		if (c->noise[rep].flagged)
			warn_noise(r, c, rep, &c->noise[rep], err);
	}
	if (ret) {
		lab_format_point(buf, sizeof(buf), r->exp, c->point);
		fprintf(err, "mmlab: %s: %s could not run at %s, rep %d\n",
			r->exp->name, c->variant->name, buf, rep);
		return -1;
	}
	c->values[rep] = s->value;
	c->nr_samples = rep + 1;
	if (take_metrics(r, point, variant, rep, err))
		return -1;
	if (s->invariants_failed || s->data_failed)
		note_failure(r, c, rep, s);
	if (progress) {
		lab_format_value(buf, sizeof(buf), s->value);
		fprintf(progress, " %s %s%s", c->variant->name, buf,
			s->invariants_failed || s->data_failed ? " (FAILED)" : "");
	}
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One repetition of every variant at point @p, in order: A B C ... */
static int run_round(struct lab_results *r, struct exp_ctx *ctx, int p, int rep,
		     const char *step, FILE *progress, FILE *err)
{
	char point[96], of[16] = "";
	int v;

	lab_format_point(point, sizeof(point), r->exp, r->points[p]);
	if (!r->cfg->repeat_auto)
		snprintf(of, sizeof(of), "/%d", r->cfg->repeat);
	if (progress)
		fprintf(progress, "%s [%s] %s, rep %d%s:", r->exp->name, step, point, rep + 1, of);
	for (v = 0; v < r->nr_variants; v++)
		if (run_sample(r, ctx, p, v, rep, progress, err))
			return -1;
	if (progress)
		fprintf(progress, " %s\n", r->exp->unit);
	return 0;
}

static int collect_fixed(struct lab_results *r, struct exp_ctx *ctx, FILE *progress, FILE *err)
{
	int repeat = r->cfg->repeat, step = 0, steps = r->nr_points * repeat, p, rep;
	char buf[32];

	for (p = 0; p < r->nr_points; p++)
		for (rep = 0; rep < repeat; rep++) {
			snprintf(buf, sizeof(buf), "%d/%d", ++step, steps);
			if (run_round(r, ctx, p, rep, buf, progress, err))
				return -1;
		}
	return 0;
}

/* Every comparison at point @p, in every metric, has a narrow interval. */
static bool point_narrow(struct lab_results *r, int p, double target_pct)
{
	int nr = lab_nr_metrics(r->exp), m, v;

	for (m = 0; m < nr; m++)
		for (v = 0; v < r->nr_variants; v++) {
			struct lab_cell *b, *c = lab_metric_cell(r, m, p, v);
			double lo, hi, ratio;

			if (lab_base(r, v) < 0)
				continue;
			b = lab_metric_cell(r, m, p, lab_base(r, v));
			ratio = lab_median(c->values, c->nr_samples) /
				lab_median(b->values, b->nr_samples);
			lab_ratio_ci(b->values, b->nr_samples, c->values, c->nr_samples,
				     LAB_ALPHA, &lo, &hi);
			if (!lab_ci_narrow(ratio, lo, hi, target_pct))
				return false;
		}
	return true;
}

static void find_baselines(struct lab_results *r);

/*
 * --repeat auto: rounds over the points not yet narrow, each round one
 * repetition of every variant (still interleaved), until every point's
 * intervals are narrow, the time is up or LAB_AUTO_MAX_REPEAT is reached;
 * never fewer than LAB_AUTO_MIN_REPEAT.  The intervals are computed
 * between rounds, outside any sample.
 */
static int collect_auto(struct lab_results *r, struct exp_ctx *ctx, FILE *progress, FILE *err)
{
	const struct lab_config *cfg = r->cfg;
	double start = now();
	bool *done = calloc(r->nr_points + 1, sizeof(*done));
	int rep, p, left = r->nr_points;
	char buf[48];
	const char *why = "every interval is narrow";

	if (!done)
		return -1;
	find_baselines(r);
	for (rep = 0; left; rep++) {
		if (rep >= LAB_AUTO_MIN_REPEAT && now() - start >= cfg->auto_seconds) {
			why = "the time bound was reached";
			break;
		}
		if (rep >= cfg->repeat) {
			why = "the repetition bound was reached";
			break;
		}
		for (p = 0; p < r->nr_points; p++) {
			if (done[p])
				continue;
			snprintf(buf, sizeof(buf), "auto, round %d", rep + 1);
			if (run_round(r, ctx, p, rep, buf, progress, err)) {
				free(done);
				return -1;
			}
			if (rep + 1 >= LAB_AUTO_MIN_REPEAT && point_narrow(r, p, cfg->ci_target_pct)) {
				done[p] = true;
				left--;
			}
		}
	}
	if (progress)
		fprintf(progress, "%s: --repeat auto stopped after %d round%s: %s\n", r->exp->name,
			rep, rep == 1 ? "" : "s", why);
	free(done);
	return 0;
}

static int collect_samples(struct lab_results *r, struct exp_ctx *ctx, FILE *progress, FILE *err)
{
	double start = now();
	int ret, p, v, n = 0;

	if (r->cfg->repeat_auto)
		ret = collect_auto(r, ctx, progress, err);
	else
		ret = collect_fixed(r, ctx, progress, err);
	for (p = 0; p < r->nr_points; p++)
		for (v = 0; v < r->nr_variants; v++)
			n += lab_cell(r, p, v)->nr_samples;
	if (!ret && progress)
		fprintf(progress, "%s: %d samples in %.1f s\n", r->exp->name, n, now() - start);
	return ret;
}

static int find_variant(const struct lab_results *r, const char *name)
{
	int v;

	for (v = 0; v < r->nr_variants; v++)
		if (!strcmp(lab_cell(r, 0, v)->variant->name, name))
			return v;
	return -1;
}

/* Vanilla's index, and each variant's own baseline's. */
static void find_baselines(struct lab_results *r)
{
	int v;

	r->base = r->nr_points ? find_variant(r, LAB_BASELINE) : -1;
	for (v = 0; r->nr_points && v < r->nr_variants; v++)
		r->bases[v] = v == r->base ? -1 :
			find_variant(r, lab_base_name(lab_cell(r, 0, v)->variant));
}

static void compare(struct lab_cmp *cmp, const struct lab_cell *base,
		    const struct lab_cell *cand, bool higher_is_better)
{
	double b = base->sum.median, c = cand->sum.median;
	double better = higher_is_better ? c - b : b - c;

	cmp->base = base;
	cmp->cand = cand;
	cmp->ratio = b != 0 ? c / b : NAN;
	cmp->change_pct = lab_change_pct(b, c, higher_is_better);
	cmp->p_value = lab_mann_whitney_p(base->values, base->nr_samples,
					  cand->values, cand->nr_samples);
	cmp->significant = cmp->p_value < LAB_ALPHA;
	lab_ratio_ci(base->values, base->nr_samples, cand->values, cand->nr_samples,
		     LAB_ALPHA, &cmp->ci_low, &cmp->ci_high);
	cmp->verdict = VERDICT_NONE;
	if (cmp->significant && better > 0)
		cmp->verdict = VERDICT_IMPROVEMENT;
	else if (cmp->significant && better < 0)
		cmp->verdict = VERDICT_REGRESSION;
}

void lab_results_analyze(struct lab_results *r)
{
	int nr = lab_nr_metrics(r->exp), m, p, v;

	r->min_samples = r->max_samples = 0;
	for (m = 0; m < nr; m++)
		for (p = 0; p < r->nr_points; p++)
			for (v = 0; v < r->nr_variants; v++) {
				struct lab_cell *c = lab_metric_cell(r, m, p, v);

				lab_summarize(c->values, c->nr_samples, &c->sum);
				if (c->noise)
					lab_noise_sum(c->noise, c->nr_samples, &c->noise_sum);
				if (!r->max_samples || c->nr_samples < r->min_samples)
					r->min_samples = c->nr_samples;
				if (c->nr_samples > r->max_samples)
					r->max_samples = c->nr_samples;
			}
	find_baselines(r);
	for (m = 0; m < nr; m++)
		for (p = 0; p < r->nr_points; p++)
			for (v = 0; v < r->nr_variants; v++) {
				bool hib = lab_metric(r->exp, m).higher_is_better;

				if (lab_base(r, v) >= 0)
					compare(lab_metric_cmp(r, m, p, v),
						lab_metric_cell(r, m, p, lab_base(r, v)),
						lab_metric_cell(r, m, p, v), hib);
				if (lab_also_vanilla(r, v))
					compare(lab_metric_vcmp(r, m, p, v),
						lab_metric_cell(r, m, p, r->base),
						lab_metric_cell(r, m, p, v), hib);
			}
}

/* The result, whole or not at all (temporary name, then rename). */
static int write_json(const char *path, const struct lab_results *r, FILE *err)
{
	char git[64], msg[LAB_ERR_LEN];
	struct lab_out o;
	int ret;

	host_git_rev(git, sizeof(git));
	if (lab_out_open(&o, path, msg, sizeof(msg))) {
		fprintf(err, "mmlab: --json: %s\n", msg);
		return -1;
	}
	ret = lab_json_write(o.f, r, git);
	if (lab_out_commit(&o, !ret, msg, sizeof(msg))) {
		fprintf(err, "mmlab: --json: %s\n", msg);
		return -1;
	}
	return 0;
}

static void init_ctx(struct exp_ctx *ctx, const struct lab_config *cfg)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->exp = cfg->exp;
	ctx->scale = cfg->scale;
	ctx->repeat = cfg->repeat;
	ctx->seed = cfg->seed;
	ctx->values = cfg->values;
	ctx->mem_bytes = cfg->mem_bytes;
	ctx->preempt = cfg->preempt;
	/* The one place the machine is chosen: the host, or --machine's. */
	ctx->machine = cfg->vt ? machine_vt(cfg->vt) : &machine_host;
	/* In virtual time the host's first touches of the arena cost nothing: keep it. */
	machine_arena_reuse(cfg->vt != NULL);
}

/* The experiment's declaration of its metrics: names present and distinct. */
static int check_metrics(const struct experiment *exp, FILE *err)
{
	int nr = exp->nr_extra_metrics, m, k;

	if (nr < 0 || nr > MAX_METRICS - 1 || (nr && !exp->extra_metrics)) {
		fprintf(err, "mmlab: %s: internal error: %d extra metrics (valid 0..%d)\n",
			exp->name, nr, MAX_METRICS - 1);
		return -1;
	}
	for (m = 0; m <= nr; m++) {
		struct exp_metric me = lab_metric(exp, m);

		if (!me.name || !me.name[0] || !me.unit) {
			fprintf(err, "mmlab: %s: internal error: metric %d has no name or unit\n",
				exp->name, m);
			return -1;
		}
		for (k = 0; k < m; k++)
			if (!strcmp(lab_metric(exp, k).name, me.name)) {
				fprintf(err, "mmlab: %s: internal error: metric '%s' declared twice\n",
					exp->name, me.name);
				return -1;
			}
	}
	return 0;
}

/*
 * The samples after prepare(); the table and JSON only if every sample
 * ran, the JSON (--json) renamed into place whole.
 */
static int measure(const struct lab_config *cfg, const struct host_facts *m,
		   struct exp_ctx *ctx, FILE *out, FILE *err)
{
	const struct experiment *exp = cfg->exp;
	struct lab_results r;
	int status = 0;

	if (ctx->nr_points < 1 || ctx->nr_points > MAX_POINTS) {
		fprintf(err, "mmlab: %s: internal error: prepare() made %d points (valid 1..%d)\n",
			exp->name, ctx->nr_points, MAX_POINTS);
		return 1;
	}
	if (check_metrics(exp, err)) {
		return 1;
	}
	if (results_init(&r, cfg, ctx, m)) {
		fprintf(err, "mmlab: %s: out of memory for %d samples\n", exp->name,
			ctx->nr_points * cfg->nr_variants * cfg->repeat);
		status = 1;
		goto out;
	}
	lab_noise_open(&r.probe);
	if (collect_samples(&r, ctx, cfg->quiet ? NULL : err, err)) {
		status = 1;
		goto out;
	}
	lab_results_analyze(&r);
	lab_table_print(out, &r);
	fflush(out);
	if (cfg->json_path && write_json(cfg->json_path, &r, err))
		status = 1;
	if (r.nr_failed) {
		fprintf(err, "mmlab: %s: %s", exp->name, r.failure);
		if (r.nr_failed > 1)
			fprintf(err, "; %d samples failed in all", r.nr_failed);
		fprintf(err, "\n");
		status = 1;
	}
out:
	lab_noise_close(&r.probe);
	lab_results_free(&r);
	return status;
}

int lab_run(const struct lab_config *cfg, const struct host_facts *m,
	    FILE *out, FILE *err)
{
	const struct experiment *exp = cfg->exp;
	struct exp_ctx *ctx = malloc(sizeof(*ctx));
	char msg[LAB_ERR_LEN];
	int status;

	if (!ctx) {
		fprintf(err, "mmlab: out of memory\n");
		return 1;
	}
	init_ctx(ctx, cfg);
	/* before the run: a path that cannot be written is bad usage */
	if (cfg->json_path && lab_out_check(cfg->json_path, msg, sizeof(msg))) {
		fprintf(err, "mmlab: --json: %s\n", msg);
		free(ctx);
		return 2;
	}
	/* prepare() printed why it refused, and cleaned up after itself */
	if (exp->prepare && exp->prepare(ctx)) {
		free(ctx);
		return 2;
	}
	status = measure(cfg, m, ctx, out, err);
	if (exp->finish)
		exp->finish(ctx);
	free(ctx);
	return status;
}
