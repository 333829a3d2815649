/*
 * The tables on stdout: the seed's own layout (medians and the boost of
 * each variant over its baseline: vanilla, or vanilla at the base the
 * variant names), the spread of the samples, and mmtests-style
 * rows, for each metric in turn; then one footer.  Every percentage is
 * signed so that positive means better in that metric.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <machine/vt.h>
#include <mmlab/lab.h>
#include <mmlab/noise.h>
#include <mmlab/output.h>
#include <mmlab/result.h>
#include <mmlab/stats.h>

#define CELL_LEN	64

void lab_format_value(char *buf, size_t len, double v)
{
	if (!isfinite(v))
		snprintf(buf, len, "n/a");
	else if (fabs(v) >= 1000 || v == floor(v))
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

void lab_format_point(char *buf, size_t len, const struct experiment *exp,
		      const struct exp_point *p)
{
	snprintf(buf, len, "%s %s", exp->point_header ? exp->point_header : "point", p->label);
}

/* A grid of text cells printed as "a | b | c" with aligned columns. */
struct grid {
	int rows, cols;
	char (*cell)[CELL_LEN];
};

static int grid_init(struct grid *g, int rows, int cols)
{
	g->rows = rows;
	g->cols = cols;
	g->cell = calloc((size_t)rows * cols, sizeof(*g->cell));
	return g->cell ? 0 : -1;
}

static char *grid_at(struct grid *g, int row, int col)
{
	return g->cell[row * g->cols + col];
}

/* First column left-aligned, the numbers right-aligned. */
static void grid_print(FILE *f, struct grid *g)
{
	int *width = calloc(g->cols, sizeof(*width));
	int r, c;

	if (!width)
		return;
	for (r = 0; r < g->rows; r++)
		for (c = 0; c < g->cols; c++)
			if ((int)strlen(grid_at(g, r, c)) > width[c])
				width[c] = strlen(grid_at(g, r, c));
	for (r = 0; r < g->rows; r++) {
		for (c = 0; c < g->cols; c++)
			fprintf(f, c ? " | %*s" : "%-*s", width[c], grid_at(g, r, c));
		fprintf(f, "\n");
	}
	free(width);
}

/*
 * "+12.3*", or as test_vmalloc reports are written, "(I) +12.3" / "(R) -4.5"
 * for a significant improvement / regression.
 */
static void format_boost(char *buf, size_t len, const struct lab_cmp *cmp, bool mark_ri)
{
	if (!isfinite(cmp->change_pct))
		snprintf(buf, len, "n/a ");
	else if (mark_ri)
		snprintf(buf, len, "%s%+.1f", !cmp->significant ? "" :
			 cmp->change_pct > 0 ? "(I) " : "(R) ", cmp->change_pct);
	else
		snprintf(buf, len, "%+.1f%c", cmp->change_pct, cmp->significant ? '*' : ' ');
}

/* One decimal, two when the spread is under 1% so it does not read as 0. */
static void format_spread(char *buf, size_t len, const struct lab_summary *s)
{
	double lo, hi;
	int prec;

	if (!isfinite(s->median) || s->median == 0) {
		snprintf(buf, len, "n/a");
		return;
	}
	lo = (s->min - s->median) / fabs(s->median) * 100;
	hi = (s->max - s->median) / fabs(s->median) * 100;
	prec = fabs(lo) < 1 && fabs(hi) < 1 ? 2 : 1;
	snprintf(buf, len, "%+.*f..%+.*f", prec, lo, prec, hi);
}

/* The median, marked '!' if a sample of the cell ran under heavy steal. */
static void format_median(char *buf, size_t len, const struct lab_results *r,
			  int m, int p, int v)
{
	size_t n;

	lab_format_value(buf, len, lab_metric_cell(r, m, p, v)->sum.median);
	n = strlen(buf);
	if (lab_cell(r, p, v)->noise_sum.flagged_samples && n + 1 < len)
		snprintf(buf + n, len - n, "!");
}

static bool any_flagged(const struct lab_results *r)
{
	int p, v;

	for (p = 0; p < r->nr_points; p++)
		for (v = 0; v < r->nr_variants; v++)
			if (lab_cell(r, p, v)->noise_sum.flagged_samples)
				return true;
	return false;
}

static int boost_cols(const struct lab_results *r)
{
	int v, n = 0;

	for (v = 0; v < r->nr_variants; v++)
		n += lab_base(r, v) >= 0;
	return n;
}

static int vanilla_cols(const struct lab_results *r)
{
	int v, n = 0;

	for (v = 0; v < r->nr_variants; v++)
		n += lab_also_vanilla(r, v);
	return n;
}

static bool any_cmps(const struct lab_results *r)
{
	return boost_cols(r) || vanilla_cols(r);
}

static const char *variant_name(const struct lab_results *r, int v)
{
	return lab_cell(r, 0, v)->variant->name;
}

static bool multi_metric(const struct lab_results *r)
{
	return lab_nr_metrics(r->exp) > 1;
}

static void print_medians(FILE *f, const struct lab_results *r, int m)
{
	const char *header = r->exp->point_header ? r->exp->point_header : "point";
	struct exp_metric me = lab_metric(r->exp, m);
	struct grid g;
	int p, v, col;

	if (grid_init(&g, r->nr_points + 1, 1 + r->nr_variants + boost_cols(r)))
		return;
	snprintf(grid_at(&g, 0, 0), CELL_LEN, "%s", header);
	for (p = 0; p < r->nr_points; p++)
		snprintf(grid_at(&g, p + 1, 0), CELL_LEN, "%s", r->points[p]->label);
	for (v = 0, col = 1; v < r->nr_variants; v++) {
		snprintf(grid_at(&g, 0, col), CELL_LEN, "%s", lab_cell(r, 0, v)->variant->name);
		for (p = 0; p < r->nr_points; p++)
			format_median(grid_at(&g, p + 1, col), CELL_LEN, r, m, p, v);
		col++;
		if (lab_base(r, v) < 0)
			continue;
		if (lab_base(r, v) == r->base)
			snprintf(grid_at(&g, 0, col), CELL_LEN, "boost (%%)");
		else
			snprintf(grid_at(&g, 0, col), CELL_LEN, "boost vs %s (%%)",
				 variant_name(r, lab_base(r, v)));
		for (p = 0; p < r->nr_points; p++)
			format_boost(grid_at(&g, p + 1, col), CELL_LEN, lab_metric_cmp(r, m, p, v),
				     r->exp->mark_ri);
		col++;
	}
	fprintf(f, "%s%s: median %s (%s), %s is better\n", m ? "\n" : "", r->exp->name, me.name,
		me.unit, me.higher_is_better ? "higher" : "lower");
	grid_print(f, &g);
	free(g.cell);
}

static void print_spread(FILE *f, const struct lab_results *r, int m)
{
	const char *header = r->exp->point_header ? r->exp->point_header : "point";
	struct grid g;
	int p, v;

	if (grid_init(&g, r->nr_points + 1, 1 + r->nr_variants))
		return;
	snprintf(grid_at(&g, 0, 0), CELL_LEN, "%s", header);
	for (p = 0; p < r->nr_points; p++)
		snprintf(grid_at(&g, p + 1, 0), CELL_LEN, "%s", r->points[p]->label);
	for (v = 0; v < r->nr_variants; v++) {
		snprintf(grid_at(&g, 0, v + 1), CELL_LEN, "%s", lab_cell(r, 0, v)->variant->name);
		for (p = 0; p < r->nr_points; p++)
			format_spread(grid_at(&g, p + 1, v + 1), CELL_LEN,
				      &lab_metric_cell(r, m, p, v)->sum);
	}
	if (multi_metric(r))
		fprintf(f, "\nspread of %s: min..max of the samples, %% of the median\n",
			lab_metric(r->exp, m).name);
	else
		fprintf(f, "\nspread: min..max of the samples, %% of the median\n");
	grid_print(f, &g);
	free(g.cell);
}

/* "1.023 [1.011, 1.036]": the ratio to the baseline and its interval. */
static void format_ratio(char *buf, size_t len, const struct lab_cmp *cmp)
{
	if (!isfinite(cmp->ratio))
		snprintf(buf, len, "n/a");
	else if (!isfinite(cmp->ci_low) || !isfinite(cmp->ci_high))
		snprintf(buf, len, "%.3f [no interval]", cmp->ratio);
	else
		snprintf(buf, len, "%.3f [%.3f, %.3f]", cmp->ratio, cmp->ci_low, cmp->ci_high);
}

static void print_ratios(FILE *f, const struct lab_results *r, int m)
{
	const char *header = r->exp->point_header ? r->exp->point_header : "point";
	int cols = boost_cols(r) + vanilla_cols(r), p, v, col;
	struct grid g;

	if (!cols || grid_init(&g, r->nr_points + 1, 1 + cols))
		return;
	snprintf(grid_at(&g, 0, 0), CELL_LEN, "%s", header);
	for (p = 0; p < r->nr_points; p++)
		snprintf(grid_at(&g, p + 1, 0), CELL_LEN, "%s", r->points[p]->label);
	for (v = 0, col = 1; v < r->nr_variants; v++) {
		if (lab_base(r, v) >= 0) {
			if (lab_base(r, v) == r->base)
				snprintf(grid_at(&g, 0, col), CELL_LEN, "%s", variant_name(r, v));
			else
				snprintf(grid_at(&g, 0, col), CELL_LEN, "%s/%s", variant_name(r, v),
					 variant_name(r, lab_base(r, v)));
			for (p = 0; p < r->nr_points; p++)
				format_ratio(grid_at(&g, p + 1, col), CELL_LEN,
					     lab_metric_cmp(r, m, p, v));
			col++;
		}
		if (!lab_also_vanilla(r, v))
			continue;
		snprintf(grid_at(&g, 0, col), CELL_LEN, "%s/%s", variant_name(r, v), LAB_BASELINE);
		for (p = 0; p < r->nr_points; p++)
			format_ratio(grid_at(&g, p + 1, col), CELL_LEN, lab_metric_vcmp(r, m, p, v));
		col++;
	}
	fprintf(f, "\nratio%s%s to %s [%s interval]\n", multi_metric(r) ? " of " : "",
		multi_metric(r) ? lab_metric(r->exp, m).name : "",
		vanilla_cols(r) ? "the variant's baseline (a/b: to b)" : LAB_BASELINE, LAB_CI_LEVEL);
	grid_print(f, &g);
	free(g.cell);
}

/* --- mmtests-style rows ----------------------------------------------------------- */

static double row_mean(const struct lab_results *r, int m, int p, int v)
{
	const struct lab_cell *c = lab_metric_cell(r, m, p, v);

	return lab_metric(r->exp, m).higher_is_better ? c->sum.hmean : c->sum.mean;
}

/* "Hmean ops/s-2"; with several metrics the metric's name instead of its unit. */
static void mm_label(char *buf, size_t len, const struct lab_results *r, int m, int p)
{
	struct exp_metric me = lab_metric(r->exp, m);
	size_t i, start;

	snprintf(buf, len, "%s %s-", me.higher_is_better ? "Hmean" : "Amean",
		 multi_metric(r) ? me.name : me.unit);
	start = strlen(buf);
	snprintf(buf + start, len - start, "%s", r->points[p]->label);
	for (i = start; buf[i]; i++)
		if (buf[i] == ' ')
			buf[i] = '_';
}

static int mm_value_width(const struct lab_results *r, int m)
{
	char buf[CELL_LEN];
	int p, v, w = 10;

	for (p = 0; p < r->nr_points; p++)
		for (v = 0; v < r->nr_variants; v++) {
			int n = snprintf(buf, sizeof(buf), "%.2f", row_mean(r, m, p, v));

			if (n > w)
				w = n;
		}
	return w;
}

static void mm_cell(FILE *f, const struct lab_results *r, int m, int p, int v, int width)
{
	double mean = row_mean(r, m, p, v), base, pct = 0;
	int b = lab_base(r, v);
	bool sig = false;

	fprintf(f, "  %*.2f", width, mean);
	if (!any_cmps(r))
		return;
	if (b < 0 && v != r->base && lab_cell(r, 0, v)->variant->base) {
		fprintf(f, " (    n/a )");
		return;
	}
	if (b >= 0) {
		base = row_mean(r, m, p, b);
		pct = lab_change_pct(base, mean, lab_metric(r->exp, m).higher_is_better);
		sig = lab_metric_cmp(r, m, p, v)->significant;
	}
	fprintf(f, " %c%7.2f%%%c", sig ? '*' : '(', pct, sig ? '*' : ')');
}

static void print_mmtests(FILE *f, const struct lab_results *r, int m)
{
	int width = mm_value_width(r, m), col = width + (any_cmps(r) ? 11 : 0);
	int label_w = 0, p, v;
	char label[CELL_LEN];

	for (p = 0; p < r->nr_points; p++) {
		mm_label(label, sizeof(label), r, m, p);
		if ((int)strlen(label) > label_w)
			label_w = strlen(label);
	}
	fprintf(f, "\n%-*s", label_w, "");
	for (v = 0; v < r->nr_variants; v++)
		fprintf(f, "  %*s", col, lab_cell(r, 0, v)->variant->name);
	fprintf(f, "\n");
	for (p = 0; p < r->nr_points; p++) {
		mm_label(label, sizeof(label), r, m, p);
		fprintf(f, "%-*s", label_w, label);
		for (v = 0; v < r->nr_variants; v++)
			mm_cell(f, r, m, p, v, width);
		fprintf(f, "\n");
	}
}

/* The variants whose baseline is not vanilla, and the variants of another base not run. */
static bool print_bases(FILE *f, const struct lab_results *r)
{
	bool any = false;
	int v;

	for (v = 0; v < r->nr_variants; v++) {
		const struct exp_variant *var = lab_cell(r, 0, v)->variant;

		if (!var->base)
			continue;
		any = true;
		if (lab_base(r, v) >= 0)
			fprintf(f, "baseline of %s: %s (the kernel before the series at %s's base)%s\n",
				var->name, var->base, var->name,
				lab_also_vanilla(r, v) ? "; also compared with " LAB_BASELINE : "");
		else
			fprintf(f, "baseline of %s: %s, not run%s\n", var->name, var->base,
				r->base >= 0 ? "; compared with " LAB_BASELINE " only" : "");
	}
	return any;
}

/*
 * A simulated machine's settings fitted to a seed's table ("fit:" sources):
 * the points they were fitted to are not predictions, and the table says so.
 */
static void print_fitted(FILE *f, const struct lab_results *r)
{
	char fit[2048];

	if (r->cfg && r->cfg->vt && vt_machine_fitted(r->cfg->vt, fit, sizeof(fit)))
		fprintf(f, "fitted, not predicted: %s's %s\n", r->cfg->vt->name, fit);
}
static void print_footer(FILE *f, const struct lab_results *r)
{
	int repeat = r->min_samples;
	char count[32];

	if (r->min_samples == r->max_samples)
		snprintf(count, sizeof(count), "%d", repeat);
	else
		snprintf(count, sizeof(count), "%d to %d", r->min_samples, r->max_samples);
	fprintf(f, "\n%s sample%s per variant and point, variants interleaved; "
		"first table%s: medians; Hmean/Amean rows: means of the samples\n",
		count, r->max_samples == 1 ? "" : "s", multi_metric(r) ? " of each metric" : "");
	print_fitted(f, r);
	if (!any_cmps(r)) {
		fprintf(f, "no comparisons: %s was not run\n", LAB_BASELINE);
	} else {
		const char *vs = print_bases(f, r) ? "its baseline" : LAB_BASELINE;

		fprintf(f, "boost and %% change vs %s: positive = better; %s = significant by %s "
			"(exact for up to 20 samples per side)\n", vs,
			r->exp->mark_ri ? "(I)/(R) in the first table, * in the rows," : "*", LAB_TEST);
		fprintf(f, "ratio: variant/%s of the medians, as measured; interval: distribution-free, "
			"from the Mann-Whitney test (none with fewer than 4 samples per side)\n", vs);
		if (repeat < 4)
			fprintf(f, "note: with fewer than 4 samples per side no difference can reach p < %g\n",
				LAB_ALPHA);
	}
	if (any_flagged(r))
		fprintf(f, "!: a sample of this median ran while the host stole >= %g%% of the CPU time "
			"(host_noise in the JSON)\n", LAB_STEAL_FLAG_PCT);
	fprintf(f, "checks: invariants %s, data %s\n",
		r->invariants_failed ? "FAILED" : "passed", r->data_failed ? "FAILED" : "passed");
}

void lab_table_print(FILE *f, const struct lab_results *r)
{
	int m;

	if (!r->nr_points && r->shard_count)
		fprintf(f, "%s: shard %d/%d has none of the %d points\n", r->exp->name,
			r->shard_index, r->shard_count, r->nr_all_points);
	if (!r->nr_points || !r->nr_variants)
		return;
	for (m = 0; m < lab_nr_metrics(r->exp); m++) {
		print_medians(f, r, m);
		print_spread(f, r, m);
		print_ratios(f, r, m);
		print_mmtests(f, r, m);
	}
	print_footer(f, r);
}
