/*
 * vmalloc from several CPUs at once, every design, run plain and under
 * ThreadSanitizer: each CPU allocates areas of random sizes, alignments
 * and kinds (small, huge, contiguous-PTE), writes a tag into every page
 * through the page tables, checks its areas' tags before freeing them,
 * and now and then purges the lazy areas.  Freed pages are poisoned, so
 * an area whose page was freed under it, or mapped twice, shows.  At the
 * end the address space checks out and every page is back.
 */
#include <stdlib.h>
#include <string.h>

#include <linux/vmalloc.h>
#include <machine/machine.h>

#include "mm_test.h"

#define NR_CPUS_USED	4
#define NR_OPS		4000
#define NR_LIVE		16

struct area {
	void *p;
	unsigned int nr;
	uint64_t tag;
};

struct worker {
	int id;
	unsigned int seed;
	unsigned long allocs, nulls, bad_tags;
	struct area live[NR_LIVE];
};

static int started;

static void write_tags(struct area *a)
{
	for (unsigned int i = 0; i < a->nr; i++) {
		uint64_t v = a->tag + i;

		memcpy(vmalloc_access((char *)a->p + ((unsigned long)i << PAGE_SHIFT) + 128),
		       &v, sizeof(v));
	}
}

static bool tags_ok(struct area *a)
{
	for (unsigned int i = 0; i < a->nr; i++) {
		void *b = vmalloc_access((char *)a->p + ((unsigned long)i << PAGE_SHIFT) + 128);
		uint64_t v;

		if (!b)
			return false;
		memcpy(&v, b, sizeof(v));
		if (v != a->tag + i)
			return false;
	}
	return true;
}

static void *alloc_one(struct worker *w, unsigned int nr)
{
	switch (rand_r(&w->seed) % 4) {
	case 0:
		return vmalloc_huge((unsigned long)nr * PAGE_SIZE, GFP_KERNEL);
	case 1:
		return __vmalloc_node((unsigned long)nr * PAGE_SIZE, 1UL << (rand_r(&w->seed) % 20),
				      GFP_KERNEL | __GFP_ZERO, NUMA_NO_NODE, NULL);
	default:
		return vmalloc((unsigned long)nr * PAGE_SIZE);
	}
}

static void worker_main(void *arg)
{
	struct worker *w = arg;

	__atomic_fetch_add(&started, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < NR_CPUS_USED)
		;
	for (int op = 0; op < NR_OPS; op++) {
		struct area *a = &w->live[rand_r(&w->seed) % NR_LIVE];

		if (a->p) {
			w->bad_tags += !tags_ok(a);
			vfree(a->p);
			a->p = NULL;
			if (rand_r(&w->seed) % 64 == 0)
				vm_unmap_aliases();
			continue;
		}
		a->nr = 1 + rand_r(&w->seed) % (rand_r(&w->seed) % 8 ? 24 : 600);
		a->p = alloc_one(w, a->nr);
		if (!a->p) {
			w->nulls++;
			continue;
		}
		w->allocs++;
		a->nr = find_vm_area(a->p)->nr_pages;
		a->tag = ((uint64_t)w->id << 56) ^ ((uint64_t)op << 20);
		write_tags(a);
	}
	for (int i = 0; i < NR_LIVE; i++)
		if (w->live[i].p) {
			w->bad_tags += !tags_ok(&w->live[i]);
			vfree(w->live[i].p);
		}
}

int main(void)
{
	static struct worker workers[NR_CPUS_USED];
	void *args[NR_CPUS_USED];
	struct machine_threads *t;
	struct page_alloc_report r;
	unsigned long allocs = 0, nulls = 0, bad = 0;
	char msg[256];

	plan_no_plan();
	machine_init();
	/* Booted for its CPUs: one vmap node each, with pools the CPUs share by purging. */
	nr_cpu_ids = NR_CPUS_USED;
	ok(mem_init(64ULL << 20) == 0 && vmalloc_init() == 0, "boot 64 MiB and vmalloc");
	page_poisoning_on = true;
	vmap_cont_pte_supported = true;
	for (int i = 0; i < NR_CPUS_USED; i++) {
		workers[i] = (struct worker){ .id = i, .seed = 1234u + (unsigned int)i };
		args[i] = &workers[i];
	}
	t = machine_threads_start(NR_CPUS_USED, worker_main, args);
	ok(t != NULL, "%d CPUs started", NR_CPUS_USED);
	if (t)
		machine_threads_join(t);
	for (int i = 0; i < NR_CPUS_USED; i++) {
		allocs += workers[i].allocs;
		nulls += workers[i].nulls;
		bad += workers[i].bad_tags;
	}
	diag("%lu areas allocated, %lu allocations failed for lack of memory", allocs, nulls);
	ok(allocs > NR_CPUS_USED * NR_OPS / 4, "most allocations succeeded (%lu)", allocs);
	is_int(bad, 0, "no area lost its data to another CPU's allocation or free");
	ok(vmalloc_check(msg, sizeof(msg)) == 0, "the address space checks out afterwards%s%s",
	   vmalloc_check(msg, sizeof(msg)) ? ": " : "", vmalloc_check(msg, sizeof(msg)) ? msg : "");
	is_int(vmalloc_nr_pages(), 0, "no vmalloc page is counted");
	ok(vmalloc_exit(msg, sizeof(msg)) == 0, "vmalloc_exit finds nothing allocated");
	drain_all_pages(&contig_zone);
	ok(page_alloc_check(&r, msg, sizeof(msg)) == 0 && r.allocated == 0 && r.free == max_pfn,
	   "every page is back in the buddy");
	page_poisoning_on = false;
	mem_exit();
	return done_testing();
}
