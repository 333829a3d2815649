/*
 * The two VMA trees against brute force: i_mmap's interval tree (every VMA
 * whose page-offset interval meets a query, each once, in start order) and
 * an mm's address tree (find_vma), under random inserts and removals.  The
 * rmap walk misses a mapping if the first is wrong, and a fault finds the
 * wrong VMA if the second is.
 */
#include <stdlib.h>

#include <linux/mm.h>
#include <linux/pagemap.h>
#include <mmlab/random.h>

#include "tap.h"

#define NR_VMAS		300
#define NR_ROUNDS	4000

static struct vm_area_struct vmas[NR_VMAS];
static bool linked[NR_VMAS];
static struct rb_root root = RB_ROOT;
static uint64_t rng = 2026;

static unsigned long rnd(unsigned long n)
{
	return splitmix64_next(&rng) % n;
}

static unsigned long first(const struct vm_area_struct *v)
{
	return v->vm_pgoff;
}

static unsigned long last(const struct vm_area_struct *v)
{
	return v->vm_pgoff + vma_pages(v) - 1;
}

/* One query, by the tree and by brute force; true if they agree. */
static bool query_agrees(unsigned long start, unsigned long end)
{
	bool seen[NR_VMAS] = { false };
	unsigned long prev_start = 0;
	struct vm_area_struct *v;
	int found = 0, want = 0;

	vma_interval_tree_foreach(v, &root, start, end) {
		long i = v - vmas;

		if (i < 0 || i >= NR_VMAS || !linked[i] || seen[i] || first(v) < prev_start ||
		    last(v) < start || first(v) > end)
			return false;
		seen[i] = true;
		prev_start = first(v);
		found++;
	}
	for (int i = 0; i < NR_VMAS; i++)
		if (linked[i] && last(&vmas[i]) >= start && first(&vmas[i]) <= end)
			want++;
	return found == want;
}

static bool start_less(const struct rb_node *a, const struct rb_node *b)
{
	return first(rb_entry(a, struct vm_area_struct, shared.rb)) <
	       first(rb_entry(b, struct vm_area_struct, shared.rb));
}

/* The largest last offset of @node's subtree, counting nodes whose augment disagrees. */
static unsigned long subtree_last(struct rb_node *node, unsigned long *bad)
{
	struct vm_area_struct *v;
	unsigned long max;

	if (!node)
		return 0;
	v = rb_entry(node, struct vm_area_struct, shared.rb);
	max = last(v);
	max = max(max, subtree_last(node->rb_left, bad));
	max = max(max, subtree_last(node->rb_right, bad));
	*bad += v->shared.rb_subtree_last != max;
	return max;
}

static void test_interval_tree(void)
{
	unsigned long bad = 0, bad_augment = 0, queries = 0, hits = 0;
	char msg[128] = "";

	for (int round = 0; round < NR_ROUNDS; round++) {
		int i = (int)rnd(NR_VMAS);

		if (linked[i]) {
			vma_interval_tree_remove(&vmas[i], &root);
			linked[i] = false;
		} else {
			/* Mostly short, some long: long intervals are what the augmentation is for. */
			unsigned long len = rnd(8) ? 1 + rnd(16) : 1 + rnd(2048);

			vmas[i].vm_pgoff = rnd(4096);
			vmas[i].vm_start = 0x10000000UL;
			vmas[i].vm_end = vmas[i].vm_start + (len << PAGE_SHIFT);
			vma_interval_tree_insert(&vmas[i], &root);
			linked[i] = true;
		}
		for (int q = 0; q < 4; q++) {
			unsigned long start = rnd(4200), end = start + (rnd(4) ? rnd(16) : rnd(1024));

			bad += !query_agrees(start, end);
			queries++;
		}
	}
	for (int i = 0; i < NR_VMAS; i++)
		hits += linked[i];
	is_int(bad, 0, "i_mmap: %lu random stabbing queries over %d inserts/removals agree with brute force",
	       queries, NR_ROUNDS);
	is_int(rb_tree_check(&root, start_less, msg, sizeof(msg)), hits,
	       "i_mmap: red-black invariants and start order hold over %lu VMAs %s", hits, msg);
	subtree_last(root.rb_node, &bad_augment);
	is_int(bad_augment, 0, "i_mmap: every node's rb_subtree_last is the largest last offset below it");
}

/* find_vma() over non-overlapping file VMAs mapped with do_mmap(), against brute force. */
static void test_find_vma(void)
{
	struct address_space mapping;
	struct file file = { .f_mapping = &mapping };
	unsigned long starts[64], ends[64], bad = 0;
	struct mm_struct *mm;
	int n = 0, eexist = 0;

	address_space_init(&mapping);
	mapping.i_size = 1UL << 40;
	mm = mm_alloc();
	for (int i = 0; i < 200 && n < 64; i++) {
		unsigned long addr = 0x7f0000000000UL + (rnd(4096) << PAGE_SHIFT);
		unsigned long len = (1 + rnd(64)) << PAGE_SHIFT;
		unsigned long ret = do_mmap(mm, &file, addr, len, VM_READ, 0);

		if (ret == addr) {
			starts[n] = addr;
			ends[n++] = addr + len;
		} else {
			eexist += ret == (unsigned long)-EEXIST;
		}
	}
	for (int q = 0; q < 20000; q++) {
		unsigned long addr = 0x7f0000000000UL + rnd(4200UL << PAGE_SHIFT);
		struct vm_area_struct *v = find_vma(mm, addr);
		unsigned long best = 0;
		int want = -1;

		for (int i = 0; i < n; i++)
			if (ends[i] > addr && (want < 0 || starts[i] < best)) {
				want = i;
				best = starts[i];
			}
		if (want < 0 ? v != NULL : !v || v->vm_start != starts[want] || v->vm_end != ends[want])
			bad++;
	}
	ok(n > 10 && eexist > 0, "mm: %d VMAs mapped, %d overlapping maps refused with -EEXIST", n, eexist);
	is_int(mm->map_count, n, "mm: map_count counts them");
	is_int(bad, 0, "mm: 20000 find_vma() lookups agree with brute force");
	is_int(do_munmap(mm, starts[0], ends[0] - starts[0] - PAGE_SIZE), -EINVAL,
	       "mm: unmapping part of a VMA is refused (no splitting in the model)");
	is_int(do_munmap(mm, starts[0], ends[0] - starts[0]), 0, "mm: unmapping a whole VMA works");
	ok(!find_vma(mm, starts[0]) || find_vma(mm, starts[0])->vm_start != starts[0], "mm: ... and it is gone");
	mmput(mm);
	ok(mapping.i_mmap.rb_node == NULL, "mmput() took every VMA out of i_mmap");
	address_space_destroy(&mapping);
}

int main(void)
{
	plan_no_plan();
	ok(mem_init(16ULL << 20) == 0, "boot 16 MiB");
	test_interval_tree();
	test_find_vma();
	mem_exit();
	return done_testing();
}
