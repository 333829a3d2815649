/*
 * Per-CPU page lists under concurrency, every design, run plain and under
 * ThreadSanitizer.
 *
 * A few CPUs (threads, each with its own pcp lists) allocate and free at
 * once: order-0 and high-order blocks, compound or not; blocks split with
 * split_page() and freed with free_contig_range() / __free_contig_range()
 * (whole, in pieces, with a page still referenced) or free_pages_bulk();
 * arrays filled by alloc_pages_bulk().  Pages also change hands: a CPU
 * pushes some of what it owns onto another CPU's queue (a plain
 * spinlock-protected ring), and that CPU checks and frees them, so frees
 * land on a pcp other than the allocating CPU's.  Every page carries its
 * owner's tag, checked before it is freed: a page handed to two owners at
 * once shows as a foreign tag (and, under TSan, as a race on its bytes).
 * Freed pages are poisoned.
 *
 * First, one deterministic hand-over: CPU 1 allocates and splits a block,
 * CPU 0 frees it with free_contig_range(), and the pages must be on CPU
 * 0's pcp lists (as one order-3 block in the batched designs), none on
 * CPU 1's.  At the end: everything freed, drained, the checker passes,
 * every page is free in max-order blocks, no debug check fired.
 */
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/gfp.h>
#include <linux/mmzone.h>
#include <linux/spinlock.h>
#include <machine/machine.h>

#include "mm_test.h"

#if defined(CONFIG_CONTIG_BATCHED) || defined(CONFIG_CONTIG_BULK)
#define BATCHED_DESIGN	1
#else
#define BATCHED_DESIGN	0
#endif

#define NR_STRESS_CPUS	4
#define MEM		(32ULL << 20)	/* 8192 pages */
#ifdef __SANITIZE_THREAD__
#define ITERS		40000
#else
#define ITERS		200000
#endif
#define MAX_ITEMS	32		/* items a CPU holds at once */
#define MAX_OWN_PAGES	1536		/* pages a CPU holds at once, about */
#define QUEUE_CAP	64

enum kind {
	K_PAGE,		/* one refcounted order-0 page */
	K_BLOCK,	/* a non-compound block of @order */
	K_FOLIO,	/* a compound page of @order */
	K_RUN,		/* @nr refcounted order-0 pages from split_page(), contiguous */
};

struct item {
	struct page *page;
	unsigned long nr;
	unsigned int order;
	enum kind kind;
	uint64_t tag;
};

struct queue {
	spinlock_t lock;
	int head, count;
	struct item items[QUEUE_CAP];
};

static struct queue queues[NR_STRESS_CPUS];

struct cpu_state {
	int cpu;
	uint64_t rng;
	struct item items[MAX_ITEMS];
	int nr_items;
	unsigned long own_pages;
	uint64_t serial;
	/* what happened */
	unsigned long allocs, alloc_fails, splits, range_frees, held_in_range, bulk_allocs,
		bulk_frees, handed, received, drains;
	unsigned long errors;
	char first_error[200];
};

static struct cpu_state cpus[NR_STRESS_CPUS];

/*
 * Set at the first error: the allocator's state is suspect from then on
 * (a page may be both free and owned), so every CPU stops where it is and
 * nothing more is freed.
 */
static int stop;

static uint64_t rnd64(struct cpu_state *c)
{
	c->rng ^= c->rng >> 12;
	c->rng ^= c->rng << 25;
	c->rng ^= c->rng >> 27;
	return c->rng * 0x2545f4914f6cdd1dULL;
}

static unsigned long rnd(struct cpu_state *c, unsigned long n)
{
	return n ? (unsigned long)(rnd64(c) % n) : 0;
}

static void __attribute__((format(printf, 2, 3))) error(struct cpu_state *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->errors++) {
		va_start(ap, fmt);
		vsnprintf(c->first_error, sizeof(c->first_error), fmt, ap);
		va_end(ap);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
}

/* --- tags ------------------------------------------------------------------------ */

static uint64_t page_tag(const struct item *it, unsigned long i)
{
	return it->tag ^ ((uint64_t)i << 20);
}

static void tag_item(struct cpu_state *c, struct item *it)
{
	it->tag = ((uint64_t)(c->cpu + 1) << 56) | (++c->serial << 32);
	for (unsigned long i = 0; i < it->nr; i++)
		mm_tag_page(it->page + i, page_tag(it, i));
}

/* Does every page of @it still carry its owner's tag? */
static bool check_item(struct cpu_state *c, const struct item *it, const char *when)
{
	for (unsigned long i = 0; i < it->nr; i++) {
		if (!mm_page_has_tag(it->page + i, page_tag(it, i))) {
			const uint64_t *w = page_address(it->page + i);

			error(c, "cpu %d, %s: pfn %lu (page %lu of a kind-%d item from cpu %llu) carries %#llx, not its tag %#llx",
			      c->cpu, when, page_to_pfn(it->page + i), i, it->kind,
			      (unsigned long long)(it->tag >> 56) - 1, (unsigned long long)w[0],
			      (unsigned long long)page_tag(it, i));
			return false;
		}
	}
	return true;
}

/* --- the hand-over queues ------------------------------------------------------- */

static bool push(int cpu, const struct item *it)
{
	struct queue *q = &queues[cpu];
	bool pushed = false;

	spin_lock(&q->lock);
	if (q->count < QUEUE_CAP) {
		q->items[(q->head + q->count++) % QUEUE_CAP] = *it;
		pushed = true;
	}
	spin_unlock(&q->lock);
	return pushed;
}

static bool pop(int cpu, struct item *it)
{
	struct queue *q = &queues[cpu];
	bool popped = false;

	spin_lock(&q->lock);
	if (q->count) {
		*it = q->items[q->head];
		q->head = (q->head + 1) % QUEUE_CAP;
		q->count--;
		popped = true;
	}
	spin_unlock(&q->lock);
	return popped;
}

/* --- owning, freeing ----------------------------------------------------------------- */

static void keep(struct cpu_state *c, const struct item *it)
{
	c->items[c->nr_items++] = *it;
	c->own_pages += it->nr;
}

static struct item take(struct cpu_state *c, int i)
{
	struct item it = c->items[i];

	c->items[i] = c->items[--c->nr_items];
	c->own_pages -= it.nr;
	return it;
}

/* Free an item the simplest way (when it can be neither kept nor given away). */
static void plain_free(struct item *it)
{
	switch (it->kind) {
	case K_PAGE:
		put_page(it->page);
		break;
	case K_BLOCK:
		__free_pages(it->page, it->order);
		break;
	case K_FOLIO:
		folio_put(page_folio(it->page));
		break;
	case K_RUN:
		free_contig_range(page_to_pfn(it->page), it->nr);
		break;
	}
}

/* Give an item away to another CPU; keep it if that one's queue is full. */
static void hand_over(struct cpu_state *c, struct item *it)
{
	int to = (c->cpu + 1 + (int)rnd(c, NR_STRESS_CPUS - 1)) % NR_STRESS_CPUS;

	if (push(to, it))
		c->handed++;
	else if (c->nr_items < MAX_ITEMS)
		keep(c, it);
	else
		plain_free(it);
}

/* Free a split run: whole, in pieces, as an array, or with one page still held. */
static void free_run(struct cpu_state *c, struct item *it)
{
	unsigned long pfn = page_to_pfn(it->page), nr = it->nr;

	c->range_frees++;
	switch (rnd(c, 4)) {
	case 0:
		free_contig_range(pfn, nr);
		break;
	case 1: {		/* two pieces, the cut anywhere */
		unsigned long cut = rnd(c, nr + 1);

		if (__free_contig_range(pfn + cut, nr - cut) || __free_contig_range(pfn, cut))
			error(c, "cpu %d: __free_contig_range of an unreferenced run left pages", c->cpu);
		break;
	}
	case 2: {		/* an array, ascending or descending */
		struct page *arr[64];
		unsigned long done = 0;
		bool down = rnd(c, 2);

		while (done < nr) {
			unsigned long n = min(nr - done, 64UL);

			for (unsigned long i = 0; i < n; i++)
				arr[i] = it->page + (down ? nr - 1 - done - i : done + i);
			free_pages_bulk(arr, n);
			done += n;
		}
		c->bulk_frees++;
		break;
	}
	default: {		/* someone still holds one page */
		unsigned long held = rnd(c, nr);
		struct item one = {
			.page = it->page + held, .nr = 1, .kind = K_PAGE,
		};
		unsigned long left;

		get_page(one.page);
		left = __free_contig_range(pfn, nr);
		if (left != 1)
			error(c, "cpu %d: __free_contig_range with one page held returned %lu", c->cpu, left);
		if (page_ref_count(one.page) != 1)
			error(c, "cpu %d: the held page (pfn %lu) has refcount %d after the range free",
			      c->cpu, page_to_pfn(one.page), page_ref_count(one.page));
		if (!mm_page_has_tag(one.page, page_tag(it, held)))
			error(c, "cpu %d: the held page (pfn %lu) lost its contents in the range free",
			      c->cpu, page_to_pfn(one.page));
		c->held_in_range++;
		/* re-tag it as a page of its own, then keep it or give it away */
		tag_item(c, &one);
		if (rnd(c, 2))
			hand_over(c, &one);
		else if (c->nr_items < MAX_ITEMS)
			keep(c, &one);
		else
			plain_free(&one);
		break;
	}
	}
}

static void free_item(struct cpu_state *c, struct item *it, const char *when)
{
	check_item(c, it, when);
	switch (it->kind) {
	case K_PAGE:
		if (page_ref_count(it->page) != 1)
			error(c, "cpu %d, %s: order-0 page pfn %lu has refcount %d", c->cpu, when,
			      page_to_pfn(it->page), page_ref_count(it->page));
		if (rnd(c, 2))
			__free_page(it->page);
		else
			put_page(it->page);
		break;
	case K_BLOCK:
		if (it->order && !rnd(c, 4)) {
			/* someone else holds the first page: the rest is freed now */
			struct item first = { .page = it->page, .nr = 1, .kind = K_PAGE };

			get_page(it->page);
			__free_pages(it->page, it->order);
			if (page_ref_count(it->page) != 1)
				error(c, "cpu %d: first page of a held order-%u block has refcount %d",
				      c->cpu, it->order, page_ref_count(it->page));
			tag_item(c, &first);
			hand_over(c, &first);
		} else {
			__free_pages(it->page, it->order);
		}
		break;
	case K_FOLIO:
		folio_put(page_folio(it->page));
		break;
	case K_RUN:
		free_run(c, it);
		break;
	}
}

/* --- allocating ---------------------------------------------------------------------- */

static unsigned int pick_order(struct cpu_state *c)
{
	static const unsigned int orders[] = { 1, 1, 2, 2, 3, 3, 3, 4, 5, 6, 9, 9, 10 };

	return orders[rnd(c, ARRAY_SIZE(orders))];
}

static void alloc_item(struct cpu_state *c, unsigned int order, bool split)
{
	gfp_t gfp = rnd(c, 2) ? __GFP_MOVABLE : GFP_KERNEL;
	struct item it = { .order = order, .nr = 1UL << order };
	bool comp = !split && order && rnd(c, 2);

	if (c->own_pages + it.nr > MAX_OWN_PAGES || c->nr_items >= MAX_ITEMS)
		return;
	it.page = alloc_pages(gfp | (comp ? __GFP_COMP : 0), order);
	c->allocs++;
	if (!it.page) {
		c->alloc_fails++;
		return;
	}
	if (page_ref_count(it.page) != 1)
		error(c, "cpu %d: new order-%u page pfn %lu has refcount %d", c->cpu, order,
		      page_to_pfn(it.page), page_ref_count(it.page));
	if (split) {
		split_page(it.page, order);
		it.kind = K_RUN;
		c->splits++;
	} else {
		it.kind = !order ? K_PAGE : comp ? K_FOLIO : K_BLOCK;
	}
	tag_item(c, &it);
	keep(c, &it);
}

static void alloc_bulk(struct cpu_state *c)
{
	struct page *arr[32] = { 0 }, *rest[32];
	struct item rest_items[32];
	unsigned long n = 4 + rnd(c, 29), got, m = 0;

	if (c->own_pages + n > MAX_OWN_PAGES)
		return;
	got = alloc_pages_bulk(rnd(c, 2) ? __GFP_MOVABLE : GFP_KERNEL, n, arr);
	c->bulk_allocs++;
	for (unsigned long i = 0; i < got; i++) {
		struct item it = { .page = arr[i], .nr = 1, .kind = K_PAGE };

		if (!arr[i] || page_ref_count(arr[i]) != 1) {
			error(c, "cpu %d: alloc_pages_bulk slot %lu of %lu: %s", c->cpu, i, got,
			      arr[i] ? "refcount not 1" : "empty");
			return;
		}
		tag_item(c, &it);
		if (i & 1 && c->nr_items < MAX_ITEMS)
			keep(c, &it);
		else
			rest_items[m++] = it;
	}
	/* the rest: checked and freed as an array, in the order alloc_pages_bulk gave */
	for (unsigned long i = 0; i < m; i++) {
		check_item(c, &rest_items[i], "freeing bulk-allocated pages");
		rest[i] = rest_items[i].page;
	}
	free_pages_bulk(rest, m);
	c->bulk_frees++;
}

/* --- the CPUs ------------------------------------------------------------------------ */

static int go, finished;

/*
 * Wait for @t's @n CPUs to finish.  A CPU stuck for good (a corrupted
 * list walked in circles, a lock never released) fails the test here,
 * with a plan, rather than at the runner's timeout.
 */
#define WATCHDOG_SECONDS	150

static void join_or_fail(struct machine_threads *t, int n, const char *what)
{
	double deadline = machine_now() + WATCHDOG_SECONDS;

	while (__atomic_load_n(&finished, __ATOMIC_ACQUIRE) < n) {
		if (machine_now() > deadline) {
			ok(0, "%s: the CPUs did not finish within %d s (a hang)", what, WATCHDOG_SECONDS);
			done_testing();
			fflush(stdout);
			_exit(1);
		}
		machine_sleep(0.005);
	}
	machine_threads_join(t);
	__atomic_store_n(&finished, 0, __ATOMIC_RELAXED);
}

static void cpu_main(void *arg)
{
	struct cpu_state *c = arg;
	struct item it;

	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		sched_yield();
	for (int iter = 0; iter < ITERS; iter++) {
		unsigned long op = rnd(c, 100);

		if (__atomic_load_n(&stop, __ATOMIC_RELAXED))
			goto out;
		if (op < 18) {
			alloc_item(c, 0, false);
		} else if (op < 28) {
			alloc_item(c, pick_order(c), false);
		} else if (op < 38) {
			alloc_item(c, rnd(c, 8) ? 1 + (unsigned int)rnd(c, 6) : pageblock_order, true);
		} else if (op < 44) {
			alloc_bulk(c);
		} else if (op < 56) {
			if (c->nr_items) {
				it = take(c, (int)rnd(c, c->nr_items));
				check_item(c, &it, "handing over");
				hand_over(c, &it);
			}
		} else if (op < 72) {
			if (pop(c->cpu, &it)) {
				c->received++;
				free_item(c, &it, "freeing a page from another cpu");
			}
		} else if (op < 99) {
			if (c->nr_items) {
				it = take(c, (int)rnd(c, c->nr_items));
				free_item(c, &it, "freeing its own page");
			}
		} else {
			drain_all_pages(&contig_zone);
			c->drains++;
		}
	}
	while (c->nr_items && !__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		it = take(c, 0);
		free_item(c, &it, "freeing its own page at the end");
	}
out:
	__atomic_fetch_add(&finished, 1, __ATOMIC_RELEASE);
}

/* --- one deterministic cross-CPU free --------------------------------------------- */

static struct page *handover_page;
static int handover_state;
static int on_cpu0, on_cpu1, cpu0_order;

static void handover_main(void *arg)
{
	(void)arg;
	if (smp_processor_id() == 1) {
		struct page *page = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 3);

		split_page(page, 3);
		handover_page = page;
		__atomic_store_n(&handover_state, 1, __ATOMIC_RELEASE);
		__atomic_fetch_add(&finished, 1, __ATOMIC_RELEASE);
		return;
	}
	while (!__atomic_load_n(&handover_state, __ATOMIC_ACQUIRE))
		sched_yield();
	free_contig_range(page_to_pfn(handover_page), 8);
	for (int i = 0; i < 8; i++) {
		on_cpu0 += mm_pcp_block_order(0, page_to_pfn(handover_page) + i) != 0;
		on_cpu1 += mm_pcp_block_order(1, page_to_pfn(handover_page) + i) != 0;
	}
	cpu0_order = mm_pcp_block_order(0, page_to_pfn(handover_page)) - 1;
	__atomic_fetch_add(&finished, 1, __ATOMIC_RELEASE);
}

static void test_cross_cpu_free(void)
{
	void *args[2] = { NULL, NULL };
	struct machine_threads *t = machine_threads_start(2, handover_main, args);

	ok(t != NULL, "start 2 CPUs");
	if (!t)
		return;
	join_or_fail(t, 2, "cross-CPU free");
	is_int(on_cpu0, 8, "a block split on CPU 1 and freed by CPU 0: all 8 pages on CPU 0's pcp");
	is_int(on_cpu1, 0, "and none on CPU 1's");
	is_int(cpu0_order, BATCHED_DESIGN ? 3 : 0, "as %s", BATCHED_DESIGN ? "one order-3 chunk" : "order-0 pages");
	drain_all_pages(&contig_zone);
}

int main(void)
{
	void *args[NR_STRESS_CPUS];
	struct machine_threads *t;
	struct page_alloc_report r;
	unsigned long errors = 0, handed = 0, received = 0, leftover = 0;
	char msg[200];
	double t0 = machine_now();
	struct item it;

	plan_no_plan();
	machine_init();
	ok(mem_init(MEM) == 0, "boot %llu MiB", MEM >> 20);
	page_poisoning_on = true;
	for (int i = 0; i < NR_STRESS_CPUS; i++)
		spin_lock_init(&queues[i].lock);

	test_cross_cpu_free();

	for (int i = 0; i < NR_STRESS_CPUS; i++) {
		cpus[i].cpu = i;
		cpus[i].rng = 0x9e3779b97f4a7c15ULL * (i + 1);
		args[i] = &cpus[i];
	}
	t = machine_threads_start(NR_STRESS_CPUS, cpu_main, args);
	ok(t != NULL, "start %d CPUs", NR_STRESS_CPUS);
	if (!t)
		return done_testing();
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	join_or_fail(t, NR_STRESS_CPUS, "stress");

	/* What is still queued is freed here, on CPU 0. */
	if (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		struct cpu_state *c0 = &cpus[0];

		for (int i = 0; i < NR_STRESS_CPUS; i++)
			while (pop(i, &it)) {
				leftover++;
				free_item(c0, &it, "freeing a queued page at the end");
			}
		/* freeing may have handed pages over again */
		for (int i = 0; i < NR_STRESS_CPUS; i++)
			while (pop(i, &it))
				free_item(c0, &it, "freeing a queued page at the end");
		while (c0->nr_items) {
			it = take(c0, 0);
			free_item(c0, &it, "freeing a kept page at the end");
		}
		for (int i = 0; i < NR_STRESS_CPUS; i++)
			while (pop(i, &it))
				free_item(c0, &it, "freeing a queued page at the end");
	}

	for (int i = 0; i < NR_STRESS_CPUS; i++) {
		struct cpu_state *c = &cpus[i];

		diag("cpu %d: %lu allocs (%lu failed), %lu splits, %lu range frees (%lu with a page held), "
		     "%lu bulk allocs, %lu bulk frees, %lu handed over, %lu received, %lu drains",
		     i, c->allocs, c->alloc_fails, c->splits, c->range_frees, c->held_in_range,
		     c->bulk_allocs, c->bulk_frees, c->handed, c->received, c->drains);
		if (c->errors)
			diag("cpu %d: %lu errors, the first: %s", i, c->errors, c->first_error);
		errors += c->errors;
		handed += c->handed;
		received += c->received;
	}
	diag("%lu items left queued at the end; %.2f s", leftover, machine_now() - t0);
	ok(handed > 0 && received > 0, "pages changed CPUs: %lu handed over, %lu freed by another CPU",
	   handed, received);
	is_int(errors, 0, "every page kept its owner's tag and refcount until freed");
	if (errors) {
		diag("stopped at the first error: the allocator is not checked further");
		return done_testing();
	}

	drain_all_pages(&contig_zone);
	ok(page_alloc_check(&r, msg, sizeof(msg)) == 0, "allocator invariants hold: %s",
	   page_alloc_check(&r, msg, sizeof(msg)) ? msg : "ok");
	is_int(r.allocated, 0, "every page is back in the allocator");
	is_int(r.leaked, 0, "no page was leaked");
	is_int(r.free_by_order[MAX_PAGE_ORDER], max_pfn / MAX_ORDER_NR_PAGES, "all of it in max-order blocks");
	is_int(vm_warn_count, 0, "no debug check fired");
	mem_exit();
	return done_testing();
}
