/*
 * The runner's --repeat auto and --shard on the synthetic experiment: when
 * auto stops and why, that variants stay interleaved, which points a shard
 * runs, and what the JSON says about both (and about host noise).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mmlab/lab.h>
#include <mmlab/options.h>
#include <mmlab/result.h>

#include "tap.h"
#include "lab_synth.h"

static char json_path[] = "/tmp/mmlab-lab-repeat.XXXXXX";
static char *outs, *errs;

static int run(const char *const *args)
{
	struct lab_config cfg;
	char err[LAB_ERR_LEN];
	FILE *out = tmpfile(), *errf = tmpfile();
	int argc = 0, status;

	while (args[argc])
		argc++;
	if (lab_parse_args(&cfg, &synth_higher, &synth_machine, argc, (char **)args, err, sizeof(err))) {
		diag("parse failed: %s", err);
		return -1;
	}
	status = lab_run(&cfg, &synth_machine, out, errf);
	lab_config_free(&cfg);
	free(outs);
	free(errs);
	outs = slurp(out);
	errs = slurp(errf);
	fclose(out);
	fclose(errf);
	return status;
}

/* A python3 expression over d (the JSON) that must be true. */
static bool json_holds(const char *expr)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), "python3 -c \"import json,sys; d=json.load(open('%s')); "
		 "r=d['results']; sys.exit(0 if (%s) else 1)\"", json_path, expr);
	return system(cmd) == 0;
}

/* Every round runs the variants in order 0 1 2 3 at one point. */
static bool interleaved(void)
{
	int i;

	for (i = 0; i < synth_nr_calls; i++)
		if (synth_calls[i].variant != i % 4 || synth_calls[i].point != synth_calls[i - i % 4].point ||
		    synth_calls[i].rep != synth_calls[i - i % 4].rep)
			return false;
	return synth_nr_calls % 4 == 0;
}

static void test_auto_narrow(void)
{
	const char *args[] = { "--repeat", "auto", "--json", json_path, NULL };

	/*
	 * synth's values are scale * n + rep: at 4 samples a side the
	 * intervals are [min, max] of the ratios, within 0.3%: narrow.
	 */
	ok(run(args) == 0, "--repeat auto runs");
	ok(synth_nr_calls == 4 * 2 * 4 && interleaved(),
	   "stops at 4 rounds (the first with an interval), variants interleaved (%d calls)",
	   synth_nr_calls);
	ok(strstr(errs, "stopped after 4 rounds: every interval is narrow") != NULL,
	   "says why it stopped");
	ok(strstr(outs, "4 samples per variant") != NULL, "the footer counts the samples");
	ok(json_holds("d['params']['repeat'] == 4 and d['params']['repeat_auto']['ci_target_pct'] == 2"
		      " and all(len(x['samples']) == 4 for x in r)"),
	   "JSON: repeat is the samples taken, repeat_auto the bounds");
}

static void test_auto_bound(void)
{
	const char *args[] = { "--repeat", "auto:600", "--ci-target", "0.1", "--n", "1",
			       "--variant", "vanilla,fast", "--json", json_path, NULL };

	/* the spread grows with rep: 0.1% is never reached, the repetition bound is */
	ok(run(args) == 0, "--repeat auto with an unreachable target runs");
	ok(synth_nr_calls == 2 * LAB_AUTO_MAX_REPEAT, "stops at %d repetitions (%d calls)",
	   LAB_AUTO_MAX_REPEAT, synth_nr_calls);
	ok(strstr(errs, "the repetition bound was reached") != NULL, "says why");
}

static void test_shard(void)
{
	const char *args[] = { "--n", "1-5", "--shard", "1/2", "--json", json_path, NULL };
	const char *empty[] = { "--n", "1", "--shard", "1/2", "--json", json_path, NULL };
	bool only_odd = synth_nr_calls > 0;
	int i;

	ok(run(args) == 0, "--shard 1/2 of 5 points runs");
	for (i = 0; i < synth_nr_calls; i++)
		only_odd = only_odd && synth_calls[i].point % 2 == 1;
	ok(only_odd && synth_nr_calls == 2 * 5 * 4 && interleaved(),
	   "only points 1 and 3 ran, every variant of each (%d calls)", synth_nr_calls);
	ok(json_holds("d['shard'] == {'index': 1, 'count': 2} and len(d['points']) == 5"
		      " and [p['label'] for p in d['points']] == ['1','2','3','4','5']"
		      " and sorted({x['point']['n'] for x in r}) == [2, 4]"
		      " and len(d['comparisons']) == 2 * 3"),
	   "JSON: the shard, all points, results and comparisons of its own");
	ok(run(empty) == 0 && strstr(outs, "shard 1/2 has none of the 1 points") &&
	   json_holds("r == [] and d['comparisons'] == [] and len(d['points']) == 1"),
	   "a shard without points: exit 0, says so, JSON with no results");
}

static void test_host_noise_json(void)
{
	const char *args[] = { "--json", json_path, NULL };

	ok(run(args) == 0, "a plain run");
	ok(json_holds("all(set(x['host_noise']) >= {'steal_pct', 'nivcsw', 'cpu_migrations',"
		      " 'flagged_samples'} and x['host_noise']['flag_steal_pct'] == 10 for x in r)"),
	   "every result has host_noise with steal_pct, nivcsw, cpu_migrations, flagged_samples");
}

int main(void)
{
	int fd;

	plan_no_plan();
	fd = mkstemp(json_path);
	if (fd < 0)
		return ok(0, "mkstemp"), done_testing();
	close(fd);
	test_auto_narrow();
	test_auto_bound();
	test_shard();
	test_host_noise_json();
	unlink(json_path);
	free(outs);
	free(errs);
	return done_testing();
}
