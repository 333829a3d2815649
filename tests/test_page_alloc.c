/*
 * The buddy allocator and its checker: allocation splits, freeing merges,
 * bad pages are leaked and reported, exhaustion returns NULL, and the
 * checker catches a corrupted state (mutants of the allocator's state).
 */
#include <string.h>

#include <linux/gfp.h>
#include <linux/mmzone.h>
#include <mmlab/cpu.h>

#include "tap.h"

#define MEM	(8ULL << 20)	/* two MAX_PAGE_ORDER blocks */

static char msg[256];

static int check(struct page_alloc_report *r)
{
	int ret = page_alloc_check(r, msg, sizeof(msg));

	if (ret)
		diag("checker: %s", msg);
	return ret;
}

static void test_boot(void)
{
	struct page_alloc_report r;

	ok(mem_init(MEM) == 0, "boot 8 MiB");
	is_int(max_pfn, 2048, "2048 pages");
	is_int(nr_free_pages(), 2048, "all free after boot");
	ok(check(&r) == 0, "checker passes after boot");
	is_int(r.free_by_order[MAX_PAGE_ORDER], 2, "two order-10 blocks");
	ok(mem_init(1ULL << 20) != 0, "less than one MAX_PAGE_ORDER block is refused");
	ok(mem_init(MEM) == 0, "boot again");
}

static void test_split_and_merge(void)
{
	struct page_alloc_report r;
	struct page *p0 = alloc_pages(GFP_KERNEL, 0);
	struct page *p3;

	ok(p0 != NULL, "order-0 allocation");
	is_int(page_ref_count(p0), 1, "allocated page has refcount 1");
	is_int(nr_free_pages(), 2047, "one page less free");
	ok(check(&r) == 0, "checker passes with one page allocated");
	is_int(r.allocated, 1, "checker counts one allocated page");
	for (int o = 0; o < MAX_PAGE_ORDER; o++)
		is_int(r.free_by_order[o], 1, "expand left one free block of order %d", o);

	p3 = alloc_pages(GFP_KERNEL | __GFP_COMP, 3);
	ok(p3 && IS_ALIGNED(page_to_pfn(p3), 8), "order-3 block is aligned");
	ok(PageHead(p3) && compound_head(p3 + 5) == p3, "compound page: head and tails");
	is_int(folio_order(page_folio(p3 + 7)), 3, "tail finds its folio's order");

	__free_pages(p0, 0);
	__free_pages(p3, 3);
	ok(check(&r) == 0, "checker passes after freeing");
	is_int(nr_free_pages(), 2048, "everything free again");
	is_int(r.free_by_order[MAX_PAGE_ORDER], 2, "buddies merged back to order 10");
	ok(!PageHead(p3) && !PageTail(p3 + 1), "compound state undone on free");
}

static void test_extra_reference(void)
{
	struct page *p = alloc_pages(GFP_KERNEL, 0);

	get_page(p);
	__free_pages(p, 0);
	is_int(nr_free_pages(), 2047, "a page with another reference is not freed");
	put_page(p);
	is_int(nr_free_pages(), 2048, "the last reference frees it");
}

static void test_exhaustion(void)
{
	static struct page *pages[4];
	struct page_alloc_report r;
	int n = 0;

	ok(alloc_pages(GFP_KERNEL | __GFP_NOWARN, MAX_PAGE_ORDER + 1) == NULL,
	   "an order above MAX_PAGE_ORDER fails cleanly");
	while (n < 4 && (pages[n] = alloc_pages(GFP_KERNEL, MAX_PAGE_ORDER)))
		n++;
	is_int(n, 2, "two order-10 blocks can be had");
	ok(alloc_pages(GFP_KERNEL, 0) == NULL, "then even order 0 fails, returning NULL");
	is_int(nr_free_pages(), 0, "no page free");
	while (n--)
		__free_pages(pages[n], MAX_PAGE_ORDER);
	ok(check(&r) == 0 && r.free == 2048, "all back after exhaustion");
}

static void test_bad_page_leaked(void)
{
	struct page_alloc_report r;
	struct page *p = alloc_pages(GFP_KERNEL, 1);

	p[1].mapping = (struct address_space *)0x1234;	/* corrupt the second page */
	fprintf(stderr, "# (a 'Bad page state' report below is expected)\n");
	__free_pages(p, 1);
	ok(check(&r) == 0, "checker passes with a leaked block");
	is_int(r.leaked, 2, "the bad block is leaked and accounted for");
	is_int(nr_free_pages(), 2046, "the leaked pages are not free");
	ok(mem_init(MEM) == 0, "reboot to clear the leak");
}

static void test_poisoning(void)
{
	struct page *p = alloc_pages(GFP_KERNEL, 0);
	unsigned char *data = page_address(p);

	page_poisoning = true;
	memset(data, 0x11, PAGE_SIZE);
	__free_pages(p, 0);
	ok(data[0] == PAGE_POISON && data[PAGE_SIZE - 1] == PAGE_POISON, "freed page is poisoned");
	page_poisoning = false;
}

/* Each mutant of the allocator's state must be caught by the checker. */
static void test_checker_catches_mutants(void)
{
	struct page_alloc_report r;
	struct page *p, *q;

	/* Two free buddies left unmerged. */
	p = alloc_pages(GFP_KERNEL, 0);
	q = alloc_pages(GFP_KERNEL, 0);
	ok(page_to_pfn(q) == (page_to_pfn(p) ^ 1), "two buddies allocated");
	spin_lock(&contig_zone.lock);
	for (struct page *x = p; x <= q; x++) {
		__SetPageBuddy(x);
		x->private = 0;
		list_add(&x->lru, &contig_zone.free_area[0].free_list);
		contig_zone.free_area[0].nr_free++;
		atomic_long_add(1, &contig_zone.free_pages);
	}
	spin_unlock(&contig_zone.lock);
	ok(check(&r) != 0 && strstr(msg, "not merged"), "mutant: unmerged buddies are caught");
	ok(mem_init(MEM) == 0, "reboot");

	/* A free block not aligned to its order. */
	p = alloc_pages(GFP_KERNEL, 2);
	spin_lock(&contig_zone.lock);
	__SetPageBuddy(p + 1);
	(p + 1)->private = 1;
	list_add(&p[1].lru, &contig_zone.free_area[1].free_list);
	contig_zone.free_area[1].nr_free++;
	atomic_long_add(2, &contig_zone.free_pages);
	spin_unlock(&contig_zone.lock);
	ok(check(&r) != 0 && strstr(msg, "not aligned"), "mutant: misaligned free block is caught");
	ok(mem_init(MEM) == 0, "reboot");

	/* A count that disagrees with the lists. */
	atomic_long_add(5, &contig_zone.free_pages);
	ok(check(&r) != 0 && strstr(msg, "free pages"), "mutant: wrong free count is caught");
	ok(mem_init(MEM) == 0, "reboot");

	/* A block on a list twice. */
	p = alloc_pages(GFP_KERNEL, 0);
	__free_pages(p, 0);
	spin_lock(&contig_zone.lock);
	p = list_first_entry(&contig_zone.free_area[MAX_PAGE_ORDER].free_list, struct page, lru);
	list_add(&p->lru, &contig_zone.free_area[MAX_PAGE_ORDER].free_list);
	spin_unlock(&contig_zone.lock);
	ok(check(&r) != 0, "mutant: a block on a free list twice is caught (%s)", msg);
	ok(mem_init(MEM) == 0, "reboot");
}

int main(void)
{
	plan_no_plan();
	lab_cpu_init();
	vm_warn_quiet = true;
	test_boot();
	test_split_and_merge();
	test_extra_reference();
	test_exhaustion();
	test_bad_page_leaked();
	test_poisoning();
	test_checker_catches_mutants();
	mem_exit();
	return done_testing();
}
