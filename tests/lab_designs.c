/*
 * A variant whose design `make DESIGNS=...` left out of build/mmlab: the
 * runner refuses it before any sample, with exit 2 and one line naming the
 * designs that are built, and `--variant all` leaves it out.  This test
 * plays src/lab/designs.c: it defines the list of stand-ins itself, one
 * used as a variant's impl directly (free-contig, vmalloc, alloc-free) and
 * one as the first member of the experiment's own impl struct
 * (refcount-scale, readseq, reclaim-large, migrate-fork).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mmlab/kernel.h>
#include <mmlab/lab.h>
#include <mmlab/options.h>

#include "tap.h"
#include "lab_synth.h"

static int stand_in_nodes = 1;
static const struct mm_kernel built = { .name = "vanilla" };
static const struct mm_kernel gone_direct = { .name = "design-direct", .nr_online_nodes = &stand_in_nodes };
static const struct mm_kernel gone_wrapped = { .name = "design-wrapped", .nr_online_nodes = &stand_in_nodes };

const struct mm_kernel *const mm_kernels_not_built[] = { &gone_direct, &gone_wrapped, NULL };
const char mm_designs_built[] = "vanilla design-kept";

/* An experiment's impl struct: its timed build first. */
struct two_builds {
	const struct mm_kernel *timed, *events;
};
static const struct two_builds wrapped = { &gone_wrapped, &gone_wrapped };
static const struct two_builds kept = { &built, &built };

static int nr_samples;

static int designs_run_one(struct exp_ctx *ctx, const struct exp_variant *v,
			   struct exp_point *p, int rep, struct sample *out)
{
	nr_samples++;
	out->value = 1000 + rep;
	return 0;
}

static int designs_prepare(struct exp_ctx *ctx)
{
	ctx->points[0].arg = 1;
	snprintf(ctx->points[0].json, sizeof(ctx->points[0].json), "{\"n\": 1}");
	snprintf(ctx->points[0].label, sizeof(ctx->points[0].label), "1");
	ctx->nr_points = 1;
	return 0;
}

static const struct exp_variant designs_variants[] = {
	{ "vanilla", "built, used directly", &built },
	{ "kept", "built, in an impl struct", &kept },
	{ "direct", "not built, used directly", &gone_direct },
	{ "wrapped", "not built, in an impl struct", &wrapped },
	{ "host", "no kernel build", NULL },
};

static const struct experiment exp_designs = {
	.name = "designs",
	.seed = "999_synthetic.txt",
	.desc = "variants of designs left out",
	.variants = designs_variants,
	.nr_variants = sizeof(designs_variants) / sizeof(designs_variants[0]),
	.metric = "time_ns",
	.unit = "ns",
	.point_header = "#n",
	.default_repeat = { [SCALE_TINY] = 1, [SCALE_DEFAULT] = 1, [SCALE_FULL] = 1 },
	.prepare = designs_prepare,
	.run_one = designs_run_one,
};

static const struct experiment *const exps[] = { &exp_designs, NULL };

struct capture {
	FILE *out, *err;
	char *outs, *errs;
};

static int run_main(const char *variants, struct capture *c)
{
	const char *args[] = { "mmlab", "run", "designs", "--variant", variants, NULL };
	int status, argc = variants ? 5 : 3;

	c->out = tmpfile();
	c->err = tmpfile();
	nr_samples = 0;
	status = lab_main(argc, (char **)args, exps, c->out, c->err);
	c->outs = slurp(c->out);
	c->errs = slurp(c->err);
	fclose(c->out);
	fclose(c->err);
	return status;
}

static bool one_line(const char *s)
{
	const char *nl = strchr(s, '\n');

	return !strncmp(s, "mmlab: ", 7) && nl && !nl[1];
}

static void refused(const char *variants, const char *variant, const char *design)
{
	struct capture c;
	char want[128];
	int status = run_main(variants, &c);

	snprintf(want, sizeof(want), "%s's design %s is not built", variant, design);
	if (!ok(status == 2 && one_line(c.errs) && strstr(c.errs, want) &&
		strstr(c.errs, "built: vanilla design-kept") && !c.outs[0] && nr_samples == 0,
		"--variant %s: exit 2 before any sample, one line naming %s and the designs built",
		variants, design))
		diag("status %d, %d samples, stderr: %s", status, nr_samples, c.errs);
	free(c.outs);
	free(c.errs);
}

int main(void)
{
	struct capture c;
	int status;

	plan_no_plan();
	ok(!lab_variant_not_built(&designs_variants[0]), "a built design used directly is built");
	ok(!lab_variant_not_built(&designs_variants[1]), "a built design in an impl struct is built");
	ok(!strcmp(lab_variant_not_built(&designs_variants[2]) ?: "", "design-direct"),
	   "a stand-in used directly is found");
	ok(!strcmp(lab_variant_not_built(&designs_variants[3]) ?: "", "design-wrapped"),
	   "a stand-in first in an impl struct is found");
	ok(!lab_variant_not_built(&designs_variants[4]), "a variant without a kernel build is not refused");

	refused("vanilla,direct", "direct", "design-direct");
	refused("wrapped", "wrapped", "design-wrapped");

	status = run_main(NULL, &c);
	ok(status == 0 && strstr(c.outs, "vanilla") && strstr(c.outs, "kept") &&
	   strstr(c.outs, "host") && !strstr(c.outs, "direct") && !strstr(c.outs, "wrapped"),
	   "--variant all (the default) runs the built variants only");
	is_int(nr_samples, 3, "one sample of each of the three");
	free(c.outs);
	free(c.errs);
	return done_testing();
}
