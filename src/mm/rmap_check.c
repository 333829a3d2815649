// SPDX-License-Identifier: GPL-2.0
/*
 * The model's checker of page tables against folios: recount every mapping
 * from the page tables and compare with what rmap, RSS and the page cache
 * keep (see rmap_check() in linux/rmap.h).  Everything must be quiescent.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/mmzone.h>
#include <linux/rmap.h>

struct rmap_census {
	int *mapped;			/* per pfn: entries mapping it */
	char *msg;
	size_t len;
};

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

static int census_vma(struct rmap_census *c, struct vm_area_struct *vma, unsigned long *rss)
{
	struct address_space *mapping = vma->vm_file->f_mapping;
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
			pfn = pte_pfn(pte);
			if (!pte_present(pte) || !pfn_valid(pfn))
				return census_fail(c, "entry %#llx at %#lx is not a present page",
						   (unsigned long long)pte_val(pte), addr);
			folio = page_folio(pfn_to_page(pfn));
			if (folio_ref_count(folio) <= 0 || folio->mapping != mapping)
				return census_fail(c, "%#lx maps pfn %lu, a folio that is %s", addr, pfn,
						   folio_ref_count(folio) <= 0 ? "free" :
						   "not in this file's page cache");
			if (folio->index + (pfn - folio_pfn(folio)) != linear_page_index(vma, addr))
				return census_fail(c, "%#lx maps file page %lu, the VMA says %lu", addr,
						   folio->index + (pfn - folio_pfn(folio)),
						   linear_page_index(vma, addr));
			if (pte_cont(pte)) {
				unsigned long start = ALIGN_DOWN(addr, CONT_PTE_SIZE);

				if (start < vma->vm_start)
					return census_fail(c, "cont block at %#lx starts below its VMA", start);
				if (start == addr && check_cont_block(c, ptep, addr))
					return -1;
			}
			c->mapped[pfn]++;
			(*rss)++;
		}
	}
	return 0;
}

static int census_mm(struct rmap_census *c, struct mm_struct *mm)
{
	unsigned long rss = 0;

	for (struct rb_node *n = rb_first(&mm->mm_rb); n; n = rb_next(n))
		if (census_vma(c, rb_entry(n, struct vm_area_struct, vm_rb), &rss))
			return -1;
	if (get_mm_counter_sum(mm, MM_FILEPAGES) != rss)
		return census_fail(c, "MM_FILEPAGES is %lu, the page tables map %lu pages",
				   get_mm_counter_sum(mm, MM_FILEPAGES), rss);
	return 0;
}

/* Compare one cached folio's counts with the census; adds its mapped pages to *mapped. */
static int check_folio(struct rmap_census *c, struct folio *folio, unsigned long *mapped)
{
	unsigned long pfn = folio_pfn(folio), nr = folio_nr_pages(folio);
	long total = 0, pages = 0;

	for (unsigned long i = 0; i < nr; i++) {
		int want = c->mapped[pfn + i];

		if (page_mapcount(folio_page(folio, i)) != want)
			return census_fail(c, "pfn %lu: _mapcount says %d mappings, the page tables %d",
					   pfn + i, page_mapcount(folio_page(folio, i)), want);
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
	if (folio_ref_count(folio) < (long)nr + total)
		return census_fail(c, "folio at pfn %lu: refcount %d, below %lu cache + %ld mapping references",
				   pfn, folio_ref_count(folio), nr, total);
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
		if (!xa_is_value(folio) && index == folio->index && (ret = check_folio(c, folio, mapped)))
			break;
		index = xa_is_value(folio) ? index + 1 : folio_next_index(folio);
	}
	xa_unlock(&mapping->i_pages);
	return ret;
}

int rmap_check(struct mm_struct *const *mms, int nr_mms,
	       struct address_space *const *mappings, int nr_mappings, char *msg, size_t len)
{
	struct rmap_census c = { .msg = msg, .len = len };
	unsigned long mapped = 0;
	int ret = 0;

	c.mapped = calloc(max_pfn, sizeof(*c.mapped));
	if (!c.mapped)
		return census_fail(&c, "rmap_check: out of memory");
	for (int i = 0; i < nr_mms && !ret; i++)
		ret = census_mm(&c, mms[i]);
	for (int i = 0; i < nr_mappings && !ret; i++)
		ret = census_mapping(&c, mappings[i], &mapped);
	/* Whatever is left is mapped but belongs to no cached folio we were given. */
	for (unsigned long pfn = 0; pfn < max_pfn && !ret; pfn++)
		if (c.mapped[pfn])
			ret = census_fail(&c, "pfn %lu is mapped %d times but not in the given page caches",
					  pfn, c.mapped[pfn]);
	if (!ret && node_page_state_snapshot(&contig_node, NR_FILE_MAPPED) != mapped)
		ret = census_fail(&c, "NR_FILE_MAPPED is %lu, the page tables map %lu file pages",
				  node_page_state_snapshot(&contig_node, NR_FILE_MAPPED), mapped);
	free(c.mapped);
	return ret;
}
