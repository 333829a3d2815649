/*
 * Anonymous memory, the anon rmap, fork, COW and exit (seed 003, part 1),
 * in the style of the kernel's tools/testing/vma: each scenario builds a
 * small family of address spaces (drawn in its comment), then checks what
 * the kernel guarantees:
 *
 *  - an anonymous fault maps a zeroed, exclusive folio (small, or large of
 *    anon_folio_order) on the anon LRU, in the VMA's new anon_vma;
 *  - fork shares every page read-only on both sides, with the references,
 *    mapcounts and PageAnonExclusive the kernel keeps, and links the child
 *    into the parent's anon_vmas;
 *  - a write to a shared page copies it (the copy is byte for byte the
 *    original, the other side is untouched); a write to a page nobody else
 *    maps reuses it;
 *  - anon_vma reuse follows num_children and num_active_vmas: a chain of
 *    forks whose parents exit keeps three anon_vmas, never more;
 *  - rmap_walk() visits every VMA of the folio's anon_vma once, parent
 *    first, then children in fork order, and keeps visiting a child that
 *    no longer maps the folio after COW;
 *  - fork copies migration entries, readable on both sides;
 *  - when every process has exited, every page and anon_vma is free, and
 *    1000 children of a 5 MiB parent fit easily.
 *
 * The rmap checker runs after every scenario.  Mutants: anon-no-wrprotect
 * (fork leaves the parent's entries writable) is caught by the census
 * (writable entry of a shared page) and by the parent's store reaching the
 * child; anon-reuse-active (reuse ignores num_active_vmas) by the child
 * reusing its parent's live anon_vma; anon-fork-keep-write (fork copies a
 * writable migration entry as it is) by the entry kinds after fork.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/gfp.h>
#include <linux/migrate.h>
#include <linux/swapops.h>
#include <machine/machine.h>

#include "rmap_test.h"

#ifdef CONFIG_ANON_MUTANT_NO_WRPROTECT
#define AT_NO_WRPROTECT	1
#else
#define AT_NO_WRPROTECT	0
#endif
#ifdef CONFIG_ANON_MUTANT_REUSE_ACTIVE
#define AT_REUSE_ACTIVE	1
#else
#define AT_REUSE_ACTIVE	0
#endif
#ifdef CONFIG_ANON_MUTANT_FORK_KEEP_WRITE
#define AT_KEEP_WRITE	1
#else
#define AT_KEEP_WRITE	0
#endif
#define AT_MUTANT	(AT_NO_WRPROTECT || AT_REUSE_ACTIVE || AT_KEEP_WRITE)

#define BASE		0x7f0000000000UL	/* 1 GiB aligned */
#define PG(n)		((unsigned long)(n) << PAGE_SHIFT)
#define RW		(VM_READ | VM_WRITE)

/* --- helpers ------------------------------------------------------------------------- */

static struct vm_area_struct *mmap_anon(struct mm_struct *mm, unsigned long addr,
					unsigned long nr_pages, unsigned long vm_flags)
{
	unsigned long ret = do_mmap(mm, NULL, addr, PG(nr_pages), vm_flags, 0);

	if (ret != addr) {
		printf("Bail out! anonymous do_mmap at %#lx failed (%ld)\n", addr, (long)ret);
		exit(1);
	}
	return vma_lookup(mm, addr);
}

static vm_fault_t fault(struct mm_struct *mm, unsigned long addr, bool write)
{
	struct vm_area_struct *vma;
	vm_fault_t ret;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	ret = vma ? handle_mm_fault(vma, addr, write ? FAULT_FLAG_WRITE : 0) : VM_FAULT_SIGBUS;
	mmap_read_unlock(mm);
	lru_add_drain();	/* the new folio on the LRU, not held by this CPU's batch */
	return ret;
}

/*
 * A user access: the MMU, and on a fault the fault handler, then the MMU
 * again (the instruction restarts).  The byte's address, or NULL on
 * SIGBUS.  *@faulted says whether the access faulted.
 */
static unsigned char *user_access(struct mm_struct *mm, unsigned long addr, bool write,
				  bool *faulted)
{
	unsigned char *p = mmu_access(mm, addr, write);

	if (faulted)
		*faulted = !p;
	for (int tries = 0; !p && tries < 3; tries++) {
		if (fault(mm, addr, write) & VM_FAULT_ERROR)
			return NULL;
		p = mmu_access(mm, addr, write);
	}
	return p;
}

static void user_store(struct mm_struct *mm, unsigned long addr, unsigned char v)
{
	unsigned char *p = user_access(mm, addr, true, NULL);

	if (!p) {
		printf("Bail out! store at %#lx failed\n", addr);
		exit(1);
	}
	*p = v;
}

static unsigned char user_load(struct mm_struct *mm, unsigned long addr)
{
	unsigned char *p = user_access(mm, addr, false, NULL);

	if (!p) {
		printf("Bail out! load at %#lx failed\n", addr);
		exit(1);
	}
	return *p;
}

static pte_t pte_at(struct mm_struct *mm, unsigned long addr)
{
	pte_t *ptep = mm_find_pte(mm, addr);

	return ptep ? __ptep_get(ptep) : __pte(0);
}

static struct page *page_at(struct mm_struct *mm, unsigned long addr)
{
	pte_t pte = pte_at(mm, addr);

	if (!pte_present(pte)) {
		printf("Bail out! nothing mapped at %#lx\n", addr);
		exit(1);
	}
	return pte_page(pte);
}

static struct folio *folio_at(struct mm_struct *mm, unsigned long addr)
{
	return page_folio(page_at(mm, addr));
}

/* Fault in and tag @nr pages from @addr: page i carries tag + i. */
static void populate(struct mm_struct *mm, unsigned long addr, unsigned long nr, uint64_t tag)
{
	for (unsigned long i = 0; i < nr; i++) {
		user_store(mm, addr + PG(i) + 8, 1);	/* byte 8: clear of the tag words */
		mm_tag_page(page_at(mm, addr + PG(i)), tag + i * 16);
	}
}

static int anon_vma_chain_len(struct vm_area_struct *vma)
{
	struct anon_vma_chain *avc;
	int n = 0;

	list_for_each_entry(avc, &vma->anon_vma_chain, same_vma)
		n++;
	return n;
}

static struct mm_struct *fork_mm(struct mm_struct *mm)
{
	struct mm_struct *child = dup_mm(mm);

	if (!child) {
		printf("Bail out! dup_mm failed\n");
		exit(1);
	}
	return child;
}

static unsigned long anon_lru_pages(void)
{
	return node_lruvec.nr_pages[LRU_INACTIVE_ANON] + node_lruvec.nr_pages[LRU_ACTIVE_ANON];
}

/* Every scenario ends with every process gone: nothing may be left anywhere. */
static void finish(const char *what, unsigned long warns)
{
	is_int(node_stat(NR_ANON_MAPPED), 0, "%s: NR_ANON_MAPPED back to 0", what);
	is_int(atomic_long_read(&nr_anon_vmas), 0, "%s: every anon_vma freed", what);
	is_int(anon_lru_pages(), 0, "%s: the anon LRU lists are empty", what);
	is_int(rt_allocated_pages(), 0, "%s: every page free (allocator checker passes)", what);
	if (!AT_MUTANT)
		is_int(vm_warn_count - warns, 0, "%s: no debug check fired", what);
	anon_folio_order = 0;
}

/* --- anonymous faults ---------------------------------------------------------------- */

/*
 * One process, a read-write VMA of 4 pages and a read-only one of 1 page:
 *
 *   BASE            BASE+4p     BASE+8p
 *   [ rw  . . . . ]             [ r . ]
 *     ^ ^ read faults (page 1 first: it makes the page tables)
 *                                 ^ read fault, then a store (SIGBUS)
 *
 * The page page 0 gets was dirty when freed (poisoned): the fault zeroes
 * it.  With no zero page a read fault maps like a write fault: writable,
 * dirty.
 */
static void test_fault_maps_zeroed_page(void)
{
	unsigned long warns = vm_warn_count;
	struct mm_struct *mm = rt_mm_alloc();
	struct vm_area_struct *vma = mmap_anon(mm, BASE, 4, RW);
	struct page *junk;
	unsigned char *p;
	struct folio *folio;
	struct anon_vma *av;
	pte_t pte;
	bool zero = true;

	is_int(vma->anon_vma == NULL, 1, "fault: a new VMA has no anon_vma");
	is_int(fault(mm, BASE + PG(1), false), 0, "fault: read fault on page 1");
	junk = alloc_page(GFP_HIGHUSER_MOVABLE);	/* the pcp list anonymous faults use */
	memset(page_address(junk), 0xa5, PAGE_SIZE);
	page_poisoning_on = true;
	__free_page(junk);		/* this CPU's pcp list hands it out next */
	page_poisoning_on = false;
	is_int(fault(mm, BASE, false), 0, "fault: read fault on page 0");
	pte = pte_at(mm, BASE);
	ok(pte_present(pte) && pte_write(pte) && pte_dirty(pte),
	   "fault: entry present, writable and dirty (no zero page: mapped as for a write)");
	folio = folio_at(mm, BASE);
	p = folio_address(folio);
	for (size_t i = 0; i < PAGE_SIZE; i++)
		zero &= p[i] == 0;
	ok(zero, "fault: the page reads all zeroes though it was dirty when freed");
	ok(folio == (struct folio *)junk, "fault: (it was the dirty page)");
	ok(folio_test_anon(folio) && folio_test_swapbacked(folio) && !folio_test_large(folio),
	   "fault: an anonymous, swap-backed, small folio");
	is_int(folio_ref_count(folio), 1, "fault: one reference (the entry's)");
	is_int(folio_mapcount(folio), 1, "fault: mapped once");
	ok(PageAnonExclusive(&folio->page), "fault: PageAnonExclusive");
	ok(folio_test_lru(folio) && !folio_test_active(folio) &&
	   node_lruvec.nr_pages[LRU_INACTIVE_ANON] == 2, "fault: on the inactive anon LRU");
	av = vma->anon_vma;
	ok(av && folio_anon_vma(folio) == av, "fault: the folio points to the VMA's new anon_vma");
	ok(av && av->root == av && av->parent == av, "fault: which is its own root and parent");
	ok(av && av->num_children == 1 && av->num_active_vmas == 1,
	   "fault: num_children 1 (itself), num_active_vmas 1");
	is_int(anon_vma_chain_len(vma), 1, "fault: one anon_vma_chain");
	is_int(folio->index, BASE >> PAGE_SHIFT, "fault: index is the page's linear offset");
	ok(folio_at(mm, BASE + PG(1)) != folio && folio_anon_vma(folio_at(mm, BASE + PG(1))) == av,
	   "fault: page 1 is another folio of the same anon_vma");
	is_int(get_mm_counter_sum(mm, MM_ANONPAGES), 2, "fault: MM_ANONPAGES 2");
	is_int(node_stat(NR_ANON_MAPPED), 2, "fault: NR_ANON_MAPPED 2");

	mmap_anon(mm, BASE + PG(8), 1, VM_READ);
	is_int(fault(mm, BASE + PG(8), false), 0, "fault: read fault in a read-only VMA");
	ok(pte_present(pte_at(mm, BASE + PG(8))) && !pte_write(pte_at(mm, BASE + PG(8))),
	   "fault: mapped read-only there");
	is_int(fault(mm, BASE + PG(8), true), VM_FAULT_SIGBUS, "fault: a store there is refused");
	ok(rt_check(&mm, 1, NULL) == 0, "fault: rmap checker passes");
	mmput(mm);
	finish("fault", warns);
}

/*
 * anon_folio_order 4: a store in the second 64 KiB of a 32-page VMA maps
 * a whole order-4 folio there; a VMA of 8 pages cannot hold one and gets a
 * small folio.  Fork shares the large folio (one batch of 16 entries); the
 * child's store copies one page of it.
 *
 *   BASE                BASE+16p             BASE+32p     BASE+64p  +72p
 *   [ . . . . . . . . | F F F F F F F F ... ]            [ s . . . ]
 *                          ^ store at page 20               ^ store
 */
static void test_large_anon_folio(enum mmu_arch arch)
{
	const char *a = arch == MMU_ARM64 ? "arm64" : "x86";
	unsigned long warns = vm_warn_count;
	struct mm_struct *mm, *child, *mms[2];
	struct folio *folio, *copy;
	struct rt_census c;
	int exclusive = 0;

	diag("large anonymous folios on %s", a);
	mmu_arch = arch;
	mm = rt_mm_alloc();
	anon_folio_order = 4;
	mmap_anon(mm, BASE, 32, RW);
	mmap_anon(mm, BASE + PG(64), 8, RW);
	user_store(mm, BASE + PG(20), 7);
	folio = folio_at(mm, BASE + PG(20));
	ok(folio_test_large(folio) && folio_order(folio) == 4, "large: an order-4 folio");
	c = rt_census(mm, BASE + PG(16), 16);
	ok(c.present == 16 && c.consecutive && folio_at(mm, BASE + PG(16)) == folio,
	   "large: mapped whole at its aligned place, pages 16..31");
	is_int(rt_census(mm, BASE, 16).present, 0, "large: nothing mapped below it");
	is_int(rt_census(mm, BASE + PG(16), 16).cont, arch == MMU_ARM64 ? 16 : 0,
	       "large: one contiguous block on arm64, none on x86");
	is_int(folio_ref_count(folio), 16, "large: a reference per entry");
	is_int(folio_mapcount(folio), 16, "large: _large_mapcount 16");
	is_int(atomic_read(&folio->_nr_pages_mapped), 16, "large: _nr_pages_mapped 16");
	for (int i = 0; i < 16; i++)
		exclusive += PageAnonExclusive(folio_page(folio, i));
	is_int(exclusive, 16, "large: every page PageAnonExclusive");
	is_int(user_load(mm, BASE + PG(20)), 7, "large: the store landed");
	is_int(get_mm_counter_sum(mm, MM_ANONPAGES), 16, "large: MM_ANONPAGES 16");
	user_store(mm, BASE + PG(64), 1);
	ok(!folio_test_large(folio_at(mm, BASE + PG(64))),
	   "large: an 8-page VMA cannot hold one: a small folio");

	child = fork_mm(mm);
	is_int(folio_ref_count(folio), 32, "large fork: 32 references");
	is_int(folio_mapcount(folio), 32, "large fork: mapped 32 times");
	c = rt_census(child, BASE + PG(16), 16);
	ok(c.present == 16 && c.consecutive && folio_at(child, BASE + PG(16)) == folio,
	   "large fork: the child maps the same 16 pages");
	exclusive = 0;
	for (int i = 0; i < 16; i++)
		exclusive += PageAnonExclusive(folio_page(folio, i));
	is_int(exclusive, 0, "large fork: no page exclusive any more");
	ok(rt_census(child, BASE + PG(16), 16).cont == (arch == MMU_ARM64 ? 16 : 0) &&
	   rt_census(mm, BASE + PG(16), 16).cont == (arch == MMU_ARM64 ? 16 : 0),
	   "large fork: write-protected blocks stay folded on both sides (arm64)");

	user_store(child, BASE + PG(21), 9);
	copy = folio_at(child, BASE + PG(21));
	ok(copy != folio && !folio_test_large(copy), "large COW: the child's store copies one page");
	is_int(folio_mapcount(folio), 31, "large COW: the large folio is mapped 31 times");
	is_int(page_mapcount(folio_page(folio, 5)), 1, "large COW: its page 5 once (the parent)");
	is_int(user_load(mm, BASE + PG(21)), 0, "large COW: the parent's page 21 is untouched");
	is_int(user_load(child, BASE + PG(20)), 7, "large COW: the child still shares page 20");
	mms[0] = mm;
	mms[1] = child;
	ok(rt_check(mms, 2, NULL) == 0, "large: rmap checker passes");
	mmput(mm);
	mmput(child);
	finish("large", warns);
	mmu_arch = MMU_X86_64;
}

/* --- fork and COW --------------------------------------------------------------------- */

/*
 * The parent P faults 8 tagged pages; fork makes C:
 *
 *   P:  BASE [ 0 1 2 3 4 5 6 7 ]   anon_vma AV_P (root)
 *              | | | | | | | |     every page shared, read-only on both sides
 *   C:  BASE [ 0 1 2 3 4 5 6 7 ]   chain: AV_P, AV_C (its own, parent AV_P)
 */
static void test_fork_shares(void)
{
	unsigned long warns = vm_warn_count;
	struct mm_struct *p = rt_mm_alloc(), *c, *mms[2];
	struct vm_area_struct *pv = mmap_anon(p, BASE, 8, RW), *cv;
	int ro_parent = 0, ro_child = 0, same = 0, young = 0, refs = 0, maps = 0, excl = 0, tags = 0;

	populate(p, BASE, 8, 0x1000);
	c = fork_mm(p);
	cv = vma_lookup(c, BASE);
	for (int i = 0; i < 8; i++) {
		pte_t pp = pte_at(p, BASE + PG(i)), cp = pte_at(c, BASE + PG(i));
		struct folio *folio = folio_at(p, BASE + PG(i));

		ro_parent += pte_present(pp) && !pte_write(pp);
		ro_child += pte_present(cp) && !pte_write(cp);
		same += pte_pfn(pp) == pte_pfn(cp);
		young += pte_young(cp);
		refs += folio_ref_count(folio) == 2;
		maps += folio_mapcount(folio) == 2;
		excl += PageAnonExclusive(&folio->page);
		tags += mm_page_has_tag(page_at(c, BASE + PG(i)), 0x1000 + (uint64_t)i * 16);
	}
	if (AT_NO_WRPROTECT)
		is_int(ro_parent, 0, "mutant %s: the parent's entries stay writable", MM_KERNEL_NAME);
	else
		is_int(ro_parent, 8, "fork: the parent's entries are write-protected");
	is_int(ro_child, 8, "fork: the child maps every page read-only");
	is_int(same, 8, "fork: the same pages");
	is_int(young, 0, "fork: the child's entries start old");
	is_int(refs, 8, "fork: two references per page");
	is_int(maps, 8, "fork: two mappings per page");
	is_int(excl, 0, "fork: no page is PageAnonExclusive any more");
	is_int(tags, 8, "fork: the child reads the parent's data");
	is_int(get_mm_counter_sum(c, MM_ANONPAGES), 8, "fork: the child's MM_ANONPAGES 8");
	if (AT_REUSE_ACTIVE) {
		ok(cv->anon_vma == pv->anon_vma,
		   "mutant %s: the child reuses the parent's live anon_vma (caught)", MM_KERNEL_NAME);
	} else {
		is_int(anon_vma_chain_len(cv), 2, "fork: the child's VMA is in two anon_vmas");
		ok(cv->anon_vma && cv->anon_vma != pv->anon_vma, "fork: the child has its own anon_vma");
		ok(cv->anon_vma->parent == pv->anon_vma && cv->anon_vma->root == pv->anon_vma,
		   "fork: whose parent and root are the parent's");
		ok(cv->anon_vma->num_children == 0 && cv->anon_vma->num_active_vmas == 1,
		   "fork: child anon_vma: no children, one active VMA");
		ok(pv->anon_vma->num_children == 2 && pv->anon_vma->num_active_vmas == 1,
		   "fork: parent anon_vma: num_children 2 (itself, the child's), one active VMA");
		is_int(atomic_read(&pv->anon_vma->refcount), 2, "fork: the child's anon_vma pins the root");
	}
	mms[0] = p;
	mms[1] = c;
	if (AT_NO_WRPROTECT)
		ok(rt_check(mms, 2, NULL) != 0, "mutant %s: the census sees a writable shared page (caught)",
		   MM_KERNEL_NAME);
	else
		ok(rt_check(mms, 2, NULL) == 0, "fork: rmap checker passes");
	mmput(c);
	mmput(p);
	finish("fork", warns);
}

/*
 * After the fork above, stores on either side:
 *
 *   P:  [ 0 1 2 3 4 5 6 7 ]     C stores into 3: C gets a copy (in AV_C)
 *   C:  [ 0 1 2 3'4 5 6 7 ]     P stores into 3: P alone maps it: reuse
 *                               P stores into 4: still shared: P copies
 */
static void test_cow(void)
{
	unsigned long warns = vm_warn_count;
	struct mm_struct *p = rt_mm_alloc(), *c, *mms[2];
	struct vm_area_struct *pv = mmap_anon(p, BASE, 8, RW), *cv;
	struct folio *old, *copy;
	unsigned long reuse;
	bool faulted;
	unsigned char *pp, *cp;

	populate(p, BASE, 8, 0x2000);
	c = fork_mm(p);
	cv = vma_lookup(c, BASE);

	if (AT_NO_WRPROTECT) {
		/* The parent's store goes straight into the page the child shares. */
		pp = user_access(p, BASE + PG(5), true, &faulted);
		ok(!faulted, "mutant %s: the parent stores without a fault", MM_KERNEL_NAME);
		*pp = 0xee;
		is_int(user_load(c, BASE + PG(5)), 0xee,
		       "mutant %s: the child sees the parent's store (caught)", MM_KERNEL_NAME);
		mmput(c);
		mmput(p);
		finish("cow", warns);
		return;
	}

	old = folio_at(p, BASE + PG(3));
	cp = user_access(c, BASE + PG(3) + 100, true, &faulted);
	ok(faulted, "cow: the child's store faults");
	*cp = 0x5a;
	copy = folio_at(c, BASE + PG(3));
	ok(copy != old, "cow: the child now maps a new page");
	ok(memcmp(folio_address(copy), folio_address(old), 100) == 0 &&
	   memcmp((char *)folio_address(copy) + 101, (char *)folio_address(old) + 101,
		  PAGE_SIZE - 101) == 0 && ((unsigned char *)folio_address(copy))[100] == 0x5a &&
	   ((unsigned char *)folio_address(old))[100] == 0,
	   "cow: the copy is the old page byte for byte, plus the child's store");
	ok(mm_page_has_tag(&old->page, 0x2000 + 3 * 16), "cow: the parent's page is untouched");
	ok(pte_write(pte_at(c, BASE + PG(3))) && pte_dirty(pte_at(c, BASE + PG(3))),
	   "cow: the child's new entry is writable and dirty");
	ok(folio_anon_vma(copy) == cv->anon_vma && PageAnonExclusive(&copy->page),
	   "cow: the copy is exclusive, in the child's own anon_vma");
	is_int(folio_ref_count(old), 1, "cow: the old page lost the child's reference");
	is_int(folio_mapcount(old), 1, "cow: and its mapping");
	ok(!PageAnonExclusive(&old->page), "cow: it stays non-exclusive until the parent writes");
	is_int(get_mm_counter_sum(c, MM_ANONPAGES), 8, "cow: the child's MM_ANONPAGES still 8");

	reuse = vm_event(PGREUSE);
	pp = user_access(p, BASE + PG(3), true, &faulted);
	ok(faulted && page_at(p, BASE + PG(3)) == &old->page,
	   "cow reuse: the parent's store faults and keeps its page");
	*pp = 0x77;
	ok(PageAnonExclusive(&old->page) && pte_write(pte_at(p, BASE + PG(3))),
	   "cow reuse: now exclusive and writable");
	is_int(vm_event(PGREUSE) - reuse, 1, "cow reuse: pgreuse counted once");
	ok(folio_anon_vma(old) == pv->anon_vma, "cow reuse: in the parent's anon_vma");
	is_int(user_load(c, BASE + PG(3) + 100), 0x5a, "cow reuse: the child keeps its copy");

	old = folio_at(p, BASE + PG(4));
	user_store(p, BASE + PG(4), 0x44);
	ok(folio_at(p, BASE + PG(4)) != old, "cow: a parent's store to a shared page copies too");
	ok(mm_page_has_tag(page_at(c, BASE + PG(4)), 0x2000 + 4 * 16) &&
	   user_load(c, BASE + PG(4) + 8) == 1, "cow: the child's page 4 is untouched");
	mms[0] = p;
	mms[1] = c;
	ok(rt_check(mms, 2, NULL) == 0, "cow: rmap checker passes");
	mmput(c);
	mmput(p);
	finish("cow", warns);
}

/*
 * Reuse once the other side has gone:
 *
 *   P [ a b ] --fork--> C [ a b ]   C exits: P's store into a reuses it
 *   P [ a b ] --fork--> C [ a b ]   P exits: C's store into b reuses it and
 *                                   moves it from AV_P to AV_C
 */
static void test_reuse_after_exit(void)
{
	unsigned long warns = vm_warn_count;
	struct mm_struct *p = rt_mm_alloc(), *c;
	struct folio *folio;
	struct anon_vma *av_p;
	bool faulted;

	mmap_anon(p, BASE, 2, RW);
	populate(p, BASE, 2, 0x3000);
	c = fork_mm(p);
	mmput(c);
	folio = folio_at(p, BASE);
	is_int(folio_ref_count(folio), 1, "reuse: the child's exit dropped its reference");
	user_access(p, BASE, true, &faulted);
	ok(faulted && folio_at(p, BASE) == folio && PageAnonExclusive(&folio->page),
	   "reuse: the parent's store faults and reuses the page");
	ok(rt_check(&p, 1, NULL) == 0, "reuse: rmap checker passes");

	c = fork_mm(p);
	av_p = vma_lookup(p, BASE)->anon_vma;
	folio = folio_at(c, BASE + PG(1));
	ok(folio_anon_vma(folio) == av_p, "reuse: page b is in the parent's anon_vma");
	mmput(p);
	user_access(c, BASE + PG(1), true, &faulted);
	ok(faulted && folio_at(c, BASE + PG(1)) == folio, "reuse: the orphan child reuses page b");
	ok(folio_anon_vma(folio) == vma_lookup(c, BASE)->anon_vma,
	   "reuse: folio_move_anon_rmap() moved it to the child's anon_vma");
	ok(mm_page_has_tag(&folio->page, 0x3000 + 16), "reuse: with its data");
	ok(rt_check(&c, 1, NULL) == 0, "reuse: rmap checker passes");
	mmput(c);
	finish("reuse", warns);
}

/* --- anon_vma reuse ----------------------------------------------------------------------- */

/*
 * P forks C1, C1 forks G, C1 exits; G forks GG:
 *
 *   AV_P (root) <- AV_C1 <- AV_G          C1 gone: AV_C1 has no VMA of its
 *      P            (C1)      G           own (num_active_vmas 0) and one
 *                   GG                    child (AV_G): GG reuses it.
 *
 * Then P forks C2: AV_P has an active VMA, so C2 gets a fresh anon_vma.
 */
static void test_anon_vma_reuse_rules(void)
{
	unsigned long warns = vm_warn_count;
	struct mm_struct *p = rt_mm_alloc(), *c1, *g, *gg, *c2, *mms[4];
	struct anon_vma *av_p, *av_c1, *av_g;

	mmap_anon(p, BASE, 4, RW);
	populate(p, BASE, 4, 0x4000);
	c1 = fork_mm(p);
	g = fork_mm(c1);
	av_p = vma_lookup(p, BASE)->anon_vma;
	av_c1 = vma_lookup(c1, BASE)->anon_vma;
	av_g = vma_lookup(g, BASE)->anon_vma;
	if (AT_REUSE_ACTIVE) {
		ok(av_c1 == av_p || av_g == av_c1,
		   "mutant %s: a fork reused a live anon_vma (caught)", MM_KERNEL_NAME);
		mmput(g);
		mmput(c1);
		mmput(p);
		finish("anon_vma reuse", warns);
		return;
	}
	ok(av_p != av_c1 && av_c1 != av_g && av_g != av_p, "reuse rules: three anon_vmas");
	ok(av_g->parent == av_c1 && av_c1->parent == av_p && av_g->root == av_p,
	   "reuse rules: AV_G -> AV_C1 -> AV_P, all rooted at AV_P");
	is_int(anon_vma_chain_len(vma_lookup(g, BASE)), 3, "reuse rules: G's VMA is in all three");
	mmput(c1);
	ok(av_c1->num_active_vmas == 0 && av_c1->num_children == 1,
	   "reuse rules: C1 gone: AV_C1 has no active VMA and one child");
	is_int(atomic_long_read(&nr_anon_vmas), 3, "reuse rules: AV_C1 lives on (G's chain is in it)");
	gg = fork_mm(g);
	ok(vma_lookup(gg, BASE)->anon_vma == av_c1, "reuse rules: GG reuses AV_C1");
	is_int(av_c1->num_active_vmas, 1, "reuse rules: AV_C1 active again");
	is_int(av_g->num_children, 0, "reuse rules: AV_G got no child");
	is_int(anon_vma_chain_len(vma_lookup(gg, BASE)), 3, "reuse rules: GG's chain has 3 links");
	is_int(atomic_long_read(&nr_anon_vmas), 3, "reuse rules: no anon_vma allocated for GG");
	c2 = fork_mm(p);
	ok(vma_lookup(c2, BASE)->anon_vma != av_p && vma_lookup(c2, BASE)->anon_vma->parent == av_p,
	   "reuse rules: the root is never reused: C2 gets its own");
	is_int(av_p->num_children, 3, "reuse rules: AV_P: itself, AV_C1, AV_C2");
	is_int(user_load(gg, BASE + PG(2) + 8), 1, "reuse rules: GG sees P's page");
	mms[0] = p;
	mms[1] = g;
	mms[2] = gg;
	mms[3] = c2;
	ok(rt_check(mms, 4, NULL) == 0, "reuse rules: rmap checker passes");
	for (int i = 0; i < 4; i++)
		mmput(mms[i]);
	finish("reuse rules", warns);
}

/*
 * A chain of forks whose parents exit at once (a daemon re-executing
 * itself): X0 forks X1 and exits, X1 forks X2 and exits, ...  Reuse keeps
 * every VMA in at most three anon_vmas however long the chain.
 */
static void test_anon_vma_chain_bounded(void)
{
	unsigned long warns = vm_warn_count;
	struct mm_struct *x = rt_mm_alloc();
	int max_len = 0, max_avs = 0;

	mmap_anon(x, BASE, 2, RW);
	populate(x, BASE, 2, 0x5000);
	for (int gen = 0; gen < 12; gen++) {
		struct mm_struct *y = fork_mm(x);

		mmput(x);
		x = y;
		max_len = max(max_len, anon_vma_chain_len(vma_lookup(x, BASE)));
		max_avs = max(max_avs, (int)atomic_long_read(&nr_anon_vmas));
	}
	is_int(max_len, 3, "chain of 12 forks: at most 3 anon_vmas per VMA");
	is_int(max_avs, 3, "chain of 12 forks: at most 3 anon_vmas alive");
	ok(mm_page_has_tag(page_at(x, BASE + PG(1)), 0x5000 + 16), "chain: the last sees X0's data");
	ok(rt_check(&x, 1, NULL) == 0, "chain: rmap checker passes");
	mmput(x);
	finish("chain", warns);
}

/* --- rmap walks ------------------------------------------------------------------------- */

struct walk_record {
	int nr;
	struct vm_area_struct *vmas[16];
	int mapped;		/* VMAs where page_vma_mapped_walk() found the folio */
};

static bool record_one(struct folio *folio, struct vm_area_struct *vma, unsigned long addr,
		       void *arg)
{
	struct walk_record *r = arg;
	DEFINE_FOLIO_VMA_WALK(pvmw, folio, vma, addr, 0);

	if (r->nr < 16)
		r->vmas[r->nr] = vma;
	r->nr++;
	if (page_vma_mapped_walk(&pvmw)) {
		r->mapped++;
		page_vma_mapped_walk_done(&pvmw);
	}
	return true;
}

static struct walk_record walk(struct folio *folio)
{
	struct walk_record r = { 0 };
	struct rmap_walk_control rwc = { .rmap_one = record_one, .arg = &r };

	folio_lock(folio);
	rmap_walk(folio, &rwc);
	folio_unlock(folio);
	return r;
}

/*
 * P maps one page and forks C1..C5; then C1 forks G:
 *
 *   AV_P's tree (equal keys, in link order):  P C1 C2 C3 C4 C5 G
 *
 * The walk of the page visits them in that order, each once.  After C3's
 * store the page is no longer mapped in C3, but C3's VMA is still in AV_P's
 * tree: the walk still visits it (what the seed's RFC is about).
 */
static void test_rmap_walk_order(void)
{
	unsigned long warns = vm_warn_count;
	struct mm_struct *mms[7];
	struct vm_area_struct *want[7];
	struct walk_record r;
	struct folio *folio, *copy;
	bool in_order = true;

	mms[0] = rt_mm_alloc();
	mmap_anon(mms[0], BASE, 1, RW);
	populate(mms[0], BASE, 1, 0x6000);
	for (int i = 1; i <= 5; i++)
		mms[i] = fork_mm(mms[0]);
	mms[6] = fork_mm(mms[1]);
	for (int i = 0; i < 7; i++)
		want[i] = vma_lookup(mms[i], BASE);
	folio = folio_at(mms[0], BASE);
	r = walk(folio);
	is_int(r.nr, 7, "walk: seven VMAs visited");
	for (int i = 0; i < 7 && i < r.nr; i++)
		in_order &= r.vmas[i] == want[i];
	ok(in_order, "walk: P, C1..C5, then C1's child G: the order the chains were linked");
	is_int(r.mapped, 7, "walk: the folio mapped in each");

	user_store(mms[3], BASE, 3);
	copy = folio_at(mms[3], BASE);
	r = walk(folio);
	is_int(r.nr, 7, "walk after C3's COW: still seven VMAs visited");
	is_int(r.mapped, 6, "walk after C3's COW: the folio mapped in six");
	is_int(folio_mapcount(folio), 6, "walk after C3's COW: mapcount 6");
	r = walk(copy);
	ok(r.nr == 1 && r.vmas[0] == want[3], "walk: C3's copy is found in C3 only (AV_C3)");

	ok(rt_check(mms, 7, NULL) == 0, "walk: rmap checker passes");
	for (int i = 6; i >= 0; i--)
		mmput(mms[i]);
	finish("walk", warns);
}

/* A writer holding the root anon_vma's rwsem for a while. */
struct holder {
	struct anon_vma *root;
	volatile bool locked, may_release, released;
};

static void *hold_root(void *arg)
{
	struct holder *h = arg;

	anon_vma_lock_write(h->root);
	h->locked = true;
	/* Held until the trylock has been seen to fail, then a while for the sleeper to block. */
	while (!h->may_release)
		sched_yield();
	usleep(20000);
	h->released = true;
	anon_vma_unlock_write(h->root);
	return NULL;
}

/*
 * folio_referenced() on an anonymous folio shared by P and C (unlocked, as
 * reclaim may call it for anon), then folio_lock_anon_vma_read() against a
 * writer: folio_referenced() (try_lock) gives up; without try_lock the
 * reader pins the anon_vma and sleeps until the writer is done.
 */
static void test_folio_lock_anon_vma_read(void)
{
	unsigned long warns = vm_warn_count;
	struct mm_struct *p = rt_mm_alloc(), *c, *mms[2];
	struct holder h = { 0 };
	struct anon_vma *av;
	struct folio *folio;
	unsigned long vm_flags;
	pthread_t t;

	mmap_anon(p, BASE, 1, RW);
	populate(p, BASE, 1, 0x7000);
	c = fork_mm(p);
	folio = folio_at(p, BASE);
	user_load(c, BASE);		/* the child's entry starts old: make it young */
	is_int(folio_referenced(folio, 0, NULL, &vm_flags), 2, "referenced: young in both VMAs");
	is_int(folio_referenced(folio, 0, NULL, &vm_flags), 0, "referenced: then old in both");

	h.root = vma_lookup(p, BASE)->anon_vma->root;
	pthread_create(&t, NULL, hold_root, &h);
	while (!h.locked)
		sched_yield();
	is_int(folio_referenced(folio, 0, NULL, &vm_flags), -1,
	       "referenced: contended root rwsem: gives up (try_lock)");
	h.may_release = true;
	av = folio_lock_anon_vma_read(folio, NULL);
	ok(av == folio_anon_vma(folio) && h.released,
	   "folio_lock_anon_vma_read: slept until the writer released, then locked");
	is_int(atomic_read(&av->refcount), 2, "folio_lock_anon_vma_read: its pin dropped again");
	anon_vma_unlock_read(av);
	pthread_join(t, NULL);

	mms[0] = p;
	mms[1] = c;
	ok(rt_check(mms, 2, NULL) == 0, "lock_anon_vma_read: rmap checker passes");
	mmput(p);
	mmput(c);
	finish("lock_anon_vma_read", warns);
}

/* --- migration entries at fork --------------------------------------------------------- */

/*
 * Replace the entry at @addr with a migration entry of @type for its page,
 * as try_to_migrate_one() does (the folio keeps the test's reference).
 */
static struct folio *make_migration_entry(struct mm_struct *mm, unsigned long addr,
					  swp_entry_t (*make)(unsigned long))
{
	struct vm_area_struct *vma = vma_lookup(mm, addr);
	struct page *page = page_at(mm, addr);
	struct folio *folio = page_folio(page);
	pmd_t *pmd = mm_find_pmd(mm, addr);
	spinlock_t *ptl;
	pte_t *ptep = pte_offset_map_lock(mm, pmd, addr, &ptl), pte;
	swp_entry_t entry;
	int nr_entries = 0;

	folio_get(folio);
	pte = ptep_get_and_clear(mm, addr, ptep);
	entry = make(page_to_pfn(page));
	if (pte_young(pte))
		entry = make_migration_entry_young(entry);
	if (pte_dirty(pte))
		entry = make_migration_entry_dirty(entry);
	set_pte_at(mm, addr, ptep, swp_entry_to_pte(entry));
	folio_remove_rmap_pte(folio, page, vma);
	try_to_migrate_entry_made(folio, &nr_entries);	/* the designs' count (seed 003) */
	folio_put(folio);
	pte_unmap_unlock(ptep, ptl);
	return folio;
}

/*
 * P has three pages under migration, one entry of each kind; fork:
 *
 *   P: [ W  R+ R ]   writable, read-exclusive, readable migration entries
 *   C: [ R  R  R ]   copied readable; P's W and R+ downgraded to R as well
 *
 * Young and dirty survive; references and mapcounts do not change; RSS
 * counts the entries on both sides.  (A fault on one waits for the
 * migration: test_migrate.)
 */
static void test_fork_migration_entries(void)
{
	unsigned long warns = vm_warn_count;
	struct mm_struct *p = rt_mm_alloc(), *c, *mms[2];
	struct folio *f[3];
	int readable = 0, kept_ad = 0, same_pfn = 0;

	mmap_anon(p, BASE, 3, RW);
	populate(p, BASE, 3, 0x8000);
	f[0] = make_migration_entry(p, BASE, make_writable_migration_entry);
	f[1] = make_migration_entry(p, BASE + PG(1), make_readable_exclusive_migration_entry);
	f[2] = make_migration_entry(p, BASE + PG(2), make_readable_migration_entry);
	ok(is_writable_migration_entry(pte_to_swp_entry(pte_at(p, BASE))),
	   "migration entries: P's first is writable");
	c = fork_mm(p);
	for (int i = 0; i < 3; i++) {
		swp_entry_t pe = pte_to_swp_entry(pte_at(p, BASE + PG(i)));
		swp_entry_t ce = pte_to_swp_entry(pte_at(c, BASE + PG(i)));

		readable += is_readable_migration_entry(pe) + is_readable_migration_entry(ce);
		kept_ad += is_migration_entry_young(ce) && is_migration_entry_dirty(ce) &&
			   is_migration_entry_young(pe) && is_migration_entry_dirty(pe);
		same_pfn += swp_offset_pfn(pe) == folio_pfn(f[i]) && swp_offset_pfn(ce) == folio_pfn(f[i]);
	}
	if (AT_KEEP_WRITE)
		ok(readable < 6, "mutant %s: a writable or exclusive entry stays so on both sides (caught)",
		   MM_KERNEL_NAME);
	else
		is_int(readable, 6, "migration entries at fork: all six readable");
	is_int(kept_ad, 3, "migration entries at fork: young and dirty kept");
	is_int(same_pfn, 3, "migration entries at fork: naming the same pfns");
	ok(folio_ref_count(f[0]) == 1 && folio_mapcount(f[0]) == 0,
	   "migration entries at fork: no reference or mapcount taken");
	is_int(get_mm_counter_sum(c, MM_ANONPAGES), 3, "migration entries at fork: the child's RSS counts them");
	mms[0] = p;
	mms[1] = c;
	ok(rt_check(mms, 2, NULL) == 0, "migration entries: rmap checker passes");
	mmput(c);
	mmput(p);
	for (int i = 0; i < 3; i++) {
		ok(folio_ref_count(f[i]) == 1, "migration entries: zap dropped no reference (%d)", i);
		folio_put(f[i]);
	}
	finish("migration entries", warns);
}

/* --- scale ------------------------------------------------------------------------------- */

/*
 * The RFC's shape without the COW of every page: a 5 MiB parent and 1000
 * children sharing it; 10 of them copy one page each.  Every page has
 * 1001 mappings, every anon_vma is accounted for, the walk of a page
 * visits 1001 VMAs, and when the parent exits first and the children after
 * it, every page and every anon_vma is freed.
 */
#define SCALE_PAGES	1280
#define SCALE_CHILDREN	1000

static void test_thousand_children(void)
{
	unsigned long warns = vm_warn_count;
	struct mm_struct **mms = calloc(SCALE_CHILDREN + 1, sizeof(*mms));
	struct rmap_walk_control rwc;
	struct walk_record r = { 0 };
	struct folio *folio;
	bool all = true;

	mms[0] = rt_mm_alloc();
	mmap_anon(mms[0], BASE, SCALE_PAGES, RW);
	populate(mms[0], BASE, SCALE_PAGES, 0x9000);
	for (int i = 1; i <= SCALE_CHILDREN; i++)
		mms[i] = fork_mm(mms[0]);
	for (int i = 1; i <= 10; i++)
		user_store(mms[i * 97], BASE + PG(i * 100), 0x33);
	folio = folio_at(mms[0], BASE + PG(SCALE_PAGES - 1));
	is_int(folio_mapcount(folio), SCALE_CHILDREN + 1, "1000 children: a page mapped 1001 times");
	is_int(folio_ref_count(folio), SCALE_CHILDREN + 1, "1000 children: 1001 references");
	is_int(folio_mapcount(folio_at(mms[0], BASE + PG(100))), SCALE_CHILDREN,
	       "1000 children: a page one child copied: 1000 mappings");
	is_int(atomic_long_read(&nr_anon_vmas), SCALE_CHILDREN + 1, "1000 children: 1001 anon_vmas");
	rwc = (struct rmap_walk_control){ .rmap_one = record_one, .arg = &r };
	folio_lock(folio);
	rmap_walk(folio, &rwc);
	folio_unlock(folio);
	is_int(r.nr, SCALE_CHILDREN + 1, "1000 children: the walk visits 1001 VMAs");
	for (int i = 1; i <= SCALE_CHILDREN; i += 111)
		all &= mm_page_has_tag(page_at(mms[i], BASE + PG(7)), 0x9000 + 7 * 16);
	ok(all, "1000 children: they read the parent's data");
	ok(rt_check(mms, SCALE_CHILDREN + 1, NULL) == 0, "1000 children: rmap checker passes");
	for (int i = 0; i <= SCALE_CHILDREN; i++)
		mmput(mms[i]);
	free(mms);
	finish("1000 children", warns);
}

int main(void)
{
	plan_no_plan();
	vm_warn_quiet = AT_MUTANT;
	rt_boot(128ULL << 20);
	is_int(rt_allocated_pages(), 0, "booted: nothing allocated");
	if (AT_NO_WRPROTECT) {
		test_fork_shares();
		test_cow();
	} else if (AT_REUSE_ACTIVE) {
		test_fork_shares();
		test_anon_vma_reuse_rules();
	} else if (AT_KEEP_WRITE) {
		test_fork_migration_entries();
	} else {
		test_fault_maps_zeroed_page();
		test_large_anon_folio(MMU_X86_64);
		test_large_anon_folio(MMU_ARM64);
		test_fork_shares();
		test_cow();
		test_reuse_after_exit();
		test_anon_vma_reuse_rules();
		test_anon_vma_chain_bounded();
		test_rmap_walk_order();
		test_folio_lock_anon_vma_read();
		test_fork_migration_entries();
		test_thousand_children();
	}
	rcu_barrier();
	mem_exit();
	return done_testing();
}
