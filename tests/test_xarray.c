/*
 * The XArray, one operation at a time: shapes of the tree as it grows and
 * shrinks, value entries, marks, multi-index entries, the -ENOMEM retry
 * loop (with injected allocation failures, and its progress when every
 * GFP_NOWAIT allocation fails), reserved entries, insert, cmpxchg, ID
 * allocation, ranges, splitting, the node-update callback, extract and
 * dump, iteration, freeing nodes after a grace period, and the invariant
 * checker: it passes after every operation and catches corrupted counts,
 * marks and sibling entries.
 */
#include <limits.h>
#include <string.h>

#include <linux/xarray.h>
#include <machine/machine.h>

#include "tap.h"

static struct xarray xa;
static long objs[4096];		/* pointer entries: &objs[i] */

#define P(i)	((void *)&objs[i])

/* --- the checker after every operation ---------------------------------------- */

static unsigned long nr_checks, nr_check_failures;
static char first_failure[300];

static int check_now(struct xarray *x, char *msg, size_t len)
{
	int rc;

	xa_lock(x);
	rc = xa_check(x, msg, len);
	xa_unlock(x);
	return rc;
}

static void check(const char *what)
{
	char msg[200];

	nr_checks++;
	if (check_now(&xa, msg, sizeof(msg)) && !nr_check_failures++)
		snprintf(first_failure, sizeof(first_failure), "after %s: %s", what, msg);
}

/* For a tree that a store which met -ENOMEM may have left nodes in. */
static void check_untidy(const char *what)
{
	char msg[200];
	int rc;

	nr_checks++;
	xa_lock(&xa);
	rc = __xa_check(&xa, XA_CHECK_UNTIDY, msg, sizeof(msg));
	xa_unlock(&xa);
	if (rc && !nr_check_failures++)
		snprintf(first_failure, sizeof(first_failure), "after %s: %s", what, msg);
}

static void checks_passed(const char *group)
{
	ok(nr_check_failures == 0, "%s: xa_check passed after each of %lu operations",
	   group, nr_checks);
	if (nr_check_failures)
		diag("%lu failed; the first %s", nr_check_failures, first_failure);
	nr_checks = nr_check_failures = 0;
}

/* --- helpers -------------------------------------------------------------------- */

/* Nodes allocated and not yet freed, once every pending grace period is over. */
static long live_nodes(void)
{
	rcu_barrier();
	return atomic_long_read(&xa_nodes_allocated) - atomic_long_read(&xa_nodes_freed);
}

/* -1: the head is an entry or NULL. */
static int root_shift(void)
{
	void *head = xa.xa_head;

	return xa_is_node(head) ? xa_to_node(head)->shift : -1;
}

/* The head's shift a minimal tree holding indices up to @max has. */
static int expected_shift(unsigned long max)
{
	int shift = 0;

	if (!max)
		return -1;
	while ((max >> shift) > XA_CHUNK_MASK)
		shift += XA_CHUNK_SHIFT;
	return shift;
}

/* The kernel's store of an order-@order entry: xas_store, xas_nomem, retry. */
static int store_order(unsigned long index, unsigned int order, void *entry)
{
	XA_STATE_ORDER(xas, &xa, index, order);

	do {
		xas_lock(&xas);
		xas_store(&xas, entry);
		xas_unlock(&xas);
	} while (xas_nomem(&xas, GFP_KERNEL));
	return xas_error(&xas);
}

static int order_at(unsigned long index)
{
	XA_STATE(xas, &xa, index);
	int order;

	xa_lock(&xa);
	xas_load(&xas);
	order = xas_get_order(&xas);
	xa_unlock(&xa);
	return order;
}

/* --- basic operations --------------------------------------------------------- */

static void test_basic(void)
{
	unsigned long warns;

	xa_init(&xa);
	ok(xa_empty(&xa) && xa_load(&xa, 0) == NULL, "a new array is empty");
	check("init");

	ok(xa_store(&xa, 0, P(0), GFP_KERNEL) == NULL, "store at index 0 returns the old NULL");
	ok(xa.xa_head == P(0), "a lone entry at index 0 lives in the head, no node");
	ok(xa_load(&xa, 0) == P(0) && xa_load(&xa, 1) == NULL, "load index 0, not index 1");
	check("store 0");

	ok(xa_store(&xa, 1, P(1), GFP_KERNEL) == NULL, "store at index 1");
	is_int(root_shift(), 0, "the head is now a leaf node");
	is_int(xa_to_node(xa.xa_head)->count, 2, "holding two entries");
	check("store 1");
	ok(xa_store(&xa, 0, P(2), GFP_KERNEL) == P(0), "a store returns the entry it replaced");
	check("replace 0");

	ok(xa_erase(&xa, 1) == P(1), "erase returns the erased entry");
	ok(xa.xa_head == P(2), "the tree shrank back to the head entry");
	check("erase 1");
	ok(xa_erase(&xa, 0) == P(2) && xa_empty(&xa), "erasing the last entry empties the array");
	ok(xa_erase(&xa, 7) == NULL, "erasing an empty index returns NULL");
	check("erase 0");

	ok(xa_store(&xa, 5, xa_mk_value(5), GFP_KERNEL) == NULL, "store a value entry");
	ok(xa_is_value(xa_load(&xa, 5)) && xa_to_value(xa_load(&xa, 5)) == 5, "it loads as a value");
	is_int(xa_to_node(xa.xa_head)->nr_values, 1, "the node counts it in nr_values");
	ok(xa_store(&xa, 5, P(5), GFP_KERNEL) == xa_mk_value(5), "replace it by a pointer");
	is_int(xa_to_node(xa.xa_head)->nr_values, 0, "nr_values follows");
	check("values");

	warns = vm_warn_count;
	vm_warn_quiet = true;
	is_int(xa_err(xa_store(&xa, 6, xa_mk_internal(3), GFP_KERNEL)), -EINVAL,
	       "storing an internal entry is refused with -EINVAL");
	vm_warn_quiet = false;
	is_int(vm_warn_count - warns, 1, "and warns");
	vm_warn_count = warns;
	xa_erase(&xa, 5);
	ok(xa_empty(&xa), "empty again");
	is_int(live_nodes(), 0, "every node was freed after its grace period");
	checks_passed("basic");
}

/* --- growth and shrink -------------------------------------------------------- */

static const unsigned long shape_indices[] = {
	0, 1, 63, 64, 65, 4095, 4096, 262143, 262144, 1UL << 32, (1UL << 32) + 1,
	1UL << 63, ULONG_MAX - 1, ULONG_MAX,
};
#define NR_SHAPES ARRAY_SIZE(shape_indices)

static bool shapes_load_ok(size_t nr_stored)
{
	for (size_t i = 0; i < NR_SHAPES; i++) {
		void *want = i < nr_stored ? P(i) : NULL;

		if (xa_load(&xa, shape_indices[i]) != want)
			return false;
		/* neighbours that are not stored */
		if (shape_indices[i] > 2 && shape_indices[i] < ULONG_MAX - 1 &&
		    i + 1 < NR_SHAPES && shape_indices[i] + 1 != shape_indices[i + 1] &&
		    xa_load(&xa, shape_indices[i] + 1) != NULL)
			return false;
	}
	return true;
}

static void test_shapes(void)
{
	bool loads = true, shifts = true;

	for (size_t i = 0; i < NR_SHAPES; i++) {
		xa_store(&xa, shape_indices[i], P(i), GFP_KERNEL);
		check("grow");
		loads &= shapes_load_ok(i + 1);
		if (root_shift() != expected_shift(shape_indices[i])) {
			shifts = false;
			diag("after storing %#lx: head shift %d, expected %d", shape_indices[i],
			     root_shift(), expected_shift(shape_indices[i]));
		}
	}
	ok(loads, "sparse indices from 0 to ULONG_MAX: each loads back, the gaps load NULL");
	ok(shifts, "the tree grows one level at a time, only as high as the largest index needs");
	is_int(root_shift(), 60, "ULONG_MAX needs eleven levels");

	for (size_t i = NR_SHAPES; i-- > 0;) {
		ok(xa_erase(&xa, shape_indices[i]) == P(i) || (diag("erase %#lx", shape_indices[i]), 0),
		   "erase %#lx", shape_indices[i]);
		check("shrink");
		loads &= shapes_load_ok(i);
		if (i && root_shift() != expected_shift(shape_indices[i - 1])) {
			shifts = false;
			diag("after erasing %#lx: head shift %d, expected %d", shape_indices[i],
			     root_shift(), expected_shift(shape_indices[i - 1]));
		}
	}
	ok(loads && shifts, "erasing from the top shrinks the tree level by level");
	ok(xa_empty(&xa), "and leaves it empty");
	is_int(live_nodes(), 0, "every node freed");
	checks_passed("shapes");
}

#define NR_DENSE	5000

static void test_dense(void)
{
	static unsigned int perm[NR_DENSE];
	unsigned int seed = 7;
	bool loads = true;

	for (unsigned long i = 0; i < NR_DENSE; i++) {
		xa_store(&xa, i, xa_mk_value(i), GFP_KERNEL);
		check("dense store");
	}
	for (unsigned long i = 0; i < NR_DENSE; i++)
		loads &= xa_load(&xa, i) == xa_mk_value(i);
	ok(loads && xa_load(&xa, NR_DENSE) == NULL, "%d dense value entries load back", NR_DENSE);
	is_int(root_shift(), 12, "three levels");
	/* 79 leaves, two shift-6 nodes, the head */
	is_int(live_nodes(), 79 + 2 + 1, "exactly the nodes a dense tree needs");

	for (unsigned int i = 0; i < NR_DENSE; i++)
		perm[i] = i;
	for (unsigned int i = NR_DENSE - 1; i > 0; i--) {
		unsigned int j = (unsigned int)rand_r(&seed) % (i + 1), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (unsigned int i = 0; i < NR_DENSE; i++) {
		unsigned int other = perm[(i + 1 + (unsigned int)rand_r(&seed) % (NR_DENSE - i)) % NR_DENSE];

		loads &= xa_erase(&xa, perm[i]) == xa_mk_value(perm[i]);
		loads &= xa_load(&xa, perm[i]) == NULL;
		/* some index: erased already, or still there */
		loads &= xa_load(&xa, other) == NULL || xa_load(&xa, other) == xa_mk_value(other);
		check("dense erase");
	}
	ok(loads, "erasing in random order removes exactly the erased entry");
	ok(xa_empty(&xa), "the array is empty");
	is_int(live_nodes(), 0, "every node freed");
	checks_passed("dense");
}

/* --- marks ---------------------------------------------------------------------------- */

static void test_marks(void)
{
	static const unsigned long idx[] = { 0, 5, 64, 100, 5000, 1UL << 20 };
	unsigned long index, found[8];
	void *entry;
	int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(idx); i++)
		xa_store(&xa, idx[i], xa_mk_value(idx[i]), GFP_KERNEL);
	xa_set_mark(&xa, 5, XA_MARK_0);
	check("mark");
	xa_set_mark(&xa, 5000, XA_MARK_0);
	check("mark");
	xa_set_mark(&xa, 100, XA_MARK_1);
	check("mark");
	xa_set_mark(&xa, 1UL << 20, XA_MARK_2);
	check("mark");
	xa_set_mark(&xa, 999, XA_MARK_2);
	check("mark an empty index");

	ok(xa_get_mark(&xa, 5, XA_MARK_0) && xa_get_mark(&xa, 5000, XA_MARK_0) &&
	   xa_get_mark(&xa, 100, XA_MARK_1) && xa_get_mark(&xa, 1UL << 20, XA_MARK_2),
	   "marked entries read as marked");
	ok(!xa_get_mark(&xa, 5, XA_MARK_1) && !xa_get_mark(&xa, 64, XA_MARK_0) &&
	   !xa_get_mark(&xa, 999, XA_MARK_2) && !xa_get_mark(&xa, 0, XA_MARK_0),
	   "others do not, and an empty index cannot be marked");
	ok(xa_marked(&xa, XA_MARK_0) && xa_marked(&xa, XA_MARK_1) && xa_marked(&xa, XA_MARK_2),
	   "every mark is propagated to the head");
	xa_for_each_marked(&xa, index, entry, XA_MARK_0)
		found[n++] = index;
	ok(n == 2 && found[0] == 5 && found[1] == 5000, "xa_for_each_marked finds exactly the marked entries");

	xa_clear_mark(&xa, 5, XA_MARK_0);
	check("clear mark");
	ok(!xa_get_mark(&xa, 5, XA_MARK_0) && xa_marked(&xa, XA_MARK_0),
	   "clearing one mark keeps the head's while another entry has it");
	xa_clear_mark(&xa, 5000, XA_MARK_0);
	check("clear mark");
	ok(!xa_marked(&xa, XA_MARK_0), "clearing the last one clears it up to the head");
	xa_erase(&xa, 100);
	check("erase marked");
	ok(!xa_marked(&xa, XA_MARK_1), "erasing a marked entry clears its marks");
	xa_erase(&xa, 1UL << 20);
	check("erase marked");
	ok(!xa_marked(&xa, XA_MARK_2), "all the way up");

	xa_erase(&xa, 5);
	xa_erase(&xa, 64);
	xa_erase(&xa, 5000);
	check("erase");
	ok(!xa_is_node(xa.xa_head), "only index 0 left: the head entry");
	xa_set_mark(&xa, 0, XA_MARK_2);
	check("mark the head entry");
	ok(xa_get_mark(&xa, 0, XA_MARK_2) && xa_marked(&xa, XA_MARK_2), "the head entry's mark is in xa_flags");
	xa_store(&xa, 70, xa_mk_value(70), GFP_KERNEL);
	check("grow under a mark");
	ok(xa_get_mark(&xa, 0, XA_MARK_2) && !xa_get_mark(&xa, 70, XA_MARK_2),
	   "growing the tree moves the head's mark to slot 0");
	xa_erase(&xa, 70);
	check("shrink under a mark");
	ok(!xa_is_node(xa.xa_head) && xa_get_mark(&xa, 0, XA_MARK_2), "and shrinking keeps it");
	xa_erase(&xa, 0);
	check("erase");
	ok(xa_empty(&xa) && !xa_marked(&xa, XA_MARK_2), "an empty array has no marks");
	checks_passed("marks");
}

/* --- multi-index entries -------------------------------------------------------- */

static void test_multi_one(unsigned int order, unsigned long base)
{
	unsigned long nr = 1UL << order, index;
	void *entry = P(100 + order), *e;
	bool loads = true;
	int n = 0;

	is_int(store_order(base, order, entry), 0, "order %u at %#lx: stored", order, base);
	check("multi store");
	for (unsigned long i = 0; i < nr; i++)
		loads &= xa_load(&xa, base + i) == entry;
	ok(loads, "order %u at %#lx: every index of the range loads it", order, base);
	ok((!base || xa_load(&xa, base - 1) == NULL) && xa_load(&xa, base + nr) == NULL,
	   "order %u at %#lx: the indices around it do not", order, base);
	is_int(order_at(base + nr / 2), order, "order %u at %#lx: xas_get_order", order, base);

	index = base + nr - 1;
	ok(xa_find(&xa, &index, ULONG_MAX, XA_PRESENT) == entry && index == base + nr - 1,
	   "order %u at %#lx: xa_find from inside the range finds it there", order, base);
	xa_for_each(&xa, index, e)
		n += (index == base && e == entry) ? 1 : 100;
	is_int(n, 1, "order %u at %#lx: xa_for_each visits it once, at its first index", order, base);

	xa_set_mark(&xa, base + nr - 1, XA_MARK_1);
	check("multi mark");
	ok(xa_get_mark(&xa, base, XA_MARK_1) && xa_get_mark(&xa, base + nr / 2, XA_MARK_1),
	   "order %u at %#lx: a mark set through one index is the entry's", order, base);

	ok(xa_erase(&xa, base + nr - 1) == entry, "order %u at %#lx: erase through its last index",
	   order, base);
	check("multi erase");
	loads = true;
	for (unsigned long i = 0; i < nr; i++)
		loads &= xa_load(&xa, base + i) == NULL;
	ok(loads && xa_empty(&xa) && !xa_marked(&xa, XA_MARK_1),
	   "order %u at %#lx: the whole range is gone, and its mark", order, base);
	is_int(live_nodes(), 0, "order %u at %#lx: every node freed", order, base);
}

static void test_multi_overwrite(void)
{
	bool loads = true;

	/* 128 single entries replaced by one order-7 entry */
	for (unsigned long i = 0; i < 128; i++)
		xa_store(&xa, i, xa_mk_value(i), GFP_KERNEL);
	is_int(live_nodes(), 3, "128 singles: two leaves under a head");
	is_int(store_order(0, 7, P(7)), 0, "an order-7 entry over them");
	check("overwrite singles");
	for (unsigned long i = 0; i < 128; i++)
		loads &= xa_load(&xa, i) == P(7);
	ok(loads, "replaces every one of them");
	is_int(live_nodes(), 1, "and frees the leaves: it takes two slots of the head");
	xa_erase(&xa, 3);
	check("erase");

	/* neighbours */
	store_order(8, 2, P(8));
	store_order(12, 2, P(12));
	check("neighbours");
	ok(xa_erase(&xa, 9) == P(8), "erase one of two neighbouring order-2 entries");
	check("erase neighbour");
	ok(xa_load(&xa, 8) == NULL && xa_load(&xa, 11) == NULL && xa_load(&xa, 12) == P(12) &&
	   xa_load(&xa, 15) == P(12), "the other is intact");

	/* replacing a multi-index entry, whole or through one index */
	store_order(12, 2, P(13));
	check("replace multi");
	ok(xa_load(&xa, 12) == P(13) && xa_load(&xa, 15) == P(13), "an entry of the same order replaces it");
	ok(xa_store(&xa, 14, xa_mk_value(14), GFP_KERNEL) == P(13),
	   "a single-index store inside it returns it");
	check("single store into multi (pointer -> value)");
	ok(xa_load(&xa, 12) == xa_mk_value(14) && xa_load(&xa, 15) == xa_mk_value(14),
	   "and, as in the kernel, replaces the entry at every index");
	xa_store(&xa, 13, P(14), GFP_KERNEL);
	check("single store into multi (value -> pointer)");
	store_order(16, 3, xa_mk_value(16));
	check("multi value entry");
	ok(xa_load(&xa, 23) == xa_mk_value(16), "an order-3 value entry");
	xa_erase(&xa, 12);
	xa_erase(&xa, 16);
	check("erase");

	/* order 6 at index 0: a whole slot of a shift-6 head, which stays */
	store_order(0, 6, P(6));
	check("order 6 at 0");
	is_int(root_shift(), 6, "an order-6 entry at index 0 keeps a shift-6 head");
	ok(xa_load(&xa, 63) == P(6) && xa_load(&xa, 64) == NULL, "covering 0..63");
	xa_erase(&xa, 0);
	check("erase");
	ok(xa_empty(&xa), "empty");
	is_int(live_nodes(), 0, "every node freed");
}

static void test_multi(void)
{
	for (unsigned int order = 1; order <= 9; order++) {
		test_multi_one(order, 0);
		test_multi_one(order, 3UL << order);
		test_multi_one(order, 1UL << 40);
	}
	test_multi_overwrite();
	checks_passed("multi-index");
}

/* --- -ENOMEM and the retry loop ------------------------------------------------ */

static void fail_allocs(long after, long nr)
{
	xa_fail_alloc_nr = nr;
	xa_fail_alloc_after = after;
}

static void test_nomem(void)
{
	long allocated, live;

	xa_store(&xa, 0, P(0), GFP_KERNEL);
	check("store");

	/* __xa_store: the allocation under the lock fails, the retry's succeeds */
	allocated = atomic_long_read(&xa_nodes_allocated);
	fail_allocs(0, 1);
	ok(xa_store(&xa, 1, P(1), GFP_KERNEL) == NULL, "xa_store succeeds through one failed allocation");
	ok(xa_fail_alloc_after == -1, "the injected failure happened");
	is_int(atomic_long_read(&xa_nodes_allocated) - allocated, 1, "and one node was allocated for the retry");
	ok(xa_load(&xa, 1) == P(1), "the entry is there");
	check("nomem retry");

	/* the advanced API's loop, step by step */
	{
		XA_STATE(xas, &xa, 1000);

		fail_allocs(0, 1);
		xas_lock(&xas);
		xas_store(&xas, P(2));
		is_int(xas_error(&xas), -ENOMEM, "xas_store under the lock fails with -ENOMEM");
		xas_unlock(&xas);
		check("nomem failed store");
		ok(xa_load(&xa, 1000) == NULL, "and stored nothing");
		ok(xas_nomem(&xas, GFP_KERNEL), "xas_nomem allocates a node and asks for a retry");
		xas_lock(&xas);
		xas_store(&xas, P(2));
		is_int(xas_error(&xas), 0, "the retry succeeds");
		xas_unlock(&xas);
		ok(!xas_nomem(&xas, GFP_KERNEL), "xas_nomem then says done");
		ok(xa_load(&xa, 1000) == P(2), "the entry is there");
		check("nomem retried store");
	}

	/* a failure half-way down: the level it added stays, for the retry */
	{
		XA_STATE(xas, &xa, 300000);
		char msg[200];

		fail_allocs(1, 1);
		xas_lock(&xas);
		xas_store(&xas, P(3));
		is_int(xas_error(&xas), -ENOMEM, "a store needing five nodes fails at the second");
		xas_unlock(&xas);
		check_untidy("nomem half-way failed");
		is_int(root_shift(), 12, "the level the failed store added above the head stays");
		ok(check_now(&xa, msg, sizeof(msg)) == -EINVAL && strstr(msg, "should have shrunk"),
		   "a strict check sees that head level, the untidy one lets it pass");
		ok(xas_nomem(&xas, GFP_KERNEL), "xas_nomem");
		xas_lock(&xas);
		xas_store(&xas, P(3));
		xas_unlock(&xas);
		ok(!xas_nomem(&xas, GFP_KERNEL) && !xas_error(&xas), "the retry succeeds");
		ok(xa_load(&xa, 300000) == P(3), "the entry is there");
		check("nomem half-way");
	}

	/* giving up: as in the kernel, the nodes it built stay in the tree */
	live = live_nodes();
	fail_allocs(0, 2);
	is_int(store_order(1UL << 40, 0, P(4)), -ENOMEM, "when the retry's allocation fails too, the store gives up");
	check("nomem give up");
	ok(xa_load(&xa, 1UL << 40) == NULL, "having stored nothing");
	is_int(live_nodes(), live, "its first allocation failed: no node added");

	fail_allocs(2, 2);
	is_int(store_order(1UL << 40, 3, P(5)), -ENOMEM, "giving up after adding two nodes");
	check_untidy("nomem give up later");
	is_int(live_nodes(), live + 2, "leaves those two nodes in the tree");
	is_int(root_shift(), 30, "two levels above the old head");
	ok(xa_load(&xa, 1UL << 40) == NULL && xa_load(&xa, 300000) == P(3), "loads are unaffected");
	{
		long allocated = atomic_long_read(&xa_nodes_allocated);

		/* from a shift-18 head: levels 24, 30, 36, then 30..0 below: 9 nodes */
		is_int(store_order(1UL << 40, 3, P(5)), 0, "a later store there succeeds");
		is_int(atomic_long_read(&xa_nodes_allocated) - allocated, 9 - 2,
		       "allocating only the nodes the failed one did not leave");
		check("store after give up");
		xa_erase(&xa, 1UL << 40);
		check("erase after give up");
	}
	live = live_nodes();

	fail_allocs(0, 2);
	is_int(xa_err(xa_store(&xa, 1UL << 41, P(6), GFP_KERNEL)), -ENOMEM,
	       "xa_store returns xa_err(-ENOMEM) when it gives up");
	check("xa_store give up");
	is_int(live_nodes(), live, "leaving no node behind when its first allocation failed");
	ok(xa_fail_alloc_after == -1, "the failure hook disarmed itself");

	xa_destroy(&xa);
	ok(xa_empty(&xa), "xa_destroy empties the array");
	is_int(live_nodes(), 0, "and frees every node after a grace period");
	checks_passed("nomem");
}

/*
 * The kernel's userspace harness: every allocation that may not sleep
 * fails, so each node a store needs comes from xas_nomem(), one per
 * round.  A store needing N new nodes must complete in N + 1 rounds.
 */
#define MAX_ROUNDS	40

/* The advanced API's loop, counting the xas_store() calls. */
static int store_rounds(unsigned long index, unsigned int order, void *entry, int *rounds)
{
	XA_STATE_ORDER(xas, &xa, index, order);

	*rounds = 0;
	do {
		xas_lock(&xas);
		xas_store(&xas, entry);
		xas_unlock(&xas);
		check_untidy("a round of the retry loop");
		/* No progress (the old undo): xa_alloc was used and freed, nothing leaks. */
		if (++*rounds == MAX_ROUNDS)
			break;
	} while (xas_nomem(&xas, GFP_KERNEL));
	return xas_error(&xas);
}

/* The same bound for random stores into a random tree. */
static void test_nomem_random(void)
{
	unsigned int seed = 5;
	int max_rounds = 0, rounds, err;
	bool done = true, exact = true;
	long allocated;

	xa_fail_gfp_without = __GFP_DIRECT_RECLAIM;
	for (int i = 0; i < 300; i++) {
		unsigned int order = (unsigned int)rand_r(&seed) % 13;
		unsigned long index = ((unsigned long)rand_r(&seed) << (rand_r(&seed) % 40)) &
				      ~((1UL << order) - 1);

		allocated = atomic_long_read(&xa_nodes_allocated);
		err = store_rounds(index, order, xa_mk_value(i), &rounds);
		check_untidy("random progress");
		done &= !err && xa_load(&xa, index) == xa_mk_value(i);
		exact &= rounds == atomic_long_read(&xa_nodes_allocated) - allocated + 1;
		if (rounds > max_rounds)
			max_rounds = rounds;
	}
	xa_fail_gfp_without = 0;
	ok(done && exact, "300 random stores (orders 0..12, indices spread over 64 bits): "
	   "each completes in one round more than its new nodes");
	ok(max_rounds > 3 && max_rounds <= 12, "at most 12 rounds (eleven levels); %d seen", max_rounds);
	xa_destroy(&xa);
	is_int(live_nodes(), 0, "every node freed");
	checks_passed("nomem random");
}

static void test_nomem_progress(void)
{
	static const struct {
		unsigned long index;
		unsigned int order;
	} cases[] = {
		{ 3, 0 }, { 4096, 0 }, { 5000, 2 }, { 1UL << 20, 6 }, { 1UL << 33, 9 },
		{ (1UL << 40) + 64, 0 }, { ULONG_MAX, 0 }, { 0, 7 },
	};
	bool exact = true, done = true;
	long allocated;
	int rounds, err;

	xa_fail_gfp_without = __GFP_DIRECT_RECLAIM;
	err = store_rounds(64, 0, P(64), &rounds);
	is_int(err, 0, "every GFP_NOWAIT allocation fails: a store at 64 in an empty array completes");
	is_int(rounds, 3, "in 3 rounds (a shift-6 head and a leaf, one node per round)");
	check("progress at 64");
	xa_destroy(&xa);

	err = store_rounds(1UL << 30, 0, P(30), &rounds);
	is_int(err, 0, "a store at 1<<30 in an empty array completes");
	is_int(rounds, 7, "in 7 rounds (six levels, shifts 30 down to 0)");
	check("progress at 1<<30");

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		allocated = atomic_long_read(&xa_nodes_allocated);
		err = store_rounds(cases[i].index, cases[i].order, P(200 + i), &rounds);
		check("progress");
		done &= !err && xa_load(&xa, cases[i].index) == P(200 + i);
		if (rounds != atomic_long_read(&xa_nodes_allocated) - allocated + 1) {
			exact = false;
			diag("order %u at %#lx: %d rounds for %ld new nodes", cases[i].order,
			     cases[i].index, rounds, atomic_long_read(&xa_nodes_allocated) - allocated);
		}
	}
	ok(done, "stores of orders 0..9 up to ULONG_MAX into a growing tree all complete");
	ok(exact, "each in one round more than the nodes it needed");

	if (done && exact) {
		/* the normal API: never tried while the bounded loop fails, it would spin */
		allocated = atomic_long_read(&xa_nodes_allocated);
		ok(xa_store(&xa, 1UL << 50, P(50), GFP_KERNEL) == NULL && xa_load(&xa, 1UL << 50) == P(50),
		   "xa_store with GFP_KERNEL completes, dropping the lock to allocate");
		/* below the shift-48 node that holds 1<<40: shifts 42 down to 0 */
		is_int(atomic_long_read(&xa_nodes_allocated) - allocated, 8,
		       "its eight nodes all allocated by the GFP_KERNEL retries");
		check("xa_store progress");
	}
	allocated = atomic_long_read(&xa_nodes_allocated);
	is_int(xa_err(xa_store(&xa, 1UL << 51, P(51), GFP_NOWAIT)), -ENOMEM,
	       "xa_store with GFP_NOWAIT that needs a node fails");
	is_int(atomic_long_read(&xa_nodes_allocated) - allocated, 0, "having allocated nothing");
	ok(xa_store(&xa, 4097, P(65), GFP_NOWAIT) == NULL && xa_load(&xa, 4097) == P(65),
	   "one that needs no node succeeds");
	check_untidy("GFP_NOWAIT");
	xa_fail_gfp_without = 0;

	xa_destroy(&xa);
	is_int(live_nodes(), 0, "every node freed");
	checks_passed("nomem progress");
}

/* --- reserved entries, insert, cmpxchg, get_order ---------------------------- */

/* The kernel's xa_store(XA_ZERO_ENTRY) reserves; it used to be refused. */
static void test_zero_entry(void)
{
	unsigned long index, warns = vm_warn_count;
	void *entry;
	int n = 0;

	ok(xa_store(&xa, 5, XA_ZERO_ENTRY, GFP_KERNEL) == NULL, "xa_store(XA_ZERO_ENTRY) is accepted");
	is_int(vm_warn_count - warns, 0, "without a warning");
	check("store zero");
	ok(!xa_empty(&xa), "a reserved index makes the array non-empty");
	ok(xa_load(&xa, 5) == NULL && xa_load(&xa, 4) == NULL, "and loads as NULL");
	xa_for_each(&xa, index, entry)
		n++;
	is_int(n, 0, "xa_for_each does not visit it");
	ok(xa_store(&xa, 5, P(5), GFP_KERNEL) == NULL, "a store over it returns NULL");
	ok(xa_load(&xa, 5) == P(5), "and is there");
	ok(xa_store(&xa, 5, XA_ZERO_ENTRY, GFP_KERNEL) == P(5), "storing zero over an entry returns it");
	ok(xa_erase(&xa, 5) == NULL && xa_empty(&xa), "erasing a reserved index returns NULL and empties");
	check("erase zero");

	ok(xa_store(&xa, 0, XA_ZERO_ENTRY, GFP_KERNEL) == NULL, "reserve index 0 of an empty array");
	ok(xa_is_node(xa.xa_head) && xa_to_node(xa.xa_head)->count == 1,
	   "it gets a leaf, as in the kernel, not the head");
	check("zero at 0");
	ok(!xa_empty(&xa) && xa_load(&xa, 0) == NULL, "non-empty, loads NULL");
	ok(xa_erase(&xa, 0) == NULL && xa_empty(&xa), "erase");
	is_int(live_nodes(), 0, "every node freed");

	vm_warn_quiet = true;
	is_int(xa_err(xa_store(&xa, 6, XA_RETRY_ENTRY, GFP_KERNEL)), -EINVAL,
	       "the retry entry is still refused");
	vm_warn_quiet = false;
	is_int(vm_warn_count - warns, 1, "with a warning");
	vm_warn_count = warns;
	checks_passed("zero entry");
}

static void test_insert_cmpxchg(void)
{
	unsigned long warns = vm_warn_count;

	is_int(xa_insert(&xa, 10, P(10), GFP_KERNEL), 0, "xa_insert into an empty index");
	ok(xa_load(&xa, 10) == P(10), "stores");
	is_int(xa_insert(&xa, 10, P(11), GFP_KERNEL), -EBUSY, "xa_insert over an entry: -EBUSY");
	ok(xa_load(&xa, 10) == P(10), "leaving it");
	is_int(xa_insert(&xa, 11, NULL, GFP_KERNEL), 0, "xa_insert(NULL) reserves");
	ok(xa_load(&xa, 11) == NULL, "the reserved index loads NULL");
	is_int(xa_insert(&xa, 11, P(11), GFP_KERNEL), -EBUSY, "and a later insert there is -EBUSY");
	vm_warn_quiet = true;
	is_int(xa_insert(&xa, 12, xa_mk_sibling(0), GFP_KERNEL), -EINVAL, "an internal entry: -EINVAL");
	vm_warn_quiet = false;
	vm_warn_count = warns;
	check("insert");

	ok(xa_cmpxchg(&xa, 10, P(99), P(12), GFP_KERNEL) == P(10), "xa_cmpxchg with the wrong old returns the current entry");
	ok(xa_load(&xa, 10) == P(10), "and stores nothing");
	ok(xa_cmpxchg(&xa, 10, P(10), P(12), GFP_KERNEL) == P(10), "with the right old returns it");
	ok(xa_load(&xa, 10) == P(12), "and stores");
	ok(xa_cmpxchg(&xa, 13, NULL, P(13), GFP_KERNEL) == NULL && xa_load(&xa, 13) == P(13),
	   "NULL -> entry on an empty index stores");
	ok(xa_cmpxchg(&xa, 13, P(13), NULL, GFP_KERNEL) == P(13) && xa_load(&xa, 13) == NULL,
	   "entry -> NULL erases");
	ok(xa_cmpxchg(&xa, 11, NULL, P(11), GFP_KERNEL) == NULL && xa_load(&xa, 11) == NULL,
	   "NULL -> entry on a reserved index returns NULL and stores nothing");
	ok(xa_cmpxchg(&xa, 11, XA_ZERO_ENTRY, P(11), GFP_KERNEL) == NULL && xa_load(&xa, 11) == P(11),
	   "XA_ZERO_ENTRY -> entry fills it");
	check("cmpxchg");

	is_int(xa_reserve(&xa, 20, GFP_KERNEL), 0, "xa_reserve");
	ok(xa_load(&xa, 20) == NULL && xa_insert(&xa, 20, P(20), GFP_KERNEL) == -EBUSY,
	   "a reserved index loads NULL and refuses xa_insert");
	is_int(xa_reserve(&xa, 10, GFP_KERNEL), 0, "xa_reserve over an entry succeeds");
	ok(xa_load(&xa, 10) == P(12), "leaving the entry");
	xa_release(&xa, 10);
	ok(xa_load(&xa, 10) == P(12), "xa_release of an index that holds an entry leaves it");
	xa_release(&xa, 20);
	is_int(xa_insert(&xa, 20, P(20), GFP_KERNEL), 0, "xa_release frees a reserved index");
	is_int(xa_reserve_bh(&xa, 21, GFP_KERNEL), 0, "xa_reserve_bh");
	ok(xa_store_irq(&xa, 21, P(21), GFP_KERNEL) == NULL, "a store over a reserved index returns NULL");
	xa_release(&xa, 21);
	ok(xa_load(&xa, 21) == P(21), "and xa_release then leaves it");
	check("reserve");
	ok(xa_erase_bh(&xa, 21) == P(21) && xa_erase_irq(&xa, 20) == P(20) &&
	   xa_insert_irq(&xa, 22, P(22), GFP_KERNEL) == 0 && xa_insert_bh(&xa, 22, P(22), GFP_KERNEL) == -EBUSY &&
	   xa_cmpxchg_bh(&xa, 22, P(22), P(23), GFP_KERNEL) == P(22) &&
	   xa_cmpxchg_irq(&xa, 22, P(23), NULL, GFP_KERNEL) == P(23) && xa_load(&xa, 22) == NULL &&
	   xa_store_bh(&xa, 22, P(24), GFP_KERNEL) == NULL && xa_load(&xa, 22) == P(24),
	   "the _bh and _irq forms do what the plain forms do");
	check("bh irq");
	{
		XA_STATE(xas, &xa, 22);
		unsigned long flags = 0;
		bool held = true;

		xas_lock_bh(&xas);
		held &= spin_is_locked(&xa.xa_lock);
		xas_unlock_bh(&xas);
		xas_lock_irqsave(&xas, flags);
		held &= spin_is_locked(&xa.xa_lock);
		xas_unlock_irqrestore(&xas, flags);
		xa_lock_nested(&xa, 1);
		held &= spin_is_locked(&xa.xa_lock);
		xa_unlock(&xa);
		ok(held && !spin_is_locked(&xa.xa_lock), "the _bh, _irqsave and _nested lock forms take xa_lock");
	}

	/* reserving needs nodes too: under the harness's GFP_NOWAIT failures */
	xa_fail_gfp_without = __GFP_DIRECT_RECLAIM;
	is_int(xa_reserve(&xa, 1UL << 30, GFP_NOWAIT), -ENOMEM, "xa_reserve with GFP_NOWAIT: -ENOMEM");
	is_int(xa_reserve(&xa, 1UL << 30, GFP_KERNEL), 0, "with GFP_KERNEL it completes, node by node");
	is_int(xa_insert(&xa, (1UL << 30) + 64, P(30), GFP_NOWAIT), -ENOMEM, "so does xa_insert: NOWAIT fails");
	is_int(xa_insert(&xa, 1UL << 40, P(40), GFP_KERNEL), 0, "GFP_KERNEL completes");
	ok(xa_cmpxchg(&xa, 1UL << 41, NULL, P(41), GFP_KERNEL) == NULL && xa_load(&xa, 1UL << 41) == P(41),
	   "and xa_cmpxchg");
	xa_fail_gfp_without = 0;
	check_untidy("insert under nomem");
	ok(xa_insert(&xa, 1UL << 30, P(30), GFP_KERNEL) == -EBUSY && xa_load(&xa, 1UL << 30) == NULL,
	   "the index reserved through the retries is reserved");

	xa_destroy(&xa);
	is_int(live_nodes(), 0, "every node freed");
	checks_passed("insert, cmpxchg, reserve");
}

static void test_get_order(void)
{
	XA_STATE(xas, &xa, 0);
	bool orders = true;

	is_int(xa_get_order(&xa, 100), 0, "xa_get_order of an empty index is 0");
	xa_store(&xa, 100, P(100), GFP_KERNEL);
	is_int(xa_get_order(&xa, 100), 0, "of a single entry 0");
	for (unsigned int order = 1; order <= 12; order++) {
		unsigned long base = 1UL << 20;

		store_order(base, order, P(order));
		for (unsigned long i = 0; i < (1UL << order); i += 1 + (i >> 2))
			orders &= xa_get_order(&xa, base + i) == (int)order;
		orders &= xa_get_order(&xa, base + (1UL << order)) == 0;
		check("get_order");
		xa_erase(&xa, base);
	}
	ok(orders, "orders 1..12: every index of the entry reports its order, the next index 0");
	store_order(0, 4, XA_ZERO_ENTRY);
	is_int(xa_get_order(&xa, 9), 4, "a reserved multi-index entry has its order too");
	ok(xa_load(&xa, 9) == NULL, "while loading NULL");
	check("reserved multi-index");

	ok(!xas_marked(&xas, XA_MARK_1), "xas_marked: no entry has mark 1");
	xa_set_mark(&xa, 100, XA_MARK_1);
	ok(xas_marked(&xas, XA_MARK_1), "xas_marked: one does");
	xa_destroy(&xa);
	is_int(live_nodes(), 0, "every node freed");
	checks_passed("get_order");
}

/* --- ID allocation ---------------------------------------------------------------- */

static DEFINE_XARRAY_ALLOC(ida);
static DEFINE_XARRAY_ALLOC1(ida1);

static void check_on(struct xarray *x, const char *what)
{
	char msg[200];

	nr_checks++;
	if (check_now(x, msg, sizeof(msg)) && !nr_check_failures++)
		snprintf(first_failure, sizeof(first_failure), "after %s: %s", what, msg);
}

static void test_alloc_basic(void)
{
	bool ids = true, loads = true;
	unsigned long warns = vm_warn_count;
	u32 id = 12345;

	ok(xa_marked(&ida, XA_FREE_MARK) && !xa_marked(&ida1, XA_FREE_MARK),
	   "DEFINE_XARRAY_ALLOC: index 0 free; ALLOC1: not");
	for (u32 i = 0; i < 200; i++) {
		ids &= xa_alloc(&ida, &id, P(i), xa_limit_32b, GFP_KERNEL) == 0 && id == i;
		check_on(&ida, "alloc");
	}
	ok(ids, "200 allocations hand out 0..199 in order");
	for (u32 i = 0; i < 200; i++)
		loads &= xa_load(&ida, i) == P(i);
	ok(loads, "each ID holds its entry");

	xa_erase(&ida, 70);
	xa_erase(&ida, 3);
	xa_erase(&ida, 150);
	check_on(&ida, "erase");
	ok(xa_alloc(&ida, &id, P(1000), xa_limit_32b, GFP_KERNEL) == 0 && id == 3,
	   "after erasing 3, 70 and 150 the lowest free ID comes back first");
	ok(xa_alloc(&ida, &id, NULL, xa_limit_32b, GFP_KERNEL) == 0 && id == 70,
	   "xa_alloc(NULL) reserves the next (70)");
	ok(xa_load(&ida, 70) == NULL, "which loads NULL");
	ok(xa_store(&ida, 150, NULL, GFP_KERNEL) == NULL && xa_load(&ida, 150) == NULL,
	   "xa_store(NULL) in an allocating array reserves rather than frees");
	ok(xa_alloc(&ida, &id, P(1001), xa_limit_32b, GFP_KERNEL) == 0 && id == 200,
	   "so the next ID is 200");
	xa_erase(&ida, 150);
	ok(xa_alloc(&ida, &id, P(1002), xa_limit_32b, GFP_KERNEL) == 0 && id == 150,
	   "xa_erase does free it");
	check_on(&ida, "reserve");

	id = 7;
	is_int(xa_alloc(&ida, &id, P(1), XA_LIMIT(5, 7), GFP_KERNEL), -EBUSY,
	       "XA_LIMIT(5, 7) with 5..7 in use: -EBUSY");
	is_int(id, 7, "leaving *id alone");
	xa_erase(&ida, 6);
	ok(xa_alloc(&ida, &id, P(6), XA_LIMIT(5, 7), GFP_KERNEL) == 0 && id == 6, "one freed: that one");
	ok(xa_alloc(&ida, &id, P(1), XA_LIMIT(100000, 200000), GFP_KERNEL) == 0 && id == 100000,
	   "a limit beyond the tree starts at its min");
	ok(xa_alloc(&ida, &id, P(1), XA_LIMIT(UINT32_MAX, UINT32_MAX), GFP_KERNEL) == 0 && id == UINT32_MAX,
	   "UINT32_MAX can be allocated");
	is_int(xa_alloc(&ida, &id, P(1), XA_LIMIT(UINT32_MAX, UINT32_MAX), GFP_KERNEL), -EBUSY,
	       "once");
	ok(xa_limit_31b.max == INT32_MAX && xa_limit_16b.max == UINT16_MAX && xa_limit_32b.max == UINT32_MAX &&
	   !xa_limit_32b.min, "the limits' bounds");
	check_on(&ida, "limits");
	{
		XA_STATE(xas, &ida, 5);
		struct xa_node *leaf, *parent;
		char msg[200];

		xa_lock(&ida);
		xas_load(&xas);
		leaf = xas.xa_node;
		parent = leaf->parent;
		leaf->marks[XA_FREE_MARK][0] |= BIT(5);
		ok(xa_check(&ida, msg, sizeof(msg)) == -EINVAL && strstr(msg, "free mark set on used slot 5"),
		   "mutant: the checker catches a free mark on a used slot (%s)", msg);
		leaf->marks[XA_FREE_MARK][0] &= ~BIT(5);
		parent->marks[XA_FREE_MARK][0] |= BIT(leaf->offset);
		ok(xa_check(&ida, msg, sizeof(msg)) == -EINVAL && strstr(msg, "no free slot"),
		   "mutant: and one above a full child (%s)", msg);
		parent->marks[XA_FREE_MARK][0] &= ~BIT(leaf->offset);
		ok(xa_check(&ida, msg, sizeof(msg)) == 0, "restored");
		xa_unlock(&ida);
	}

	vm_warn_quiet = true;
	is_int(xa_alloc(&xa, &id, P(1), xa_limit_32b, GFP_KERNEL), -EINVAL,
	       "xa_alloc on an array without XA_FLAGS_ALLOC: -EINVAL");
	is_int(xa_alloc(&ida, &id, XA_RETRY_ENTRY, xa_limit_32b, GFP_KERNEL), -EINVAL,
	       "an internal entry: -EINVAL");
	vm_warn_quiet = false;
	is_int(vm_warn_count - warns, 2, "with a warning each");
	vm_warn_count = warns;

	xa_destroy(&ida);
	ok(xa_empty(&ida) && xa_marked(&ida, XA_FREE_MARK), "destroyed: empty, index 0 free again");
	ok(xa_alloc(&ida, &id, P(0), xa_limit_32b, GFP_KERNEL) == 0 && id == 0 && ida.xa_head == P(0),
	   "the first ID is 0, in the head");
	ok(xa_erase(&ida, 0) == P(0) && xa_empty(&ida) && xa_marked(&ida, XA_FREE_MARK), "and back");
	check_on(&ida, "head");

	/* ALLOC1 */
	ok(xa_alloc(&ida1, &id, P(1), xa_limit_32b, GFP_KERNEL) == 0 && id == 1, "ALLOC1: the first ID is 1");
	ok(xa_alloc(&ida1, &id, P(2), xa_limit_32b, GFP_KERNEL) == 0 && id == 2, "then 2");
	ok(xa_load(&ida1, 0) == NULL, "index 0 loads NULL");
	check_on(&ida1, "alloc1");
	xa_erase(&ida1, 1);
	xa_erase(&ida1, 2);
	check_on(&ida1, "alloc1 erase");
	ok(xa_empty(&ida1), "erasing every ID empties it");
	ok(xa_alloc(&ida1, &id, P(3), xa_limit_32b, GFP_KERNEL) == 0 && id == 1, "and 1 comes first again");
	xa_destroy(&ida1);
	ok(xa_empty(&ida1) && !xa_marked(&ida1, XA_FREE_MARK), "xa_destroy keeps index 0 busy");
	ok(xa_alloc(&ida1, &id, P(3), xa_limit_32b, GFP_KERNEL) == 0 && id == 1, "still 1 first");
	xa_destroy(&ida1);
	is_int(live_nodes(), 0, "every node freed");
	checks_passed("alloc");
}

static void test_alloc_random(void)
{
	static bool used[600];
	unsigned int seed = 11;
	bool lowest = true;
	u32 id;

	for (unsigned int op = 0; op < 3000; op++) {
		u32 i = (u32)rand_r(&seed) % 600;

		if (rand_r(&seed) % 3) {
			u32 want = 0;

			while (want < 600 && used[want])
				want++;
			if (want == 600)
				continue;
			lowest &= xa_alloc(&ida, &id, xa_mk_value(op), XA_LIMIT(0, 599), GFP_KERNEL) == 0 &&
				  id == want;
			used[want] = true;
		} else {
			xa_erase(&ida, i);
			used[i] = false;
		}
		check_on(&ida, "random alloc/erase");
	}
	ok(lowest, "3000 random allocations and frees: xa_alloc always takes the lowest free ID");
	xa_destroy(&ida);
	is_int(live_nodes(), 0, "every node freed");
	checks_passed("alloc random");
}

static void test_alloc_cyclic(void)
{
	u32 id, next = 0;
	int ret;
	bool seq = true;

	for (u32 i = 0; i < 4; i++)
		seq &= xa_alloc_cyclic(&ida, &id, P(i), XA_LIMIT(0, 3), &next, GFP_KERNEL) == 0 &&
		       id == i && next == i + 1;
	ok(seq, "xa_alloc_cyclic hands out 0..3, *next following");
	xa_erase(&ida, 1);
	xa_erase(&ida, 2);
	ret = xa_alloc_cyclic(&ida, &id, P(9), XA_LIMIT(0, 3), &next, GFP_KERNEL);
	ok(ret == 1 && id == 1 && next == 2, "past the limit it wraps to the lowest free ID and returns 1");
	ret = xa_alloc_cyclic(&ida, &id, P(9), XA_LIMIT(0, 3), &next, GFP_KERNEL);
	ok(ret == 0 && id == 2 && next == 3, "then carries on from *next, returning 0");
	xa_erase(&ida, 1);
	ret = xa_alloc_cyclic(&ida, &id, P(9), XA_LIMIT(0, 3), &next, GFP_KERNEL);
	is_int(ret, 1, "from 3, full above: wraps to 1");
	is_int(xa_alloc_cyclic(&ida, &id, P(9), XA_LIMIT(0, 3), &next, GFP_KERNEL), -EBUSY,
	       "every ID in use: -EBUSY");
	check_on(&ida, "cyclic");
	xa_destroy(&ida);

	next = UINT32_MAX;
	ret = xa_alloc_cyclic(&ida, &id, P(1), xa_limit_32b, &next, GFP_KERNEL);
	ok(ret == 0 && id == UINT32_MAX && next == 0, "at UINT32_MAX: allocated, *next wraps to 0");
	ok(ida.xa_flags & XA_FLAGS_ALLOC_WRAPPED, "the array remembers the wrap");
	ret = xa_alloc_cyclic(&ida, &id, P(2), xa_limit_32b, &next, GFP_KERNEL);
	ok(ret == 1 && id == 0 && next == 1, "the next allocation, at 0, returns 1");
	ok(!(ida.xa_flags & XA_FLAGS_ALLOC_WRAPPED), "once");
	ret = xa_alloc_cyclic(&ida, &id, P(3), xa_limit_32b, &next, GFP_KERNEL);
	ok(ret == 0 && id == 1, "then 0 again");
	check_on(&ida, "cyclic wrap");
	xa_destroy(&ida);

	/* under the harness's GFP_NOWAIT failures */
	ok(xa_alloc(&ida, &id, P(0), xa_limit_32b, GFP_KERNEL) == 0 && id == 0, "ID 0, in the head");
	xa_fail_gfp_without = __GFP_DIRECT_RECLAIM;
	next = 1U << 30;
	/* at *next, then (as the kernel does after any error) from the limit's min: both need nodes */
	is_int(xa_alloc_cyclic(&ida, &id, P(4), xa_limit_32b, &next, GFP_NOWAIT), -ENOMEM,
	       "GFP_NOWAIT allocation needing nodes: -ENOMEM");
	is_int(next, 1U << 30, "*next unchanged");
	ok(xa_alloc_cyclic(&ida, &id, P(4), xa_limit_32b, &next, GFP_KERNEL) >= 0 && id == 1U << 30,
	   "GFP_KERNEL completes at *next");
	ok(xa_alloc(&ida, &id, P(5), XA_LIMIT(1U << 31, UINT32_MAX), GFP_KERNEL) == 0 && id == 1U << 31,
	   "xa_alloc too");
	xa_fail_gfp_without = 0;
	nr_checks++;
	{
		char msg[200];
		int rc;

		xa_lock(&ida);
		rc = __xa_check(&ida, XA_CHECK_UNTIDY, msg, sizeof(msg));
		xa_unlock(&ida);
		if (rc && !nr_check_failures++)
			snprintf(first_failure, sizeof(first_failure), "after nomem alloc: %s", msg);
	}
	xa_destroy(&ida);
	is_int(live_nodes(), 0, "every node freed");
	checks_passed("alloc cyclic");
}

/* --- ranges ---------------------------------------------------------------------- */

static bool range_loads(unsigned long first, unsigned long last, void *entry)
{
	for (unsigned long i = first; i <= last; i++)
		if (xa_load(&xa, i) != entry)
			return false;
	return true;
}

static void test_store_range(void)
{
	unsigned long warns;
	long allocated;
	void *e;

	ok(xa_store_range(&xa, 10, 1000, P(1), GFP_KERNEL) == NULL, "xa_store_range(10, 1000)");
	check("store_range");
	ok(range_loads(10, 1000, P(1)) && !xa_load(&xa, 9) && !xa_load(&xa, 1001),
	   "every index in the range loads the entry, the indices around it do not");
	ok(xa_get_order(&xa, 512) == 8 && xa_get_order(&xa, 10) == 1 && xa_get_order(&xa, 1000) == 0,
	   "stored as aligned blocks (512: order 8, 10: order 1, 1000: order 0)");
	ok(xa_store_range(&xa, 10, 1000, NULL, GFP_KERNEL) == NULL && xa_empty(&xa),
	   "storing NULL over the same range erases it all");
	check("store_range NULL");

	ok(xa_store_range(&xa, 0, ULONG_MAX, xa_mk_value(7), GFP_KERNEL) == NULL,
	   "the whole index space");
	check("store_range all");
	ok(xa_load(&xa, 0) == xa_mk_value(7) && xa_load(&xa, ULONG_MAX) == xa_mk_value(7) &&
	   xa_load(&xa, 1UL << 40) == xa_mk_value(7), "loads everywhere");
	xa_destroy(&xa);

	/* a smaller value entry into a larger one: nr_values exact (the checker counts) */
	xa_store_range(&xa, 0, 255, xa_mk_value(1), GFP_KERNEL);
	ok(xa_store_range(&xa, 0, 3, xa_mk_value(2), GFP_KERNEL) == NULL, "an order-2 store into an order-8 value");
	check("smaller value over larger");
	e = xa_load(&xa, 200);
	ok(e == xa_mk_value(2), "replaces the whole entry, as a store into a multi-index entry does");
	xa_store_range(&xa, 0, 3, P(3), GFP_KERNEL);
	check("pointer over value");
	ok(xa_load(&xa, 255) == P(3), "a pointer over it: the same, and nr_values follows");
	xa_destroy(&xa);

	warns = vm_warn_count;
	vm_warn_quiet = true;
	ok(xa_err(xa_store_range(&xa, 5, 4, P(1), GFP_KERNEL)) == -EINVAL &&
	   xa_err(xa_store_range(&xa, 4, 5, XA_ZERO_ENTRY, GFP_KERNEL)) == -EINVAL,
	   "last < first, or an internal entry: -EINVAL");
	vm_warn_quiet = false;
	is_int(vm_warn_count - warns, 1, "the internal entry warns");
	vm_warn_count = warns;

	xa_fail_gfp_without = __GFP_DIRECT_RECLAIM;
	allocated = atomic_long_read(&xa_nodes_allocated);
	ok(xa_store_range(&xa, 1UL << 30, (1UL << 30) + 300, P(2), GFP_KERNEL) == NULL &&
	   range_loads(1UL << 30, (1UL << 30) + 300, P(2)),
	   "under GFP_NOWAIT failures it completes, resuming after each -ENOMEM");
	xa_fail_gfp_without = 0;
	diag("%ld nodes allocated by xas_nomem()", atomic_long_read(&xa_nodes_allocated) - allocated);
	check("store_range nomem");
	xa_destroy(&xa);
	is_int(live_nodes(), 0, "every node freed");
	checks_passed("store_range");
}

static void test_create_range(void)
{
	XA_STATE_ORDER(xas, &xa, 256, 8);
	char msg[200];
	bool stored = true;
	int rounds = 0;

	xa_fail_gfp_without = __GFP_DIRECT_RECLAIM;
	do {
		xas_lock(&xas);
		xas_create_range(&xas);
		xas_unlock(&xas);
		check_untidy("create_range round");
		rounds++;
	} while (xas_nomem(&xas, GFP_KERNEL) && rounds < MAX_ROUNDS);
	is_int(xas_error(&xas), 0, "xas_create_range completes under GFP_NOWAIT failures");
	is_int(rounds, 6, "in six rounds: a head and four leaves, one node a round");
	is_int(live_nodes(), 5, "five nodes");
	ok(xas.xa_index == 256 && xas.xa_shift == 0 && xas.xa_sibs == 0,
	   "xas is left at the start of the range, for single-index stores");
	ok(check_now(&xa, msg, sizeof(msg)) == -EINVAL && strstr(msg, "empty node"),
	   "the leaves are empty until stored to: the strict check says so");
	ok(range_loads(0, 600, NULL), "and every index loads NULL");

	/* every allocation fails now: the stores must need none */
	fail_allocs(0, 1000);
	xas_lock(&xas);
	for (unsigned long i = 256; i < 512; i++) {
		xas_set(&xas, i);
		xas_store(&xas, xa_mk_value(i));
		stored &= !xas_error(&xas);
	}
	xas_unlock(&xas);
	fail_allocs(-1, 1);
	xa_fail_gfp_without = 0;
	ok(stored, "256 single-index stores into the range need no allocation");
	check("filled range");
	xa_destroy(&xa);
	is_int(live_nodes(), 0, "every node freed");
	checks_passed("create_range");
}

/* --- splitting ---------------------------------------------------------------------- */

static bool orders_are(unsigned long first, unsigned long last, int order, void *entry)
{
	for (unsigned long i = first; i <= last; i++)
		if (xa_get_order(&xa, i) != order || xa_load(&xa, i) != entry)
			return false;
	return true;
}

static bool marked_every(unsigned long first, unsigned long last, xa_mark_t mark)
{
	for (unsigned long i = first; i <= last; i++)
		if (!xa_get_mark(&xa, i, mark))
			return false;
	return true;
}

static void split(unsigned long index, unsigned int new_order, void *entry, unsigned int order)
{
	XA_STATE_ORDER(xas, &xa, index, new_order);

	xas_split_alloc(&xas, entry, order, GFP_KERNEL);
	if (xas_error(&xas))
		return;
	xas_lock(&xas);
	xas_split(&xas, entry, order);
	xas_unlock(&xas);
	xas_destroy(&xas);
}

static void test_split(void)
{
	long live;

	/* in the same node: order 4 (16 slots of a leaf) into order 2 */
	store_order(16, 4, P(16));
	xa_set_mark(&xa, 20, XA_MARK_1);
	live = live_nodes();
	split(21, 2, xa_mk_value(16), 4);
	check("split in node");
	ok(orders_are(16, 31, 2, xa_mk_value(16)), "order 4 -> 2 in a leaf: four order-2 value entries");
	ok(marked_every(16, 31, XA_MARK_1), "each with the old entry's mark");
	is_int(live_nodes(), live, "no node needed");
	xa_erase(&xa, 16);
	ok(xa_load(&xa, 16) == NULL && xa_load(&xa, 20) == xa_mk_value(16), "they are separate entries now");
	check("erase one");
	xa_destroy(&xa);

	/* one level down: order 6 (one slot) into 64 single entries */
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	store_order(64, 6, P(64));
	xa_set_mark(&xa, 64, XA_MARK_0);
	live = live_nodes();
	split(64, 0, P(64), 6);
	check("split one slot");
	ok(orders_are(64, 127, 0, P(64)), "order 6 -> 0: 64 single entries in a new leaf");
	ok(marked_every(64, 127, XA_MARK_0), "every one marked");
	is_int(live_nodes(), live + 1, "one node");

	/* order 8 (4 slots of a shift-6 node) into order 2: four leaves */
	store_order(256, 8, xa_mk_value(2));
	live = live_nodes();
	split(256, 2, P(256), 8);
	check("split four slots");
	ok(orders_are(256, 511, 2, P(256)), "order 8 -> 2: 64 order-2 entries in four new leaves");
	is_int(live_nodes(), live + 4, "four nodes");

	/* unsupported and failing splits */
	store_order(1UL << 20, 12, P(12));
	{
		XA_STATE_ORDER(xas, &xa, 1UL << 20, 0);
		unsigned long warns = vm_warn_count;

		vm_warn_quiet = true;
		xas_split_alloc(&xas, P(12), 12, GFP_KERNEL);
		vm_warn_quiet = false;
		is_int(xas_error(&xas), -ENOMEM, "across two levels: refused with -ENOMEM and a warning, as the kernel");
		is_int(vm_warn_count - warns, 1, "one warning");
		vm_warn_count = warns;
	}
	{
		XA_STATE_ORDER(xas, &xa, 1UL << 20, 6);

		live = live_nodes();
		xa_fail_gfp_without = __GFP_DIRECT_RECLAIM;
		xas_split_alloc(&xas, P(12), 12, GFP_NOWAIT);
		xa_fail_gfp_without = 0;
		is_int(xas_error(&xas), -ENOMEM, "xas_split_alloc with GFP_NOWAIT failing: -ENOMEM");
		is_int(live_nodes(), live, "nothing kept");
		xas_set_order(&xas, 1UL << 20, 6);
		xas_split_alloc(&xas, P(12), 12, GFP_KERNEL);
		xas_lock(&xas);
		xas_split(&xas, P(12), 12);
		xas_unlock(&xas);
		ok(!xas_error(&xas) && xas.xa_alloc == NULL, "order 12 -> 6 uses each node it allocated");
		check("split 12 -> 6");
		ok(orders_are((1UL << 20) + 4000, (1UL << 20) + 4095, 6, P(12)), "into order-6 entries");
	}
	xa_destroy(&xa);
	is_int(live_nodes(), 0, "every node freed");
	checks_passed("split");
}

static void test_try_split(void)
{
	XA_STATE_ORDER(xas, &xa, 512, 6);
	long live;

	ok(xas_try_split_min_order(9) == 6 && xas_try_split_min_order(6) == 5 &&
	   xas_try_split_min_order(12) == 11 && xas_try_split_min_order(1) == 0 &&
	   xas_try_split_min_order(0) == 0, "xas_try_split_min_order: down to the node's level, else one less");
	store_order(512, 9, P(9));
	xa_set_mark(&xa, 600, XA_MARK_2);
	live = live_nodes();
	xas_lock(&xas);
	xas_try_split(&xas, P(9), 9);
	xas_unlock(&xas);
	ok(!xas_error(&xas) && orders_are(512, 1023, 6, P(9)), "order 9 -> 6 in place");
	is_int(live_nodes(), live, "without a node");
	ok(marked_every(512, 1023, XA_MARK_2), "marks copied");
	check("try_split 9 -> 6");

	xas_set_order(&xas, 512, 5);
	xa_fail_gfp_without = __GFP_DIRECT_RECLAIM;
	xas_lock(&xas);
	xas_try_split(&xas, P(9), 6);
	xas_unlock(&xas);
	xa_fail_gfp_without = 0;
	is_int(xas_error(&xas), -ENOMEM, "order 6 -> 5 needs a node: GFP_NOWAIT failing gives -ENOMEM");
	ok(orders_are(512, 575, 6, P(9)), "and the entry is whole");
	xas_set_order(&xas, 512, 5);
	xas_lock(&xas);
	xas_try_split(&xas, P(9), 6);
	xas_unlock(&xas);
	ok(!xas_error(&xas) && orders_are(512, 575, 5, P(9)), "with it, order 6 -> 5");
	ok(orders_are(576, 1023, 6, P(9)), "the other order-6 entries are untouched");
	is_int(live_nodes(), live + 1, "one node");
	check("try_split 6 -> 5");

	store_order(1UL << 20, 8, P(8));
	xas_set_order(&xas, 1UL << 20, 5);
	xas_lock(&xas);
	xas_try_split(&xas, P(8), 8);
	xas_unlock(&xas);
	is_int(xas_error(&xas), -EINVAL, "order 8 -> 5 would need four nodes: -EINVAL");
	ok(orders_are(1UL << 20, (1UL << 20) + 255, 8, P(8)), "leaving the entry whole");
	check("try_split refused");
	xa_destroy(&xa);
	is_int(live_nodes(), 0, "every node freed");
	checks_passed("try_split");
}

/* --- the update callback: workingset's shadow-node list -------------------------- */

static LIST_HEAD(shadow_nodes);
static int nr_updates;

static void shadow_update(struct xa_node *node)
{
	nr_updates++;
	if (node->count && node->count == node->nr_values) {
		if (list_empty(&node->private_list))
			list_add(&node->private_list, &shadow_nodes);
	} else if (!list_empty(&node->private_list)) {
		list_del_init(&node->private_list);
	}
}

static void store_upd(unsigned long index, void *entry)
{
	XA_STATE(xas, &xa, index);

	xas_set_update(&xas, shadow_update);
	do {
		xas_lock(&xas);
		xas_store(&xas, entry);
		xas_unlock(&xas);
	} while (xas_nomem(&xas, GFP_KERNEL));
}

static int list_count(const struct list_head *head)
{
	const struct list_head *pos;
	int n = 0;

	list_for_each(pos, head)
		n++;
	return n;
}

static struct xa_node *leaf_of(unsigned long index)
{
	XA_STATE(xas, &xa, index);

	xas_load(&xas);
	return xas.xa_node;
}

static void test_update(void)
{
	unsigned long warns;
	struct xa_node *leaf;
	long live;

	xa_store(&xa, 0, P(0), GFP_KERNEL);
	store_upd(64, xa_mk_value(64));
	store_upd(65, xa_mk_value(65));
	leaf = leaf_of(64);
	ok(nr_updates > 0, "the callback runs");
	ok(list_count(&shadow_nodes) == 1 && shadow_nodes.next == &leaf->private_list,
	   "a leaf of value entries only goes on the shadow list");
	store_upd(66, P(66));
	is_int(list_count(&shadow_nodes), 0, "a pointer stored in it takes it off");
	store_upd(66, NULL);
	is_int(list_count(&shadow_nodes), 1, "erasing the pointer puts it back");
	check("update");

	live = live_nodes();
	xa_lock(&xa);
	xa_delete_node(leaf, shadow_update);
	xa_unlock(&xa);
	ok(list_empty(&shadow_nodes), "xa_delete_node: the node leaves the list (count 0 at the end)");
	ok(xa_load(&xa, 64) == NULL && xa_load(&xa, 65) == NULL && xa_load(&xa, 0) == P(0),
	   "its entries are gone, the others stay");
	is_int(live_nodes(), live - 3, "it is freed, and the head and leaf left above index 0 shrink away");
	ok(xa.xa_head == P(0), "back to a head entry");
	check("delete_node");

	xa_erase(&xa, 0);
	store_upd(1, xa_mk_value(1));
	store_upd(2, xa_mk_value(2));
	is_int(list_count(&shadow_nodes), 1, "a head leaf of shadows is listed too");
	xa_lock(&xa);
	xa_delete_node(leaf_of(1), shadow_update);
	xa_unlock(&xa);
	ok(xa_empty(&xa) && list_empty(&shadow_nodes), "deleting it empties the array and the list");
	check("delete head node");

	store_upd(5, xa_mk_value(5));
	store_upd(6, xa_mk_value(6));
	ok(list_count(&shadow_nodes) == 1, "listed");
	warns = vm_warn_count;
	vm_warn_quiet = true;
	xa_store(&xa, 7, P(7), GFP_KERNEL);
	vm_warn_quiet = false;
	is_int(vm_warn_count - warns, 1, "a change to a listed node without the callback warns (the kernel BUGs)");
	vm_warn_count = warns;
	list_del_init(shadow_nodes.next);
	store_upd(300000, xa_mk_value(1));
	store_upd(300000, NULL);
	ok(list_empty(&shadow_nodes), "nodes added and freed through the callback leave no trace on the list");
	xa_destroy(&xa);
	is_int(live_nodes(), 0, "every node freed");
	checks_passed("update");
}

/* --- extract and dump ------------------------------------------------------------ */

static void test_extract_dump(void)
{
	void *dst[10];
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	xa_store(&xa, 3, xa_mk_value(3), GFP_KERNEL);
	store_order(16, 3, P(16));
	xa_reserve(&xa, 40, GFP_KERNEL);
	xa_store(&xa, 64, P(64), GFP_KERNEL);
	xa_store(&xa, 200, P(200), GFP_KERNEL);
	xa_store(&xa, 1UL << 30, P(30), GFP_KERNEL);
	xa_set_mark(&xa, 200, XA_MARK_0);
	xa_set_mark(&xa, 1UL << 30, XA_MARK_0);

	is_int(xa_extract(&xa, dst, 0, ULONG_MAX, 10, XA_PRESENT), 5,
	       "xa_extract: five entries (the reserved index skipped)");
	ok(dst[0] == xa_mk_value(3) && dst[1] == P(16) && dst[2] == P(64) && dst[3] == P(200) &&
	   dst[4] == P(30), "in index order, the multi-index entry once");
	is_int(xa_extract(&xa, dst, 0, ULONG_MAX, 2, XA_PRESENT), 2, "at most n");
	ok(xa_extract(&xa, dst, 17, 100, 10, XA_PRESENT) == 2 && dst[0] == P(16) && dst[1] == P(64),
	   "from inside a multi-index entry, up to max");
	ok(xa_extract(&xa, dst, 0, ULONG_MAX, 10, XA_MARK_0) == 2 && dst[0] == P(200) && dst[1] == P(30),
	   "by mark");
	is_int(xa_extract(&xa, dst, 0, ULONG_MAX, 0, XA_PRESENT), 0, "n = 0: none");

	f = open_memstream(&buf, &len);
	__xa_dump(f, &xa);
	fclose(f);
	ok(buf && strstr(buf, "value 3") && strstr(buf, "sibling of slot 16") &&
	   strstr(buf, "zero (reserved)") && strstr(buf, "shift 24") && strstr(buf, "marks 1 0 0"),
	   "xa_dump shows values, siblings, reserved entries, nodes and the head marks");
	free(buf);
	xa_destroy(&xa);
	is_int(live_nodes(), 0, "every node freed");
	checks_passed("extract, dump");
}

/* --- iteration ---------------------------------------------------------------------- */

struct found {
	int nr;
	unsigned long index[16];
	void *entry[16];
};

static bool found_is(const struct found *f, int nr, const unsigned long *index, void *const *entry)
{
	if (f->nr != nr)
		return false;
	for (int i = 0; i < nr; i++)
		if (f->index[i] != index[i] || f->entry[i] != entry[i])
			return false;
	return true;
}

static void found_add(struct found *f, unsigned long index, void *entry)
{
	if (f->nr < 16) {
		f->index[f->nr] = index;
		f->entry[f->nr] = entry;
	}
	f->nr++;
}

static void test_iteration(void)
{
	static const unsigned long all_index[] = { 3, 16, 64, 65, 128, 200, 1UL << 30 };
	void *all_entry[] = { xa_mk_value(3), P(16), xa_mk_value(64), xa_mk_value(65), P(128),
			      xa_mk_value(200), P(30) };
	struct found f = { 0 };
	unsigned long index;
	void *entry;

	xa_store(&xa, 3, xa_mk_value(3), GFP_KERNEL);
	store_order(16, 3, P(16));
	xa_store(&xa, 64, xa_mk_value(64), GFP_KERNEL);
	xa_store(&xa, 65, xa_mk_value(65), GFP_KERNEL);
	store_order(128, 6, P(128));
	xa_store(&xa, 200, xa_mk_value(200), GFP_KERNEL);
	xa_store(&xa, 1UL << 30, P(30), GFP_KERNEL);
	check("iteration setup");

	xa_for_each(&xa, index, entry)
		found_add(&f, index, entry);
	ok(found_is(&f, 7, all_index, all_entry), "xa_for_each: every entry once, in index order");

	f.nr = 0;
	xa_for_each_start(&xa, index, entry, 20)
		found_add(&f, index, entry);
	{
		unsigned long want_i[] = { 20, 64, 65, 128, 200, 1UL << 30 };
		void *want_e[] = { P(16), xa_mk_value(64), xa_mk_value(65), P(128), xa_mk_value(200), P(30) };

		ok(found_is(&f, 6, want_i, want_e),
		   "xa_for_each_start inside a multi-index entry starts there");
	}
	f.nr = 0;
	xa_for_each_range(&xa, index, entry, 0, 100)
		found_add(&f, index, entry);
	ok(found_is(&f, 4, all_index, all_entry), "xa_for_each_range stops at its end");
	index = ULONG_MAX;
	ok(xa_find_after(&xa, &index, ULONG_MAX, XA_PRESENT) == NULL, "nothing after ULONG_MAX");
	index = 201;
	ok(xa_find(&xa, &index, (1UL << 30) - 1, XA_PRESENT) == NULL, "nothing in an empty range");

	{
		XA_STATE(xas, &xa, 0);

		f.nr = 0;
		rcu_read_lock();
		xas_for_each(&xas, entry, ULONG_MAX) {
			if (xas_retry(&xas, entry))
				continue;
			found_add(&f, xas.xa_index, entry);
		}
		rcu_read_unlock();
		ok(found_is(&f, 7, all_index, all_entry), "xas_for_each under RCU: the same");
	}
	{
		XA_STATE(xas, &xa, 0);

		f.nr = 0;
		xas_lock(&xas);
		xas_for_each(&xas, entry, ULONG_MAX) {
			found_add(&f, xas.xa_index, entry);
			xas_pause(&xas);
			xas_unlock(&xas);
			xas_lock(&xas);
		}
		xas_unlock(&xas);
		ok(found_is(&f, 7, all_index, all_entry), "xas_for_each with xas_pause at every entry: the same");
	}
	{
		XA_STATE(xas, &xa, 62);
		bool seq;

		rcu_read_lock();
		seq = xas_load(&xas) == NULL;
		seq &= xas_next(&xas) == NULL && xas.xa_index == 63;
		seq &= xas_next(&xas) == xa_mk_value(64) && xas.xa_index == 64;
		seq &= xas_next(&xas) == xa_mk_value(65);
		seq &= xas_prev(&xas) == xa_mk_value(64);
		seq &= xas_prev(&xas) == NULL && xas.xa_index == 63;
		seq &= xas_prev(&xas) == NULL && xas.xa_index == 62;
		xas_set(&xas, 4);
		seq &= xas_load(&xas) == NULL;
		seq &= xas_prev(&xas) == xa_mk_value(3);
		rcu_read_unlock();
		ok(seq, "xas_next / xas_prev step one index across node boundaries");
	}

	xa_set_mark(&xa, 65, XA_MARK_0);
	xa_set_mark(&xa, 150, XA_MARK_0);
	check("iteration marks");
	f.nr = 0;
	xa_for_each_marked(&xa, index, entry, XA_MARK_0)
		found_add(&f, index, entry);
	{
		unsigned long want_i[] = { 65, 128 };
		void *want_e[] = { xa_mk_value(65), P(128) };

		ok(found_is(&f, 2, want_i, want_e),
		   "xa_for_each_marked, a mark set through index 150 found at 128");
	}
	index = 66;
	ok(xa_find(&xa, &index, ULONG_MAX, XA_MARK_0) == P(128) && index == 128,
	   "xa_find with a mark skips unmarked entries");

	xa_destroy(&xa);
	ok(xa_empty(&xa) && !xa_marked(&xa, XA_MARK_0), "xa_destroy");
	is_int(live_nodes(), 0, "every node freed");
	checks_passed("iteration");
}

/* --- an xa_state in an error state ----------------------------------------------- */

/*
 * Every xas_* operation first looks whether @xas holds an error and then
 * does nothing: it returns NULL (an entry), false or 0, keeps the error
 * and the index, creates no node and changes nothing in the array.  Each
 * operation of the table runs from each state below, for -EEXIST and
 * -ENOMEM, against a tree, an empty array and no array at all.  Not here:
 * xas_nomem() (it consumes -ENOMEM: below), the state setters (xas_set,
 * xas_reset, xas_set_order, xas_set_err: they replace the error, as in the
 * kernel), xas_advance() (moves the index, keeps the error, as in the
 * kernel), and xas_get_order() / xas_reload(), which need a walked
 * xa_state (the kernel reads the node without looking).
 */
struct err_op {
	const char *name;
	void *(*call)(struct xa_state *xas);
	bool reads_xa;		/* looks at xas->xa even in an error state, as the kernel does */
};

static void *op_load(struct xa_state *xas) { return xas_load(xas); }
static void *op_store(struct xa_state *xas) { return xas_store(xas, P(7)); }
static void *op_store_value(struct xa_state *xas) { return xas_store(xas, xa_mk_value(7)); }
static void *op_erase(struct xa_state *xas) { return xas_store(xas, NULL); }
static void *op_find(struct xa_state *xas) { return xas_find(xas, ULONG_MAX); }
static void *op_find_marked(struct xa_state *xas) { return xas_find_marked(xas, ULONG_MAX, XA_MARK_0); }
static void *op_find_conflict(struct xa_state *xas) { return xas_find_conflict(xas); }
static void *op_next_entry(struct xa_state *xas) { return xas_next_entry(xas, ULONG_MAX); }
static void *op_next_marked(struct xa_state *xas) { return xas_next_marked(xas, ULONG_MAX, XA_MARK_0); }
static void *op_next(struct xa_state *xas) { return xas_next(xas); }
static void *op_prev(struct xa_state *xas) { return xas_prev(xas); }
static void *op_get_mark(struct xa_state *xas) { return (void *)(long)xas_get_mark(xas, XA_MARK_0); }
static void *op_retry(struct xa_state *xas) { return (void *)(long)xas_retry(xas, NULL); }

static void *op_create_range(struct xa_state *xas)
{
	xas_create_range(xas);
	return NULL;
}

static void *op_set_mark(struct xa_state *xas)
{
	xas_set_mark(xas, XA_MARK_1);
	return NULL;
}

static void *op_clear_mark(struct xa_state *xas)
{
	xas_clear_mark(xas, XA_MARK_0);
	return NULL;
}

static void *op_init_marks(struct xa_state *xas)
{
	xas_init_marks(xas);
	return NULL;
}

static void *op_pause(struct xa_state *xas)
{
	xas_pause(xas);
	return NULL;
}

static void *op_destroy(struct xa_state *xas)
{
	xas_destroy(xas);
	return NULL;
}

static void *op_split(struct xa_state *xas)
{
	xas_split(xas, P(8), 3);
	return NULL;
}

/* Needs a node for the old order-6 entry: would allocate one. */
static void *op_split_alloc(struct xa_state *xas)
{
	xas_split_alloc(xas, P(8), 6, GFP_KERNEL);
	return xas->xa_alloc;
}

static void *op_try_split(struct xa_state *xas)
{
	xas_try_split(xas, P(8), 6);
	return xas->xa_alloc;
}

/* Loops: how many times the body ran. */
static void *op_for_each(struct xa_state *xas)
{
	long n = 0;
	void *entry;

	xas_for_each(xas, entry, ULONG_MAX)
		n++;
	return (void *)n;
}

static void *op_for_each_marked(struct xa_state *xas)
{
	long n = 0;
	void *entry;

	xas_for_each_marked(xas, entry, ULONG_MAX, XA_MARK_0)
		n++;
	return (void *)n;
}

static void *op_for_each_conflict(struct xa_state *xas)
{
	long n = 0;
	void *entry;

	xas_for_each_conflict(xas, entry)
		n++;
	return (void *)n;
}

static const struct err_op err_ops[] = {
	{ "xas_load", op_load, false },
	{ "xas_store", op_store, false },
	{ "xas_store of a value", op_store_value, false },
	{ "xas_store(NULL)", op_erase, false },
	{ "xas_create_range", op_create_range, false },
	{ "xas_find", op_find, false },
	{ "xas_find_marked", op_find_marked, false },
	{ "xas_find_conflict", op_find_conflict, false },
	{ "xas_next_entry", op_next_entry, false },
	{ "xas_next_marked", op_next_marked, false },
	{ "xas_next", op_next, false },
	{ "xas_prev", op_prev, false },
	{ "xas_get_mark", op_get_mark, false },
	{ "xas_set_mark", op_set_mark, false },
	{ "xas_clear_mark", op_clear_mark, false },
	{ "xas_init_marks", op_init_marks, true },
	{ "xas_pause", op_pause, false },
	{ "xas_retry(NULL)", op_retry, false },
	{ "xas_destroy", op_destroy, false },
	{ "xas_split", op_split, false },
	{ "xas_split_alloc", op_split_alloc, false },
	{ "xas_try_split", op_try_split, false },
	{ "xas_for_each", op_for_each, false },
	{ "xas_for_each_marked", op_for_each_marked, false },
	{ "xas_for_each_conflict", op_for_each_conflict, false },
};

/* The states: single indices at and around node boundaries, and ranges. */
static const struct { unsigned long index; unsigned int order; } err_states[] = {
	{ 0, 0 }, { 1, 0 }, { 63, 0 }, { 64, 0 }, { 65, 0 }, { 4095, 0 }, { 4096, 0 },
	{ 4097, 0 }, { ULONG_MAX, 0 }, { 0, 3 }, { 128, 3 }, { 64, 6 }, { 0, 12 },
};

/* Everything the tree holds, node addresses included; NULL for no array. */
static char *xa_snapshot(struct xarray *x)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!x)
		return NULL;
	f = open_memstream(&buf, &len);
	__xa_dump(f, x);
	fclose(f);
	return buf;
}

/* Run @op from one error state of @x; false (and why in @why) if it broke the rule. */
static bool err_op_keeps(struct xarray *x, const struct err_op *op, unsigned long index,
			 unsigned int order, int err, char *why, size_t len)
{
	struct xa_state xas = __XA_STATE(x, 0, 0, 0);
	char *before = xa_snapshot(x), *after;
	long nodes = atomic_long_read(&xa_nodes_allocated);
	unsigned long want_index;
	unsigned char want_shift, want_sibs;
	void *ret;
	bool kept;

	xas_set_order(&xas, index, order);
	xas_set_err(&xas, err);
	want_index = xas.xa_index;
	want_shift = xas.xa_shift;
	want_sibs = xas.xa_sibs;
	if (x)
		xas_lock(&xas);
	ret = op->call(&xas);
	if (x)
		xas_unlock(&xas);
	after = xa_snapshot(x);
	kept = xas_error(&xas) == err;
	snprintf(why, len, "%s at %#lx order %u, error %d: returned %p, error %d, index %#lx, %ld new nodes%s",
		 op->name, index, order, err, ret, xas_error(&xas), xas.xa_index,
		 atomic_long_read(&xa_nodes_allocated) - nodes,
		 before && strcmp(before, after) ? ", the tree changed" : "");
	kept &= !ret && xas.xa_index == want_index && xas.xa_shift == want_shift &&
		xas.xa_sibs == want_sibs && !xas.xa_alloc &&
		atomic_long_read(&xa_nodes_allocated) == nodes &&
		(!before || !strcmp(before, after));
	xas_destroy(&xas);
	free(before);
	free(after);
	return kept;
}

/* The tree below, an empty array and no array. */
static bool err_op_keeps_all(const struct err_op *op, int err, struct xarray *empty,
			     char *why, size_t len)
{
	struct xarray *arrays[] = { &xa, empty, NULL };

	for (size_t a = 0; a < ARRAY_SIZE(arrays); a++) {
		if (!arrays[a] && op->reads_xa)
			continue;
		for (size_t s = 0; s < ARRAY_SIZE(err_states); s++)
			if (!err_op_keeps(arrays[a], op, err_states[s].index, err_states[s].order,
					  err, why, len))
				return false;
	}
	return true;
}

static void test_error_state(void)
{
	static const int errs[] = { -EEXIST, -ENOMEM };
	struct xarray empty;
	char why[300];
	long nodes;

	/*
	 * head: node shift 12
	 *   slot 0: node shift 6
	 *     slot 0: leaf 0..63       0: P(0) [0]   1: value 1   63: P(63)
	 *     slot 1: leaf 64..127     64: P(64)   65: value 65 [1]
	 *     slot 2: leaf 128..191    128..135: P(128), order 3 [0]
	 *   slot 1: node shift 6
	 *     slot 0: leaf 4096..4159  4096: P(96)
	 * ([m]: mark m)
	 */
	xa_init(&empty);
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	xa_store(&xa, 1, xa_mk_value(1), GFP_KERNEL);
	xa_store(&xa, 63, P(63), GFP_KERNEL);
	xa_store(&xa, 64, P(64), GFP_KERNEL);
	xa_store(&xa, 65, xa_mk_value(65), GFP_KERNEL);
	store_order(128, 3, P(128));
	xa_store(&xa, 4096, P(96), GFP_KERNEL);
	xa_set_mark(&xa, 0, XA_MARK_0);
	xa_set_mark(&xa, 65, XA_MARK_1);
	xa_set_mark(&xa, 128, XA_MARK_0);
	check("error-state setup");
	is_int(root_shift(), 12, "the tree has three levels");

	{
		XA_STATE_ORDER(xas, &empty, 64, 6);

		nodes = atomic_long_read(&xa_nodes_allocated);
		xas_set_err(&xas, -EEXIST);
		xas_lock(&xas);
		xas_create_range(&xas);
		xas_unlock(&xas);
		ok(xas_error(&xas) == -EEXIST && xa_empty(&empty) &&
		   atomic_long_read(&xa_nodes_allocated) == nodes,
		   "xas_create_range keeps -EEXIST and creates no node in an empty array");
	}

	for (size_t e = 0; e < ARRAY_SIZE(errs); e++) {
		for (size_t i = 0; i < ARRAY_SIZE(err_ops); i++) {
			bool kept = err_op_keeps_all(&err_ops[i], errs[e], &empty, why, sizeof(why));

			ok(kept, "%s keeps error %d: returns NULL / false / 0, index kept, nothing created or changed",
			   err_ops[i].name, errs[e]);
			if (!kept)
				diag("%s", why);
		}
	}

	{
		struct xa_state xas = __XA_STATE(NULL, 0, 0, 0);

		xas_set_err(&xas, -EEXIST);
		xas_create_range(&xas);
		is_int(xas_error(&xas), -EEXIST, "xas_create_range keeps -EEXIST (no array: it looks at none)");
	}
	{
		XA_STATE(xas, &xa, 64);

		nodes = atomic_long_read(&xa_nodes_allocated);
		xas_set_err(&xas, -EEXIST);
		ok(!xas_nomem(&xas, GFP_KERNEL) && xas_error(&xas) == -EEXIST && !xas.xa_alloc &&
		   atomic_long_read(&xa_nodes_allocated) == nodes,
		   "xas_nomem: another error is kept, nothing allocated, no retry");
		xas_set_err(&xas, -ENOMEM);
		ok(xas_nomem(&xas, GFP_KERNEL) && xas.xa_node == XAS_RESTART && xas.xa_alloc,
		   "xas_nomem consumes -ENOMEM: a node set aside, the state restarts");
		xas_destroy(&xas);
		xas_set_err(&xas, -EEXIST);
		xas_advance(&xas, 65);
		ok(xas_error(&xas) == -EEXIST && xas.xa_index == 65,
		   "xas_advance moves the index and keeps the error (as the kernel's)");
		xas_set(&xas, 66);
		ok(!xas_error(&xas) && xas.xa_node == XAS_RESTART, "xas_set replaces the error");
		xas_set_err(&xas, -ENOMEM);
		xas_reset(&xas);
		ok(!xas_error(&xas) && xas.xa_node == XAS_RESTART, "so does xas_reset");
	}

	check("error states");
	ok(xa_empty(&empty), "the empty array is still empty");
	xa_destroy(&xa);
	is_int(live_nodes(), 0, "every node freed");
	checks_passed("error states");
}

/* --- 2-byte-aligned pointers ------------------------------------------------------ */

/*
 * Since v5.0 a pointer that is only 2-byte aligned may be stored in a
 * single slot, though its low bits 10 are those of an internal entry: a
 * walk stops at a leaf (shift 0), so nothing in a leaf is a node.  Such a
 * pointer at index 0 alone keeps a leaf of its own (the head would take it
 * for a node).  The entries here are name + at: at % 4 == 2 looks like an
 * internal entry (I), odd like a value (V), at % 4 == 0 is a plain
 * pointer (P).
 */
/* Room for what a walk that took an entry for a node would read. */
static char align_name[1024] __attribute__((aligned(8)));

#define ALIGN_NAME(at)	((void *)(align_name + (at)))

static const struct { unsigned long index; unsigned int at; } align_map[] = {
	{ 0, 2 }, { 1, 1 }, { 2, 6 }, { 3, 3 }, { 4, 4 }, { 5, 5 }, { 6, 10 }, { 7, 7 },
	{ 62, 34 }, { 63, 14 }, { 64, 18 }, { 65, 9 }, { 66, 20 },
	{ 4094, 28 }, { 4095, 22 }, { 4096, 26 }, { 4098, 13 },
};
#define NR_ALIGN	ARRAY_SIZE(align_map)

static bool align_internal(size_t i)
{
	return align_map[i].at % 4 == 2;
}

/* Each stored index loads its entry, its bytes the string's; the neighbours NULL. */
static bool align_loads_ok(void)
{
	static const unsigned long gaps[] = { 8, 61, 67, 127, 128, 4093, 4097, 4099, 8192 };

	for (size_t i = 0; i < NR_ALIGN; i++) {
		char *entry = xa_load(&xa, align_map[i].index);

		if (entry != ALIGN_NAME(align_map[i].at) || *entry != align_name[align_map[i].at])
			return false;
	}
	for (size_t i = 0; i < ARRAY_SIZE(gaps); i++)
		if (xa_load(&xa, gaps[i]))
			return false;
	return true;
}

/* xa_for_each (or _marked with @internal_only: the I entries) finds exactly the map. */
static bool align_iterates_ok(bool internal_only)
{
	unsigned long index;
	size_t i = 0;
	void *entry;

	if (internal_only) {
		xa_for_each_marked(&xa, index, entry, XA_MARK_1) {
			while (i < NR_ALIGN && !align_internal(i))
				i++;
			if (i == NR_ALIGN || index != align_map[i].index ||
			    entry != ALIGN_NAME(align_map[i].at))
				return false;
			i++;
		}
		while (i < NR_ALIGN && !align_internal(i))
			i++;
	} else {
		xa_for_each(&xa, index, entry) {
			if (i == NR_ALIGN || index != align_map[i].index ||
			    entry != ALIGN_NAME(align_map[i].at))
				return false;
			i++;
		}
	}
	return i == NR_ALIGN;
}

/* xas_for_each under RCU finds exactly the map. */
static bool align_xas_iterates_ok(void)
{
	XA_STATE(xas, &xa, 0);
	size_t i = 0;
	void *entry;

	rcu_read_lock();
	xas_for_each(&xas, entry, ULONG_MAX) {
		if (i == NR_ALIGN || xas.xa_index != align_map[i].index ||
		    entry != ALIGN_NAME(align_map[i].at))
			break;
		i++;
	}
	rcu_read_unlock();
	return i == NR_ALIGN;
}

/* xas_next from @first to @last, or xas_prev from @last to @first, against the map. */
static bool align_steps_ok(unsigned long first, unsigned long last, bool forward)
{
	XA_STATE(xas, &xa, forward ? first : last);
	bool good = true;
	void *entry;

	rcu_read_lock();
	entry = xas_load(&xas);
	for (;;) {
		void *want = NULL;

		for (size_t i = 0; i < NR_ALIGN; i++)
			if (align_map[i].index == xas.xa_index)
				want = ALIGN_NAME(align_map[i].at);
		good &= entry == want;
		if (xas.xa_index == (forward ? last : first))
			break;
		entry = forward ? xas_next(&xas) : xas_prev(&xas);
	}
	rcu_read_unlock();
	return good;
}

/* xas_for_each_conflict over indices 0..63 finds the map's entries there. */
static bool align_conflicts_ok(void)
{
	XA_STATE_ORDER(xas, &xa, 0, 6);
	size_t i = 0;
	void *entry;

	xas_lock(&xas);
	xas_for_each_conflict(&xas, entry) {
		if (align_map[i].index > 63 || entry != ALIGN_NAME(align_map[i].at))
			break;
		i++;
	}
	xas_unlock(&xas);
	return i == 10 && align_map[i].index > 63;
}

static struct xa_node *align_node(struct xa_node *node, unsigned int offset)
{
	void *entry = node->slots[offset];

	return xa_is_node(entry) ? xa_to_node(entry) : NULL;
}

/* Index 0 alone, each kind of pointer: stored, iterated, erased. */
static void test_align_index0(void)
{
	bool alone = true, erased = true, marked = true, reserved = true;
	unsigned long index;
	void *entry;

	for (unsigned int at = 0; at < 8; at++) {
		void *found = NULL;

		alone &= xa_store(&xa, 0, ALIGN_NAME(at), GFP_KERNEL) == NULL;
		alone &= xa_load(&xa, 0) == ALIGN_NAME(at) && xa_load(&xa, 1) == NULL;
		if (at % 4 == 2)
			alone &= root_shift() == 0 && xa_to_node(xa.xa_head)->count == 1;
		else
			alone &= xa.xa_head == ALIGN_NAME(at);
		xa_for_each(&xa, index, entry)
			found = index == 0 ? entry : NULL;
		alone &= found == ALIGN_NAME(at);
		check("index 0 alone");
		erased &= xa_erase(&xa, 0) == ALIGN_NAME(at) && xa_empty(&xa);
	}
	ok(alone, "index 0 alone: name + 0..7 each load back and iterate; a 10-pointer keeps a leaf, the others the head");
	ok(erased, "index 0 alone: erase returns it and empties the array");

	for (unsigned int at = 0; at < 8; at++) {
		reserved &= xa_reserve(&xa, 0, GFP_KERNEL) == 0;
		reserved &= xa_store(&xa, 0, ALIGN_NAME(at), GFP_KERNEL) == NULL;
		reserved &= xa_load(&xa, 0) == ALIGN_NAME(at);
		/* The reservation's leaf stays: a store over it changes no count (the kernel's too). */
		check_untidy("index 0 after a reservation");
		reserved &= xa_erase(&xa, 0) == ALIGN_NAME(at) && xa_empty(&xa);
	}
	ok(reserved, "index 0 alone: stored over a reservation, then erased");

	for (unsigned int at = 0; at < 8; at++) {
		xa_store(&xa, 0, ALIGN_NAME(at), GFP_KERNEL);
		xa_set_mark(&xa, 0, XA_MARK_0);
		marked &= xa_get_mark(&xa, 0, XA_MARK_0);
		index = 0;
		marked &= xa_find(&xa, &index, ULONG_MAX, XA_MARK_0) == ALIGN_NAME(at);
		check("index 0 marked");
		marked &= xa_erase(&xa, 0) == ALIGN_NAME(at) && !xa_marked(&xa, XA_MARK_0);
	}
	ok(marked && xa_empty(&xa), "index 0 alone: marked, found by mark, erased with its mark");
	is_int(live_nodes(), 0, "every node freed");
}

static void test_align(void)
{
	struct xa_node *root, *mid0, *mid1, *leaf0, *leaf1, *leaf63, *leaf64;
	char saved[sizeof(align_name)];
	char *buf = NULL;
	size_t len = 0;
	bool dumped, marks = true, shrunk = true;
	FILE *f;

	for (size_t i = 0; i < sizeof(align_name); i++)
		align_name[i] = (char)(0x40 + i % 64);
	memcpy(saved, align_name, sizeof(saved));
	test_align_index0();

	for (size_t i = 0; i < NR_ALIGN; i++)
		xa_store(&xa, align_map[i].index, ALIGN_NAME(align_map[i].at), GFP_KERNEL);
	check("2-byte-aligned pointers stored");
	/*
	 * head: node shift 12, count 2
	 *   slot 0: node shift 6, count 3
	 *     slot 0: leaf 0..63, count 10, 4 values
	 *       0:I2 1:V1 2:I6 3:V3 4:P4 5:V5 6:I10 7:V7 ... 62:I34 63:I14
	 *     slot 1: leaf 64..127, count 3, 1 value
	 *       64:I18 65:V9 66:P20
	 *     slot 63: leaf 4032..4095, count 2
	 *       4094:I28 4095:I22
	 *   slot 1: node shift 6, count 1
	 *     slot 0: leaf 4096..4159, count 2, 1 value
	 *       4096:I26 4098:V13
	 * (K<at>: the entry name + at, of kind K)
	 */
	root = xa_to_node(xa.xa_head);
	mid0 = align_node(root, 0);
	mid1 = align_node(root, 1);
	leaf0 = mid0 ? align_node(mid0, 0) : NULL;
	leaf1 = mid0 ? align_node(mid0, 1) : NULL;
	leaf63 = mid0 ? align_node(mid0, 63) : NULL;
	leaf64 = mid1 ? align_node(mid1, 0) : NULL;
	ok(root_shift() == 12 && root->count == 2 && mid0 && mid0->count == 3 && mid1 &&
	   mid1->count == 1 && leaf0 && leaf0->count == 10 && leaf0->nr_values == 4 && leaf1 &&
	   leaf1->count == 3 && leaf1->nr_values == 1 && leaf63 && leaf63->count == 2 &&
	   leaf63->nr_values == 0 && leaf64 && leaf64->count == 2 && leaf64->nr_values == 1,
	   "the tree is as drawn");
	ok(leaf0 && leaf0->slots[2] == ALIGN_NAME(6) && leaf1 && leaf1->slots[0] == ALIGN_NAME(18) &&
	   leaf64 && leaf64->slots[0] == ALIGN_NAME(26), "the leaves hold the pointers themselves");
	ok(align_loads_ok(), "each index loads its pointer, byte for byte; the neighbours load NULL");
	ok(align_iterates_ok(false), "xa_for_each finds every pointer once, in index order");
	ok(align_xas_iterates_ok(), "so does xas_for_each");
	ok(align_steps_ok(60, 68, true) && align_steps_ok(4092, 4100, true),
	   "xas_next steps over them and across leaf and level boundaries");
	ok(align_steps_ok(60, 68, false) && align_steps_ok(4092, 4100, false),
	   "xas_prev steps back over them likewise");
	ok(align_conflicts_ok(), "xas_for_each_conflict over 0..63 finds the ten entries of the leaf");
	is_int(xa_insert(&xa, 2, P(2), GFP_KERNEL), -EBUSY, "xa_insert at an I entry: -EBUSY");
	ok(xa_store(&xa, 2, ALIGN_NAME(30), GFP_KERNEL) == ALIGN_NAME(6) &&
	   xa_store(&xa, 2, ALIGN_NAME(6), GFP_KERNEL) == ALIGN_NAME(30),
	   "a store over an I entry returns it");
	check("2-byte-aligned pointers replaced");

	for (size_t i = 0; i < NR_ALIGN; i++)
		if (align_internal(i))
			xa_set_mark(&xa, align_map[i].index, XA_MARK_1);
	check("I entries marked");
	for (size_t i = 0; i < NR_ALIGN; i++)
		if (xa_get_mark(&xa, align_map[i].index, XA_MARK_1) != align_internal(i))
			marks = false;
	ok(marks, "xa_get_mark: the I entries marked, the others not");
	ok(align_iterates_ok(true), "xa_for_each_marked finds the I entries once, in index order");

	f = open_memstream(&buf, &len);
	__xa_dump(f, &xa);
	fclose(f);
	dumped = buf != NULL;
	for (size_t i = 0; i < NR_ALIGN && buf; i++) {
		char line[64];

		snprintf(line, sizeof(line), "%#lx-%#lx: %s %p", align_map[i].index, align_map[i].index,
			 align_map[i].at & 1 ? "value" : "pointer", ALIGN_NAME(align_map[i].at));
		if (!(align_map[i].at & 1) && !strstr(buf, line))
			dumped = false;
	}
	free(buf);
	ok(dumped, "xa_dump shows each even one as a pointer in its leaf");

	/* Erase from the top down to index 0 alone: the tree shrinks to its leaf. */
	for (size_t i = NR_ALIGN; i-- > 1;) {
		shrunk &= xa_erase(&xa, align_map[i].index) == ALIGN_NAME(align_map[i].at);
		shrunk &= xa_load(&xa, 0) == ALIGN_NAME(2);
		check("2-byte-aligned pointers erased");
	}
	ok(shrunk, "erase returns each one; index 0 keeps loading its I entry");
	ok(root_shift() == 0 && xa_to_node(xa.xa_head)->count == 1 &&
	   xa_to_node(xa.xa_head)->slots[0] == ALIGN_NAME(2) && xa_get_mark(&xa, 0, XA_MARK_1),
	   "the tree shrank to one leaf holding it at slot 0, still marked");
	ok(xa_erase(&xa, 0) == ALIGN_NAME(2) && xa_empty(&xa), "erasing it empties the array");
	ok(!memcmp(align_name, saved, sizeof(saved)), "nothing was written into the string");
	is_int(live_nodes(), 0, "every node freed");
	checks_passed("2-byte-aligned pointers");
}

/* --- nodes are freed after a grace period -------------------------------------- */

static int eraser_done;

static void eraser_main(void *arg)
{
	(void)arg;
	for (unsigned long i = 0; i < 200; i++)
		xa_erase(&xa, i);
	__atomic_store_n(&eraser_done, 1, __ATOMIC_RELEASE);
}

static void test_rcu_free(void)
{
	XA_STATE(xas, &xa, 150);
	struct machine_threads *t;
	void *args[1] = { NULL };
	long freed;
	void *entry;

	for (unsigned long i = 0; i < 200; i++)
		xa_store(&xa, i, xa_mk_value(i), GFP_KERNEL);
	is_int(live_nodes(), 5, "four leaves and a head");
	freed = atomic_long_read(&xa_nodes_freed);

	rcu_read_lock();
	entry = xas_load(&xas);
	ok(entry == xa_mk_value(150) && xas.xa_node, "a reader inside a leaf node");
	t = machine_threads_start_at(1, 1, eraser_main, args);
	ok(t != NULL, "another thread erases everything");
	machine_sleep(0.05);
	is_int(atomic_long_read(&xa_nodes_freed), freed, "no node is freed while the reader is inside");
	entry = xas_reload(&xas);
	ok(entry == NULL || entry == xa_mk_value(150) || xa_is_retry(entry),
	   "the reader's node still reads sanely");
	rcu_read_unlock();
	machine_threads_join(t);
	ok(__atomic_load_n(&eraser_done, __ATOMIC_ACQUIRE) && xa_empty(&xa), "the array is empty");
	is_int(live_nodes(), 0, "after the grace period every node is freed");
}

/* --- the checker catches corruption ---------------------------------------------- */

static void mutant(const char *what, const char *expect)
{
	char msg[200];
	int rc = check_now(&xa, msg, sizeof(msg));

	ok(rc == -EINVAL && strstr(msg, expect), "mutant %s: caught (%s)", what, rc ? msg : "not caught");
}

static void unharmed(const char *what)
{
	char msg[200];
	int rc = check_now(&xa, msg, sizeof(msg));

	ok(rc == 0, "%s passes the checker%s%s", what, rc ? ": " : "", rc ? msg : "");
}

static void test_mutants(void)
{
	static struct xa_node fake;
	struct xa_node *root, *leaf1, *leaf8;
	unsigned long save;
	void *saved;

	for (unsigned long i = 0; i <= 200; i++)
		xa_store(&xa, i, xa_mk_value(i), GFP_KERNEL);
	store_order(512, 3, P(512));
	xa_set_mark(&xa, 100, XA_MARK_0);
	xa_set_mark(&xa, 512, XA_MARK_1);
	unharmed("the tree before the mutants");
	root = xa_to_node(xa.xa_head);
	leaf1 = xa_to_node(root->slots[1]);	/* 64..127, 100 marked */
	leaf8 = xa_to_node(root->slots[8]);	/* 512..575: order 3 at 512 */

	leaf1->count++;
	mutant("count", "count");
	leaf1->count--;
	leaf1->nr_values--;
	mutant("nr_values", "nr_values");
	leaf1->nr_values++;

	root->marks[XA_MARK_2][0] |= BIT(0);
	mutant("mark set above an unmarked child", "mark 2 set on slot 0");
	root->marks[XA_MARK_2][0] &= ~BIT(0);
	root->marks[XA_MARK_0][0] &= ~BIT(1);
	mutant("mark clear above a marked child", "mark 0 clear on slot 1");
	root->marks[XA_MARK_0][0] |= BIT(1);
	leaf8->marks[XA_MARK_0][0] |= BIT(30);
	mutant("mark on an empty slot", "empty slot 30");
	leaf8->marks[XA_MARK_0][0] &= ~BIT(30);
	leaf8->marks[XA_MARK_1][0] |= BIT(2);
	mutant("mark on a sibling", "sibling slot 2");
	leaf8->marks[XA_MARK_1][0] &= ~BIT(2);
	save = xa.xa_flags;
	xa.xa_flags |= XA_FLAGS_MARK(XA_MARK_2);
	mutant("head mark", "head mark 2");
	xa.xa_flags = save;

	saved = leaf8->slots[2];
	leaf8->slots[2] = xa_mk_sibling(1);
	mutant("sibling of a sibling", "slot 2 is a sibling of slot 1");
	leaf8->slots[2] = saved;
	leaf8->slots[8] = xa_mk_sibling(0);
	leaf8->count++;
	mutant("sibling run of 9", "spans 9 slots");
	leaf8->slots[8] = NULL;
	leaf8->slots[40] = xa_mk_sibling(39);
	mutant("stray sibling", "slot 40 is a sibling of slot 39 with no entry");
	leaf8->slots[40] = NULL;
	leaf8->count--;
	leaf8->slots[4] = NULL;
	leaf8->slots[5] = NULL;
	leaf8->slots[6] = NULL;
	leaf8->slots[7] = NULL;
	leaf8->count -= 4;
	leaf8->nr_values = 0;
	leaf8->slots[4] = xa_mk_value(4);
	leaf8->slots[5] = xa_mk_sibling(4);
	leaf8->slots[6] = xa_mk_sibling(4);
	leaf8->count += 3;
	leaf8->nr_values = 3;
	mutant("misaligned multi-index entry", "spans 3 slots");
	for (unsigned int i = 4; i < 8; i++)
		leaf8->slots[i] = xa_mk_sibling(0);
	leaf8->count = 8;
	leaf8->nr_values = 0;
	unharmed("restored");

	leaf1->offset = 5;
	mutant("node offset", "offset 5");
	leaf1->offset = 1;
	leaf1->parent = leaf8;
	mutant("node parent", "parent");
	leaf1->parent = root;

	memset(&fake, 0, sizeof(fake));
	fake.parent = root;
	fake.offset = 20;
	fake.array = &xa;
	root->slots[20] = xa_mk_node(&fake);
	root->count++;
	mutant("empty node", "empty node");
	root->slots[20] = NULL;
	root->count--;
	unharmed("restored");

	/* a head level too many: a shift-12 node holding only the real head */
	memset(&fake, 0, sizeof(fake));
	fake.shift = 12;
	fake.count = 1;
	fake.array = &xa;
	fake.slots[0] = xa_mk_node(root);
	fake.marks[XA_MARK_0][0] = BIT(0);
	fake.marks[XA_MARK_1][0] = BIT(0);
	root->parent = &fake;
	xa.xa_head = xa_mk_node(&fake);
	mutant("needless head node", "should have shrunk");
	xa.xa_head = xa_mk_node(root);
	root->parent = NULL;
	unharmed("restored");

	xa_destroy(&xa);
	is_int(live_nodes(), 0, "every node freed");
}

int main(void)
{
	plan_no_plan();
	machine_init();
	test_basic();
	test_shapes();
	test_dense();
	test_marks();
	test_multi();
	test_nomem();
	test_nomem_progress();
	test_nomem_random();
	test_zero_entry();
	test_insert_cmpxchg();
	test_get_order();
	test_alloc_basic();
	test_alloc_random();
	test_alloc_cyclic();
	test_store_range();
	test_create_range();
	test_split();
	test_try_split();
	test_update();
	test_extract_dump();
	test_iteration();
	test_error_state();
	test_align();
	test_rcu_free();
	test_mutants();
	is_int(vm_warn_count, 0, "no debug check fired");
	return done_testing();
}
