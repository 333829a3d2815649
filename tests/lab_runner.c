/*
 * The runner end to end on a synthetic experiment: the interleaved order
 * of samples, the tables, the JSON (validated by python3's json module
 * against the values the synthetic experiment must produce), each failure
 * path's exit status, and the command line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mmlab/lab.h>
#include <mmlab/options.h>
#include <mmlab/result.h>
#include <mmlab/stats.h>

#include "tap.h"
#include "lab_synth.h"
#include <mmlab/hist.h>

static char dir[] = "/tmp/mmlab-lab-runner.XXXXXX";
static char json_path[256], script_path[256], multi_script_path[256];
static bool have_python;

/* Checks a JSON result of the synthetic experiment; argv[2] is the case. */
static const char json_check[] =
	"import json, sys\n"
	"d = json.load(open(sys.argv[1]))\n"
	"case = sys.argv[2]\n"
	"higher = case != 'lower'\n"
	"errs = []\n"
	"def want(c, what):\n"
	"    if not c: errs.append(what)\n"
	"want(list(d) == ['mmlab', 'experiment', 'description', 'seed', 'machine', 'params',\n"
	"                 'points', 'results', 'comparisons', 'checks'], 'top-level keys')\n"
	"want(d['mmlab']['version'] == '0.1.0' and isinstance(d['mmlab']['git'], str), 'mmlab')\n"
	"want(d['experiment'] == ('synth' if higher else 'synth-lower'), 'experiment')\n"
	"want(d['seed'] == '999_synthetic.txt', 'seed file')\n"
	"want(d['machine'] == {'cpus': 4, 'cpu_model': 'Synthetic CPU \"quoted\" \\\\ 1.0GHz',\n"
	"                      'mem_bytes': 8 << 30}, 'machine, escaped')\n"
	"p = d['params']\n"
	"want(p['scale'] == 'default' and p['repeat'] == 5 and p['seed'] == 42\n"
	"     and p['mem'] == 64 << 20, 'params: globals')\n"
	"want(p['variant'] == ['vanilla', 'fast', 'slow', 'same'], 'params: variant list')\n"
	"want(p['n'] == [1, 2] and p['bytes'] == 65536 and p['factor'] == 1.5 and p['count'] == 7\n"
	"     and p['fail'] == ('data' if case == 'data' else 'none'), 'params: options typed')\n"
	"r = d['results']\n"
	"want([(x['point']['n'], x['variant']) for x in r] ==\n"
	"     [(n, v) for n in (1, 2) for v in ('vanilla', 'fast', 'slow', 'same')], 'results order')\n"
	"v1 = r[0]\n"
	"want(v1['samples'] == [1000, 1001, 1002, 1003, 1004] and v1['median'] == 1002\n"
	"     and v1['min'] == 1000 and v1['max'] == 1004, 'vanilla n=1 samples and summary')\n"
	"want(v1['metric'] == ('ops_per_sec' if higher else 'time_ns')\n"
	"     and v1['unit'] == ('ops/s' if higher else 'ns') and v1['higher_is_better'] == higher, 'metric')\n"
	"want(v1['counters'] == {'ops': 10020, 'rep': 2, 'hist': [1, 2, 3]}, 'counters: medians, json verbatim')\n"
	"c = d['comparisons']\n"
	"want([(x['point']['n'], x['variant']) for x in c] ==\n"
	"     [(n, v) for n in (1, 2) for v in ('fast', 'slow', 'same')], 'comparisons order')\n"
	"by = {(x['variant'], x['point']['n']): x for x in c}\n"
	"f = by[('fast', 1)]\n"
	"want(abs(f['ratio'] - 2002 / 1002) < 1e-9, 'ratio is candidate/baseline')\n"
	"want(1.9 < f['ci95_low'] <= 2002 / 1002 <= f['ci95_high'] < 2.1, 'ci95 of fast: %s..%s' % (f['ci95_low'], f['ci95_high']))\n"
	"want(abs(f['change_pct'] - (1 if higher else -1) * 1000 / 1002 * 100) < 1e-9, 'change_pct of fast')\n"
	"want(f['significant'] is True and f['verdict'] == ('improvement' if higher else 'regression'), 'verdict of fast')\n"
	"s = by[('slow', 1)]\n"
	"want(abs(s['change_pct'] - (-1 if higher else 1) * 500 / 1002 * 100) < 1e-9, 'change_pct of slow')\n"
	"want(s['verdict'] == ('regression' if higher else 'improvement'), 'verdict of slow')\n"
	"same = by[('same', 2)]\n"
	"want(same['significant'] is False and same['verdict'] == 'none' and same['p_value'] == 1\n"
	"     and same['change_pct'] == 0 and same['ratio'] == 1, 'same: no change')\n"
	"want(same['ci95_low'] <= 1 <= same['ci95_high'], 'ci95 of same holds 1')\n"
	"want(all(x['baseline'] == 'vanilla' and x['metric'] == v1['metric']\n"
	"         and x['test'] == 'mann-whitney-u, two-sided, alpha 0.05' for x in c), 'test named')\n"
	"want(all(abs(x['p_value'] - 2 / 252) < 1e-12 for x in c if x['variant'] != 'same'), 'p = 2/252')\n"
	"want(d['checks'] == {'invariants': 'passed', 'data': 'failed' if case == 'data' else 'passed'}, 'checks')\n"
	"for e in errs: print('# json check failed: ' + e)\n"
	"sys.exit(1 if errs else 0)\n";

/*
 * The multi-metric synthetic experiment: synth's samples (ops_per_sec,
 * higher is better) plus lat_p50/p75/p99_us from a histogram of 100
 * latencies b, 2b, ..., 100b with b = 1e6 / (scale * n) + rep ns (lower is
 * better: fast's are half vanilla's) and hit_ratio = 1000 / scale + rep /
 * 1000 (higher is better: fast's is half vanilla's).
 */
static const char json_check_multi[] =
	"import json, sys\n"
	"d = json.load(open(sys.argv[1]))\n"
	"case = sys.argv[2]\n"
	"errs = []\n"
	"def want(c, what):\n"
	"    if not c: errs.append(what)\n"
	"metrics = [('ops_per_sec', 'ops/s', True), ('lat_p50_us', 'us', False),\n"
	"           ('lat_p75_us', 'us', False), ('lat_p99_us', 'us', False), ('hit_ratio', 'ratio', True)]\n"
	"variants = ('vanilla', 'fast', 'slow', 'same')\n"
	"scale = {'vanilla': 1000, 'fast': 2000, 'slow': 500, 'same': 1000}\n"
	"r = d['results']\n"
	"want(len(r) == 5 * 2 * 4, 'one result per metric, point and variant (%d)' % len(r))\n"
	"want([(x['metric'], x['point']['n'], x['variant']) for x in r] ==\n"
	"     [(m, n, v) for m, _, _ in metrics for n in (1, 2) for v in variants], 'results: metric by metric')\n"
	"for x in r:\n"
	"    m = [y for y in metrics if y[0] == x['metric']][0]\n"
	"    want(x['unit'] == m[1] and x['higher_is_better'] is m[2], 'unit and direction of ' + m[0])\n"
	"    want(x['counters'].get('ops') == scale[x['variant']] * x['point']['n'] * 10 + 20\n"
	"         and 'lat_p999_us' in x['counters'], 'every result carries the counters')\n"
	"def cell(m, v, n):\n"
	"    return [x for x in r if (x['metric'], x['variant'], x['point']['n']) == (m, v, n)][0]\n"
	"want(cell('ops_per_sec', 'vanilla', 1)['samples'] == [1000, 1001, 1002, 1003, 1004],\n"
	"     'first metric as without extra metrics')\n"
	"def close(got, exact):\n"
	"    return got is not None and abs(got - exact) <= exact / 2048 + 1e-12\n"
	"for v in variants:\n"
	"    for n in (1, 2):\n"
	"        for m, k in (('lat_p50_us', 50), ('lat_p75_us', 75), ('lat_p99_us', 99)):\n"
	"            c = cell(m, v, n)\n"
	"            exact = [k * (1e6 // (scale[v] * n) + rep) / 1e3 for rep in range(5)]\n"
	"            if case == 'data' and v == 'fast':\n"
	"                want(c['samples'][1] is None, 'a failed sample without metrics: null')\n"
	"                continue\n"
	"            want(all(close(g, e) for g, e in zip(c['samples'], exact)),\n"
	"                 '%s %s n=%d samples %s, exact %s' % (m, v, n, c['samples'], exact))\n"
	"            want(close(c['median'], exact[2]) and close(c['min'], exact[0])\n"
	"                 and close(c['max'], exact[4]), '%s %s n=%d summary' % (m, v, n))\n"
	"c = d['comparisons']\n"
	"want(len(c) == 5 * 2 * 3, 'one comparison per metric, point and candidate (%d)' % len(c))\n"
	"want([(x['metric'], x['point']['n'], x['variant']) for x in c] ==\n"
	"     [(m, n, v) for m, _, _ in metrics for n in (1, 2) for v in variants[1:]], 'comparisons: metric by metric')\n"
	"by = {(x['metric'], x['variant'], x['point']['n']): x for x in c}\n"
	"def verdicts(m, fast, slow, fast_ratio, fast_change):\n"
	"    f, s, same = by[(m, 'fast', 2)], by[(m, 'slow', 2)], by[(m, 'same', 2)]\n"
	"    want(f['verdict'] == fast and s['verdict'] == slow and f['significant'] and s['significant'],\n"
	"         m + ': verdicts %s %s' % (f['verdict'], s['verdict']))\n"
	"    want(abs(f['ratio'] - fast_ratio) < 0.01 and abs(f['change_pct'] - fast_change) < 1,\n"
	"         m + ': ratio %g change %g' % (f['ratio'], f['change_pct']))\n"
	"    want(same['verdict'] == 'none' and same['change_pct'] == 0 and same['p_value'] == 1, m + ': same')\n"
	"if case != 'data':\n"
	"    verdicts('ops_per_sec', 'improvement', 'regression', 2, 100)\n"
	"    for m in ('lat_p50_us', 'lat_p75_us', 'lat_p99_us'):\n"
	"        verdicts(m, 'improvement', 'regression', 0.5, 50)\n"
	"    verdicts('hit_ratio', 'regression', 'improvement', 0.5, -50)\n"
	"want(d['checks']['data'] == ('failed' if case == 'data' else 'passed'), 'checks')\n"
	"for e in errs: print('# json check failed: ' + e)\n"
	"sys.exit(1 if errs else 0)\n";

enum { MULTI_OK, MULTI_FORGET, MULTI_UNDECLARED };
static int multi_mode;
static struct lat_hist *multi_hist;

static int multi_run_one(struct exp_ctx *ctx, const struct exp_variant *v,
			 struct exp_point *p, int rep, struct sample *out)
{
	const struct synth_variant *sv = v->impl;
	uint64_t b = (uint64_t)(1e6 / (sv->scale * p->arg)) + rep;
	int i;

	if (synth_run_one(ctx, v, p, rep, out))
		return -1;
	lat_hist_reset(multi_hist);
	for (i = 1; i <= 100; i++)
		lat_hist_record(multi_hist, i * b);
	sample_latency_counters(out, multi_hist, "lat");
	if (out->data_failed)
		return 0;	/* a failed sample may stop before its metrics */
	sample_latency_metrics(out, multi_hist, "lat");
	if (multi_mode != MULTI_FORGET || rep != 1)
		sample_metric(out, "hit_ratio", 1000 / sv->scale + rep / 1000.0);
	if (multi_mode == MULTI_UNDECLARED)
		sample_metric(out, "hit_ratoi", 1);
	return 0;
}

static const struct exp_metric multi_metrics[] = {
	LAT_HIST_METRICS("lat"),
	{ "hit_ratio", "ratio", true },
};

static const struct exp_metric twice_metrics[] = {
	{ "lat_p50_us", "us", false },
	{ "lat_p50_us", "us", false },
};

#define MULTI_EXPERIMENT(ident, exp_name, extra)				\
static const struct experiment ident = {					\
	.name = exp_name,							\
	.seed = "999_synthetic.txt",						\
	.desc = "a synthetic experiment with several metrics",			\
	.options = synth_options,						\
	.nr_options = sizeof(synth_options) / sizeof(synth_options[0]),	\
	.variants = synth_variants,						\
	.nr_variants = sizeof(synth_variants) / sizeof(synth_variants[0]),	\
	.metric = "ops_per_sec",						\
	.unit = "ops/s",							\
	.higher_is_better = true,						\
	.point_header = "#n",							\
	.default_repeat = { [SCALE_TINY] = 2, [SCALE_DEFAULT] = 5, [SCALE_FULL] = 7 }, \
	.prepare = synth_prepare,						\
	.run_one = multi_run_one,						\
	.finish = synth_finish,							\
	.extra_metrics = extra,							\
	.nr_extra_metrics = sizeof(extra) / sizeof(extra[0]),			\
}

MULTI_EXPERIMENT(synth_multi, "synth-multi", multi_metrics);
MULTI_EXPERIMENT(synth_twice, "synth-twice", twice_metrics);

struct capture {
	FILE *out, *err;
	char *outs, *errs;
};

static void cap_begin(struct capture *c)
{
	c->out = tmpfile();
	c->err = tmpfile();
	c->outs = c->errs = NULL;
}

static void cap_end(struct capture *c)
{
	free(c->outs);
	free(c->errs);
	c->outs = slurp(c->out);
	c->errs = slurp(c->err);
	fclose(c->out);
	fclose(c->err);
}

static void cap_free(struct capture *c)
{
	free(c->outs);
	free(c->errs);
}

static bool one_error_line(const char *s)
{
	const char *nl = strchr(s, '\n');

	return !strncmp(s, "mmlab: ", 7) && nl && !nl[1];
}

static bool has(const char *s, const char *part)
{
	return s && strstr(s, part);
}

static bool json_valid_by(const char *script, const char *which)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "python3 %s %s %s", script, json_path, which);
	return system(cmd) == 0;
}

static bool json_valid(const char *which)
{
	return json_valid_by(script_path, which);
}

static bool file_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* A --json file from an earlier run: a run that fails must leave it whole. */
static void put_old(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs("{\"old\": true}\n", f);
		fclose(f);
	}
}

static bool is_old(const char *path)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
	fclose(f);
	return !strcmp(buf, "{\"old\": true}\n");
}

/* lab_run() on the synthetic experiment with @args; returns the exit status. */
static int run(const struct experiment *exp, const char *const *args, struct capture *c)
{
	struct lab_config cfg;
	char err[LAB_ERR_LEN];
	int argc = 0, status;

	while (args[argc])
		argc++;
	if (lab_parse_args(&cfg, exp, &synth_machine, argc, (char **)args, err, sizeof(err))) {
		diag("parse failed: %s", err);
		return -1;
	}
	cap_begin(c);
	status = lab_run(&cfg, &synth_machine, c->out, c->err);
	cap_end(c);
	lab_config_free(&cfg);
	return status;
}

static void test_interleaving(void)
{
	int p, rep, v, i = 0;
	bool in_order = synth_nr_calls == 2 * 5 * 4;

	for (p = 0; p < 2; p++)
		for (rep = 0; rep < 5; rep++)
			for (v = 0; v < 4; v++, i++)
				in_order = in_order && synth_calls[i].point == p &&
					synth_calls[i].rep == rep && synth_calls[i].variant == v;
	ok(in_order, "samples run point by point, repetition by repetition, variants interleaved");
}

static void test_higher_is_better(void)
{
	const char *args[] = { "--seed", "42", "--mem", "64M", "--json", json_path, NULL };
	struct capture c;

	is_int(run(&synth_higher, args, &c), 0, "a clean run exits 0");
	test_interleaving();
	ok(synth_finished == 1, "finish() called once");
	ok(has(c.outs, "#n | vanilla | fast | boost (%) | slow | boost (%) | same | boost (%)\n"),
	   "seed-style header");
	ok(has(c.outs, "|    +99.8* |") && has(c.outs, "|    -49.9* |") && has(c.outs, "|     +0.0 \n"),
	   "boosts signed, significant ones starred");
	ok(has(c.outs, "spread: min..max") && has(c.outs, "-0.20..+0.20"), "spread table");
	ok(has(c.outs, "Hmean ops/s-1") && has(c.outs, "(   0.00%)") && has(c.outs, "*  99.80%*") &&
	   has(c.outs, "* -49.90%*"), "mmtests rows: Hmean, starred significant changes");
	ok(has(c.outs, LAB_TEST) && has(c.outs, "5 samples per variant"), "footer names the test and repetitions");
	ok(has(c.outs, "checks: invariants passed, data passed"), "checks in the footer");
	ok(has(c.errs, "synth [1/10] #n 1, rep 1/5: vanilla 1000 fast 2000 slow 500 same 1000 ops/s\n"),
	   "progress lines on stderr");
	ok(!has(c.errs, "mmlab: "), "no error on stderr");
	if (have_python)
		ok(json_valid("higher"), "JSON parses and has the contract's content");
	else
		ok(has(c.outs, "") && file_exists(json_path), "JSON written # SKIP no python3 to parse it");
	cap_free(&c);
}

static void test_lower_is_better(void)
{
	const char *args[] = { "--seed", "42", "--mem", "64M", "--json", json_path, NULL };
	struct capture c;

	is_int(run(&synth_lower, args, &c), 0, "lower is better: exits 0");
	ok(has(c.outs, "|    -99.8* |") && has(c.outs, "|    +49.9* |"),
	   "lower is better: boosts signed so positive is better");
	ok(has(c.outs, "Amean ns-2") && has(c.outs, "*  49.9"), "lower is better: Amean rows");
	if (have_python)
		ok(json_valid("lower"), "lower is better: JSON change_pct and verdicts");
	cap_free(&c);
}

static void test_check_failures(void)
{
	const char *data[] = { "--seed", "42", "--mem", "64M", "--json", json_path,
			       "--fail", "data", NULL };
	const char *inv[] = { "--n", "1", "--fail", "invariants", NULL };
	struct capture c;
	const char *last;

	is_int(run(&synth_higher, data, &c), 1, "a failed data check exits 1");
	last = strstr(c.errs, "mmlab: ");
	if (!ok(last && one_error_line(last) &&
		has(last, "mmlab: synth: data check failed: bytes differ at offset 3 (fast at #n 1, rep 1); 2 samples failed in all"),
		"one line says which check failed and why"))
		diag("stderr: %s", c.errs);
	ok(has(c.outs, "#n | vanilla") && has(c.outs, "checks: invariants passed, data FAILED"),
	   "the table is still printed");
	ok(synth_finished == 1, "finish() still called");
	if (have_python)
		ok(json_valid("data"), "the JSON is still written, data check failed");
	cap_free(&c);

	is_int(run(&synth_higher, inv, &c), 1, "a failed invariant exits 1");
	ok(has(c.errs, "mmlab: synth: invariant check failed: 2 pages leaked (fast at #n 1, rep 1)\n"),
	   "the invariant's message");
	cap_free(&c);
}

static void test_broken_runs(void)
{
	const char *abort_args[] = { "--json", json_path, "--fail", "abort", NULL };
	const char *refuse[] = { "--json", json_path, "--fail", "refuse", NULL };
	const char *bad_json[] = { "--json", "/nonexistent-dir/x.json", NULL };
	const char *no_base[] = { "--variant", "fast,slow", "--json", json_path, NULL };
	struct capture c;

	put_old(json_path);
	is_int(run(&synth_higher, abort_args, &c), 1, "run_one() failing exits 1");
	ok(has(c.errs, "mmlab: synth: fast could not run at #n 1, rep 1\n"), "and says where");
	ok(is_old(json_path), "no JSON of a run that could not finish: the earlier file left whole");
	unlink(json_path);
	ok(synth_finished == 1, "finish() called after a sample could not run");
	cap_free(&c);

	synth_finished = 0;
	is_int(run(&synth_higher, refuse, &c), 2, "prepare() refusing exits 2");
	ok(one_error_line(c.errs) || !c.errs[0], "no more than prepare()'s own line");
	ok(synth_finished == 0 && !file_exists(json_path), "no finish(), no JSON after prepare() refused");
	cap_free(&c);

	is_int(run(&synth_higher, bad_json, &c), 2, "an unwritable --json exits 2");
	if (!ok(one_error_line(c.errs) && has(c.errs, "--json") && has(c.errs, "/nonexistent-dir/x.json"),
		"one line naming it"))
		diag("stderr: %s", c.errs);
	cap_free(&c);

	is_int(run(&synth_higher, no_base, &c), 0, "without vanilla: exits 0");
	ok(has(c.outs, "#n | fast | slow\n") && has(c.outs, "no comparisons"), "without vanilla: no boosts");
	if (have_python) {
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "python3 -c \"import json,sys; d=json.load(open('%s')); "
			 "sys.exit(d['comparisons'] != [] or len(d['results']) != 4)\"", json_path);
		ok(system(cmd) == 0, "without vanilla: JSON has no comparisons");
	}
	cap_free(&c);
}

/* lab_results_analyze() on hand-made cells: the alpha boundary and verdicts. */
static void test_analyze(void)
{
	static const struct exp_point point = { "{\"n\": 1}", "1" };
	double base[5] = { 1000, 1001, 1002, 1003, 1004 }, cand[2][5];
	struct lab_cell cells[3] = {
		{ &synth_variants[0], &point, 5, NULL, base },
		{ &synth_variants[1], &point, 5, NULL, cand[0] },
		{ &synth_variants[2], &point, 5, NULL, cand[1] },
	};
	struct lab_cmp cmps[3], vcmps[3];
	int bases[3];
	struct lab_results r = {
		.exp = &synth_lower, .nr_points = 1, .nr_variants = 3, .cells = cells, .cmps = cmps,
		.vcmps = vcmps, .bases = bases,
	};
	int i;

	/* +2.5: U = 3, p = 14/252 = 0.0556, just above alpha; +3.5: U = 1, p = 4/252 */
	for (i = 0; i < 5; i++) {
		cand[0][i] = base[i] + 2.5;
		cand[1][i] = base[i] + 3.5;
	}
	lab_results_analyze(&r);
	ok(r.base == 0 && cells[1].sum.median == 1004.5, "baseline found, summaries filled");
	ok(fabs(cmps[1].p_value - 14.0 / 252) < 1e-12 && !cmps[1].significant &&
	   cmps[1].verdict == VERDICT_NONE, "p = 0.0556 is not significant at alpha 0.05");
	ok(fabs(cmps[2].p_value - 4.0 / 252) < 1e-12 && cmps[2].significant &&
	   cmps[2].verdict == VERDICT_REGRESSION, "p = 0.0159 is, and higher time is a regression");
	ok(cmps[2].change_pct < 0 && fabs(cmps[2].ratio - 1005.5 / 1002) < 1e-12,
	   "lower is better: slower is a negative change, ratio as measured");
}

/* A variant measured at another base: compared with vanilla at that base, and with vanilla. */
static const struct synth_variant synth_old = { 800 };
static const struct exp_variant based_variants[] = {
	{ "vanilla", "the baseline", &synth_vanilla },
	{ "vanilla-old", "the baseline at an older base", &synth_old },
	{ "fast", "applied to the older base", &synth_fast, "vanilla-old" },
};

static bool json_cmps(const char *want)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "python3 -c \"import json,sys; d=json.load(open('%s')); "
		 "c=sorted((x['baseline'],x['variant'],x['own_baseline'],round(x['ratio'],6)) "
		 "for x in d['comparisons'] if x['point']=={'n': 1}); "
		 "sys.exit(str(c) != \\\"%s\\\")\"", json_path, want);
	return system(cmd) == 0;
}

static void test_own_baseline(void)
{
	const char *all[] = { "--n", "1", "--json", json_path, NULL };
	const char *no_own[] = { "--n", "1", "--variant", "vanilla,fast", "--json", json_path, NULL };
	struct experiment based = synth_higher;
	struct capture c;

	based.variants = based_variants;
	based.nr_variants = 3;
	is_int(run(&based, all, &c), 0, "a variant with its own base: exits 0");
	ok(has(c.outs, "#n | vanilla | vanilla-old | boost (%) | fast | boost vs vanilla-old (%)\n") &&
	   has(c.outs, " +149.6*\n"), "boost against its own baseline (2002 / 802)");
	ok(has(c.outs, "vanilla-old |     fast/vanilla-old |         fast/vanilla\n"),
	   "ratios to its own baseline and to vanilla");
	ok(has(c.outs, "baseline of fast: vanilla-old (the kernel before the series at fast's base); "
	       "also compared with vanilla\n"), "the footer states both bases");
	ok(has(c.outs, "* 149.63%*"), "mmtests rows against its own baseline");
	if (have_python)
		ok(json_cmps("[('vanilla', 'fast', False, 1.998004), ('vanilla', 'vanilla-old', True, 0.800399), "
			     "('vanilla-old', 'fast', True, 2.496259)]"),
		   "JSON: each comparison names its baseline, own_baseline marks the variant's own");
	cap_free(&c);

	is_int(run(&based, no_own, &c), 0, "its base not run: exits 0");
	ok(has(c.outs, "#n | vanilla | fast\n") &&
	   has(c.outs, "baseline of fast: vanilla-old, not run; compared with vanilla only\n"),
	   "no boost column, the footer says so");
	if (have_python)
		ok(json_cmps("[('vanilla', 'fast', False, 1.998004)]"),
		   "JSON: only the comparison with vanilla, not marked own");
	cap_free(&c);
}

static void test_sample_helpers(void)
{
	struct sample s = { 0 };

	sample_fail(&s, true, "first %d", 1);
	sample_fail(&s, false, "second");
	ok(s.data_failed && s.invariants_failed && !strcmp(s.failure, "first 1"),
	   "sample_fail: both checks marked, the first message kept");
	sample_counter(&s, "a", 2.5);
	sample_counter_json(&s, "b", "[1]");
	ok(s.nr_counters == 2 && s.counters[0].value == 2.5 && !strcmp(s.counters[1].json, "[1]"),
	   "sample_counter and sample_counter_json");
	free(s.counters[1].json);
}

static void test_multi_metric(void)
{
	const char *args[] = { "--seed", "42", "--mem", "64M", "--json", json_path, NULL };
	const char *data[] = { "--seed", "42", "--mem", "64M", "--json", json_path,
			       "--fail", "data", NULL };
	struct capture c;

	multi_hist = lat_hist_new();
	multi_mode = MULTI_OK;
	is_int(run(&synth_multi, args, &c), 0, "several metrics: a clean run exits 0");
	ok(has(c.outs, "synth-multi: median ops_per_sec (ops/s), higher is better\n#n | vanilla | fast") &&
	   has(c.outs, "\nsynth-multi: median lat_p50_us (us), lower is better\n") &&
	   has(c.outs, "\nsynth-multi: median lat_p99_us (us), lower is better\n") &&
	   has(c.outs, "\nsynth-multi: median hit_ratio (ratio), higher is better\n"),
	   "a medians table per metric, each with its unit and direction");
	ok(has(c.outs, "spread of lat_p75_us: min..max") && has(c.outs, "Hmean ops_per_sec-1") &&
	   has(c.outs, "Amean lat_p99_us-2") && has(c.outs, "Hmean hit_ratio-2"),
	   "spread and mmtests rows per metric, named by metric");
	if (!ok(has(c.outs, "\n1  |    50.1 | 25.1 |    +49.9* | 100.1 |    -99.9* | 50.1 |     +0.0 \n") &&
		has(c.outs, "\n1  |   1.002 | 0.502 |    -49.9* | 2.002 |    +99.8* | 1.002 |     +0.0 \n"),
		"boosts signed by each metric's direction: lower latency and a higher ratio are better"))
		diag_trace(c.outs);
	ok(has(c.outs, "first table of each metric") &&
	   strstr(c.outs, "samples per variant") > strstr(c.outs, "Hmean hit_ratio-2") &&
	   !has(strstr(c.outs, "samples per variant") + 1, "samples per variant"),
	   "one footer, after the last metric's tables");
	if (have_python)
		ok(json_valid_by(multi_script_path, "clean"),
		   "JSON: one result per metric with its own samples, direction and comparisons");
	cap_free(&c);

	is_int(run(&synth_multi, data, &c), 1, "several metrics: a failed sample without its metrics exits 1");
	ok(has(c.errs, "mmlab: synth-multi: data check failed: bytes differ at offset 3"),
	   "for the failed check, not for the missing metrics");
	if (have_python)
		ok(json_valid_by(multi_script_path, "data"), "its missing values are null in the JSON");
	cap_free(&c);

	multi_mode = MULTI_FORGET;
	unlink(json_path);
	is_int(run(&synth_multi, args, &c), 1, "a sample without a declared metric exits 1");
	if (!ok(one_error_line(c.errs + (strstr(c.errs, "mmlab: ") - c.errs)) &&
		has(c.errs, "mmlab: synth-multi: internal error: vanilla at #n 1, rep 1: no value of metric 'hit_ratio'\n"),
		"one line naming the sample and the metric"))
		diag("stderr: %s", c.errs);
	ok(!file_exists(json_path), "and no JSON");
	cap_free(&c);

	multi_mode = MULTI_UNDECLARED;
	is_int(run(&synth_multi, args, &c), 1, "a metric the experiment did not declare exits 1");
	ok(has(c.errs, "internal error: vanilla at #n 1, rep 0: metric 'hit_ratoi' is not declared\n"),
	   "naming it");
	cap_free(&c);
	multi_mode = MULTI_OK;

	unlink(json_path);
	is_int(run(&synth_twice, args, &c), 1, "a metric declared twice exits 1");
	ok(has(c.errs, "mmlab: synth-twice: internal error: metric 'lat_p50_us' declared twice\n") &&
	   !file_exists(json_path), "naming it, before any sample, no JSON");
	cap_free(&c);
	lat_hist_free(multi_hist);
}

/* lab_main() with @args; checks the exit status and that stderr is one line. */
static void cli_error(const char *const *args, int argc, const char *what, const char *part)
{
	static const struct experiment *const exps[] = { &synth_higher, &synth_lower, NULL };
	struct capture c;
	int status;

	cap_begin(&c);
	status = lab_main(argc, (char **)args, exps, c.out, c.err);
	cap_end(&c);
	if (!ok(status == 2 && one_error_line(c.errs) && has(c.errs, part) && !c.outs[0],
		"%s: exit 2 and one line with \"%s\"", what, part))
		diag("status %d, stderr: %s", status, c.errs);
	cap_free(&c);
}

static void test_cli(void)
{
	static const struct experiment *const exps[] = { &synth_higher, &synth_lower, NULL };
	const char *list[] = { "mmlab", "list" };
	const char *help[] = { "mmlab", "run", "synth", "--help" };
	const char *tiny[] = { "mmlab", "run", "synth-lower", "--scale", "tiny", "--variant=vanilla,same" };
	struct capture c;

	cap_begin(&c);
	is_int(lab_main(2, (char **)list, exps, c.out, c.err), 0, "list exits 0");
	cap_end(&c);
	ok(!strcmp(c.outs, "synth        999_synthetic.txt  a synthetic experiment for the runner's tests\n"
			   "synth-lower  999_synthetic.txt  a synthetic experiment for the runner's tests\n"),
	   "list: name, seed, description");
	cap_free(&c);

	cap_begin(&c);
	is_int(lab_main(4, (char **)help, exps, c.out, c.err), 0, "run NAME --help exits 0");
	cap_end(&c);
	ok(has(c.outs, "--n LIST") && has(c.outs, "default 1,2, at --scale tiny 1") &&
	   has(c.outs, "each in 1..64") && has(c.outs, "--repeat R") &&
	   has(c.outs, "default 5, at --scale tiny 2, at --scale full 7") &&
	   has(c.outs, "--bytes SIZE") && has(c.outs, "at --scale full machine"),
	   "help: each option with its defaults and valid range");
	cap_free(&c);

	cap_begin(&c);
	is_int(lab_main(6, (char **)tiny, exps, c.out, c.err), 0, "run --scale tiny exits 0");
	cap_end(&c);
	ok(has(c.outs, "#n | vanilla | same | boost (%)\n") && has(c.outs, "2 samples per variant") &&
	   has(c.outs, "fewer than 4 samples"), "tiny run: its table, and the note on too few samples");
	cap_free(&c);

	cli_error((const char *[]){ "mmlab" }, 1, "no command", "missing command");
	cli_error((const char *[]){ "mmlab", "frob" }, 2, "unknown command", "'frob'");
	cli_error((const char *[]){ "mmlab", "list", "x" }, 3, "list with an argument", "'x'");
	cli_error((const char *[]){ "mmlab", "run" }, 2, "run without a name", "synth, synth-lower");
	cli_error((const char *[]){ "mmlab", "run", "nope" }, 3, "unknown experiment",
		  "unknown experiment 'nope'; valid: synth, synth-lower");
	cli_error((const char *[]){ "mmlab", "run", "synth", "--nope", "1" }, 5, "unknown option", "'--nope'");
	cli_error((const char *[]){ "mmlab", "run", "synth", "--repeat=0" }, 4, "bad value", "--repeat");
}

static void write_script(void)
{
	FILE *f;

	snprintf(script_path, sizeof(script_path), "%s/check.py", dir);
	snprintf(json_path, sizeof(json_path), "%s/out.json", dir);
	f = fopen(script_path, "w");
	if (f) {
		fputs(json_check, f);
		fclose(f);
	}
	snprintf(multi_script_path, sizeof(multi_script_path), "%s/check_multi.py", dir);
	f = fopen(multi_script_path, "w");
	if (f) {
		fputs(json_check_multi, f);
		fclose(f);
	}
	have_python = system("python3 -c 'import json' 2>/dev/null") == 0;
	if (!have_python)
		diag("no python3: JSON checked only for existence");
}

int main(void)
{
	plan_no_plan();
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return done_testing();
	}
	write_script();
	test_higher_is_better();
	test_lower_is_better();
	test_check_failures();
	test_broken_runs();
	test_analyze();
	test_own_baseline();
	test_sample_helpers();
	test_multi_metric();
	test_cli();
	unlink(json_path);
	unlink(script_path);
	unlink(multi_script_path);
	rmdir(dir);
	return done_testing();
}
