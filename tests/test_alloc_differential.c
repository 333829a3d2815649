/*
 * Differential test of the page allocator and the contiguous-range frees:
 * seeded random sequences of operations, each checked against a shadow
 * model kept by the test, run against every design (and the mutants,
 * which it must catch).
 *
 * The shadow knows which pages the test owns, how (a high-order block,
 * compound or not; a refcounted order-0 page; a frozen page of a range
 * taken with alloc_contig_frozen_range), each one's expected refcount, and
 * the tag written into it.  Operations: alloc_pages (orders 0..10, some
 * __GFP_COMP, movable or unmovable), __free_pages / folio_put,
 * split_page, get_page / put_page (extra references held for a while),
 * free_contig_range / __free_contig_range of whole and partial runs of
 * order-0 pages (with some pages still referenced), free_pages_bulk,
 * alloc_pages_bulk with pre-filled slots, alloc_contig_frozen_range
 * (whose result the shadow predicts: 0, -EBUSY or -EINVAL),
 * __free_contig_frozen_range, turning frozen pages into refcounted ones,
 * and drain_all_pages.
 *
 * After every operation: page_alloc_check() passes, the allocator counts
 * as many allocated pages as the shadow owns, nothing leaked; pages the
 * operation should have left alone have their refcount and tag; a page
 * handed out is not one the test already owns; an allocation that fails
 * had nothing to allocate.  Every VERIFY_EVERY operations, and at the
 * end, every owned page's tag and refcount are verified.  At the end
 * everything is freed and drained, and all memory must be max-order
 * blocks again: the digest of the per-order counts is printed and
 * asserted, the same for every design.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/gfp.h>
#include <linux/mmzone.h>
#include <machine/machine.h>

#include "mm_test.h"

#if defined(CONFIG_FREE_CONTIG_MUTANT_IGNORE_ALIGN) || defined(CONFIG_FREE_CONTIG_MUTANT_FREE_REFERENCED)
#define MUTANT	1
#else
#define MUTANT	0
#endif

#define MEM		(16ULL << 20)	/* 4096 pages, four max-order blocks */
#define NR_OPS		4000
#define VERIFY_EVERY	64
#define MAX_REFS	4		/* at most this many references on a page */
#define MAX_ARRAY	64		/* bulk arrays */

static const uint64_t seeds[] = { 1, 2, 3, 42, 0x5eed, 20260614 };

/* --- the shadow ------------------------------------------------------------- */

enum pstate {
	P_FREE,		/* not the test's */
	P_HEAD,		/* first page of a high-order block (order, comp) */
	P_TAIL,		/* another page of it */
	P_SINGLE,	/* a refcounted order-0 page */
	P_FROZEN,	/* an order-0 page of a frozen range */
};

struct spage {
	unsigned char state, order;
	bool comp;
	int ref;
	int idx;		/* in owned[] (HEAD, SINGLE, FROZEN), else -1 */
	uint64_t tag;
};

static struct spage *shadow;
static unsigned long *owned;	/* pfns of the HEAD, SINGLE and FROZEN pages */
static unsigned long nr_owned, owned_pages;
static uint64_t serial;

/* --- randomness ----------------------------------------------------------------- */

static uint64_t rng;

static uint64_t rnd64(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static unsigned long rnd(unsigned long n)
{
	return n ? (unsigned long)(rnd64() % n) : 0;
}

/* --- failures ----------------------------------------------------------------- */

static bool failed;
static char fail_msg[512];
static const char *cur_op;
static int cur_step;
static unsigned long bulk_no_progress;

static bool __attribute__((format(printf, 1, 2))) fail(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (failed)
		return false;
	failed = true;
	n = snprintf(fail_msg, sizeof(fail_msg), "op %d (%s): ", cur_step, cur_op);
	va_start(ap, fmt);
	vsnprintf(fail_msg + n, sizeof(fail_msg) - n, fmt, ap);
	va_end(ap);
	return false;
}

/* --- shadow bookkeeping ------------------------------------------------------- */

static void own(unsigned long pfn)
{
	shadow[pfn].idx = (int)nr_owned;
	owned[nr_owned++] = pfn;
}

static void disown(unsigned long pfn)
{
	int i = shadow[pfn].idx;

	owned[i] = owned[--nr_owned];
	shadow[owned[i]].idx = i;
	shadow[pfn].idx = -1;
}

static void tag_new(unsigned long pfn)
{
	uint64_t tag = 0x5a00000000000000ULL | (++serial << 24) | pfn;

	shadow[pfn].tag = tag;
	mm_tag_page(pfn_to_page(pfn), tag);
}

/* A page the allocator hands out must not be one the test holds. */
static bool claim(unsigned long pfn, enum pstate state, int ref)
{
	if (pfn >= max_pfn)
		return fail("pfn %lu handed out is outside the machine", pfn);
	if (shadow[pfn].state != P_FREE)
		return fail("pfn %lu handed out while the test still owns it (state %d)",
			    pfn, shadow[pfn].state);
	shadow[pfn].state = state;
	shadow[pfn].ref = ref;
	shadow[pfn].order = 0;
	shadow[pfn].comp = false;
	owned_pages++;
	if (state != P_TAIL)
		own(pfn);
	tag_new(pfn);
	return true;
}

/* The test gives a page back (it was just freed). */
static void release(unsigned long pfn)
{
	if (shadow[pfn].idx >= 0)
		disown(pfn);
	shadow[pfn].state = P_FREE;
	shadow[pfn].ref = 0;
	owned_pages--;
}

static bool verify_tag(unsigned long pfn)
{
	if (!mm_page_has_tag(pfn_to_page(pfn), shadow[pfn].tag))
		return fail("pfn %lu (state %d) lost its contents while the test owned it",
			    pfn, shadow[pfn].state);
	return true;
}

static bool verify_ref(unsigned long pfn, int ref)
{
	int got = page_ref_count(pfn_to_page(pfn));

	if (got != ref)
		return fail("pfn %lu (state %d): refcount %d, the test holds %d", pfn,
			    shadow[pfn].state, got, ref);
	return true;
}

/* An owned page is as the test left it. */
static bool verify_page(unsigned long pfn)
{
	struct spage *s = &shadow[pfn];

	switch (s->state) {
	case P_HEAD:
		if (s->comp != PageHead(pfn_to_page(pfn)))
			return fail("pfn %lu: compound head flag is %d, expected %d", pfn,
				    PageHead(pfn_to_page(pfn)), s->comp);
		return verify_ref(pfn, s->ref) && verify_tag(pfn);
	case P_SINGLE:
		return verify_ref(pfn, s->ref) && verify_tag(pfn);
	case P_FROZEN:
		return verify_ref(pfn, 0) && verify_tag(pfn);
	case P_TAIL:
		return verify_tag(pfn);
	}
	return true;
}

static bool verify_all(void)
{
	for (unsigned long pfn = 0; pfn < max_pfn; pfn++)
		if (shadow[pfn].state != P_FREE && !verify_page(pfn))
			return false;
	return true;
}

static bool verify_tags(unsigned long pfn, unsigned long nr)
{
	for (unsigned long i = 0; i < nr; i++)
		if (!verify_tag(pfn + i))
			return false;
	return true;
}

/* A random owned page in @state, or -1 (a few tries). */
static long pick(enum pstate state)
{
	for (int tries = 0; tries < 16 && nr_owned; tries++) {
		unsigned long pfn = owned[rnd(nr_owned)];

		if (shadow[pfn].state == state)
			return (long)pfn;
	}
	return -1;
}

/* A random sub-run [*a, *b) of the run of @state pages around @pfn. */
static void pick_run(unsigned long pfn, enum pstate state, unsigned long *a, unsigned long *b)
{
	unsigned long lo = pfn, hi = pfn + 1;

	while (lo > 0 && shadow[lo - 1].state == state)
		lo--;
	while (hi < max_pfn && shadow[hi].state == state)
		hi++;
	switch (rnd(3)) {
	case 0:			/* the whole run */
		*a = lo;
		*b = hi;
		break;
	case 1:			/* from the page picked to a random end */
		*a = pfn;
		*b = pfn + 1 + rnd(hi - pfn);
		break;
	default:		/* anywhere in it */
		*a = lo + rnd(hi - lo);
		*b = *a + 1 + rnd(hi - *a);
		break;
	}
}

/* --- the operations ---------------------------------------------------------------- */

struct op_stats {
	unsigned long runs, done;
};

enum op {
	OP_ALLOC, OP_FREE_BLOCK, OP_SPLIT, OP_GET, OP_PUT, OP_FREE_RANGE, OP_FREE_BULK,
	OP_ALLOC_BULK, OP_CONTIG_ALLOC, OP_FROZEN_FREE, OP_THAW, OP_DRAIN, NR_OPS_KINDS
};

static const char *const op_name[NR_OPS_KINDS] = {
	"alloc_pages", "__free_pages", "split_page", "get_page", "put_page",
	"free_contig_range", "free_pages_bulk", "alloc_pages_bulk",
	"alloc_contig_frozen_range", "__free_contig_frozen_range", "thaw frozen", "drain_all_pages",
};

static const int op_weight[NR_OPS_KINDS] = { 22, 8, 6, 6, 8, 12, 6, 8, 3, 4, 3, 2 };

static struct op_stats stats[NR_OPS_KINDS];
static unsigned long alloc_failed, contig_busy, contig_inval, pages_not_freed;

static unsigned int pick_order(void)
{
	unsigned long x = rnd(100);

	if (x < 35)
		return 0;
	if (x < 65)
		return 1 + (unsigned int)rnd(3);
	if (x < 90)
		return 4 + (unsigned int)rnd(5);
	return x < 97 ? pageblock_order : MAX_PAGE_ORDER;
}

/* After a failed allocation of @order there is no free block of @order or more. */
static bool verify_alloc_failure(unsigned int order)
{
	struct page_alloc_report r;
	char msg[200];

	if (page_alloc_check(&r, msg, sizeof(msg)))
		return fail("checker after a failed allocation: %s", msg);
	if (r.pcp)
		return fail("order-%u allocation failed with %lu pages left on pcp lists", order, r.pcp);
	for (unsigned int o = order; o < NR_PAGE_ORDERS; o++)
		if (r.free_by_order[o])
			return fail("order-%u allocation failed with %lu free order-%u blocks", order,
				    r.free_by_order[o], o);
	return true;
}

static bool op_alloc(void)
{
	unsigned int order = pick_order();
	gfp_t gfp = (rnd(2) ? __GFP_MOVABLE : 0) | (order && !rnd(3) ? __GFP_COMP : 0);
	struct page *page = alloc_pages(gfp, order);
	unsigned long pfn;

	if (!page) {
		alloc_failed++;
		return verify_alloc_failure(order);
	}
	pfn = page_to_pfn(page);
	if (!IS_ALIGNED(pfn, 1UL << order))
		return fail("order-%u block at pfn %lu is misaligned", order, pfn);
	if (page_ref_count(page) != 1)
		return fail("new order-%u block at pfn %lu has refcount %d", order, pfn, page_ref_count(page));
	if (!order)
		return claim(pfn, P_SINGLE, 1);
	if (!claim(pfn, P_HEAD, 1))
		return false;
	shadow[pfn].order = (unsigned char)order;
	shadow[pfn].comp = gfp & __GFP_COMP;
	for (unsigned long i = 1; i < (1UL << order); i++) {
		if (!claim(pfn + i, P_TAIL, 0))
			return false;
		if ((gfp & __GFP_COMP) ? compound_head(page + i) != page : PageCompound(page + i))
			return fail("new order-%u block at pfn %lu: page %lu compound state wrong", order, pfn, i);
	}
	return true;
}

static bool op_free_block(void)
{
	long head = pick(P_HEAD);
	struct spage *s;
	unsigned long nr;

	if (head < 0)
		return true;
	s = &shadow[head];
	nr = 1UL << s->order;
	if (!verify_page(head) || !verify_tags(head, nr))
		return false;
	if (s->comp) {
		if (rnd(2))
			folio_put(page_folio(pfn_to_page(head)));
		else
			__free_pages(pfn_to_page(head), s->order);
		if (--s->ref)
			return verify_ref(head, s->ref) && verify_tag(head);
		for (unsigned long i = 0; i < nr; i++)
			release(head + i);
		return true;
	}
	__free_pages(pfn_to_page(head), s->order);
	for (unsigned long i = 1; i < nr; i++)
		release(head + i);
	if (--s->ref == 0) {
		release(head);
		return true;
	}
	/* Someone else's reference: the first page stays, as an order-0 page. */
	s->state = P_SINGLE;
	s->order = 0;
	return verify_ref(head, s->ref) && verify_tag(head);
}

static bool op_split(void)
{
	long head = -1;

	for (int tries = 0; tries < 8 && head < 0; tries++) {
		head = pick(P_HEAD);
		if (head >= 0 && shadow[head].comp)
			head = -1;
	}
	if (head < 0)
		return true;
	split_page(pfn_to_page(head), shadow[head].order);
	for (unsigned long i = 1; i < (1UL << shadow[head].order); i++) {
		shadow[head + i].state = P_SINGLE;
		shadow[head + i].ref = 1;
		own(head + i);
		if (!verify_ref(head + i, 1))
			return false;
	}
	shadow[head].state = P_SINGLE;
	shadow[head].order = 0;
	return verify_ref(head, shadow[head].ref);
}

static bool op_get(void)
{
	long pfn = pick(rnd(4) ? P_SINGLE : P_HEAD);

	if (pfn < 0 || shadow[pfn].ref >= MAX_REFS)
		return true;
	get_page(pfn_to_page(pfn));
	shadow[pfn].ref++;
	return verify_ref(pfn, shadow[pfn].ref);
}

static bool op_put(void)
{
	long pfn = pick(P_SINGLE);

	if (pfn < 0)
		return true;
	if (!verify_page(pfn))
		return false;
	put_page(pfn_to_page(pfn));
	if (--shadow[pfn].ref == 0) {
		release(pfn);
		return true;
	}
	return verify_ref(pfn, shadow[pfn].ref);
}

/* One reference put on each page of [a, b) by the operation: update the shadow and check the survivors. */
static bool put_one_each(unsigned long a, unsigned long b)
{
	for (unsigned long p = a; p < b; p++) {
		if (--shadow[p].ref == 0)
			release(p);
	}
	for (unsigned long p = a; p < b; p++)
		if (shadow[p].state == P_SINGLE && !verify_page(p))
			return false;
	return true;
}

static bool op_free_range(void)
{
	long pfn = pick(P_SINGLE);
	unsigned long a, b, held = 0, left;

	if (pfn < 0)
		return true;
	pick_run(pfn, P_SINGLE, &a, &b);
	for (unsigned long p = a; p < b; p++) {
		if (!verify_page(p))
			return false;
		held += shadow[p].ref > 1;
	}
	if (!held && rnd(2)) {
		free_contig_range(a, b - a);
	} else {
		left = __free_contig_range(a, b - a);
		if (left != held)
			return fail("__free_contig_range(%lu, %lu) returned %lu, %lu pages were still referenced",
				    a, b - a, left, held);
		pages_not_freed += left;
	}
	return put_one_each(a, b);
}

static bool op_free_bulk(void)
{
	struct page *arr[MAX_ARRAY];
	unsigned long pfns[MAX_ARRAY], n = 0;
	long pfn = pick(P_SINGLE);

	if (pfn < 0)
		return true;
	if (rnd(2)) {
		unsigned long a, b;

		pick_run(pfn, P_SINGLE, &a, &b);
		for (unsigned long p = a; p < b && n < MAX_ARRAY; p++)
			pfns[n++] = p;
	} else {
		/* distinct random pages, in random or ascending order */
		unsigned long want = 1 + rnd(MAX_ARRAY);

		for (unsigned long tries = 0; tries < 4 * want && n < want; tries++) {
			long p = pick(P_SINGLE);
			bool dup = false;

			for (unsigned long i = 0; i < n && !dup; i++)
				dup = pfns[i] == (unsigned long)p;
			if (p >= 0 && !dup)
				pfns[n++] = (unsigned long)p;
		}
		if (rnd(2))
			for (unsigned long i = 1; i < n; i++)
				for (unsigned long j = i; j > 0 && pfns[j - 1] > pfns[j]; j--) {
					unsigned long t = pfns[j];

					pfns[j] = pfns[j - 1];
					pfns[j - 1] = t;
				}
	}
	for (unsigned long i = 0; i < n; i++) {
		if (!verify_page(pfns[i]))
			return false;
		arr[i] = pfn_to_page(pfns[i]);
	}
	free_pages_bulk(arr, n);
	for (unsigned long i = 0; i < n; i++)
		if (--shadow[pfns[i]].ref == 0)
			release(pfns[i]);
	for (unsigned long i = 0; i < n; i++)
		if (shadow[pfns[i]].state == P_SINGLE && !verify_page(pfns[i]))
			return false;
	return true;
}

static bool op_alloc_bulk(void)
{
	struct page *arr[MAX_ARRAY] = { 0 }, *before[MAX_ARRAY];
	unsigned long n = 1 + rnd(MAX_ARRAY), ret, fresh = 0, prefilled = 0;
	bool had_empty = false, partial = false;
	gfp_t gfp = rnd(2) ? __GFP_MOVABLE : 0;

	/* Pre-fill some slots with pages the test owns (alloc_pages_bulk must skip them). */
	if (rnd(2))
		for (unsigned long i = 0; i < n; i++)
			if (!rnd(4)) {
				long p = pick(P_SINGLE);
				bool dup = false;

				for (unsigned long j = 0; j < i && !dup; j++)
					dup = arr[j] && page_to_pfn(arr[j]) == (unsigned long)p;
				if (p >= 0 && !dup)
					arr[i] = pfn_to_page(p);
			}
	memcpy(before, arr, sizeof(arr));
	for (unsigned long i = 0; i < n; i++) {
		had_empty |= !arr[i];
		prefilled += arr[i] != NULL;
	}
	ret = alloc_pages_bulk(gfp, n, arr);
	if (ret > n)
		return fail("alloc_pages_bulk(%lu) returned %lu", n, ret);
	for (unsigned long i = 0; i < n; i++) {
		if (before[i]) {
			if (arr[i] != before[i])
				return fail("alloc_pages_bulk replaced pre-filled slot %lu", i);
			continue;
		}
		if (!arr[i]) {
			partial = true;
			continue;
		}
		fresh++;
		if (page_ref_count(arr[i]) != 1 || PageCompound(arr[i]))
			return fail("alloc_pages_bulk slot %lu: pfn %lu refcount %d compound %d", i,
				    page_to_pfn(arr[i]), page_ref_count(arr[i]), PageCompound(arr[i]));
		if (!claim(page_to_pfn(arr[i]), P_SINGLE, 1))
			return false;
	}
	for (unsigned long i = 0; i < ret; i++)
		if (!arr[i])
			return fail("alloc_pages_bulk returned %lu but slot %lu is empty", ret, i);
	/*
	 * Slots left empty after the batch loop allocated: it stopped because
	 * the buddy had nothing left.  (One page from the single-page path
	 * may have drained other lists into the buddy: not checked.)
	 */
	if (partial && fresh > 1 && nr_free_pages())
		return fail("alloc_pages_bulk left slots empty with %lu pages free in the buddy",
			    nr_free_pages());
	if (had_empty && !fresh && free_pages_all()) {
		/* The kernel tries one page the normal way when the batch got none. */
		if (!bulk_no_progress++)
			diag("op %d: alloc_pages_bulk(%lu slots, %lu pre-filled) allocated nothing with %lu pages free",
			     cur_step, n, prefilled, free_pages_all());
	}
	return true;
}

static bool op_contig_alloc(void)
{
	unsigned long nr_blocks = max_pfn / MAX_ORDER_NR_PAGES;
	unsigned long blocks = 1 + !rnd(4), pfn, nr;
	int expect = 0, ret;

	pfn = rnd(nr_blocks - blocks + 1) * MAX_ORDER_NR_PAGES;
	nr = blocks * MAX_ORDER_NR_PAGES;
	if (!rnd(10)) {
		if (rnd(2))
			pfn += 1 + rnd(MAX_ORDER_NR_PAGES - 1);
		else
			nr -= 1 + rnd(MAX_ORDER_NR_PAGES - 1);
		expect = -EINVAL;
	} else {
		for (unsigned long p = pfn; p < pfn + nr && !expect; p++)
			if (shadow[p].state != P_FREE)
				expect = -EBUSY;
	}
	ret = alloc_contig_frozen_range(pfn, nr);
	if (ret != expect)
		return fail("alloc_contig_frozen_range(%lu, %lu) = %d, the shadow expects %d", pfn, nr, ret, expect);
	if (ret == -EBUSY)
		contig_busy++;
	if (ret == -EINVAL)
		contig_inval++;
	if (ret)
		return true;
	for (unsigned long p = pfn; p < pfn + nr; p++)
		if (!verify_ref(p, 0) || !claim(p, P_FROZEN, 0))
			return false;
	return true;
}

static bool op_frozen_free(void)
{
	long pfn = pick(P_FROZEN);
	unsigned long a, b;

	if (pfn < 0)
		return true;
	pick_run(pfn, P_FROZEN, &a, &b);
	for (unsigned long p = a; p < b; p++)
		if (!verify_page(p))
			return false;
	__free_contig_frozen_range(a, b - a);
	for (unsigned long p = a; p < b; p++)
		release(p);
	return true;
}

/* Frozen pages handed out refcounted, as alloc_contig_range() does. */
static bool op_thaw(void)
{
	long pfn = pick(P_FROZEN);
	unsigned long a, b;

	if (pfn < 0)
		return true;
	pick_run(pfn, P_FROZEN, &a, &b);
	for (unsigned long p = a; p < b; p++) {
		init_page_count(pfn_to_page(p));
		shadow[p].state = P_SINGLE;
		shadow[p].ref = 1;
	}
	return true;
}

static bool op_drain(void)
{
	struct page_alloc_report r;
	char msg[200];

	drain_all_pages(&contig_zone);
	if (page_alloc_check(&r, msg, sizeof(msg)))
		return fail("checker after drain: %s", msg);
	if (r.pcp)
		return fail("%lu pages on pcp lists after drain_all_pages", r.pcp);
	return true;
}

static bool (*const op_fn[NR_OPS_KINDS])(void) = {
	op_alloc, op_free_block, op_split, op_get, op_put, op_free_range, op_free_bulk,
	op_alloc_bulk, op_contig_alloc, op_frozen_free, op_thaw, op_drain,
};

static enum op pick_op(void)
{
	int total = 0, x;

	for (int i = 0; i < NR_OPS_KINDS; i++)
		total += op_weight[i];
	x = (int)rnd((unsigned long)total);
	for (int i = 0; i < NR_OPS_KINDS; i++) {
		if (x < op_weight[i])
			return (enum op)i;
		x -= op_weight[i];
	}
	return OP_DRAIN;
}

/* The allocator agrees with the shadow. */
static bool check_allocator(void)
{
	struct page_alloc_report r;
	char msg[200];

	if (page_alloc_check(&r, msg, sizeof(msg)))
		return fail("checker: %s", msg);
	if (r.allocated != owned_pages)
		return fail("the allocator counts %lu pages allocated, the test owns %lu", r.allocated, owned_pages);
	if (r.leaked)
		return fail("%lu pages leaked", r.leaked);
	return true;
}

/* Give everything back: drop extra references, free blocks, runs and frozen runs. */
static bool free_everything(void)
{
	for (unsigned long pfn = 0; pfn < max_pfn && !failed; ) {
		struct spage *s = &shadow[pfn];
		unsigned long end = pfn + 1;

		switch (s->state) {
		case P_FREE:
		case P_TAIL:
			pfn++;
			continue;
		case P_HEAD:
			while (s->ref > 1) {
				put_page(pfn_to_page(pfn));
				s->ref--;
			}
			if (!verify_page(pfn) || !verify_tags(pfn, 1UL << s->order))
				return false;
			__free_pages(pfn_to_page(pfn), s->order);
			end = pfn + (1UL << s->order);
			for (unsigned long p = pfn; p < end; p++)
				release(p);
			break;
		case P_SINGLE:
			while (end < max_pfn && shadow[end].state == P_SINGLE)
				end++;
			for (unsigned long p = pfn; p < end; p++) {
				while (shadow[p].ref > 1) {
					put_page(pfn_to_page(p));
					shadow[p].ref--;
				}
				if (!verify_page(p))
					return false;
			}
			free_contig_range(pfn, end - pfn);
			for (unsigned long p = pfn; p < end; p++)
				release(p);
			break;
		case P_FROZEN:
			while (end < max_pfn && shadow[end].state == P_FROZEN)
				end++;
			if (!verify_tags(pfn, end - pfn))
				return false;
			__free_contig_frozen_range(pfn, end - pfn);
			for (unsigned long p = pfn; p < end; p++)
				release(p);
			break;
		}
		if (!check_allocator())
			return false;
		pfn = end;
	}
	return !failed;
}

static void reset(uint64_t seed)
{
	if (mem_init(MEM)) {
		printf("Bail out! mem_init failed\n");
		exit(1);
	}
	free(shadow);
	free(owned);
	shadow = calloc(max_pfn, sizeof(*shadow));
	owned = calloc(max_pfn, sizeof(*owned));
	for (unsigned long pfn = 0; pfn < max_pfn; pfn++)
		shadow[pfn].idx = -1;
	nr_owned = owned_pages = 0;
	serial = 0;
	rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	failed = false;
	fail_msg[0] = 0;
	bulk_no_progress = alloc_failed = contig_busy = contig_inval = pages_not_freed = 0;
	memset(stats, 0, sizeof(stats));
	page_poisoning_on = true;
}

/* Runs one seed; true if it ran to the end with nothing wrong. */
static bool run_seed(uint64_t seed, unsigned long *peak)
{
	reset(seed);
	*peak = 0;
	for (cur_step = 0; cur_step < NR_OPS; cur_step++) {
		enum op op = pick_op();

		cur_op = op_name[op];
		stats[op].runs++;
		if (!op_fn[op]())
			return false;
		stats[op].done++;
		if (!check_allocator())
			return false;
		if ((cur_step + 1) % VERIFY_EVERY == 0 && !verify_all())
			return false;
		if (owned_pages > *peak)
			*peak = owned_pages;
	}
	cur_op = "final verification";
	if (!verify_all())
		return false;
	cur_op = "freeing everything";
	return free_everything();
}

int main(void)
{
	struct page_alloc_report expected = { 0 };
	unsigned long caught = 0;
	double t0 = machine_now();

	plan_no_plan();
	machine_init();
	diag("design %s: %zu seeds x %d operations on %llu MiB", MM_KERNEL_NAME, ARRAY_SIZE(seeds),
	     NR_OPS, MEM >> 20);
	expected.free_by_order[MAX_PAGE_ORDER] = (MEM >> PAGE_SHIFT) / MAX_ORDER_NR_PAGES;

	for (size_t k = 0; k < ARRAY_SIZE(seeds); k++) {
		uint64_t seed = seeds[k];
		struct page_alloc_report r;
		unsigned long peak;
		char msg[200];
		bool good = run_seed(seed, &peak);

		if (MUTANT) {
			if (!good) {
				caught++;
				diag("seed %llu: mutant caught: %s", (unsigned long long)seed, fail_msg);
			}
			ok(!good, "seed %llu: the %s mutant is caught", (unsigned long long)seed, MM_KERNEL_NAME);
			continue;
		}
		if (!good)
			diag("seed %llu: %s", (unsigned long long)seed, fail_msg);
		ok(good, "seed %llu: %d operations; after each, the checker passed, the allocated count matched "
		   "the shadow, pages left alone were intact; all freed at the end", (unsigned long long)seed, NR_OPS);
		diag("seed %llu: peak %lu of %lu pages owned; %lu failed allocations, %lu -EBUSY, %lu -EINVAL, "
		     "%lu pages still referenced at a range free", (unsigned long long)seed, peak, max_pfn,
		     alloc_failed, contig_busy, contig_inval, pages_not_freed);
		for (int i = 0; i < NR_OPS_KINDS; i++)
			diag("  %-28s %5lu", op_name[i], stats[i].runs);
		is_int(bulk_no_progress, 0,
		       "seed %llu: alloc_pages_bulk never came back empty-handed while pages were free",
		       (unsigned long long)seed);
		if (!good)
			continue;
		drain_all_pages(&contig_zone);
		ok(page_alloc_check(&r, msg, sizeof(msg)) == 0 && r.allocated == 0 && r.leaked == 0 &&
		   r.free == max_pfn, "seed %llu: after freeing everything and draining, every page is free",
		   (unsigned long long)seed);
		diag("seed %llu: per-order digest after the full drain %016llx (expected %016llx)",
		     (unsigned long long)seed, (unsigned long long)mm_report_digest(&r),
		     (unsigned long long)mm_report_digest(&expected));
		ok(mm_report_digest(&r) == mm_report_digest(&expected),
		   "seed %llu: the buddy holds nothing but %lu max-order blocks", (unsigned long long)seed,
		   expected.free_by_order[MAX_PAGE_ORDER]);
	}
	if (MUTANT)
		diag("the mutant was caught in %lu of %zu seeds", caught, ARRAY_SIZE(seeds));
	else
		is_int(vm_warn_count, 0, "no debug check fired");
	diag("%.2f s", machine_now() - t0);
	mem_exit();
	free(shadow);
	free(owned);
	return done_testing();
}
