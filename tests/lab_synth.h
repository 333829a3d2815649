/*
 * A synthetic experiment for the runner's tests: no kernel, deterministic
 * values (variant scale * point + repetition), every option type, and a
 * --fail option that injects each kind of failure.
 */
#ifndef MMLAB_LAB_SYNTH_H
#define MMLAB_LAB_SYNTH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mmlab/experiment.h>
#include <mmlab/host_facts.h>

enum { FAIL_NONE, FAIL_DATA, FAIL_INVARIANTS, FAIL_ABORT, FAIL_REFUSE };

struct synth_variant {
	double scale;
};

static const struct synth_variant synth_vanilla = { 1000 }, synth_fast = { 2000 },
	synth_slow = { 500 }, synth_same = { 1000 };

static const struct exp_variant synth_variants[] = {
	{ "vanilla", "the baseline", &synth_vanilla },
	{ "fast", "twice the baseline's value", &synth_fast },
	{ "slow", "half the baseline's value", &synth_slow },
	{ "same", "the baseline's value", &synth_same },
};

static const struct exp_option synth_options[] = {
	{ "n", OPT_INT_LIST, "the points", { [SCALE_TINY] = "1", [SCALE_DEFAULT] = "1,2" }, 1, 64 },
	{ "bytes", OPT_SIZE, "a size", { [SCALE_DEFAULT] = "64K", [SCALE_FULL] = "machine" },
	  4096, 1ULL << 50 },
	{ "factor", OPT_DOUBLE, "a real", { [SCALE_DEFAULT] = "1.5" }, 0, 10 },
	{ "count", OPT_INT, "an integer", { [SCALE_DEFAULT] = "7", [SCALE_FULL] = "9" }, 1, 100 },
	{ "fail", OPT_CHOICE, "inject a failure", { [SCALE_DEFAULT] = "none" }, 0, 0,
	  "none,data,invariants,abort,refuse" },
};

/* Every run_one() call, in order: variant index, point index, repetition. */
struct synth_call {
	int variant, point, rep;
};

static struct synth_call synth_calls[4096];
static int synth_nr_calls, synth_finished;

static int synth_prepare(struct exp_ctx *ctx)
{
	const struct opt_value *n = exp_opt(ctx, "n");
	int i;

	if (exp_opt(ctx, "fail")->choice == FAIL_REFUSE) {
		fprintf(stderr, "mmlab: --fail refuse: prepare() refuses\n");
		return -1;
	}
	for (i = 0; i < n->nr_list && i < MAX_POINTS; i++) {
		struct exp_point *p = &ctx->points[i];

		p->arg = n->list[i];
		snprintf(p->json, sizeof(p->json), "{\"n\": %lld}", p->arg);
		snprintf(p->label, sizeof(p->label), "%lld", p->arg);
	}
	ctx->nr_points = i;
	synth_nr_calls = 0;
	synth_finished = 0;
	return 0;
}

static int synth_run_one(struct exp_ctx *ctx, const struct exp_variant *v,
			 struct exp_point *p, int rep, struct sample *out)
{
	const struct synth_variant *sv = v->impl;
	int fail = exp_opt(ctx, "fail")->choice;
	bool fast = !strcmp(v->name, "fast");

	if (synth_nr_calls < 4096)
		synth_calls[synth_nr_calls++] = (struct synth_call){
			(int)(v - ctx->exp->variants), (int)(p - ctx->points), rep };
	if (fail == FAIL_ABORT && fast && rep == 1)
		return -1;
	out->value = sv->scale * p->arg + rep;
	sample_counter(out, "ops", out->value * 10);
	sample_counter(out, "rep", rep);
	if (rep == 0)
		sample_counter_json(out, "hist", "[1, 2, 3]");
	if (fail == FAIL_DATA && fast && rep == 1)
		sample_fail(out, true, "bytes differ at offset %d", 3);
	if (fail == FAIL_INVARIANTS && fast && rep == 1)
		sample_fail(out, false, "%d pages leaked", 2);
	return 0;
}

static void synth_finish(struct exp_ctx *ctx)
{
	synth_finished++;
}

#define SYNTH_EXPERIMENT(ident, exp_name, higher)				\
static const struct experiment ident = {					\
	.name = exp_name,							\
	.seed = "999_synthetic.txt",						\
	.desc = "a synthetic experiment for the runner's tests",		\
	.options = synth_options,						\
	.nr_options = sizeof(synth_options) / sizeof(synth_options[0]),	\
	.variants = synth_variants,						\
	.nr_variants = sizeof(synth_variants) / sizeof(synth_variants[0]),	\
	.metric = higher ? "ops_per_sec" : "time_ns",				\
	.unit = higher ? "ops/s" : "ns",					\
	.higher_is_better = higher,						\
	.point_header = "#n",							\
	.default_repeat = { [SCALE_TINY] = 2, [SCALE_DEFAULT] = 5, [SCALE_FULL] = 7 }, \
	.prepare = synth_prepare,						\
	.run_one = synth_run_one,						\
	.finish = synth_finish,							\
}

SYNTH_EXPERIMENT(synth_higher, "synth", true);
SYNTH_EXPERIMENT(synth_lower, "synth-lower", false);

/* A machine with known limits, so error messages are predictable. */
static const struct host_facts synth_machine = {
	.cpus = 4,
	.mem_bytes = 8ULL << 30,
	.cpu_model = "Synthetic CPU \"quoted\" \\ 1.0GHz",
};

/* Everything written to @f so far, as a string (the caller frees it). */
static inline char *slurp(FILE *f)
{
	long n;
	char *s;

	fflush(f);
	n = ftell(f);
	s = calloc(1, n + 1);
	rewind(f);
	if (fread(s, 1, n, f) != (size_t)n)
		s[0] = '\0';
	return s;
}

#endif
