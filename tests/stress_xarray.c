/*
 * Lockless XArray readers against writers, every design, run plain and
 * under ThreadSanitizer.
 *
 * Writers store single and multi-index entries (orders 0..9, value entries
 * and pointers to immutable "folios" that record their own index and
 * order), erase them, split them in place (xas_split), set and clear marks, grow the tree to eleven levels
 * with far indices and shrink it again, with injected allocation failures
 * now and then (and stretches where every allocation under the lock fails), all under xa_lock, and keep a shadow copy of what each
 * index should hold.  A writer never stores into part of a larger entry
 * (it erases that first, as the page cache would split it), so at every
 * moment each index holds either nothing or an entry that covers it.
 *
 * Readers check that, under RCU only, with xa_load, xas_load/xas_reload,
 * xas_for_each, xas_for_each_marked, xa_for_each_range and a
 * filemap_get_read_batch-style xas_next walk: an entry found at an index
 * covers it, or a recheck of the slot shows it changed (see found_bad()).
 * At the end the tree must match the shadow, pass xa_check, and every node
 * must have been freed after its grace period.
 */
#include <limits.h>
#include <string.h>

#include <linux/xarray.h>
#include <machine/machine.h>

#include "tap.h"

#define RANGE		4096UL		/* the dense part: [0, RANGE) */
#define MAX_ORDER_T	9
#define NR_WRITERS	2
#define NR_READERS	2
#ifdef __SANITIZE_THREAD__
/*
 * Under TSan every node freed is a synchronous grace period (two
 * membarrier(2) calls or more), and a loaded host can make each of those
 * slow: keep the number of frees to a few thousand.
 */
#define OPS_PER_WRITER	8000
#else
#define OPS_PER_WRITER	400000
#endif

/* A folio-like object: immutable and never freed, so a stale one is safe to read. */
struct xobj {
	unsigned long index;
	unsigned long order;
};

static struct xobj objs[MAX_ORDER_T + 1][RANGE];	/* [order][index >> order] */

static const unsigned long far_base[] = { 1UL << 40, (1UL << 63) + 4096, ULONG_MAX - 63 };
#define NR_FAR	ARRAY_SIZE(far_base)
static struct xobj far_objs[NR_FAR][2];			/* order 0, order 6 */

static struct xarray xa;
static void *shadow[RANGE];		/* under xa_lock */
static void *far_shadow[NR_FAR];	/* entry at far_base[i], order 0 or 6 */
static int writers_left;

struct worker {
	int id;
	unsigned int seed;
	/* writers */
	unsigned long stores, erases, marks, far_ops, nomem_given_up, bad_erase, checks, check_failed;
	unsigned long splits, bad_split;
	char check_msg[200];
	/* readers */
	unsigned long reads, walked, retries, torn, bad;
	char bad_msg[200];
};

static unsigned int rnd(struct worker *w, unsigned int n)
{
	return (unsigned int)rand_r(&w->seed) % n;
}

/* --- what an entry must look like --------------------------------------------- */

static void *mk_entry(unsigned long base, unsigned int order, bool value)
{
	if (value)
		return xa_mk_value(base << 4 | order);
	return &objs[order][base >> order];
}

/* The range an entry says it covers; false if it is no entry we store. */
static bool entry_range(const void *entry, unsigned long *base, unsigned long *order)
{
	if (xa_is_value(entry)) {
		unsigned long v = xa_to_value(entry);

		*base = v >> 4;
		*order = v & 15;
		return *order <= MAX_ORDER_T && *base < RANGE;
	}
	if ((const char *)entry >= (const char *)objs &&
	    (const char *)entry < (const char *)objs + sizeof(objs)) {
		const struct xobj *o = entry;

		*base = o->index;
		*order = o->order;
		return true;
	}
	if ((const char *)entry >= (const char *)far_objs &&
	    (const char *)entry < (const char *)far_objs + sizeof(far_objs)) {
		const struct xobj *o = entry;

		*base = o->index;
		*order = o->order;
		return true;
	}
	return false;
}

static unsigned int order_of(const void *entry)
{
	unsigned long base, order;

	entry_range(entry, &base, &order);
	return (unsigned int)order;
}

static bool covers(const void *entry, unsigned long index)
{
	unsigned long base, order;

	if (!entry_range(entry, &base, &order))
		return false;
	return !(base & ((1UL << order) - 1)) && index - base < (1UL << order) && index >= base;
}

/*
 * A reader found @entry at @index, and it does not cover @index.  A
 * lockless read through a sibling entry reads two slots (the sibling, then
 * the entry's first slot), and a writer that replaces the multi-index
 * entry in between can make it return the entry of a neighbouring index:
 * the kernel's XArray does the same, and its lockless users recheck the
 * slot after taking a reference (xas_reload(), as filemap_get_read_batch()
 * does).  So does this test: @again is the caller's recheck, and only an
 * entry the recheck confirms is a bug.
 */
static void found_bad(struct worker *r, const char *how, unsigned long index,
		      const void *entry, const void *again)
{
	unsigned long base = 0, order = 0;

	if (again != entry) {
		r->torn++;
		return;
	}
	if (!r->bad++) {
		bool known = entry_range(entry, &base, &order);

		snprintf(r->bad_msg, sizeof(r->bad_msg), "%s: index %#lx holds %p (%s %#lx order %lu)",
			 how, index, entry, known ? "the entry of" : "not an entry: at", base, order);
	}
}

/* --- writers (under xa_lock) ------------------------------------------------------ */

static void shadow_set(unsigned long base, unsigned int order, void *entry)
{
	for (unsigned long i = 0; i < (1UL << order); i++)
		shadow[base + i] = entry;
}

/*
 * Erase the entry covering @index (all of it), checking that it is the one
 * the shadow says and that xas_get_order() agrees with its own order.
 */
static void erase_at(struct worker *w, unsigned long index)
{
	XA_STATE(xas, &xa, index);
	unsigned long base, order;
	void *entry = xas_load(&xas);

	if (!entry)
		return;
	if (entry != shadow[index] || !covers(entry, index) ||
	    (entry_range(entry, &base, &order), (unsigned long)xas_get_order(&xas) != order)) {
		w->bad_erase++;
		return;
	}
	xas_store(&xas, NULL);
	shadow_set(base, (unsigned int)order, NULL);
	w->erases++;
}

static void store_entry(struct worker *w, unsigned long base, unsigned int order, void *entry)
{
	XA_STATE_ORDER(xas, &xa, base, order);

	do {
		xas_lock(&xas);
		/* A larger entry covering the range goes first, whole. */
		if (shadow[base] && order_of(shadow[base]) > order)
			erase_at(w, base);
		xas_store(&xas, entry);
		if (!xas_error(&xas)) {
			shadow_set(base, order, entry);
			w->stores++;
		}
		xas_unlock(&xas);
	} while (xas_nomem(&xas, GFP_KERNEL));
	if (xas_error(&xas))
		w->nomem_given_up++;
}

/*
 * Split the entry covering @index in place, as the page cache splits a
 * large folio: xas_split() puts the old entry in every new slot (where it
 * still covers the indices a reader finds it at), then each new slot gets
 * an entry of its own, which needs no allocation.
 */
static void split_at(struct worker *w, unsigned long index)
{
	XA_STATE(xas, &xa, index);
	void *entry = xas_load(&xas);
	unsigned int order, new_order;
	unsigned long base;

	if (!entry || entry != shadow[index] || !order_of(entry))
		return;
	order = order_of(entry);
	new_order = rnd(w, order);
	base = index & ~((1UL << order) - 1);
	{
		XA_STATE_ORDER(sx, &xa, base, new_order);

		xas_split_alloc(&sx, entry, order, GFP_KERNEL);
		if (xas_error(&sx)) {
			w->nomem_given_up++;
			return;
		}
		xas_split(&sx, entry, order);
		xas_destroy(&sx);
	}
	for (unsigned long b = base; b < base + (1UL << order); b += 1UL << new_order) {
		XA_STATE_ORDER(px, &xa, b, new_order);
		void *e = mk_entry(b, new_order, rnd(w, 2));

		xas_store(&px, e);
		if (xas_error(&px)) {
			w->bad_split++;
			return;
		}
		shadow_set(b, new_order, e);
	}
	w->splits++;
}

static void mark_at(struct worker *w, unsigned long index, xa_mark_t mark, bool set)
{
	XA_STATE(xas, &xa, index);

	xas_lock(&xas);
	if (xas_load(&xas)) {
		if (set)
			xas_set_mark(&xas, mark);
		else
			xas_clear_mark(&xas, mark);
		w->marks++;
	}
	xas_unlock(&xas);
}

/* Far indices make the tree eleven levels high; erasing them shrinks it. */
static void far_op(struct worker *w)
{
	unsigned int i = rnd(w, NR_FAR), o = rnd(w, 2);
	void *entry = &far_objs[i][o];

	if (rnd(w, 2)) {
		XA_STATE_ORDER(xas, &xa, far_base[i], o ? 6 : 0);

		do {
			xas_lock(&xas);
			if (far_shadow[i] && order_of(far_shadow[i]) > order_of(entry)) {
				__xa_erase(&xa, far_base[i]);
				far_shadow[i] = NULL;
			}
			xas_store(&xas, entry);
			if (!xas_error(&xas))
				far_shadow[i] = entry;
			xas_unlock(&xas);
		} while (xas_nomem(&xas, GFP_KERNEL));
	} else {
		xa_lock(&xa);
		if (__xa_erase(&xa, far_base[i] + rnd(w, 64)) == far_shadow[i] || !far_shadow[i])
			far_shadow[i] = NULL;
		xa_unlock(&xa);
	}
	w->far_ops++;
}

/*
 * Untidy: another writer may be between two rounds of its -ENOMEM retry,
 * or have given up, leaving the nodes it built in the tree, empty.
 */
static void writer_check(struct worker *w)
{
	char msg[200];
	int rc;

	xa_lock(&xa);
	rc = __xa_check(&xa, XA_CHECK_UNTIDY, msg, sizeof(msg));
	xa_unlock(&xa);
	w->checks++;
	if (rc && !w->check_failed++)
		snprintf(w->check_msg, sizeof(w->check_msg), "%s", msg);
}

static const unsigned int orders[] = { 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 9 };

static void writer_main(struct worker *w)
{
	for (int op = 0; op < OPS_PER_WRITER; op++) {
		unsigned int what = rnd(w, 100);

		if (what < 45) {
			unsigned int order = orders[rnd(w, ARRAY_SIZE(orders))];
			unsigned long base = (unsigned long)rnd(w, RANGE) & ~((1UL << order) - 1);

			store_entry(w, base, order, mk_entry(base, order, rnd(w, 2)));
		} else if (what < 75) {
			xa_lock(&xa);
			erase_at(w, rnd(w, RANGE));
			xa_unlock(&xa);
		} else if (what < 80) {
			xa_lock(&xa);
			split_at(w, rnd(w, RANGE));
			xa_unlock(&xa);
		} else if (what < 95) {
			mark_at(w, rnd(w, RANGE), (xa_mark_t)rnd(w, XA_MAX_MARKS), rnd(w, 2));
		} else {
			far_op(w);
		}
		if (!rnd(w, 64)) {
			/* the next store or two may meet -ENOMEM */
			__atomic_store_n(&xa_fail_alloc_nr, 1 + rnd(w, 2), __ATOMIC_RELAXED);
			__atomic_store_n(&xa_fail_alloc_after, rnd(w, 3), __ATOMIC_RELAXED);
		}
		if (!(op % 1024)) {
			/*
			 * Every other stretch, each allocation under xa_lock
			 * fails and only xas_nomem()'s succeeds: every store
			 * that needs nodes retries, one node more each round.
			 */
			__atomic_store_n(&xa_fail_gfp_without,
					 (op / 1024) % 2 ? __GFP_DIRECT_RECLAIM : 0,
					 __ATOMIC_RELAXED);
		}
		if (!(op % 512))
			writer_check(w);
	}
	__atomic_store_n(&xa_fail_alloc_after, -1, __ATOMIC_RELAXED);
	__atomic_store_n(&xa_fail_gfp_without, 0, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&writers_left, 1, __ATOMIC_RELEASE);
}

/* --- readers (RCU only) ------------------------------------------------------------ */

static unsigned long reader_index(struct worker *r)
{
	if (!rnd(r, 16))
		return far_base[rnd(r, NR_FAR)] + rnd(r, 64);
	return rnd(r, RANGE + 64);
}

static void read_load(struct worker *r)
{
	unsigned long index = reader_index(r);
	void *entry = xa_load(&xa, index);

	if (entry && !covers(entry, index))
		found_bad(r, "xa_load", index, entry, xa_load(&xa, index));
	r->reads++;
}

static void read_reload(struct worker *r)
{
	XA_STATE(xas, &xa, reader_index(r));
	void *entry;

	rcu_read_lock();
	do {
		entry = xas_load(&xas);
		if (xas_retry(&xas, entry))
			r->retries++;
	} while (xa_is_retry(entry));
	if (entry && !covers(entry, xas.xa_index))
		found_bad(r, "xas_load", xas.xa_index, entry, xas_reload(&xas));
	if (xas_valid(&xas)) {
		/*
		 * The same entry, or something that tells the caller it
		 * changed: any entry covering the index, or an internal
		 * entry (a retry; a node where the tree grew at the slot the
		 * walk stopped at; a sibling, where a multi-index entry was
		 * replaced by a larger one between the two reads).
		 */
		entry = xas_reload(&xas);
		if (entry && !xa_is_internal(entry) && !covers(entry, xas.xa_index))
			found_bad(r, "xas_reload", xas.xa_index, entry, xas_reload(&xas));
	}
	rcu_read_unlock();
	r->reads++;
}

static void read_walk(struct worker *r, bool marked)
{
	unsigned long start = reader_index(r), max = start + 300;
	xa_mark_t mark = (xa_mark_t)rnd(r, XA_MAX_MARKS);
	XA_STATE(xas, &xa, start);
	void *entry;

	rcu_read_lock();
	if (marked) {
		xas_for_each_marked(&xas, entry, max, mark) {
			if (xas_retry(&xas, entry)) {
				r->retries++;
				continue;
			}
			if (!covers(entry, xas.xa_index))
				found_bad(r, "xas_for_each_marked", xas.xa_index, entry,
					  xas_reload(&xas));
			r->walked++;
		}
	} else {
		xas_for_each(&xas, entry, max) {
			if (xas_retry(&xas, entry)) {
				r->retries++;
				continue;
			}
			if (!covers(entry, xas.xa_index))
				found_bad(r, "xas_for_each", xas.xa_index, entry, xas_reload(&xas));
			r->walked++;
		}
	}
	rcu_read_unlock();
}

static void read_find(struct worker *r)
{
	unsigned long start = reader_index(r), index;
	void *entry;

	xa_for_each_range(&xa, index, entry, start, start + 200) {
		if (!covers(entry, index))
			found_bad(r, "xa_for_each_range", index, entry, xa_load(&xa, index));
		r->walked++;
	}
}

/*
 * Where to xas_advance() to: the entry's last index, but no further than
 * the node the walk is in (xas_advance() moves within a node).  While a
 * split is publishing the old entry in smaller nodes, a reader can be in
 * one of those and still hold the old, larger entry; the kernel's readers
 * never get there, since the folio being split is frozen and their
 * folio_try_get() fails, but these take no reference.
 */
static unsigned long advance_to(const struct xa_state *xas, unsigned long last)
{
	unsigned long node_last;

	if (!xas_is_node(xas))
		return last;
	node_last = xas->xa_index | ((XA_CHUNK_SIZE << xas->xa_node->shift) - 1);
	return min(last, node_last);
}

/* filemap_get_read_batch(): xas_next from entry to entry, skipping each one's range. */
static void read_next(struct worker *r)
{
	unsigned long start = rnd(r, RANGE), base, order;
	XA_STATE(xas, &xa, start);
	void *entry;

	rcu_read_lock();
	for (entry = xas_load(&xas); entry; entry = xas_next(&xas)) {
		if (xas_retry(&xas, entry)) {
			r->retries++;
			continue;
		}
		if (xa_is_sibling(entry) || xas.xa_index >= start + 256)
			break;
		if (!covers(entry, xas.xa_index)) {
			found_bad(r, "xas_next", xas.xa_index, entry, xas_reload(&xas));
			break;
		}
		entry_range(entry, &base, &order);
		xas_advance(&xas, advance_to(&xas, base + (1UL << order) - 1));
		r->walked++;
	}
	rcu_read_unlock();
}

static void reader_main(struct worker *r)
{
	while (__atomic_load_n(&writers_left, __ATOMIC_ACQUIRE)) {
		switch (rnd(r, 6)) {
		case 0: read_load(r); break;
		case 1: read_reload(r); break;
		case 2: read_walk(r, false); break;
		case 3: read_walk(r, true); break;
		case 4: read_find(r); break;
		default: read_next(r); break;
		}
	}
}

static void worker_main(void *arg)
{
	struct worker *w = arg;

	if (w->id < NR_WRITERS)
		writer_main(w);
	else
		reader_main(w);
}

int main(void)
{
	struct worker workers[NR_WRITERS + NR_READERS] = { 0 };
	void *args[NR_WRITERS + NR_READERS];
	unsigned long stores = 0, erases = 0, marks = 0, far = 0, given_up = 0, bad_erase = 0;
	unsigned long splits = 0, bad_split = 0;
	unsigned long checks = 0, check_failed = 0, reads = 0, walked = 0, retries = 0, torn = 0, bad = 0;
	unsigned long mismatches = 0;
	struct machine_threads *t;
	char msg[200];
	int rc;

	plan_no_plan();
	machine_init();
	for (unsigned int o = 0; o <= MAX_ORDER_T; o++)
		for (unsigned long i = 0; i < (RANGE >> o); i++)
			objs[o][i] = (struct xobj){ .index = i << o, .order = o };
	for (unsigned int i = 0; i < NR_FAR; i++) {
		far_objs[i][0] = (struct xobj){ .index = far_base[i], .order = 0 };
		far_objs[i][1] = (struct xobj){ .index = far_base[i], .order = 6 };
	}
	xa_init(&xa);
	writers_left = NR_WRITERS;

	for (int i = 0; i < NR_WRITERS + NR_READERS; i++) {
		workers[i].id = i;
		workers[i].seed = 4242 + (unsigned int)i;
		args[i] = &workers[i];
	}
	t = machine_threads_start(NR_WRITERS + NR_READERS, worker_main, args);
	ok(t != NULL, "start %d writers and %d readers", NR_WRITERS, NR_READERS);
	machine_threads_join(t);

	for (int i = 0; i < NR_WRITERS + NR_READERS; i++) {
		struct worker *w = &workers[i];

		stores += w->stores;
		erases += w->erases;
		marks += w->marks;
		far += w->far_ops;
		splits += w->splits;
		bad_split += w->bad_split;
		given_up += w->nomem_given_up;
		bad_erase += w->bad_erase;
		checks += w->checks;
		check_failed += w->check_failed;
		reads += w->reads;
		walked += w->walked;
		retries += w->retries;
		torn += w->torn;
		bad += w->bad;
		if (w->check_failed)
			diag("writer %d: xa_check: %s", i, w->check_msg);
		if (w->bad)
			diag("reader %d: %s", i, w->bad_msg);
	}
	diag("%s: %lu stores, %lu erases, %lu splits, %lu mark changes, %lu far-index ops, "
	     "%lu stores or splits gave up on -ENOMEM",
	     MM_KERNEL_NAME, stores, erases, splits, marks, far, given_up);
	diag("readers: %lu loads, %lu entries walked, %lu retries after meeting a node being freed, "
	     "%lu torn reads through a sibling that the recheck caught", reads, walked, retries, torn);
	ok(stores > 0 && erases > 0 && marks > 0 && splits > 0 && reads > 0 && walked > 0,
	   "writers and readers ran");
	is_int(bad_split, 0, "each new entry of a split was stored without an allocation");
	is_int(bad, 0, "every entry a reader found, and its recheck confirmed, covers the index it was found at");
	is_int(bad_erase, 0, "every entry a writer erased was the shadow's, with its own order");
	is_int(check_failed, 0, "xa_check passed at each of %lu checks during the run", checks);

	xa_lock(&xa);
	rc = __xa_check(&xa, XA_CHECK_UNTIDY, msg, sizeof(msg));
	for (unsigned long i = 0; i < RANGE; i++)
		mismatches += xa_load(&xa, i) != shadow[i];
	for (unsigned int i = 0; i < NR_FAR; i++)
		mismatches += xa_load(&xa, far_base[i]) != far_shadow[i];
	xa_unlock(&xa);
	ok(rc == 0, "xa_check passes at the end%s%s", rc ? ": " : "", rc ? msg : "");
	is_int(mismatches, 0, "every index holds what the writers' shadow says");

	xa_destroy(&xa);
	rcu_barrier();
	ok(xa_empty(&xa), "xa_destroy empties the array");
	is_int(atomic_long_read(&xa_nodes_allocated) - atomic_long_read(&xa_nodes_freed), 0,
	       "every node allocated (%ld) was freed after its grace period",
	       atomic_long_read(&xa_nodes_allocated));
	return done_testing();
}
