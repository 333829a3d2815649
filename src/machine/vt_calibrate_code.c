// SPDX-License-Identifier: GPL-2.0
/*
 * cost.block of host-model: how long this core takes over a basic block of
 * plain code, measured on the shapes of src/machine/vt_probe_code.c.  Each
 * shape's timed copy runs over data in the L1 (best of many tries: another
 * tenant or a clock step only slows a try); its counting copy, the same
 * source under trace-pc, says how many blocks a pass enters, as the vt
 * flavour counts the kernel model's.  The shapes' answers differ by what
 * each loop leaves the core to overlap, so the cost written is the median
 * shape's, and all three are printed beside it.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <machine/vt.h>

/*
 * A try is about a millisecond of a shape; the best of 300 tries of each,
 * taken in turn, spans a third of a second or more, so that a stretch of
 * steal time or a slow clock (one run on the Zen 5 host lost every try of
 * 15 taken over 60 ms: 1.4-1.8 times its usual time) leaves fast tries.
 */
#define CODE_REPS	1000
#define CODE_TRIES	300

const char *const vt_code_shape_names[VT_CODE_SHAPES] = { "prepare", "ptes", "buddy" };

/* The counting copy's trace-pc hook (its __sanitizer_cov_trace_pc, renamed by objcopy). */
static unsigned long code_blocks;

void vt_probe_code_block(void)
{
	code_blocks++;
}

/*
 * Pages that pass every check, PTEs of which one in eight is not present
 * and one in eight special, and a buddy map whose merges stop at every order
 * up to VT_CODE_MAX_ORDER: each loop's branches go both ways.
 */
static void code_data_init(struct vt_code_data *d)
{
	memset(d, 0, sizeof(*d));
	for (int i = 0; i < VT_CODE_N; i++) {
		d->pages[i].flags = (unsigned long)i & VT_CODE_FLAGS_CLEAR;
		d->pages[i].mapcount = -1;
		d->ptes[i] = ((unsigned long)i << 12) | VT_CODE_PTE_YOUNG |
			     (i % 8 == 3 ? 0 : VT_CODE_PTE_PRESENT) | (i % 8 == 5 ? VT_CODE_PTE_SPECIAL : 0);
		d->order[i] = (unsigned char)(i % (VT_CODE_MAX_ORDER + 1));
		d->free[i] = i % 7 != 6;
	}
}

static unsigned long shape_run(struct vt_code_data *d, int s, bool count)
{
	switch (s) {
	case 0:
		return (count ? vt_shape_prepare_count : vt_shape_prepare)(d->pages, VT_CODE_N);
	case 1:
		return (count ? vt_shape_ptes_count : vt_shape_ptes)(d->ptes, VT_CODE_N);
	default:
		return (count ? vt_shape_buddy_count : vt_shape_buddy)(d->order, d->free, VT_CODE_N);
	}
}

double vt_code_block_ns(const double *ns, const unsigned long *blocks, int n)
{
	double v[VT_CODE_SHAPES];
	int k = 0;

	for (int i = 0; i < n && i < VT_CODE_SHAPES; i++)
		if (ns[i] > 0 && blocks[i] > 0)
			v[k++] = ns[i] / (double)blocks[i];
	return k ? vt_median(v, k) : 0;
}

/* Each shape's blocks a pass, on @d; -1 if the two copies of a shape compute differently. */
static int code_blocks_on(struct vt_code_data *d, struct vt_code_probe *p)
{
	memset(p, 0, sizeof(*p));
	for (int s = 0; s < VT_CODE_SHAPES; s++) {
		unsigned long want;

		/* A pass of the counting copy, its blocks, and what it computed... */
		code_data_init(d);
		code_blocks = 0;
		want = shape_run(d, s, true);
		p->blocks[s] = code_blocks;
		/* ...which the timed copy must compute too, or they are not the same code. */
		code_data_init(d);
		if (shape_run(d, s, false) != want || !p->blocks[s])
			return -1;
	}
	return 0;
}

int vt_probe_code_blocks(struct vt_code_probe *p)
{
	struct vt_code_data *d = aligned_alloc(64, sizeof(*d));
	int ret;

	if (!d)
		return -1;
	ret = code_blocks_on(d, p);
	free(d);
	return ret;
}

int vt_probe_code(struct vt_code_probe *p)
{
	struct vt_code_data *d = aligned_alloc(64, sizeof(*d));

	if (!d)
		return -1;
	if (code_blocks_on(d, p)) {
		free(d);
		return -1;
	}
	for (int t = 0; t < CODE_TRIES; t++) {
		for (int s = 0; s < VT_CODE_SHAPES; s++) {
			volatile unsigned long sink = 0;
			double t0 = vt_cal_now_ns(), ns;

			for (int r = 0; r < CODE_REPS; r++)
				sink += shape_run(d, s, false);
			ns = (vt_cal_now_ns() - t0) / CODE_REPS;
			if (!p->ns[s] || ns < p->ns[s])
				p->ns[s] = ns;
			(void)sink;
		}
	}
	free(d);
	p->block_ns = vt_code_block_ns(p->ns, p->blocks, VT_CODE_SHAPES);
	return p->block_ns > 0 ? 0 : -1;
}
