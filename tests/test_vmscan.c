/*
 * The LRU and reclaim of mapped file folios (seed 004), in every design
 * and mutant: faults put folios on the inactive list oldest-last;
 * memory_reclaim() keeps a mapped folio found young the first time (with
 * PG_referenced set and its young bits cleared) and reclaims it the next
 * time; a folio used again between the two is activated instead; mlocked
 * and dirty folios stay; unmapped clean cache folios go at once.  Which
 * folios go, and what every entry looks like afterwards, must not depend
 * on the design: only the cost may (PTE batches, TLB flushes), and that is
 * asserted per design.  After every reclaim no entry maps a freed folio,
 * the deferred TLB flush has been done, and teardown leaks nothing.
 * No page reaches the allocator while a deferred flush may still leave it
 * in a TLB (the debug check in free_pages_prepare()): reclaim_pages() of
 * 30, 31, 32, 62 and 63 order-0 folios exercises the free batch of 31, whose
 * in-loop flush memory_reclaim()'s lists of order-4 folios never reach;
 * the mutants vmscan-free-before-flush, vmscan-no-batch-flush,
 * vmscan-free-before-final-flush and tlb-pending-unrecorded are caught.
 *
 * Mutants: rmap-past-pmd is caught reclaiming a mapping whose folios
 * straddle page tables (a debug check fires), rmap-past-folio by two
 * physically adjacent folios (A's aging clears B's young bits, so B is
 * reclaimed on its first encounter).  rmap-past-folio corrupts mapcounts as
 * soon as it unmaps a folio with a mapped, physically adjacent neighbour,
 * which the page cache's folios usually are: that build runs only the
 * scenario that catches it.  rmap-notify-nr is invisible here (no notifier)
 * and must pass as rmap-batched does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/gfp.h>
#include <linux/migrate.h>
#include <machine/machine.h>

#include "rmap_test.h"

#define FOLIO_PAGES	16		/* order 4: 64 KiB */
#define BIG_FOLIOS	1024		/* 64 MiB file */

static const char *arch_name(enum mmu_arch arch)
{
	return arch == MMU_ARM64 ? "arm64" : "x86";
}

/* Is the folio at @index cached? */
static bool cached(struct rt_file *f, unsigned long folio_nr)
{
	return rt_folio(f, folio_nr * FOLIO_PAGES) != NULL;
}

/* Are exactly the folios in [first, last] cached, of @nr_folios? */
static bool cached_exactly(struct rt_file *f, unsigned long nr_folios,
			   unsigned long first, unsigned long last)
{
	for (unsigned long i = 0; i < nr_folios; i++)
		if (cached(f, i) != (i >= first && i <= last))
			return false;
	return true;
}

/* Mapped folios (all 16 entries present in @mm at @base) among @nr_folios; -1 on a partial one. */
static long mapped_folios(struct mm_struct *mm, unsigned long base, unsigned long nr_folios)
{
	long n = 0;

	for (unsigned long i = 0; i < nr_folios; i++) {
		int present = rt_census(mm, base + RT_PAGES(i * FOLIO_PAGES), FOLIO_PAGES).present;

		if (present && present != FOLIO_PAGES)
			return -1;
		n += present == FOLIO_PAGES;
	}
	return n;
}

/* After any reclaim: the deferred flush was done, and the checkers pass. */
static void check_after_reclaim(const char *what, struct mm_struct **mms, int nr_mms,
				struct rt_file *f)
{
	ok(!tlb_ubc.flush_required && tlb_ubc.pending_pages == 0,
	   "%s: no TLB flush left pending after reclaim", what);
	ok(rt_check(mms, nr_mms, f) == 0, "%s: no entry maps a reclaimed folio (rmap, LRU, page cache checkers)",
	   what);
}

/* Teardown; the LRU is empty and the allocator holds nothing. */
static void finish(const char *what, struct mm_struct **mms, int nr_mms, struct rt_file *f,
		   unsigned long warns, bool may_warn)
{
	ok(rt_check(mms, nr_mms, f) == 0, "%s: checkers pass before teardown", what);
	if (!may_warn)
		is_int(vm_warn_count - warns, 0, "%s: no debug check fired", what);
	for (int i = 0; i < nr_mms; i++)
		mmput(mms[i]);
	rt_file_destroy(f);
	is_int(node_lruvec.nr_pages[LRU_INACTIVE_FILE] + node_lruvec.nr_pages[LRU_ACTIVE_FILE], 0,
	       "%s: the LRU is empty after teardown", what);
	is_int(node_page_state_snapshot(&contig_node, NR_FILE_MAPPED), 0, "%s: NR_FILE_MAPPED back to 0", what);
	is_int(rt_allocated_pages(), 0, "%s: nothing left allocated", what);
	mmu_arch = MMU_X86_64;
}

/*
 * Faults put each new folio at the head of the inactive file list: the
 * oldest is at the tail, where reclaim takes from.  Folios read into the
 * cache without being mapped join the same list.
 */
static void __maybe_unused test_lru_after_faults(void)
{
	unsigned long warns = vm_warn_count;
	struct list_head *list = &node_lruvec.lists[LRU_INACTIVE_FILE];
	struct mm_struct *mm;
	struct folio *folio;
	unsigned long i = 0;
	struct rt_file f;
	bool in_order = true;

	rt_file_init(&f, RT_PAGES(64 * FOLIO_PAGES), 4);
	mm = rt_mm_alloc();
	rt_mmap(mm, &f, RT_BASE, 48 * FOLIO_PAGES, VM_READ, 0);
	is_int(rt_fault_range(mm, RT_BASE, 48 * FOLIO_PAGES), 0, "LRU: 48 folios faulted in, in file order");
	for (pgoff_t index = 48 * FOLIO_PAGES; index < 64 * FOLIO_PAGES; index += FOLIO_PAGES) {
		folio = __filemap_get_folio(&f.mapping, index, FGP_CREAT, GFP_KERNEL);
		if (folio)
			folio_put(folio);
	}
	is_int(f.mapping.nrpages, 64 * FOLIO_PAGES, "LRU: and 16 more read into the cache, not mapped");
	is_int(node_lruvec.nr_pages[LRU_INACTIVE_FILE], 64 * FOLIO_PAGES, "LRU: all 1024 pages on the inactive list");
	is_int(node_lruvec.nr_pages[LRU_ACTIVE_FILE], 0, "LRU: none active");
	for (struct list_head *pos = list->prev; pos != list; pos = pos->prev) {
		folio = list_entry(pos, struct folio, lru);
		if (folio->index != i * FOLIO_PAGES || !folio_test_lru(folio) || folio_test_active(folio) ||
		    folio_test_referenced(folio))
			in_order = false;
		i++;
	}
	ok(in_order && i == 64, "LRU: from the tail, folios 0..63 in the order they were created");
	ok(lruvec_check(&node_lruvec, rt_msg, sizeof(rt_msg)) == 0, "LRU: checker passes (%s)", rt_msg);
	finish("LRU", &mm, 1, &f, warns, false);
}

/*
 * memory_reclaim(16 MiB) of a mapped 64 MiB file whose pages were all
 * touched once (faulted young): every folio is found young on its first
 * trip to the tail and kept with PG_referenced set and its entries aged;
 * on the second trip it is old and goes.  Exactly the oldest 256 folios
 * go, in every design.  A folio touched again before its second trip
 * (folio 500) is activated instead while its neighbours go; not touched
 * again, it ages out with the rest.  The cost is per design: on x86 one
 * deferred flush covers the pages unmapped; on arm64 vanilla unfolds each
 * block it unmaps (one waited flush each) and issues a TLBI per entry,
 * the batched unmap one TLBI per folio.
 */
static void __maybe_unused test_reclaim_touched_once(enum mmu_arch arch)
{
	const char *a = arch_name(arch);
	unsigned long warns = vm_warn_count;
	unsigned long x_addr = RT_BASE + RT_PAGES(500 * FOLIO_PAGES);
	bool arm = arch == MMU_ARM64;
	unsigned long unmap_tlbis = RT_BATCH_UNMAP ? 1 : 17;	/* per folio unmapped, arm64 */
	bool referenced_old = true;
	unsigned long wrong = 0;
	struct rt_counters cnt, d;
	struct reclaim_stat st;
	struct mm_struct *mm;
	struct folio *x;
	struct rt_file f;

	mmu_arch = arch;
	rt_file_init(&f, RT_PAGES(BIG_FOLIOS * FOLIO_PAGES), 4);
	mm = rt_mm_alloc();
	rt_mmap(mm, &f, RT_BASE, BIG_FOLIOS * FOLIO_PAGES, VM_READ, 0);
	is_int(rt_fault_range(mm, RT_BASE, BIG_FOLIOS * FOLIO_PAGES), 0, "%s touched once: 64 MiB faulted in", a);

	rt_counters_start(&cnt);
	is_int(memory_reclaim(4096, &st), 4096, "%s touched once: reclaim 16 MiB: 16 MiB reclaimed", a);
	d = rt_counters_delta(&cnt);
	is_int(st.nr_keep, BIG_FOLIOS * FOLIO_PAGES, "%s touched once: every folio kept once (first trip)", a);
	is_int(st.nr_referenced_calls, BIG_FOLIOS + 256, "%s touched once: 1024 first + 256 second looks", a);
	is_int(st.nr_unmap_calls, 256, "%s touched once: 256 folios unmapped", a);
	is_int(st.nr_activate + st.nr_unmap_fail, 0, "%s touched once: none activated, no unmap failed", a);
	is_int(st.nr_scanned, 20480, "%s touched once: 20480 pages scanned", a);
	is_int(d.pgscan, 20480, "%s touched once: pgscan_file counts the 20480 pages isolated", a);
	is_int(d.pgsteal, 4096, "%s touched once: pgsteal_file counts the 4096 pages reclaimed", a);
	ok(cached_exactly(&f, BIG_FOLIOS, 256, BIG_FOLIOS - 1),
	   "%s touched once: the oldest 256 folios went, folios 256..1023 are cached", a);
	is_int(mapped_folios(mm, RT_BASE, BIG_FOLIOS), BIG_FOLIOS - 256,
	       "%s touched once: the cached folios are still mapped whole, the others not at all", a);
	for (unsigned long i = 256; i < BIG_FOLIOS; i++) {
		struct folio *folio = rt_folio(&f, i * FOLIO_PAGES);

		if (!folio || !folio_test_referenced(folio) || folio_test_active(folio) ||
		    rt_census(mm, RT_BASE + RT_PAGES(i * FOLIO_PAGES), FOLIO_PAGES).young)
			referenced_old = false;
	}
	ok(referenced_old, "%s touched once: every kept folio has PG_referenced and no young entry", a);
	is_int(rt_census(mm, RT_BASE + RT_PAGES(256 * FOLIO_PAGES), (BIG_FOLIOS - 256) * FOLIO_PAGES).cont,
	       arm ? (BIG_FOLIOS - 256) * FOLIO_PAGES : 0, "%s touched once: aging kept the blocks", a);
	is_int(d.batches, (RT_BATCH_REFERENCED ? 1280 : 1280 * 16) + (RT_BATCH_UNMAP ? 256 : 256 * 16),
	       "%s touched once: rmap batches: aging %s, unmapping %s", a,
	       RT_BATCH_REFERENCED ? "a folio at a time" : "an entry at a time",
	       RT_BATCH_UNMAP ? "a folio at a time" : "an entry at a time");
	if (arm) {
		is_int(d.tlb.syncs, 150 + (RT_BATCH_UNMAP ? 0 : 256),
		       "arm64 touched once: 150 deferred-flush waits (one per pass that unmapped)%s",
		       RT_BATCH_UNMAP ? "" : " + 256 unfolds");
		is_int(d.tlb.flushes, BIG_FOLIOS + 256 * unmap_tlbis,
		       "arm64 touched once: a TLBI per young folio aged + %lu per folio unmapped", unmap_tlbis);
	} else {
		is_int(d.tlb.flushes, 150,
		       "x86 touched once: 150 deferred flushes (one per pass that unmapped), nothing else");
		is_int(d.tlb.syncs, 0, "x86 touched once: none waited for (the process sleeps: lazy TLB)");
		is_int(d.tlb.shootdowns, 0, "x86 touched once: no CPU had to flush");
		is_int(d.tlb.pages, 4096, "x86 touched once: covering exactly the pages unmapped");
	}
	check_after_reclaim(arm ? "arm64 touched once" : "x86 touched once", &mm, 1, &f);

	/* Folio 500 used again: its second trip finds it young. */
	ok(mmu_access(mm, x_addr + RT_PAGES(15), false) != NULL, "%s touched once: touch folio 500 again", a);
	rt_counters_start(&cnt);
	is_int(memory_reclaim(8192, &st), 8192, "%s young again: reclaim 32 MiB more", a);
	d = rt_counters_delta(&cnt);
	x = rt_folio(&f, 500 * FOLIO_PAGES);
	ok(x && folio_test_active(x), "%s young again: folio 500 is cached and active", a);
	is_int(rt_census(mm, x_addr, FOLIO_PAGES).present, FOLIO_PAGES, "%s young again: and still mapped", a);
	is_int(st.nr_activate, FOLIO_PAGES, "%s young again: it is the one folio activated", a);
	ok(!cached(&f, 499) && !cached(&f, 501), "%s young again: its neighbours went", a);
	for (unsigned long i = 0; i < BIG_FOLIOS; i++)
		wrong += cached(&f, i) != (i == 500 || i >= 769);
	is_int(wrong, 0, "%s young again: folios 256..768 but 500 went, 769..1023 are cached", a);
	if (arm)
		is_int(d.tlb.flushes, 1 + 512 * unmap_tlbis, "arm64 young again: one aging TLBI (folio 500)");
	else
		is_int(d.tlb.pages, 8192, "x86 young again: flushes cover the pages unmapped");
	check_after_reclaim(arm ? "arm64 young again" : "x86 young again", &mm, 1, &f);

	/* Not used again: folio 500 is deactivated and ages out with the rest. */
	is_int(memory_reclaim(4096, &st), 4096, "%s all: reclaim the remaining 16 MiB", a);
	is_int(f.mapping.nrpages, 0, "%s all: nothing cached", a);
	is_int(get_mm_counter_sum(mm, MM_FILEPAGES), 0, "%s all: nothing mapped", a);
	check_after_reclaim(arm ? "arm64 all" : "x86 all", &mm, 1, &f);
	finish(arm ? "touched once (arm64)" : "touched once (x86)", &mm, 1, &f, warns, false);
}

/*
 * Two processes map the file and touched every page: each folio is young
 * in two VMAs, which activates it on its first trip (the kernel's "mapped
 * young in more than one VMA").  Reclaim then has to deactivate folios
 * before it can free any; once aged in both processes they go, unmapped
 * from both.
 */
static void __maybe_unused test_reclaim_two_processes(enum mmu_arch arch)
{
	const char *a = arch_name(arch);
	unsigned long warns = vm_warn_count;
	struct rt_counters cnt, d;
	unsigned long unmap_tlbis = RT_BATCH_UNMAP ? 1 : 17;	/* per mapping unmapped, arm64 */
	unsigned long got, gone = 0, both = 0, first_cached = 64;
	struct mm_struct *mms[2];
	struct reclaim_stat st;
	struct rt_file f;

	mmu_arch = arch;
	rt_file_init(&f, RT_PAGES(64 * FOLIO_PAGES), 4);
	for (int i = 0; i < 2; i++) {
		mms[i] = rt_mm_alloc();
		rt_mmap(mms[i], &f, RT_BASE, 64 * FOLIO_PAGES, VM_READ, 0);
		is_int(rt_fault_range(mms[i], RT_BASE, 64 * FOLIO_PAGES), 0, "%s two processes: process %d faulted in", a, i);
	}
	rt_counters_start(&cnt);
	got = memory_reclaim(512, &st);
	d = rt_counters_delta(&cnt);
	is_int(got, 512, "%s two processes: reclaim 2 MiB: 2 MiB reclaimed", a);
	is_int(st.nr_activate, 64 * FOLIO_PAGES, "%s two processes: every folio activated on its first trip", a);
	is_int(st.nr_keep, 0, "%s two processes: none merely kept", a);
	is_int(st.nr_unmap_calls, 32, "%s two processes: 32 folios unmapped", a);
	is_int(st.nr_referenced_calls, 144, "%s two processes: the same 144 folio_referenced() calls", a);
	for (unsigned long i = 0; i < 64; i++) {
		bool c = cached(&f, i);
		int p0 = rt_census(mms[0], RT_BASE + RT_PAGES(i * FOLIO_PAGES), FOLIO_PAGES).present;
		int p1 = rt_census(mms[1], RT_BASE + RT_PAGES(i * FOLIO_PAGES), FOLIO_PAGES).present;

		gone += !c && p0 == 0 && p1 == 0;
		both += c && p0 == FOLIO_PAGES && p1 == FOLIO_PAGES;
		if (c && first_cached == 64)
			first_cached = i;
	}
	is_int(gone, 32, "%s two processes: 32 folios went, unmapped from both processes", a);
	is_int(first_cached, 32, "%s two processes: the oldest 32", a);
	is_int(both, 32, "%s two processes: the other 32 are cached and mapped in both", a);
	if (arch == MMU_ARM64) {
		is_int(d.tlb.flushes, 128 + 64 * unmap_tlbis,
		       "arm64 two processes: a TLBI per young mapping aged + %lu per mapping unmapped", unmap_tlbis);
		is_int(d.tlb.syncs, 26 + (RT_BATCH_UNMAP ? 0 : 64),
		       "arm64 two processes: 26 deferred-flush waits%s", RT_BATCH_UNMAP ? "" : " + 64 unfolds");
	} else {
		is_int(d.tlb.flushes, 26, "x86 two processes: 26 deferred flushes");
		is_int(d.tlb.pages, 1024, "x86 two processes: covering both mappings of the 32 folios");
	}
	check_after_reclaim(arch == MMU_ARM64 ? "arm64 two processes" : "x86 two processes", mms, 2, &f);
	finish(arch == MMU_ARM64 ? "two processes (arm64)" : "two processes (x86)", mms, 2, &f, warns, false);
}

/*
 * A VM_LOCKED mapping of half the file next to an ordinary mapping of the
 * other half: asked for everything, reclaim frees the ordinary half and
 * never the mlocked one (each trip activates it).
 */
static void __maybe_unused test_reclaim_mlocked(void)
{
	unsigned long warns = vm_warn_count;
	unsigned long other = RT_BASE + (64UL << 20);
	struct reclaim_stat st;
	struct mm_struct *mm;
	unsigned long got, locked_cached = 0, other_cached = 0;
	struct rt_file f;

	mmu_arch = MMU_ARM64;
	rt_file_init(&f, RT_PAGES(32 * FOLIO_PAGES), 4);
	mm = rt_mm_alloc();
	rt_mmap(mm, &f, RT_BASE, 16 * FOLIO_PAGES, VM_READ | VM_LOCKED, 0);
	rt_mmap(mm, &f, other, 16 * FOLIO_PAGES, VM_READ, 16 * FOLIO_PAGES);
	rt_fault_range(mm, RT_BASE, 16 * FOLIO_PAGES);
	rt_fault_range(mm, other, 16 * FOLIO_PAGES);
	got = memory_reclaim(32 * FOLIO_PAGES, &st);
	for (unsigned long i = 0; i < 16; i++) {
		locked_cached += cached(&f, i);
		other_cached += cached(&f, 16 + i);
	}
	is_int(got, 16 * FOLIO_PAGES, "mlocked: asked for everything, reclaim frees the ordinary half");
	is_int(other_cached, 0, "mlocked: none of the ordinary half is cached");
	is_int(locked_cached, 16, "mlocked: all of the mlocked half is");
	is_int(mapped_folios(mm, RT_BASE, 16), 16, "mlocked: and still mapped");
	is_int(st.nr_unmap_calls, 16, "mlocked: only the ordinary folios were unmapped");
	ok(st.nr_activate >= 16 * FOLIO_PAGES && st.nr_activate % FOLIO_PAGES == 0,
	   "mlocked: each trip of an mlocked folio activates it (%lu pages)", st.nr_activate);
	check_after_reclaim("mlocked", &mm, 1, &f);
	finish("mlocked", &mm, 1, &f, warns, false);
}

/*
 * A shared writable mapping where every other folio was written (one store
 * to its page 9): reclaim unmaps a written folio, carries the entry's dirty
 * bit to the folio, and keeps it (no writeback in the model); the clean
 * ones go.  On arm64 the store dirtied one entry of a block: vanilla
 * gathers it when it unfolds, the batched unmap when it clears the run.
 */
static void __maybe_unused test_reclaim_dirty(enum mmu_arch arch)
{
	const char *a = arch_name(arch);
	unsigned long warns = vm_warn_count;
	struct reclaim_stat st;
	struct mm_struct *mm;
	unsigned long got;
	int dirty_kept = 0, clean_gone = 0;
	struct rt_file f;

	mmu_arch = arch;
	rt_file_init(&f, RT_PAGES(16 * FOLIO_PAGES), 4);
	mm = rt_mm_alloc();
	rt_mmap(mm, &f, RT_BASE, 16 * FOLIO_PAGES, VM_READ | VM_WRITE | VM_SHARED, 0);
	rt_fault_range(mm, RT_BASE, 16 * FOLIO_PAGES);
	for (unsigned long i = 0; i < 16; i += 2)
		if (!mmu_access(mm, RT_BASE + RT_PAGES(i * FOLIO_PAGES + 9), true))
			diag("store to folio %lu faulted", i);
	got = memory_reclaim(16 * FOLIO_PAGES, &st);
	for (unsigned long i = 0; i < 16; i++) {
		struct folio *folio = rt_folio(&f, i * FOLIO_PAGES);

		if (i % 2 == 0)
			dirty_kept += folio && folio_test_dirty(folio) && !folio_mapped(folio);
		else
			clean_gone += !folio;
	}
	is_int(got, 8 * FOLIO_PAGES, "%s dirty: asked for everything, the 8 clean folios are reclaimed", a);
	is_int(clean_gone, 8, "%s dirty: none of the clean folios is cached", a);
	is_int(dirty_kept, 8, "%s dirty: the 8 written folios are kept, dirty, unmapped", a);
	is_int(rt_census(mm, RT_BASE, 16 * FOLIO_PAGES).present, 0, "%s dirty: no entry left", a);
	check_after_reclaim(arch == MMU_ARM64 ? "arm64 dirty" : "x86 dirty", &mm, 1, &f);
	finish(arch == MMU_ARM64 ? "dirty (arm64)" : "dirty (x86)", &mm, 1, &f, warns, false);
}

/*
 * Clean page-cache folios nobody maps have no references to find: each is
 * reclaimed on its first trip, with nothing to unmap or flush.
 */
static void __maybe_unused test_reclaim_unmapped(void)
{
	unsigned long warns = vm_warn_count;
	struct rt_counters cnt, d;
	struct reclaim_stat st;
	struct rt_file f;

	rt_file_init(&f, RT_PAGES(64 * FOLIO_PAGES), 4);
	for (pgoff_t index = 0; index < 64 * FOLIO_PAGES; index += FOLIO_PAGES) {
		struct folio *folio = __filemap_get_folio(&f.mapping, index, FGP_CREAT, GFP_KERNEL);

		if (folio)
			folio_put(folio);
	}
	is_int(f.mapping.nrpages, 64 * FOLIO_PAGES, "unmapped: 64 folios cached");
	rt_counters_start(&cnt);
	is_int(memory_reclaim(64 * FOLIO_PAGES, &st), 64 * FOLIO_PAGES, "unmapped: all reclaimed");
	d = rt_counters_delta(&cnt);
	is_int(st.nr_keep + st.nr_activate, 0, "unmapped: each on its first trip");
	is_int(st.nr_referenced_calls, 64, "unmapped: one look each");
	is_int(st.nr_unmap_calls, 0, "unmapped: nothing to unmap");
	is_int(d.tlb.flushes + d.tlb.syncs, 0, "unmapped: nothing to flush");
	is_int(f.mapping.nrpages, 0, "unmapped: the cache is empty");
	check_after_reclaim("unmapped", NULL, 0, &f);
	finish("unmapped", NULL, 0, &f, warns, false);
}

/*
 * A mapping 8 pages off a 2 MiB boundary: folios 0 and 32 straddle two
 * page tables (mapped a page per fault), the others are mapped whole
 * without blocks.  Reclaiming everything leaves nothing mapped or cached,
 * in every design.  rmap-past-pmd lets the straddling folios' batches run
 * past their page table: a debug check fires.
 */
static void __maybe_unused test_reclaim_pmd_straddle(void)
{
	unsigned long warns = vm_warn_count;
	unsigned long start = RT_BASE + PMD_SIZE - RT_PAGES(8);
	struct reclaim_stat st;
	struct mm_struct *mm;
	struct rt_file f;

	mmu_arch = MMU_ARM64;
	rt_file_init(&f, RT_PAGES(64 * FOLIO_PAGES), 4);
	mm = rt_mm_alloc();
	rt_mmap(mm, &f, start, 64 * FOLIO_PAGES, VM_READ, 0);
	is_int(rt_fault_range(mm, start, 64 * FOLIO_PAGES), 0, "straddle: faulted in");
	is_int(rt_census(mm, start, 64 * FOLIO_PAGES).present, 64 * FOLIO_PAGES, "straddle: all mapped");
	is_int(memory_reclaim(64 * FOLIO_PAGES, &st), 64 * FOLIO_PAGES, "straddle: everything reclaimed");
	is_int(st.nr_unmap_calls, 64, "straddle: each folio unmapped once");
	is_int(rt_census(mm, start, 64 * FOLIO_PAGES).present, 0, "straddle: no entry left in any table");
	is_int(get_mm_counter_sum(mm, MM_FILEPAGES), 0, "straddle: MM_FILEPAGES 0");
#ifdef CONFIG_RMAP_MUTANT_PAST_PMD
	ok(vm_warn_count > warns, "mutant %s: batches ran past their page table (caught: %lu debug checks)",
	   MM_KERNEL_NAME, vm_warn_count - warns);
#endif
	check_after_reclaim("straddle", &mm, 1, &f);
	finish("straddle", &mm, 1, &f, warns, RT_PAST_PMD);
}

/*
 * Two order-4 folios carved from one order-5 block (B's pfns follow A's),
 * mapped at consecutive addresses, both touched once; A is the older.
 * Each must be kept on its own first trip and go on its second: 32 pages
 * kept, 32 reclaimed.  rmap-past-folio ages B along with A, so B has no
 * reference left on its first trip and goes at once.
 */
static void test_reclaim_adjacent(void)
{
	unsigned long warns = vm_warn_count;
	struct reclaim_stat st;
	struct mm_struct *mm;
	struct folio *A, *B;
	struct rt_file f;

	mmu_arch = MMU_ARM64;
	rt_file_init(&f, RT_PAGES(32), 4);
	rt_cache_adjacent_pair(&f, &A, &B);
	is_int(folio_pfn(B), folio_pfn(A) + 16, "adjacent: B's pfns follow A's");
	mm = rt_mm_alloc();
	rt_mmap(mm, &f, RT_BASE, 32, VM_READ, 0);
	is_int(rt_fault_range(mm, RT_BASE, 32), 0, "adjacent: both mapped");
	is_int(memory_reclaim(FOLIO_PAGES, &st), 2 * FOLIO_PAGES, "adjacent: reclaim takes both (32 pages at least)");
#ifdef CONFIG_RMAP_MUTANT_PAST_FOLIO
	ok(st.nr_keep != 2 * FOLIO_PAGES,
	   "mutant %s: B lost its reference to A's aging and went on its first trip (kept %lu pages): caught",
	   MM_KERNEL_NAME, st.nr_keep);
#else
	is_int(st.nr_keep, 2 * FOLIO_PAGES, "adjacent: each was kept on its first trip");
#endif
	check_after_reclaim("adjacent", &mm, 1, &f);
	finish("adjacent", &mm, 1, &f, warns, false);
}

/*
 * An executable mapping: a young executable folio is activated on its
 * first trip, not merely kept (the kernel's VM_EXEC exception); reclaim
 * has to deactivate folios before it can take any.
 */
static void __maybe_unused test_reclaim_exec(void)
{
	unsigned long warns = vm_warn_count;
	struct reclaim_stat st;
	struct mm_struct *mm;
	unsigned long got;
	struct rt_file f;

	mmu_arch = MMU_ARM64;
	rt_file_init(&f, RT_PAGES(16 * FOLIO_PAGES), 4);
	mm = rt_mm_alloc();
	rt_mmap(mm, &f, RT_BASE, 16 * FOLIO_PAGES, VM_READ | VM_EXEC, 0);
	rt_fault_range(mm, RT_BASE, 16 * FOLIO_PAGES);
	got = memory_reclaim(8 * FOLIO_PAGES, &st);
	is_int(got, 8 * FOLIO_PAGES, "exec: reclaim half: half reclaimed");
	is_int(st.nr_activate, 16 * FOLIO_PAGES, "exec: every folio activated on its first trip");
	is_int(st.nr_keep, 0, "exec: none merely kept");
	is_int(st.nr_unmap_calls, 8, "exec: the 8 folios reclaimed were unmapped");
	ok(cached_exactly(&f, 16, 8, 15), "exec: the oldest 8 went");
	is_int(mapped_folios(mm, RT_BASE, 16), 8, "exec: the others are still mapped");
	check_after_reclaim("exec", &mm, 1, &f);
	finish("exec", &mm, 1, &f, warns, false);
}

/*
 * The flush-before-free rule, the checker alone: a run of entries whose
 * flush was deferred counts its pages pending, exactly the run's pages
 * (not the one below it, not the one above), until try_to_unmap_flush();
 * a block freed with a pending page warns once, a block beside it or
 * freed after the flush does not.
 */
static void __maybe_unused test_flush_pending_checker(void)
{
	unsigned long warns;
	struct mm_struct *mm = rt_mm_alloc();
	struct page *page = alloc_pages(GFP_KERNEL, 2);
	unsigned long pfn = page_to_pfn(page);
	bool quiet = vm_warn_quiet;

	mmu_arch = MMU_X86_64;
	set_tlb_ubc_flush_pending(mm, pfn_pte(pfn + 1, PAGE_READONLY), RT_BASE, RT_BASE + RT_PAGES(2));
	ok(tlb_ubc.flush_required, "checker: a deferred run leaves a flush required");
	ok(!page_tlb_flush_pending(page), "checker: the page below the run is not pending");
	ok(page_tlb_flush_pending(page + 1) && page_tlb_flush_pending(page + 2),
	   "checker: the run's first and last pages are pending");
	ok(!page_tlb_flush_pending(page + 3), "checker: the page above the run is not pending");
	warns = vm_warn_count;
	vm_warn_quiet = true;
	__free_pages(page, 2);
	vm_warn_quiet = quiet;
	is_int(vm_warn_count - warns, 1, "checker: freeing the block before the flush warns, once");
	try_to_unmap_flush();
	ok(!tlb_ubc.flush_required && !page_tlb_flush_pending(page + 1) && !page_tlb_flush_pending(page + 2),
	   "checker: the flush clears the run");

	page = alloc_pages(GFP_KERNEL, 0);
	pfn = page_to_pfn(page);
	warns = vm_warn_count;
	set_tlb_ubc_flush_pending(mm, pfn_pte(pfn, PAGE_READONLY), RT_BASE, RT_BASE + PAGE_SIZE);
	set_tlb_ubc_flush_pending(mm, pfn_pte(pfn, PAGE_READONLY), RT_BASE, RT_BASE + PAGE_SIZE);
	try_to_unmap_flush();
	__free_pages(page, 0);
	is_int(vm_warn_count - warns, 0, "checker: a page deferred twice and flushed frees silently");
	mmput(mm);
	is_int(rt_allocated_pages(), 0, "checker: nothing left allocated");
}

/*
 * reclaim_pages() of @n isolated, mapped order-0 folios: one
 * shrink_folio_list() call, whose free batch holds 31 folios.  Below 31
 * the only flush and free are at the end; at 31 the batch fills on the
 * last folio (flush and free there, nothing at the end); above, the first
 * 31 are flushed and freed in the loop, the rest at the end.  Every
 * unmap is deferred: no page may reach the allocator before its flush
 * (the debug check in free_pages_prepare()), and on x86 there is exactly
 * one flush per batch freed, a shootdown waited for: the process is
 * running on CPU 1.
 */
static void __maybe_unused test_reclaim_pages_flush(enum mmu_arch arch, unsigned long n)
{
	const char *a = arch_name(arch);
	unsigned long warns = vm_warn_count, got, nr_isolated = 0;
	struct rt_counters c, d;
	LIST_HEAD(list);
	struct mm_struct *mm;
	struct rt_file f;
	char what[64];

	snprintf(what, sizeof(what), "reclaim_pages %s n=%lu", a, n);
	mm = rt_map_file(&f, arch, n, 0);
	switch_mm_cpu(1, mm);	/* awake again */
	is_int(rt_census(mm, RT_BASE, n).present, (long)n, "%s: all %lu mapped", what, n);
	lru_add_drain();
	for (unsigned long i = 0; i < n; i++) {
		struct folio *folio = rt_folio(&f, i);

		if (folio && folio_isolate_lru(folio)) {
			list_add_tail(&folio->lru, &list);
			nr_isolated++;
		}
	}
	is_int(nr_isolated, n, "%s: all isolated", what);
	rt_counters_start(&c);
	got = reclaim_pages(&list, true);
	d = rt_counters_delta(&c);
	is_int(got, n, "%s: all reclaimed", what);
	is_int(vm_warn_count - warns, 0, "%s: no page freed before its deferred flush", what);
	if (arch == MMU_X86_64) {
		is_int(d.tlb.syncs, DIV_ROUND_UP(n, FOLIO_BATCH_SIZE), "%s: one flush per batch of %d freed",
		       what, FOLIO_BATCH_SIZE);
		is_int(d.tlb.shootdowns, DIV_ROUND_UP(n, FOLIO_BATCH_SIZE), "%s: each a shootdown", what);
	}
	is_int(rt_census(mm, RT_BASE, n).present, 0, "%s: nothing mapped", what);
	check_after_reclaim(what, &mm, 1, &f);
	finish(what, &mm, 1, &f, warns, false);
}

int main(void)
{
	plan_no_plan();
	vm_warn_quiet = RT_MUTANT;
	rt_boot(128ULL << 20);
	is_int(rt_allocated_pages(), 0, "booted: nothing allocated");
#ifndef CONFIG_RMAP_MUTANT_PAST_FOLIO
	test_lru_after_faults();
	test_reclaim_touched_once(MMU_X86_64);
	test_reclaim_touched_once(MMU_ARM64);
	test_reclaim_two_processes(MMU_X86_64);
	test_reclaim_two_processes(MMU_ARM64);
	test_reclaim_mlocked();
	test_reclaim_dirty(MMU_X86_64);
	test_reclaim_dirty(MMU_ARM64);
	test_reclaim_unmapped();
	test_reclaim_exec();
	test_reclaim_pmd_straddle();
	test_flush_pending_checker();
	for (unsigned long n = FOLIO_BATCH_SIZE - 1; n <= FOLIO_BATCH_SIZE + 1; n++) {
		test_reclaim_pages_flush(MMU_X86_64, n);
		test_reclaim_pages_flush(MMU_ARM64, n);
	}
	test_reclaim_pages_flush(MMU_X86_64, 2 * FOLIO_BATCH_SIZE);
	test_reclaim_pages_flush(MMU_X86_64, 2 * FOLIO_BATCH_SIZE + 1);
#endif
	test_reclaim_adjacent();
	mem_exit();
	return done_testing();
}
