/*
 * The buddy's fallback path as rmqueue_bulk() walks it (upstream
 * 90abee6d7895, "mm: page_alloc: speed up fallbacks in rmqueue_bulk()",
 * v6.15): a pcp refill that finds its own migratetype empty claims a
 * pageblock of another type when enough of it is free, steals one block
 * when it is not, keeps going where it found pages for the rest of the
 * batch (a later iteration does not search the sources it found empty),
 * goes back to its own lists after a claim, and starts afresh in the next
 * refill.  Every page is accounted for after each step and at the end.
 *
 * Each case builds the free lists it needs, drawn as the pageblocks are
 * painted, one character per unit of a pageblock's pages:
 *
 *	#	allocated (held by the test)
 *	-	free
 *	1..f	that many pages free at the start of the unit, the rest held
 *
 * Memory is four pageblocks, P0..P3 (2048 pages); a pageblock that a case
 * does not paint is movable and fully allocated.  The state is drawn back
 * the same way (draw()), with the pageblock's type first (U, M, R) and,
 * for each unit: u/m/r a free block on that type's list, p on a pcp list,
 * # allocated, + a mix.  The refills are movable order-0 allocations
 * unless a case says otherwise, with the pcp batch set so that one
 * allocation is one rmqueue_bulk() call of exactly the count asked for.
 */
#include <string.h>

#include <linux/gfp.h>
#include <linux/mmzone.h>
#include <linux/vmstat.h>
#include <machine/machine.h>

#include "mm_test.h"

#define MEM	(8ULL << 20)
#define NR_PB	4
#define PB	pageblock_nr_pages

static struct page *held[NR_PB * 512];	/* by pfn: the pages the test holds */
static char state[NR_PB * 512];		/* by pfn: what snapshot() saw */

#define is_str(got, want, ...) ({					\
	const char *__g = (got), *__w = (want);				\
	int __r = ok(strcmp(__g, __w) == 0, __VA_ARGS__);		\
	if (!__r) {							\
		diag("  got:  \"%s\"", __g);				\
		diag("  want: \"%s\"", __w);				\
	}								\
	__r;								\
})

static struct per_cpu_pages *my_pcp(void)
{
	return &contig_zone.per_cpu_pageset[smp_processor_id()];
}

/* Where every page is, one character per pfn (see the top of the file). */
static void snapshot(void)
{
	struct zone *zone = &contig_zone;
	struct page *page;

	memset(state, '#', max_pfn);
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		spin_lock(&zone->per_cpu_pageset[cpu].lock);
	spin_lock(&zone->lock);
	for (unsigned int order = 0; order < NR_PAGE_ORDERS; order++)
		for (int mt = 0; mt < MIGRATE_TYPES; mt++)
			list_for_each_entry(page, &zone->free_area[order].free_list[mt], lru)
				memset(state + page_to_pfn(page), "umrhi"[mt], 1UL << order);
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		for (unsigned int pindex = 0; pindex < NR_PCP_LISTS; pindex++)
			list_for_each_entry(page, &zone->per_cpu_pageset[cpu].lists[pindex], lru)
				memset(state + page_to_pfn(page), 'p', 1UL << pindex_to_order(pindex));
	spin_unlock(&zone->lock);
	for (int cpu = NR_CPUS - 1; cpu >= 0; cpu--)
		spin_unlock(&zone->per_cpu_pageset[cpu].lock);
}

static char bufs[4][PB + 8];
static int nbuf;

/* Pageblock @pb drawn in units of @unit pages, its type first. */
static const char *draw(unsigned long pb, unsigned long unit)
{
	char *b = bufs[nbuf++ % 4];
	unsigned long first = pb * PB;
	int n = 0;

	snapshot();
	b[n++] = "UMRHI"[get_pageblock_migratetype(pfn_to_page(first))];
	b[n++] = ' ';
	for (unsigned long u = first; u < first + PB; u += unit) {
		char c = state[u];

		for (unsigned long pfn = u; pfn < u + unit; pfn++)
			if (state[pfn] != c)
				c = '+';
		b[n++] = c;
	}
	b[n] = '\0';
	return b;
}

/* @nr pages from @pfn, one character each. */
static const char *draw_pages(unsigned long pfn, unsigned long nr)
{
	char *b = bufs[nbuf++ % 4];

	snapshot();
	memcpy(b, state + pfn, nr);
	b[nr] = '\0';
	return b;
}

/* The pageblock of each block on the @order free list of @mt, head first. */
static const char *draw_list(unsigned int order, int mt)
{
	char *b = bufs[nbuf++ % 4];
	struct page *page;
	int n = 0;

	spin_lock(&contig_zone.lock);
	list_for_each_entry(page, &contig_zone.free_area[order].free_list[mt], lru) {
		if (n > 60)
			break;
		n += snprintf(b + n, 8, "%s%lu", n ? " " : "", page_to_pfn(page) / PB);
	}
	spin_unlock(&contig_zone.lock);
	b[n] = '\0';
	return b;
}

/* Free pages in pageblock @pb, wherever they are listed. */
static unsigned long pb_free(unsigned long pb)
{
	unsigned long nr = 0;

	snapshot();
	for (unsigned long pfn = pb * PB; pfn < (pb + 1) * PB; pfn++)
		nr += state[pfn] != '#' && state[pfn] != 'p';
	return nr;
}

static unsigned long nr_held(void)
{
	unsigned long nr = 0;

	for (unsigned long pfn = 0; pfn < max_pfn; pfn++)
		nr += held[pfn] != NULL;
	return nr;
}

/*
 * Every page exactly once: the checker passes, the free, pcp and allocated
 * pages add up to memory, the pages allocated are those the test holds,
 * and NR_FREE_PAGES is the buddy's count.
 */
static void accounted(const char *when)
{
	struct page_alloc_report r;
	int ret = mm_alloc_check(&r);

	ok(ret == 0 && r.free + r.pcp + r.allocated == max_pfn && r.allocated == nr_held() &&
	   nr_free_pages() == r.free,
	   "%s: every page accounted for (free %lu + pcp %lu + allocated %lu of %lu, %lu held, "
	   "NR_FREE_PAGES %lu)", when, r.free, r.pcp, r.allocated, max_pfn, nr_held(),
	   nr_free_pages());
}

/* Boot, and allocate every page as a movable order-0 page. */
static void build(void)
{
	struct page *page;
	unsigned long nr = 0;

	ok(mem_init(MEM) == 0 && max_pfn == NR_PB * PB, "boot %lu pageblocks", (unsigned long)NR_PB);
	memset(held, 0, sizeof(held));
	while ((page = alloc_pages(GFP_KERNEL | __GFP_MOVABLE | __GFP_NOWARN, 0))) {
		held[page_to_pfn(page)] = page;
		nr++;
	}
	is_int(nr, max_pfn, "every page allocated before painting");
}

/*
 * Label pageblock @pb @mt and free what @layout draws free; the blocks
 * reach the buddy together (a drain), the last painted pageblock's at the
 * head of its lists.
 */
static void paint(unsigned long pb, int mt, const char *layout)
{
	static const char digits[] = "0123456789abcdef";
	unsigned long len = strlen(layout), unit = PB / len;

	if (unit * len != PB || strspn(layout, "-#123456789abcdef") != len ||
	    (strpbrk(layout, digits) && unit != 16)) {
		ok(0, "layout \"%s\" draws a pageblock", layout);
		exit(1);
	}
	set_pageblock_migratetype(pfn_to_page(pb * PB), mt);
	for (unsigned long i = 0; i < len; i++) {
		unsigned long start = pb * PB + i * unit, nr_free;

		if (layout[i] == '-')
			nr_free = unit;
		else if (layout[i] == '#')
			nr_free = 0;
		else
			nr_free = (unsigned long)(strchr(digits, layout[i]) - digits);
		for (unsigned long pfn = start; pfn < start + nr_free; pfn++) {
			__free_pages(held[pfn], 0);
			held[pfn] = NULL;
		}
	}
	drain_all_pages(&contig_zone);
}

/*
 * One allocation of @gfp that refills this CPU's empty list with one
 * rmqueue_bulk() call of @count blocks: the batch is @count, high far
 * above it, the refill not scaled up.
 */
static struct page *refill(gfp_t gfp, int count)
{
	struct per_cpu_pages *pcp = my_pcp();
	struct page *page;
	int before = pcp->count;

	spin_lock(&pcp->lock);
	pcp->batch = count;
	pcp->high = pcp->high_min = pcp->high_max = 16 * count + 64;
	pcp->alloc_factor = 0;
	spin_unlock(&pcp->lock);
	page = alloc_pages(gfp, 0);
	if (page)
		held[page_to_pfn(page)] = page;
	is_int(pcp->count - before, count - 1,
	       "the refill took %d pages: one allocated, the rest on the pcp list", count);
	return page;
}

/* Give back everything, and check that every page is free in the buddy again. */
static void finish(const char *what)
{
	struct page_alloc_report r;

	for (unsigned long pfn = 0; pfn < max_pfn; pfn++)
		if (held[pfn]) {
			__free_pages(held[pfn], 0);
			held[pfn] = NULL;
		}
	drain_all_pages(&contig_zone);
	ok(mm_alloc_check(&r) == 0 && r.free == max_pfn && r.allocated == 0 && r.pcp == 0 &&
	   nr_free_pages() == max_pfn,
	   "%s: at the end all %lu pages are free in the buddy and counted so (free %lu, "
	   "NR_FREE_PAGES %lu)", what, max_pfn, r.free, nr_free_pages());
}

/* --- claiming needs half a pageblock free ----------------------------------- */

/*
 * P0 is unmovable with 255, 256 or 257 pages free (units of 16):
 *
 *	255	P0 U ---------------f################
 *	256	P0 U ----------------################
 *	257	P0 U ----------------1###############
 *
 * Movable is empty everywhere.  A refill of 4 claims P0 at and above half
 * a pageblock: P0 becomes movable, its free pages move to the movable
 * lists, and the four pages come from there, smallest block first (with
 * 257, the lone page 256 first: it is the one allocated, 0..2 go to the
 * pcp list).  Below, it steals the smallest blocks and P0 stays unmovable:
 * 255 = 240 in blocks of order 7..4 and, at 240..254, blocks of order 3,
 * 2, 1 and 0; the steals take 254 (order 0), then split 252 (order 1,
 * both pages), then split 248 (order 2).
 */
static void test_claim_half_a_pageblock(void)
{
	static const struct {
		const char *layout, *after, *first, *last;
		bool claims;
	} c[] = {
		{ "---------------f################", "U uuuuuuuuuuuuuuu+################",
		  "uuuu", "uuuuuuuupuuupp##################", false },
		{ "----------------################", "M +mmmmmmmmmmmmmmm################",
		  "#ppp", "mmmmmmmmmmmmmmmm################", true },
		{ "----------------1###############", "M +mmmmmmmmmmmmmmm################",
		  "pppm", "mmmmmmmmmmmmmmmm################", true },
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(c); i++) {
		unsigned long nr = 255 + i;
		char what[64];

		snprintf(what, sizeof(what), "%lu pages free", nr);
		build();
		paint(0, MIGRATE_UNMOVABLE, c[i].layout);
		is_int(pb_free(0), nr, "%s: P0 drawn %s", what, draw(0, 16));
		accounted(what);
		refill(GFP_KERNEL | __GFP_MOVABLE, 4);
		is_str(draw(0, 16), c[i].after, "%s: the refill %s", what,
		       c[i].claims ? "claims P0 and allocates from it" :
				     "cannot claim P0: it steals and P0 stays unmovable");
		is_str(draw_pages(0, 4), c[i].first, "%s: pages 0..3 after the refill", what);
		is_str(draw_pages(240, 32), c[i].last, "%s: pages 240..271 after the refill", what);
		accounted(what);
		finish(what);
	}
}

/* --- claiming needs blocks of half a pageblock's order ---------------------- */

/*
 * P0 is unmovable with 256 pages free in blocks of exactly order 3, 4 or
 * 5, every other one (units of the block):
 *
 *	order 3	P0 U -#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#
 *	order 4	P0 U -#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#
 *	order 5	P0 U -#-#-#-#-#-#-#-#
 *
 * Half of P0 is free, so a claim would take it; a movable refill tries to
 * claim only from blocks of pageblock_order / 2 (4) up, and steals from
 * smaller ones.  A reclaimable refill claims from any order.
 */
static void test_claim_order(void)
{
	static const char *layout[] = {
		"-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#",
		"-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#",
		"-#-#-#-#-#-#-#-#",
	};

	for (unsigned int order = 3; order <= 5; order++) {
		const char *l = layout[order - 3];
		char what[64];

		snprintf(what, sizeof(what), "order-%u blocks", order);
		build();
		paint(0, MIGRATE_UNMOVABLE, l);
		is_int(contig_zone.free_area[order].nr_free, 32 >> (order - 3),
		       "%s: P0 drawn %s", what, draw(0, 1UL << order));
		refill(GFP_KERNEL | __GFP_MOVABLE, 2);
		is_int(get_pageblock_migratetype(pfn_to_page(0)),
		       order >= pageblock_order / 2 ? MIGRATE_MOVABLE : MIGRATE_UNMOVABLE,
		       "%s: a movable refill %s P0 (%s)", what,
		       order >= pageblock_order / 2 ? "claims" : "steals from", draw(0, 1UL << order));
		is_int(pb_free(0), 254, "%s: both pages from P0", what);
		accounted(what);
		finish(what);
	}

	build();
	paint(0, MIGRATE_UNMOVABLE, layout[0]);
	refill(GFP_KERNEL | __GFP_RECLAIMABLE, 2);
	is_int(get_pageblock_migratetype(pfn_to_page(0)), MIGRATE_RECLAIMABLE,
	       "order-3 blocks: a reclaimable refill claims P0 (%s)", draw(0, 8));
	accounted("reclaimable");
	finish("reclaimable");
}

/* --- the mode kept across one rmqueue_bulk() -------------------------------- */

/*
 * Two unmovable pageblocks, P0 painted last so its block heads the
 * order-4 unmovable list:
 *
 *	P0 U -###############################	one order-4 block, 16 free: no claim
 *	P1 U -#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#	16 order-4 blocks, 256 free: a claim
 *
 * The first iteration of a movable refill tries to claim P0 (the head),
 * fails, and steals P0's block.  Every later iteration of the same call
 * steals too, without trying to claim again, so P1, which the claim would
 * now reach, is left alone: with 2 blocks, and with 17, where the 17th
 * comes from splitting one of P1's blocks.  The next refill is a new call:
 * it tries to claim again, and takes P1.
 */
static void build_steal_then_claimable(void)
{
	build();
	paint(1, MIGRATE_UNMOVABLE, "-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#");
	paint(0, MIGRATE_UNMOVABLE, "-###############################");
	is_str(draw_list(4, MIGRATE_UNMOVABLE), "0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1",
	       "order-4 unmovable list, by pageblock: P0's block heads it");
}

static void test_mode_kept_in_one_bulk(void)
{
	struct page *page;

	build_steal_then_claimable();
	refill(GFP_KERNEL | __GFP_MOVABLE, 1);
	is_str(draw_pages(0, 16), "#uuuuuuuuuuuuuuu", "one block: the first iteration steals P0's");
	is_str(draw(1, 16), "U u#u#u#u#u#u#u#u#u#u#u#u#u#u#u#u#", "P1 untouched");
	accounted("1 block");
	finish("1 block");

	build_steal_then_claimable();
	page = refill(GFP_KERNEL | __GFP_MOVABLE, 2);
	is_str(draw_pages(0, 16), "#puuuuuuuuuuuuuu", "two blocks: the second iteration steals again");
	is_str(draw(1, 16), "U u#u#u#u#u#u#u#u#u#u#u#u#u#u#u#u#",
	       "P1 not claimed: the second iteration did not search for a claim");
	accounted("2 blocks");
	/* Empty the list; the next allocation is a new rmqueue_bulk() call. */
	page = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 0);
	held[page_to_pfn(page)] = page;
	is_int(my_pcp()->count, 0, "the pcp list is empty again");
	refill(GFP_KERNEL | __GFP_MOVABLE, 2);
	is_str(draw(1, 16), "M +#m#m#m#m#m#m#m#m#m#m#m#m#m#m#m#",
	       "the next refill starts afresh: it claims P1 and allocates from it");
	is_str(draw_pages(0, 16), "##uuuuuuuuuuuuuu", "... and leaves P0's remainder alone");
	accounted("next refill");
	finish("2 blocks, then another refill");

	build_steal_then_claimable();
	refill(GFP_KERNEL | __GFP_MOVABLE, 17);
	is_str(draw_pages(0, 16), "#ppppppppppppppp", "17 blocks: the first 16 steal all of P0's");
	is_int(get_pageblock_migratetype(pfn_to_page(PB)), MIGRATE_UNMOVABLE,
	       "the 17th steals from P1 too, and does not claim it (%s)", draw(1, 16));
	is_int(pb_free(1), 255, "one page of P1 taken");
	accounted("17 blocks");
	finish("17 blocks");
}

/*
 * Two claimable unmovable pageblocks:
 *
 *	P0 U -#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#	painted last: heads the list
 *	P1 U -#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#
 *
 * A refill of 4 claims P0 in its first iteration; the claim moved P0's
 * free blocks to the movable lists, so the next iterations take from
 * those and claim nothing more: P1 stays unmovable and whole.
 */
static void test_claim_back_to_normal(void)
{
	build();
	paint(1, MIGRATE_UNMOVABLE, "-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#");
	paint(0, MIGRATE_UNMOVABLE, "-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#-#");
	refill(GFP_KERNEL | __GFP_MOVABLE, 4);
	is_str(draw(0, 16), "M +#m#m#m#m#m#m#m#m#m#m#m#m#m#m#m#", "the first iteration claims P0");
	is_str(draw(1, 16), "U u#u#u#u#u#u#u#u#u#u#u#u#u#u#u#u#",
	       "the next three allocate from P0's blocks, now movable: P1 not claimed");
	is_int(pb_free(0), 256 - 4, "all four pages from P0");
	accounted("claim");
	finish("claim");
}

/* --- claiming a whole pageblock or two -------------------------------------- */

/*
 *	P0 U --------------------------------	one order-9 block
 *	P0 U, P1 U, both all free		one order-10 block
 *
 * A block of a pageblock or more is claimed outright, every pageblock of it
 * relabelled, and the split-off halves counted free on the movable lists.
 */
static void test_claim_whole_blocks(void)
{
	build();
	paint(0, MIGRATE_UNMOVABLE, "--------------------------------");
	refill(GFP_KERNEL | __GFP_MOVABLE, 4);
	is_str(draw(0, 16), "M +mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm", "an order-9 block: P0 claimed");
	accounted("order 9");
	finish("order 9");

	build();
	paint(0, MIGRATE_UNMOVABLE, "--------------------------------");
	paint(1, MIGRATE_UNMOVABLE, "--------------------------------");
	is_int(contig_zone.free_area[MAX_PAGE_ORDER].nr_free, 1, "P0 and P1 merged into one order-10 block");
	refill(GFP_KERNEL | __GFP_MOVABLE, 4);
	is_str(draw(0, 16), "M +mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm", "an order-10 block: P0 claimed");
	is_str(draw(1, 16), "M mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm", "... and P1 with it");
	accounted("order 10");
	finish("order 10");
}

int main(void)
{
	plan_no_plan();
	machine_init();
	vm_warn_quiet = true;
	test_claim_half_a_pageblock();
	test_claim_order();
	test_mode_kept_in_one_bulk();
	test_claim_back_to_normal();
	test_claim_whole_blocks();
	is_int(vm_warn_count, 0, "no debug check fired");
	mem_exit();
	return done_testing();
}
