// SPDX-License-Identifier: GPL-2.0
/*
 * The model's checker of page tables against folios: recount every mapping
 * from the page tables and compare with what rmap, RSS, the page cache and
 * the anon rmap keep (see rmap_check() in linux/rmap.h).  Everything must
 * be quiescent.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/migrate.h>
#include <linux/mmzone.h>
#include <linux/rmap.h>
#include <linux/swapops.h>

struct rmap_census {
	int *mapped;			/* per pfn: entries mapping it */
	int *migrating;			/* per pfn: migration entries naming it */
	unsigned long migration_entries;
	char *msg;
	size_t len;
};

/* A node statistic summed over the online nodes, per-CPU differences included. */
static unsigned long mapped_pages(enum node_stat_item item)
{
	unsigned long sum = 0;

	for (int nid = 0; nid < nr_online_nodes; nid++)
		sum += node_page_state_snapshot(NODE_DATA(nid), item);
	return sum;
}

static int census_fail(struct rmap_census *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->msg, c->len, fmt, ap);
	va_end(ap);
	return -1;
}

/* A contiguous block from @ptep (aligned): whole, consecutive, one folio, aligned pfns. */
static int check_cont_block(struct rmap_census *c, pte_t *ptep, unsigned long addr)
{
	pte_t first = __ptep_get(ptep);
	unsigned long pfn = pte_pfn(first);

	if (mmu_arch != MMU_ARM64)
		return census_fail(c, "cont entry at %#lx on an MMU without contiguous blocks", addr);
	if (!IS_ALIGNED(pfn, CONT_PTES))
		return census_fail(c, "cont block at %#lx maps unaligned pfn %lu", addr, pfn);
	for (int i = 0; i < CONT_PTES; i++) {
		pte_t pte = __ptep_get(ptep + i);

		if (!pte_present(pte) || !pte_cont(pte) || pte_pfn(pte) != pfn + (unsigned long)i ||
		    page_folio(pfn_to_page(pfn + i)) != page_folio(pfn_to_page(pfn)))
			return census_fail(c, "cont block at %#lx is broken at entry %d", addr, i);
	}
	return 0;
}

/* Is @anon_vma one of those @vma is linked into (can the rmap find @vma from it)? */
static bool vma_in_anon_vma(struct vm_area_struct *vma, struct anon_vma *anon_vma)
{
	struct anon_vma_chain *avc;

	list_for_each_entry(avc, &vma->anon_vma_chain, same_vma)
		if (avc->anon_vma == anon_vma)
			return true;
	return false;
}

/* A present entry of an anonymous VMA: an anonymous folio the rmap can find here. */
static int census_anon_pte(struct rmap_census *c, struct vm_area_struct *vma, unsigned long addr,
			   pte_t pte, struct folio *folio)
{
	unsigned long pfn = pte_pfn(pte);
	struct anon_vma *anon_vma = folio_anon_vma(folio);

	if (!anon_vma)
		return census_fail(c, "%#lx (anonymous VMA) maps pfn %lu, which is not anonymous",
				   addr, pfn);
	if (!vma_in_anon_vma(vma, anon_vma))
		return census_fail(c, "%#lx maps pfn %lu, whose anon_vma %p does not reach the VMA",
				   addr, pfn, (void *)anon_vma);
	if (folio->index + (pfn - folio_pfn(folio)) != linear_page_index(vma, addr))
		return census_fail(c, "%#lx maps anonymous page %lu, the VMA says %lu", addr,
				   folio->index + (pfn - folio_pfn(folio)), linear_page_index(vma, addr));
	if (pte_write(pte) && !PageAnonExclusive(pfn_to_page(pfn)))
		return census_fail(c, "%#lx maps pfn %lu writable, but the page is not exclusive",
				   addr, pfn);
	return 0;
}

/* A present entry of a file VMA: the file page the VMA maps there. */
static int census_file_pte(struct rmap_census *c, struct vm_area_struct *vma, unsigned long addr,
			   pte_t pte, struct folio *folio)
{
	unsigned long pfn = pte_pfn(pte);

	if (folio->mapping != vma->vm_file->f_mapping)
		return census_fail(c, "%#lx maps pfn %lu, a folio that is not in this file's page cache",
				   addr, pfn);
	if (folio->index + (pfn - folio_pfn(folio)) != linear_page_index(vma, addr))
		return census_fail(c, "%#lx maps file page %lu, the VMA says %lu", addr,
				   folio->index + (pfn - folio_pfn(folio)),
				   linear_page_index(vma, addr));
	return 0;
}

/* A non-present entry: only migration entries exist in the model; they count in RSS. */
static int census_nonpresent(struct rmap_census *c, unsigned long addr, pte_t pte,
			     unsigned long *rss)
{
	swp_entry_t entry = pte_to_swp_entry(pte);
	struct folio *folio;

	if (!is_migration_entry(entry) || !pfn_valid(swp_offset_pfn(entry)))
		return census_fail(c, "entry %#llx at %#lx is neither present nor a migration entry",
				   (unsigned long long)pte_val(pte), addr);
	folio = pfn_swap_entry_folio(entry);
	rss[folio_test_anon(folio) ? MM_ANONPAGES : MM_FILEPAGES]++;
	c->migrating[swp_offset_pfn(entry)]++;
	c->migration_entries++;
	return 0;
}

static int census_vma(struct rmap_census *c, struct vm_area_struct *vma, unsigned long *rss)
{
	unsigned long addr = vma->vm_start;

	while (addr < vma->vm_end) {
		unsigned long next = pmd_addr_end(addr, vma->vm_end);
		pmd_t *pmd = mm_find_pmd(vma->vm_mm, addr);
		pte_t *ptep;

		if (!pmd || pmd_none(pmdp_get(pmd))) {
			addr = next;
			continue;
		}
		ptep = pte_offset_map(pmd, addr);
		for (; addr < next; addr += PAGE_SIZE, ptep++) {
			pte_t pte = __ptep_get(ptep);
			unsigned long pfn;
			struct folio *folio;

			if (pte_none(pte))
				continue;
			if (!pte_present(pte)) {
				if (census_nonpresent(c, addr, pte, rss))
					return -1;
				continue;
			}
			pfn = pte_pfn(pte);
			if (!pfn_valid(pfn))
				return census_fail(c, "entry %#llx at %#lx maps no page",
						   (unsigned long long)pte_val(pte), addr);
			folio = page_folio(pfn_to_page(pfn));
			if (folio_ref_count(folio) <= 0)
				return census_fail(c, "%#lx maps pfn %lu, a folio that is free", addr, pfn);
			if (vma_is_anonymous(vma) ? census_anon_pte(c, vma, addr, pte, folio) :
						    census_file_pte(c, vma, addr, pte, folio))
				return -1;
			if (pte_cont(pte)) {
				unsigned long start = ALIGN_DOWN(addr, CONT_PTE_SIZE);

				if (start < vma->vm_start)
					return census_fail(c, "cont block at %#lx starts below its VMA", start);
				if (start == addr && check_cont_block(c, ptep, addr))
					return -1;
			}
			c->mapped[pfn]++;
			rss[vma_is_anonymous(vma) ? MM_ANONPAGES : MM_FILEPAGES]++;
		}
	}
	return 0;
}

static int census_mm(struct rmap_census *c, struct mm_struct *mm)
{
	unsigned long rss[NR_MM_COUNTERS] = { 0 };

	for (struct rb_node *n = rb_first(&mm->mm_rb); n; n = rb_next(n))
		if (census_vma(c, rb_entry(n, struct vm_area_struct, vm_rb), rss))
			return -1;
	if (get_mm_counter_sum(mm, MM_FILEPAGES) != rss[MM_FILEPAGES])
		return census_fail(c, "MM_FILEPAGES is %lu, the page tables map %lu pages",
				   get_mm_counter_sum(mm, MM_FILEPAGES), rss[MM_FILEPAGES]);
	if (get_mm_counter_sum(mm, MM_ANONPAGES) != rss[MM_ANONPAGES])
		return census_fail(c, "MM_ANONPAGES is %lu, the page tables map %lu pages",
				   get_mm_counter_sum(mm, MM_ANONPAGES), rss[MM_ANONPAGES]);
	return 0;
}

/*
 * Compare one folio's counts with the census; adds its mapped pages to
 * *mapped.  @cache_refs: the references it holds besides its mappings (a
 * cached folio's page-cache references).
 */
static int check_folio(struct rmap_census *c, struct folio *folio, unsigned long *mapped,
		       long cache_refs)
{
	unsigned long pfn = folio_pfn(folio), nr = folio_nr_pages(folio);
	long total = 0, pages = 0;
	int entries = 0, counted;

	for (unsigned long i = 0; i < nr; i++) {
		int want = c->mapped[pfn + i];

		entries += c->migrating[pfn + i];
		c->migrating[pfn + i] = 0;

		if (page_mapcount(folio_page(folio, i)) != want)
			return census_fail(c, "pfn %lu: _mapcount says %d mappings, the page tables %d",
					   pfn + i, page_mapcount(folio_page(folio, i)), want);
		if (want > 1 && PageAnonExclusive(folio_page(folio, i)))
			return census_fail(c, "pfn %lu is PageAnonExclusive but mapped %d times",
					   pfn + i, want);
		total += want;
		pages += want > 0;
		c->mapped[pfn + i] = 0;		/* accounted for */
	}
	if (folio_mapcount(folio) != total)
		return census_fail(c, "folio at pfn %lu: mapcount %d, the page tables %ld",
				   pfn, folio_mapcount(folio), total);
	if (folio_test_large(folio) && atomic_read(&folio->_nr_pages_mapped) != pages)
		return census_fail(c, "folio at pfn %lu: _nr_pages_mapped %d, the page tables %ld",
				   pfn, atomic_read(&folio->_nr_pages_mapped), pages);
	/* The migration-entry count of seed 003's designs (linux/migrate.h). */
	if (!folio_migration_entries_agree(folio, entries, &counted))
		return census_fail(c, "folio at pfn %lu: %d migration entries counted, the page tables hold %d",
				   pfn, counted, entries);
	if (folio_ref_count(folio) < cache_refs + total)
		return census_fail(c, "folio at pfn %lu: refcount %d, below %ld cache + %ld mapping references",
				   pfn, folio_ref_count(folio), cache_refs, total);
	*mapped += (unsigned long)pages;
	return 0;
}

static int census_mapping(struct rmap_census *c, struct address_space *mapping,
			  unsigned long *mapped)
{
	unsigned long index = 0;
	struct folio *folio;
	int ret = 0;

	xa_lock(&mapping->i_pages);
	while ((folio = xa_find(&mapping->i_pages, &index, ULONG_MAX, XA_PRESENT))) {
		if (!xa_is_value(folio) && index == folio->index &&
		    (ret = check_folio(c, folio, mapped, (long)folio_nr_pages(folio))))
			break;
		index = xa_is_value(folio) ? index + 1 : folio_next_index(folio);
	}
	xa_unlock(&mapping->i_pages);
	return ret;
}

/*
 * Every allocated anonymous folio, wherever it is mapped (or not): its
 * counts against the census.  Adds its mapped pages to *mapped.
 */
static int census_anon_folios(struct rmap_census *c, unsigned long *mapped)
{
	for (unsigned long pfn = 0; pfn < max_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);
		struct folio *folio = page_folio(page);

		if (&folio->page != page || folio_ref_count(folio) <= 0 || !folio_test_anon(folio))
			continue;
		if (check_folio(c, folio, mapped, 0))
			return -1;
	}
	return 0;
}

int rmap_check(struct mm_struct *const *mms, int nr_mms,
	       struct address_space *const *mappings, int nr_mappings, char *msg, size_t len)
{
	struct rmap_census c = { .msg = msg, .len = len };
	unsigned long mapped = 0, anon_mapped = 0;
	int ret = 0;

	c.mapped = calloc(max_pfn, sizeof(*c.mapped));
	c.migrating = calloc(max_pfn, sizeof(*c.migrating));
	if (!c.mapped || !c.migrating) {
		free(c.mapped);
		free(c.migrating);
		return census_fail(&c, "rmap_check: out of memory");
	}
	for (int i = 0; i < nr_mms && !ret; i++)
		ret = census_mm(&c, mms[i]);
	for (int i = 0; i < nr_mappings && !ret; i++)
		ret = census_mapping(&c, mappings[i], &mapped);
	if (!ret)
		ret = census_anon_folios(&c, &anon_mapped);
	/* Whatever is left is mapped but belongs to no folio we were given or found. */
	for (unsigned long pfn = 0; pfn < max_pfn && !ret; pfn++) {
		if (c.mapped[pfn])
			ret = census_fail(&c, "pfn %lu is mapped %d times but not in the given page caches",
					  pfn, c.mapped[pfn]);
		else if (c.migrating[pfn])
			ret = census_fail(&c, "%d migration entries name pfn %lu, in no allocated folio",
					  c.migrating[pfn], pfn);
	}
	if (!ret && mapped_pages(NR_FILE_MAPPED) != mapped)
		ret = census_fail(&c, "NR_FILE_MAPPED is %lu, the page tables map %lu file pages",
				  mapped_pages(NR_FILE_MAPPED), mapped);
	if (!ret && mapped_pages(NR_ANON_MAPPED) != anon_mapped)
		ret = census_fail(&c, "NR_ANON_MAPPED is %lu, the page tables map %lu anonymous pages",
				  mapped_pages(NR_ANON_MAPPED), anon_mapped);
	free(c.mapped);
	free(c.migrating);
	return ret;
}
