/*
 * `mmlab merge OUT SHARD...`: the shards of one sharded run (mmlab run
 * --shard I/N, same experiment and params) into one result, with the
 * tables and comparisons an unsharded run would have.  All the variants
 * of a point are in one shard, so the merged comparisons come from the
 * same samples as the shards' own.
 *
 * Exit status: 2 for bad usage or a file that cannot be read or is not a
 * shard; 1 when the shards do not fit together (another experiment or
 * params, a point in two shards or in none) or a shard's checks failed.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mmlab/files.h>
#include <mmlab/lab.h>
#include <mmlab/noise.h>
#include <mmlab/output.h>
#include <mmlab/result.h>
#include <mmlab/result_file.h>

struct merge {
	const struct experiment *exp;
	struct result_file *files;
	int nr;
	struct exp_point *points;
	struct lab_results r;
	FILE *err;
};

static int __attribute__((format(printf, 3, 4)))
merr(struct merge *m, int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(m->err, "mmlab: merge: ");
	va_start(ap, fmt);
	vfprintf(m->err, fmt, ap);
	va_end(ap);
	fprintf(m->err, "\n");
	return status;
}

static int shard_field(const struct result_file *f, const char *key)
{
	const struct json *j = json_get_type(f->shard, key, JSON_NUMBER);

	return j ? (int)j->num : -1;
}

/* Params equal but for "repeat" (each shard's own with --repeat auto). */
static bool same_params(const struct json *a, const struct json *b)
{
	const struct json *x, *y;

	for (x = a->child, y = b->child; x && y; x = x->next, y = y->next) {
		if (!strcmp(x->key, "repeat") && !strcmp(y->key, "repeat"))
			continue;
		if (strcmp(x->key, y->key) || !json_equal(x, y))
			return false;
	}
	return !x && !y;
}

static int load(struct merge *m, char **paths, const struct experiment *const *exps)
{
	char msg[LAB_ERR_LEN];
	int i;

	for (i = 0; i < m->nr; i++) {
		struct result_file *f = &m->files[i];

		if (result_file_load(f, paths[i], msg, sizeof(msg)))
			return merr(m, 2, "%s", msg);
		if (!f->shard || !f->points || shard_field(f, "count") < 1 ||
		    shard_field(f, "index") < 0 || shard_field(f, "index") >= shard_field(f, "count"))
			return merr(m, 2, "'%s' is not a shard (no \"shard\" {index, count} or no \"points\"; "
				    "write shards with mmlab run NAME --shard I/N --json FILE)", f->path);
	}
	for (i = 0; exps[i] && strcmp(exps[i]->name, m->files[0].experiment); i++)
		;
	if (!exps[i])
		return merr(m, 2, "'%s': unknown experiment '%s'", m->files[0].path,
			    m->files[0].experiment);
	m->exp = exps[i];
	return 0;
}

/* Same experiment, params, points and shard count; every shard index once. */
static int check_shards(struct merge *m)
{
	const struct result_file *f0 = &m->files[0];
	int count = shard_field(f0, "count"), i, k;

	for (i = 1; i < m->nr; i++) {
		const struct result_file *f = &m->files[i];

		if (strcmp(f->experiment, f0->experiment))
			return merr(m, 1, "'%s' is %s but '%s' is %s", f0->path, f0->experiment,
				    f->path, f->experiment);
		if (!same_params(f->params, f0->params))
			return merr(m, 1, "'%s' and '%s' differ in params: not shards of one run",
				    f0->path, f->path);
		if (!json_equal(f->points, f0->points) || shard_field(f, "count") != count)
			return merr(m, 1, "'%s' and '%s' differ in their points or shard count",
				    f0->path, f->path);
		for (k = 0; k < i; k++)
			if (shard_field(&m->files[k], "index") == shard_field(f, "index"))
				return merr(m, 1, "'%s' and '%s' are both shard %d/%d: their points overlap",
					    m->files[k].path, f->path, shard_field(f, "index"), count);
	}
	return 0;
}

/* The run's points from "points"; a shard that is missing must have had none. */
static int take_points(struct merge *m)
{
	const struct result_file *f0 = &m->files[0];
	int count = shard_field(f0, "count"), i = 0, k;
	const struct json *p;

	m->r.nr_all_points = f0->points->nr;
	m->points = calloc(f0->points->nr + 1, sizeof(*m->points));
	m->r.points = calloc(f0->points->nr + 1, sizeof(*m->r.points));
	m->r.point_index = calloc(f0->points->nr + 1, sizeof(*m->r.point_index));
	if (!m->points || !m->r.points || !m->r.point_index)
		return merr(m, 1, "out of memory");
	if (f0->points->nr < 1 || f0->points->nr > MAX_POINTS)
		return merr(m, 1, "'%s' has %d points (valid 1..%d)", f0->path, f0->points->nr, MAX_POINTS);
	for (p = f0->points->child; p; p = p->next, i++) {
		const struct json *pt = json_get_type(p, "point", JSON_OBJECT);
		const struct json *label = json_get_type(p, "label", JSON_STRING);

		if (!pt || !label)
			return merr(m, 1, "'%s': points[%d] has no point or label", f0->path, i);
		json_compact(pt, true, m->points[i].json, sizeof(m->points[i].json));
		snprintf(m->points[i].label, sizeof(m->points[i].label), "%s", label->text);
		for (k = 0; k < m->nr && shard_field(&m->files[k], "index") != i % count; k++)
			;
		if (k == m->nr)
			return merr(m, 1, "shard %d/%d is missing: no file has point %s (%s)", i % count,
				    count, m->points[i].label, m->points[i].json);
		m->r.points[i] = &m->points[i];
		m->r.point_index[i] = i;
	}
	m->r.all_points = m->points;
	m->r.nr_points = i;
	return 0;
}

static int variant_index(const struct experiment *exp, const char *name)
{
	int i;

	for (i = 0; i < exp->nr_variants; i++)
		if (!strcmp(exp->variants[i].name, name))
			return i;
	return -1;
}

/* Cells for the params' variants (in that order) and every metric. */
static int make_cells(struct merge *m)
{
	const struct json *vl = json_get_type(m->files[0].params, "variant", JSON_ARRAY), *v;
	int capacity = 1, i, per_metric, k;
	const struct json *x;

	if (!vl || vl->nr < 1)
		return merr(m, 1, "'%s': params has no variant list", m->files[0].path);
	for (v = vl->child; v; v = v->next)
		if (v->type != JSON_STRING || variant_index(m->exp, v->text) < 0)
			return merr(m, 1, "'%s': params names a variant %s does not have", m->files[0].path,
				    m->exp->name);
	for (i = 0; i < m->nr; i++)
		for (x = m->files[i].results->child; x; x = x->next)
			if (json_get(x, "samples")->nr > capacity)
				capacity = json_get(x, "samples")->nr;
	m->r.exp = m->exp;
	m->r.nr_variants = vl->nr;
	m->r.base = -1;
	m->r.probe.perf_fd = -1;
	if (lab_results_alloc(&m->r, capacity, false))
		return merr(m, 1, "out of memory");
	per_metric = m->r.nr_points * m->r.nr_variants;
	for (k = 0, v = vl->child; v; v = v->next, k++)
		for (i = k; i < lab_nr_metrics(m->exp) * per_metric; i += m->r.nr_variants)
			m->r.cells[i].variant = &m->exp->variants[variant_index(m->exp, v->text)];
	return 0;
}

static int find_metric(const struct experiment *exp, const char *name)
{
	int i;

	for (i = 0; i < lab_nr_metrics(exp); i++)
		if (!strcmp(lab_metric(exp, i).name, name))
			return i;
	return -1;
}

static void take_noise(struct lab_cell *c, const struct json *result)
{
	const struct json *n = json_get_type(result, "host_noise", JSON_OBJECT), *x;

	c->noise_sum = (struct lab_noise){ NAN, NAN, -1, -1, 0 };
	if (!n)
		return;
	if ((x = json_get_type(n, "steal_pct", JSON_NUMBER)))
		c->noise_sum.steal_pct = x->num;
	if ((x = json_get_type(n, "max_steal_pct", JSON_NUMBER)))
		c->noise_sum.max_steal_pct = x->num;
	if ((x = json_get_type(n, "nivcsw", JSON_NUMBER)))
		c->noise_sum.nivcsw = (long)x->num;
	if ((x = json_get_type(n, "cpu_migrations", JSON_NUMBER)))
		c->noise_sum.cpu_migrations = (long long)x->num;
	if ((x = json_get_type(n, "flagged_samples", JSON_NUMBER)))
		c->noise_sum.flagged_samples = (int)x->num;
}

/* One result of shard @f into its cell: the shard must own the point, the cell be empty. */
static int take_result(struct merge *m, const struct result_file *f, const struct json *x)
{
	int count = shard_field(f, "count"), metric, point, variant;
	const struct json *s;
	struct lab_cell *c;
	char text[128];

	metric = find_metric(m->exp, json_get(x, "metric")->text);
	json_compact(json_get(x, "point"), true, text, sizeof(text));
	for (point = 0; point < m->r.nr_points && strcmp(m->points[point].json, text); point++)
		;
	for (variant = 0; variant < m->r.nr_variants &&
	     strcmp(m->r.cells[variant].variant->name, json_get(x, "variant")->text); variant++)
		;
	if (metric < 0 || point == m->r.nr_points || variant == m->r.nr_variants)
		return merr(m, 1, "'%s': a result (%s, %s, %s) that is not of this run", f->path,
			    json_get(x, "variant")->text, text, json_get(x, "metric")->text);
	if (point % count != shard_field(f, "index"))
		return merr(m, 1, "'%s' is shard %d/%d but has point %s", f->path,
			    shard_field(f, "index"), count, text);
	c = lab_metric_cell(&m->r, metric, point, variant);
	if (c->nr_samples || c->counters)
		return merr(m, 1, "'%s': %s at %s in %s twice", f->path, c->variant->name, text,
			    json_get(x, "metric")->text);
	for (s = json_get(x, "samples")->child; s; s = s->next)
		c->values[c->nr_samples++] = s->type == JSON_NUMBER ? s->num : NAN;
	c->counters = json_get_type(x, "counters", JSON_OBJECT);
	if (!c->counters || !c->nr_samples)
		return merr(m, 1, "'%s': %s at %s has no counters or no samples", f->path,
			    c->variant->name, text);
	take_noise(c, x);
	return 0;
}

static int take_results(struct merge *m)
{
	int i, n = lab_nr_metrics(m->exp) * m->r.nr_points * m->r.nr_variants;
	const struct json *x;

	for (i = 0; i < m->nr; i++)
		for (x = m->files[i].results->child; x; x = x->next)
			if (take_result(m, &m->files[i], x))
				return 1;
	for (i = 0; i < n; i++)
		if (!m->r.cells[i].nr_samples)
			return merr(m, 1, "%s at %s has no result in any shard", m->r.cells[i].variant->name,
				    m->r.cells[i].point->json);
	return 0;
}

/* The machine and checks of the shards: the first one's machine, any failure. */
static void take_header(struct merge *m)
{
	const struct json *mc = json_get_type(m->files[0].root, "machine", JSON_OBJECT), *x;
	int i;

	if ((x = json_get_type(mc, "cpus", JSON_NUMBER)))
		m->r.machine.cpus = (int)x->num;
	if ((x = json_get_type(mc, "mem_bytes", JSON_NUMBER)))
		m->r.machine.mem_bytes = (unsigned long long)x->num;
	if ((x = json_get_type(mc, "cpu_model", JSON_STRING)))
		snprintf(m->r.machine.cpu_model, sizeof(m->r.machine.cpu_model), "%s", x->text);
	for (i = 0; i < m->nr; i++) {
		const struct json *ck = json_get_type(m->files[i].root, "checks", JSON_OBJECT);
		const struct json *inv = json_get_type(ck, "invariants", JSON_STRING);
		const struct json *data = json_get_type(ck, "data", JSON_STRING);

		m->r.invariants_failed |= !inv || strcmp(inv->text, "passed");
		m->r.data_failed |= !data || strcmp(data->text, "passed");
		if (!json_equal(json_get(m->files[i].root, "machine"), mc))
			fprintf(m->err, "mmlab: merge: warning: '%s' ran on another machine than '%s'\n",
				m->files[i].path, m->files[0].path);
	}
	m->r.params = m->files[0].params;
}

/* OUT whole or not at all: a temporary name beside it, then renamed into place. */
static int write_out(struct merge *m, const char *path)
{
	const struct json *g = json_get_type(json_get(m->files[0].root, "mmlab"), "git", JSON_STRING);
	char msg[LAB_ERR_LEN];
	struct lab_out o;
	int ret;

	if (lab_out_open(&o, path, msg, sizeof(msg)))
		return merr(m, 2, "%s", msg);
	ret = lab_json_write(o.f, &m->r, g ? g->text : "unknown");
	if (lab_out_commit(&o, !ret, msg, sizeof(msg)))
		return merr(m, 1, "%s", msg);
	return 0;
}

/* Before anything is read or printed: OUT can be written and is not a shard. */
static int check_out(struct merge *m, const char *out_path, char **shards)
{
	char msg[LAB_ERR_LEN];
	int i;

	for (i = 0; i < m->nr; i++)
		if (!strcmp(out_path, shards[i]) || lab_same_file(out_path, shards[i]))
			return merr(m, 2, "OUT '%s' is also shard %d ('%s'): merging would overwrite "
				    "it; give a new file as OUT", out_path, i + 1, shards[i]);
	if (lab_out_check(out_path, msg, sizeof(msg)))
		return merr(m, 2, "OUT: %s", msg);
	return 0;
}

static int merge_run(struct merge *m, const char *out_path, FILE *out)
{
	int status;

	if ((status = check_shards(m)) || (status = take_points(m)) ||
	    (status = make_cells(m)) || (status = take_results(m)))
		return status;
	take_header(m);
	lab_results_analyze(&m->r);
	lab_table_print(out, &m->r);
	fflush(out);
	if ((status = write_out(m, out_path)))
		return status;
	if (m->r.invariants_failed || m->r.data_failed)
		return merr(m, 1, "a shard's checks failed (see its run); merged into '%s' anyway",
			    out_path);
	return 0;
}

int lab_merge(const char *out_path, int nr, char **shards,
	      const struct experiment *const *exps, FILE *out, FILE *err)
{
	struct merge m = { .nr = nr, .err = err };
	int status, i;

	m.files = calloc(nr + 1, sizeof(*m.files));
	if (!m.files)
		return merr(&m, 1, "out of memory");
	status = check_out(&m, out_path, shards);
	if (!status)
		status = load(&m, shards, exps);
	if (!status)
		status = merge_run(&m, out_path, out);
	for (i = 0; i < nr; i++)
		result_file_free(&m.files[i]);
	free(m.files);
	lab_results_free(&m.r);
	free(m.points);
	return status;
}
