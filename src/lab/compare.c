/*
 * `mmlab compare A B`: two runs of the same experiments (two commits, two
 * machines) side by side in the mmtests-compare layout.  A is the
 * baseline: for every variant, point and metric both have, A's median,
 * B's median, the change (positive = better) starred when Mann-Whitney
 * over the two sets of samples says it is significant, and the ratio B/A
 * with its 95% interval.  A and B are two result files, or two
 * results/<run-id>/ directories whose files are paired by name.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <mmlab/lab.h>
#include <mmlab/result_file.h>
#include <mmlab/stats.h>

#define ROW_LEN	96

struct row {
	char variant[64], label[ROW_LEN];
	double a, b, change, ratio, lo, hi;
	bool significant, noisy_a, noisy_b;
};

static bool noisy(const struct json *result)
{
	const struct json *n = json_get_type(json_get(result, "host_noise"), "flagged_samples",
					      JSON_NUMBER);

	return n && n->num > 0;
}

static void fill_row(struct row *row, const struct result_file *fa, const struct json *a,
		     const struct json *b)
{
	bool higher = json_get(a, "higher_is_better")->num != 0;
	double *va, *vb;
	int na = result_samples(a, &va), nb = result_samples(b, &vb);
	char point[ROW_LEN / 2];

	result_point_label(fa, json_get(a, "point"), point, sizeof(point));
	snprintf(row->variant, sizeof(row->variant), "%s", json_get(a, "variant")->text);
	snprintf(row->label, sizeof(row->label), "Median %s-%s", json_get(a, "unit")->text, point);
	row->a = lab_median(va, na);
	row->b = lab_median(vb, nb);
	row->change = lab_change_pct(row->a, row->b, higher);
	row->ratio = row->a != 0 ? row->b / row->a : NAN;
	row->significant = lab_mann_whitney_p(va, na, vb, nb) < LAB_ALPHA;
	lab_ratio_ci(va, na, vb, nb, LAB_ALPHA, &row->lo, &row->hi);
	row->noisy_a = noisy(a);
	row->noisy_b = noisy(b);
	free(va);
	free(vb);
}

static void print_row(FILE *f, const struct row *r, int vw, int lw)
{
	char ci[64];

	if (isfinite(r->lo))
		snprintf(ci, sizeof(ci), "%.3f [%.3f, %.3f]", r->ratio, r->lo, r->hi);
	else
		snprintf(ci, sizeof(ci), "%.3f [no interval]", r->ratio);
	fprintf(f, "%-*s  %-*s  %12.2f%c %12.2f%c %c%7.2f%%%c  %s\n", vw, r->variant, lw, r->label,
		r->a, r->noisy_a ? '!' : ' ', r->b, r->noisy_b ? '!' : ' ',
		r->significant ? '*' : '(', r->change, r->significant ? '*' : ')', ci);
}

static const struct json *find_cell(const struct result_file *f, const struct json *like)
{
	const struct json *r;

	for (r = f->results->child; r; r = r->next)
		if (result_same_cell(r, like))
			return r;
	return NULL;
}

/* The rows of one metric, in A's order; returns how many. */
static int print_metric(FILE *out, const struct result_file *fa, const struct result_file *fb,
			const char *metric)
{
	const struct json *a, *b, *first = NULL;
	struct row *rows = calloc(fa->results->nr + 1, sizeof(*rows));
	int n = 0, i, vw = 7, lw = 6;

	if (!rows)
		abort();
	for (a = fa->results->child; a; a = a->next) {
		if (strcmp(json_get(a, "metric")->text, metric) || !(b = find_cell(fb, a)))
			continue;
		first = first ? first : a;
		fill_row(&rows[n], fa, a, b);
		if ((int)strlen(rows[n].variant) > vw)
			vw = strlen(rows[n].variant);
		if ((int)strlen(rows[n].label) > lw)
			lw = strlen(rows[n].label);
		n++;
	}
	if (n) {
		fprintf(out, "\n%s (%s), %s is better\n", metric, json_get(first, "unit")->text,
			json_get(first, "higher_is_better")->num ? "higher" : "lower");
		fprintf(out, "%-*s  %-*s  %12s  %12s  %9s  %s\n", vw, "variant", lw, "", "A", "B",
			"change", "ratio B/A [95% interval]");
		for (i = 0; i < n; i++)
			print_row(out, &rows[i], vw, lw);
	}
	free(rows);
	return n;
}

static int count_unpaired(const struct result_file *f, const struct result_file *other)
{
	const struct json *r;
	int n = 0;

	for (r = f->results->child; r; r = r->next)
		n += !find_cell(other, r);
	return n;
}

static const char *git_of(const struct result_file *f)
{
	const struct json *g = json_get_type(json_get(f->root, "mmlab"), "git", JSON_STRING);

	return g ? g->text : "unknown";
}

/*
 * Conditions of a run: the members of "machine" and "params".  A param
 * that shapes the cells (a measurement setting, the simulated machine)
 * must be equal for the cells to pair; the repetitions, the variant list
 * and a param that is a point's axis (threads) need not: cells pair by
 * variant and point.
 */
static bool pairs_anyway(const struct result_file *f, const char *key)
{
	const struct json *r;

	if (!strcmp(key, "repeat") || !strcmp(key, "repeat_auto") || !strcmp(key, "variant"))
		return true;
	for (r = f->results->child; r; r = r->next)
		if (json_get(json_get(r, "point"), key))
			return true;
	return false;
}

/* "value" of @j for a message: its JSON text, shortened; "(none)" when absent. */
static void value_text(const struct json *j, char *buf, size_t len)
{
	if (!j) {
		snprintf(buf, len, "(none)");
		return;
	}
	json_compact(j, false, buf, len);
	if (strlen(buf) >= len - 1 && len > 4)
		strcpy(buf + len - 4, "...");
}

struct conditions {
	int nr;			/* differences of any kind */
	int nr_params;		/* of params that keep cells from pairing */
	char refused[LAB_ERR_LEN / 2];	/* those, "key A vs B; ..." for the one-line error */
};

/*
 * The members of object @what ("machine", "params") that differ between A
 * and B, in A's order then B's; each one a line on @out when @out.
 */
static void diff_object(const struct result_file *fa, const struct result_file *fb,
			const char *what, struct conditions *c, FILE *out)
{
	const struct json *oa = json_get(fa->root, what), *ob = json_get(fb->root, what), *x;
	const struct json *sides[2] = { oa, ob };
	char va[72], vb[72];
	int side;

	for (side = 0; side < 2; side++)
		for (x = sides[side] && sides[side]->type == JSON_OBJECT ? sides[side]->child : NULL;
		     x; x = x->next) {
			const struct json *xa = json_get(oa, x->key), *xb = json_get(ob, x->key);
			bool cells = !strcmp(what, "params") &&
				     !pairs_anyway(fa, x->key) && !pairs_anyway(fb, x->key);
			size_t used = strlen(c->refused);

			if ((side && xa) || (xa && xb && json_equal(xa, xb)))
				continue;	/* named from A's side, or equal */
			value_text(xa, va, sizeof(va));
			value_text(xb, vb, sizeof(vb));
			if (!strcmp(what, "machine") && !strcmp(x->key, "time") && (!xa || !xb))
				snprintf(xa ? vb : va, sizeof(va), "\"host\"");	/* absent on the host */
			c->nr++;
			if (out)
				fprintf(out, "  %s.%s: A %s, B %s%s\n", what, x->key, va, vb,
					cells ? "  (cells paired only by --force)" : "");
			if (!cells)
				continue;
			c->nr_params++;
			if (used < sizeof(c->refused) - 1)
				snprintf(c->refused + used, sizeof(c->refused) - used, "%s%s %s vs %s",
					 used ? "; " : "", x->key, va, vb);
		}
}

/* Counts the differences of conditions; with @out, names each. */
static void conditions(const struct result_file *fa, const struct result_file *fb,
		       struct conditions *c, FILE *out)
{
	memset(c, 0, sizeof(*c));
	diff_object(fa, fb, "machine", c, NULL);
	diff_object(fa, fb, "params", c, NULL);
	if (!out || !c->nr)
		return;
	fprintf(out, "conditions differ (%d):\n", c->nr);
	memset(c, 0, sizeof(*c));
	diff_object(fa, fb, "machine", c, out);
	diff_object(fa, fb, "params", c, out);
}

/* Metric by metric, in the order A first names them. */
static int compare_pair(const struct result_file *fa, const struct result_file *fb, FILE *out)
{
	const struct json *a, *seen;
	int rows = 0, only_a, only_b;
	struct conditions c;

	fprintf(out, "compare %s\n  A: %s (git %s)\n  B: %s (git %s)\n", fa->experiment, fa->path,
		git_of(fa), fb->path, git_of(fb));
	conditions(fa, fb, &c, out);
	for (a = fa->results->child; a; a = a->next) {
		const char *metric = json_get(a, "metric")->text;

		for (seen = fa->results->child; seen != a; seen = seen->next)
			if (!strcmp(json_get(seen, "metric")->text, metric))
				break;
		if (seen == a)
			rows += print_metric(out, fa, fb, metric);
	}
	only_a = count_unpaired(fa, fb);
	only_b = count_unpaired(fb, fa);
	fprintf(out, "\nA is the baseline: change is B's median against A's, positive = better; "
		"* = significant by %s over the two runs' samples\n", LAB_TEST);
	fprintf(out, "ratio: B/A of the medians with its %s interval (none with fewer than 4 samples a side); "
		"! = a sample ran under heavy steal\n", LAB_CI_LEVEL);
	if (only_a || only_b)
		fprintf(out, "not compared: %d result%s only in A, %d only in B\n", only_a,
			only_a == 1 ? "" : "s", only_b);
	return rows;
}

/*
 * One pair of files: with @out NULL only the checks (both readable
 * results of one experiment whose cells may pair), else the comparison.
 */
static int compare_files(const char *pa, const char *pb, bool force, FILE *out, FILE *err)
{
	struct result_file fa, fb;
	char msg[LAB_ERR_LEN];
	struct conditions c;
	int status = 2;

	if (result_file_load(&fa, pa, msg, sizeof(msg))) {
		fprintf(err, "mmlab: compare: %s\n", msg);
		return 2;
	}
	if (result_file_load(&fb, pb, msg, sizeof(msg))) {
		fprintf(err, "mmlab: compare: %s\n", msg);
		result_file_free(&fa);
		return 2;
	}
	conditions(&fa, &fb, &c, NULL);
	if (strcmp(fa.experiment, fb.experiment))
		fprintf(err, "mmlab: compare: '%s' is %s but '%s' is %s; compare runs of the same experiment\n",
			pa, fa.experiment, pb, fb.experiment);
	else if (c.nr_params && !force)
		fprintf(err, "mmlab: compare: '%s' and '%s' ran with different parameters (%s): "
			"their cells measure different things; --force pairs them anyway\n",
			pa, pb, c.refused);
	else if (!out)
		status = 0;
	else if (!compare_pair(&fa, &fb, out))
		fprintf(err, "mmlab: compare: '%s' and '%s' have no variant, point and metric in common\n",
			pa, pb);
	else
		status = 0;
	result_file_free(&fa);
	result_file_free(&fb);
	return status;
}

static int is_json_name(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 5 && !strcmp(d->d_name + n - 5, ".json");
}

/* Anything by that name: one that is not a regular file is refused when read. */
static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/*
 * Two results/<run-id>/ directories: the experiments' files paired by
 * name, every pair checked before the first is printed.
 */
static int compare_dirs(const char *da, const char *db, bool force, FILE *out, FILE *err)
{
	struct dirent **names;
	char pa[4096], pb[4096];
	int n = scandir(da, &names, is_json_name, alphasort), i, pass, pairs = 0, status = 0;

	if (n < 0) {
		fprintf(err, "mmlab: compare: cannot read directory '%s': %s\n", da, strerror(errno));
		return 2;
	}
	for (pass = 0; pass < 2 && !status; pass++)
		for (i = 0, pairs = 0; i < n && !status; i++) {
			snprintf(pa, sizeof(pa), "%s/%s", da, names[i]->d_name);
			snprintf(pb, sizeof(pb), "%s/%s", db, names[i]->d_name);
			if (!exists(pb))
				continue;
			if (pass && pairs)
				fprintf(out, "\n");
			pairs++;
			status = compare_files(pa, pb, force, pass ? out : NULL, err);
		}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (!status && !pairs) {
		fprintf(err, "mmlab: compare: '%s' and '%s' have no result file (NAME.json) in common\n",
			da, db);
		status = 2;
	}
	return status;
}

int lab_compare(const char *a, const char *b, bool force, FILE *out, FILE *err)
{
	struct stat sa, sb;

	if (stat(a, &sa) || stat(b, &sb)) {
		fprintf(err, "mmlab: compare: cannot read '%s': %s\n", stat(a, &sa) ? a : b,
			strerror(errno));
		return 2;
	}
	if (S_ISDIR(sa.st_mode) != S_ISDIR(sb.st_mode)) {
		fprintf(err, "mmlab: compare: '%s' and '%s' must be two result files or two "
			"results/<run-id>/ directories\n", a, b);
		return 2;
	}
	if (S_ISDIR(sa.st_mode))
		return compare_dirs(a, b, force, out, err);
	return compare_files(a, b, force, out, err);
}
