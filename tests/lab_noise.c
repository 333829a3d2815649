/*
 * Host noise: /proc/stat parsed from fixed texts (no real host needed),
 * the per-sample deltas and flags, and the sums over a cell.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include <mmlab/noise.h>
#include <mmlab/output.h>
#include <mmlab/result.h>

static void test_parse(void)
{
	struct lab_cpu_times t = { 0 };

	ok(!lab_parse_proc_stat("cpu  32537 0 6772 19399 281 0 41 26 0 0\ncpu0 1 2 3 4\n", &t) &&
	   t.total == 32537 + 6772 + 19399 + 281 + 41 + 26 && t.steal == 26,
	   "a modern line: total of the first 8 fields, steal the 8th");
	ok(!lab_parse_proc_stat("cpu  100 5 50 800 20 1 2 40 30 3\n", &t) && t.total == 1018 &&
	   t.steal == 40, "guest time is not counted twice");
	ok(!lab_parse_proc_stat("cpu  10 0 5 85\n", &t) && t.total == 100 && t.steal == 0,
	   "an old kernel with 4 fields: no steal");
	ok(lab_parse_proc_stat("cpu0 1 2 3 4 5 6 7 8\n", &t) == -1, "a per-CPU line is not the total");
	ok(lab_parse_proc_stat("cpu  1 2 3\n", &t) == -1, "3 fields: refused");
	ok(lab_parse_proc_stat("cpu  1 2 x 4 5\n", &t) == -1, "a non-number: refused");
	ok(lab_parse_proc_stat("intr 1 2 3 4\n", &t) == -1, "another line: refused");
	ok(lab_parse_proc_stat("", &t) == -1, "empty: refused");
}

static struct lab_noise_mark mark(unsigned long long total, unsigned long long steal,
				  long nivcsw, long long migrations)
{
	return (struct lab_noise_mark){ { total, steal }, true, nivcsw, migrations };
}

static void test_delta(void)
{
	struct lab_noise_mark a = mark(1000, 10, 5, -1), b = mark(1200, 40, 9, -1);
	struct lab_noise_mark c = mark(1200, 20, 9, 3), d = mark(1400, 30, 12, 7);
	struct lab_sample_noise s[3];
	struct lab_noise sum;

	lab_noise_delta(&a, &b, &s[0]);
	ok(s[0].steal_pct == 15 && s[0].flagged && s[0].nivcsw == 4 && s[0].cpu_migrations == -1,
	   "30 of 200 ticks stolen: 15%%, flagged; migrations unavailable");
	lab_noise_delta(&c, &d, &s[1]);
	ok(s[1].steal_pct == 5 && !s[1].flagged && s[1].cpu_migrations == 4,
	   "10 of 200: 5%%, not flagged (threshold %g%%)", LAB_STEAL_FLAG_PCT);
	a.cpu_ok = false;
	lab_noise_delta(&a, &b, &s[2]);
	ok(isnan(s[2].steal_pct) && !s[2].flagged, "/proc/stat unreadable: unknown, not flagged");
	lab_noise_sum(s, 2, &sum);
	ok(sum.steal_pct == 10 && sum.max_steal_pct == 15 && sum.nivcsw == 4 + 3 &&
	   sum.cpu_migrations == -1 && sum.flagged_samples == 1,
	   "sum: 40 of 400 ticks, worst 15%%, migrations unavailable if one sample lacks them");
	lab_noise_sum(&s[1], 1, &sum);
	ok(sum.cpu_migrations == 4 && sum.flagged_samples == 0, "one sample's sum");
}

/* The real host: readable here, and the run goes on whatever perf allows. */
static void test_host(void)
{
	struct lab_noise_probe probe;
	struct lab_noise_mark a, b;
	struct lab_sample_noise n;

	lab_noise_open(&probe);
	lab_noise_mark(&probe, &a);
	lab_noise_mark(&probe, &b);
	lab_noise_delta(&a, &b, &n);
	ok(a.cpu_ok && n.steal_pct >= 0 && n.nivcsw >= 0, "this host's /proc/stat and rusage read");
	diag("perf CPU migrations counter: %s", probe.perf_fd >= 0 ? "available" : "unavailable");
	lab_noise_close(&probe);
	ok(probe.perf_fd == -1, "probe closed");
}

static const struct exp_variant variants[] = { { "vanilla" }, { "other" } };
static const struct experiment noisy_exp = {
	.name = "noisy", .variants = variants, .nr_variants = 2, .metric = "usec",
	.unit = "usec", .point_header = "#n",
};

/* The table marks a flagged cell's median with '!' and explains it once. */
static char *table_of(int flagged)
{
	static const struct exp_point point = { "{\"n\": 1}", "1" };
	const struct exp_point *points[] = { &point };
	double a[4] = { 10, 11, 12, 13 }, b[4] = { 20, 21, 22, 23 };
	struct lab_cell cells[2] = {
		{ &variants[0], &point, 4, NULL, a }, { &variants[1], &point, 4, NULL, b },
	};
	struct lab_cmp cmps[2], vcmps[2];
	int bases[2];
	struct lab_results r = {
		.exp = &noisy_exp, .nr_points = 1, .nr_variants = 2, .cells = cells, .cmps = cmps,
		.vcmps = vcmps, .bases = bases, .points = points,
	};
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	lab_results_analyze(&r);
	cells[1].noise_sum.flagged_samples = flagged;
	lab_table_print(f, &r);
	fclose(f);
	return text;
}

static void test_table_mark(void)
{
	char *quiet = table_of(0), *noisy = table_of(1);

	ok(!strchr(quiet, '!'), "no flagged sample: no mark");
	ok(strstr(noisy, "| 21.5! |") && strstr(noisy, "\n!: a sample of this median ran while the host "
						      "stole >= 10% of the CPU time"),
	   "a flagged sample: its median marked, the mark explained");
	free(quiet);
	free(noisy);
}

int main(void)
{
	plan_no_plan();
	test_parse();
	test_delta();
	test_host();
	test_table_mark();
	return done_testing();
}
