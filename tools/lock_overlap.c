// SPDX-License-Identifier: GPL-2.0
/*
 * What a locked RMW costs this host inside a loop of other work, against
 * what it costs back to back: the measurements behind host-model's
 * rmw.overlap and rmw.drain (vt_probe_rmw(), src/machine/vt_calibrate.c, and
 * vt_probe_rmw_misses(), src/machine/vt_calibrate_mem.c;
 * docs/VALIDATION.md, "2d").
 *
 * The loops run over 512 lines the size of a struct page.  "work" is the
 * checks and clears free_pages_prepare() makes of each (two loads, two
 * stores), once and four times over; "locked + work" puts a locked
 * decrement of the line's count before them, as put_page_testzero() comes
 * before free_pages_prepare(); "chained" is locked decrements of one count
 * back to back, calibrate's cost.rmw.  Beside them: the sum the model
 * charges without rmw.overlap (work + chained) and the larger of the two,
 * about what a core takes that runs the work beside the locked RMWs.
 *
 * Then whether misses overlap across a locked RMW (rmw.drain: with no, a
 * locked RMW does not wait for the misses in flight;
 * docs/design/memory-hierarchy.md): loads of random lines of 256 MiB, each
 * independent of the last, alone and with a locked add of a private count
 * after each, against a dependent chase over the same lines (one memory
 * latency a load).  If the locked adds drained the misses, the second loop
 * would take about the chase's time a load.
 *
 *   build/tools/lock_overlap
 */
#include <stdbool.h>
#include <stdio.h>

#include <machine/vt.h>

int main(int argc, char **argv)
{
	struct vt_rmw_probe p;
	struct vt_rmw_miss_probe mp;
	bool overlaps;

	if (argc > 1) {
		fprintf(stderr, "lock_overlap: unexpected argument '%s'; valid: no arguments\n", argv[1]);
		return 2;
	}
	vt_probe_rmw(&p);
	if (p.chain_ns < 0) {
		fprintf(stderr, "lock_overlap: a check in the loops failed: they are broken\n");
		return 1;
	}
	printf("locked decs of one count, chained: %.2f ns each (what calibrate's cost.rmw measures)\n",
	       p.chain_ns);
	printf("%-6s %10s %14s %16s %12s\n", "work", "work alone", "locked + work", "sum (the model)",
	       "larger");
	for (int k = 0; k < VT_PROBE_WORKS; k++) {
		if (p.work_ns[k] < 0 || p.locked_ns[k] < 0) {
			fprintf(stderr, "lock_overlap: a check in the loops failed: they are broken\n");
			return 1;
		}
		printf("x%-5d %10.2f %14.2f %16.2f %12.2f   ns a line\n", p.work_times[k], p.work_ns[k],
		       p.locked_ns[k], p.work_ns[k] + p.chain_ns,
		       p.work_ns[k] > p.chain_ns ? p.work_ns[k] : p.chain_ns);
	}
	overlaps = vt_probe_rmw_overlaps(&p);
	printf("the code beside locked RMWs: %s (the locked decrement adds %s half its chained cost to the heavier work)\n",
	       overlaps ? "yes" : "no", overlaps ? "under" : "at least");
	if (vt_probe_rmw_misses(&mp)) {
		fprintf(stderr, "lock_overlap: no memory for the %d MiB of the miss loops\n", VT_PROBE_MISS_MIB);
		return 1;
	}
	printf("random lines of %d MiB: independent loads %.2f ns each, each followed by a locked add "
	       "%.2f ns, a dependent chase %.2f ns\n", VT_PROBE_MISS_MIB, mp.alone_ns, mp.locked_ns,
	       mp.chase_ns);
	printf("misses across locked RMWs: %s (with the locked adds a load takes %.0f%% of the chase's time)\n",
	       vt_probe_rmw_misses_overlap(&mp) ? "overlap" : "drained", 100 * mp.locked_ns / mp.chase_ns);
	printf("rmw.overlap for calibrate: %.3g (the share of the heaviest work that ran under the decrement)\n",
	       vt_probe_rmw_hide(&p));
	printf("rmw.drain for calibrate: %s\n", vt_probe_rmw_misses_overlap(&mp) ? "no" : "yes");
	return 0;
}
