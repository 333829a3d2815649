// SPDX-License-Identifier: GPL-2.0
/*
 * What a basic block of plain code costs on this host (cost.block of
 * host-model): three loops in the shape of the kernel's mm code, with their
 * data in the L1 and no load whose address comes from another load, so that
 * what is timed is the core's speed on the code, not the L1's latency
 * (l1d.lat charges that) nor a miss:
 *
 *   prepare  free_pages_prepare()'s checks and clears of order-0 pages;
 *   ptes     a PTE range, each entry handed to a function that is not
 *            inlined, as zap_pte_range() and the rmap walks do;
 *   buddy    __free_one_page()'s merging: the buddy's index by arithmetic,
 *            its order and free bit tested, up to a fixed order.
 *
 * This file is compiled twice (Makefile): as it is, timed; and with
 * -DVT_PROBE_COUNT -fsanitize-coverage=trace-pc, its hook renamed to
 * vt_probe_code_block(), which counts the blocks the way the vt flavour
 * counts the kernel model's.  Both copies run on the same data.
 */
#include <stdbool.h>
#include <stddef.h>

#include <machine/vt.h>

#ifdef VT_PROBE_COUNT
#define PROBE_FN(name)	name##_count
#else
#define PROBE_FN(name)	name
#endif

unsigned long PROBE_FN(vt_shape_prepare)(struct vt_code_page *p, int n)
{
	unsigned long bad = 0;

	for (int i = 0; i < n; i++) {
		if (p[i].flags & VT_CODE_FLAGS_CHECK)
			bad++;
		if (p[i].mapping)
			bad++;
		if (p[i].mapcount != -1)
			bad++;
		if (p[i].memcg)
			bad++;
		p[i].flags &= ~VT_CODE_FLAGS_CLEAR;
		p[i].priv = 0;
	}
	return bad;
}

static __attribute__((noinline)) int PROBE_FN(shape_one_pte)(unsigned long *pte, unsigned long pfn)
{
	unsigned long v = *pte;

	if (!(v & VT_CODE_PTE_PRESENT))
		return 0;
	if (v & VT_CODE_PTE_SPECIAL)
		return 0;
	if ((v >> 12) != pfn)
		return -1;
	*pte = v & ~VT_CODE_PTE_YOUNG;
	return 1;
}

unsigned long PROBE_FN(vt_shape_ptes)(unsigned long *pte, int n)
{
	unsigned long done = 0;

	for (int i = 0; i < n; i++) {
		int r = PROBE_FN(shape_one_pte)(&pte[i], (unsigned long)i);

		if (r < 0)
			return ~0UL;
		done += (unsigned long)r;
	}
	return done;
}

unsigned long PROBE_FN(vt_shape_buddy)(const unsigned char *order, const unsigned char *free, int n)
{
	unsigned long merged = 0;

	for (int i = 0; i < n; i++) {
		unsigned long idx = (unsigned long)i;

		for (unsigned int o = 0; o < VT_CODE_MAX_ORDER; o++) {
			unsigned long buddy = idx ^ (1UL << o);

			if (buddy >= (unsigned long)n || !free[buddy] || order[buddy] != o)
				break;
			idx &= buddy;
			merged++;
		}
	}
	return merged;
}
