/*
 * Exhaustive interleavings of the MMU against the page-table primitives of
 * reclaim, every design: the hardware setting accessed and dirty bits in
 * an entry of a contiguous block while reclaim ages the block, clears it
 * for an unmap (the series' batched clear) or unfolds it to clear one entry
 * (the per-PTE unmap).  Every entry access is one step.
 *
 * What must hold in every schedule:
 *  - an access that succeeded left its dirty bit where the unmap sees it
 *    (the value the clear returns), or the entry is still mapped and dirty:
 *    a write must never be lost, or reclaim would drop a dirty page;
 *  - an access that succeeded left its accessed bit where aging sees it
 *    (aging reports young) or in the entry: an access is never lost
 *    between two scans.
 * Each property is shown to catch a racy clear written the obvious wrong
 * way (a load, then a store), in every build.
 */
#include <string.h>

#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/pgtable.h>
#include <machine/checker.h>
#include <machine/machine.h>

#include "tap.h"

#define BASE	0x7f0000000000UL
#define HW_IDX	5		/* the entry the hardware uses, inside the block */

static struct address_space mapping;
static struct file file;
static struct mm_struct *mm;
static struct vm_area_struct *vma;
static pte_t *ptep0;			/* the block's first entry */
static pte_t saved[CONT_PTES];		/* the block as faulted, accessed bits cleared */

static struct {
	void *hw;			/* what the hardware access returned */
	pte_t cleared;			/* what the clear returned */
	int young;			/* what aging returned */
} R;

static void reset(void *arg)
{
	(void)arg;
	for (int i = 0; i < CONT_PTES; i++)
		WRITE_ONCE(ptep0[i].pte, pte_val(saved[i]));
	memset(&R, 0, sizeof(R));
}

static void hw_write(void *arg)
{
	(void)arg;
	R.hw = mmu_access(mm, BASE + HW_IDX * PAGE_SIZE, true);
}

static void hw_read(void *arg)
{
	(void)arg;
	R.hw = mmu_access(mm, BASE + HW_IDX * PAGE_SIZE, false);
}

/* The series' unmap: the whole block at once. */
static void clear_batched(void *arg)
{
	(void)arg;
	R.cleared = get_and_clear_full_ptes(mm, BASE, ptep0, CONT_PTES, 0);
}

/* The per-PTE unmap of the hardware's entry: unfold the block, clear one. */
static void clear_one(void *arg)
{
	(void)arg;
	R.cleared = ptep_get_and_clear(mm, BASE + HW_IDX * PAGE_SIZE, ptep0 + HW_IDX);
}

/* Wrong: a load, then a store of 0; a bit set in between is lost. */
static void clear_racy(void *arg)
{
	pte_t pte = __ptep_get(ptep0 + HW_IDX);

	(void)arg;
	__set_pte(ptep0 + HW_IDX, __pte(0));
	R.cleared = pte;
}

static void age_batched(void *arg)
{
	(void)arg;
	R.young = clear_flush_young_ptes(vma, BASE, ptep0, CONT_PTES);
}

/* Wrong: a load, then a store without the accessed bit. */
static void age_racy(void *arg)
{
	pte_t pte = __ptep_get(ptep0 + HW_IDX);

	(void)arg;
	__set_pte(ptep0 + HW_IDX, pte_mkold(pte));
	R.young = pte_young(pte);
}

static bool dirty_kept(void *arg, char *why, size_t len)
{
	pte_t now = __pte(READ_ONCE(ptep0[HW_IDX].pte));

	(void)arg;
	if (R.hw && !pte_dirty(R.cleared) && !(pte_present(now) && pte_dirty(now))) {
		snprintf(why, len, "a write went through but its dirty bit is lost "
			 "(cleared %#llx, entry now %#llx)", (unsigned long long)pte_val(R.cleared),
			 (unsigned long long)pte_val(now));
		return false;
	}
	return true;
}

static bool access_kept(void *arg, char *why, size_t len)
{
	pte_t now = __pte(READ_ONCE(ptep0[HW_IDX].pte));

	(void)arg;
	if (R.hw && !R.young && !pte_young(now)) {
		snprintf(why, len, "an access went through but aging neither saw nor kept it");
		return false;
	}
	return true;
}

#define SCENARIO(...)	{ .setup = reset, __VA_ARGS__ }

static const struct checker_scenario sc_clear_batched = SCENARIO(
	.name = "write vs get_and_clear_full_ptes(block)", .nthreads = 2,
	.thread = { hw_write, clear_batched }, .thread_name = { "MMU", "unmap" }, .final = dirty_kept);
static const struct checker_scenario sc_clear_one = SCENARIO(
	.name = "write vs ptep_get_and_clear(one entry of the block)", .nthreads = 2,
	.thread = { hw_write, clear_one }, .thread_name = { "MMU", "unmap" }, .final = dirty_kept);
static const struct checker_scenario sc_clear_racy = SCENARIO(
	.name = "write vs a racy load-then-store clear", .nthreads = 2,
	.thread = { hw_write, clear_racy }, .thread_name = { "MMU", "unmap" }, .final = dirty_kept);
static const struct checker_scenario sc_age_batched = SCENARIO(
	.name = "read vs clear_flush_young_ptes(block)", .nthreads = 2,
	.thread = { hw_read, age_batched }, .thread_name = { "MMU", "age" }, .final = access_kept);
static const struct checker_scenario sc_age_racy = SCENARIO(
	.name = "read vs a racy load-then-store aging", .nthreads = 2,
	.thread = { hw_read, age_racy }, .thread_name = { "MMU", "age" }, .final = access_kept);

static struct checker_result res;

static void expect(const struct checker_scenario *sc, enum checker_status want)
{
	checker_explore(sc, &res);
	diag("%s: %s, %lu schedules (longest %d steps)", sc->name, checker_status_name(res.status),
	     res.executions, res.longest);
	if (!ok(res.status == want, "%s [%s]: %s", sc->name, mmu_arch == MMU_ARM64 ? "arm64" : "x86",
		want == CHECKER_OK ? "no violation in any schedule" : "the checker finds the lost bit"))
		diag_trace(res.trace);
}

/* Map one order-4 folio writable and shared, and keep its entries, old and clean. */
static int map_block(enum mmu_arch arch)
{
	mmu_arch = arch;
	address_space_init(&mapping);
	mapping.i_size = 16 * PAGE_SIZE;
	mapping.folio_order = 4;
	file.f_mapping = &mapping;
	mm = mm_alloc();
	if (!mm || do_mmap(mm, &file, BASE, 16 * PAGE_SIZE, VM_READ | VM_WRITE | VM_SHARED, 0) != BASE)
		return -1;
	vma = vma_lookup(mm, BASE);
	if (handle_mm_fault(vma, BASE, 0))
		return -1;
	ptep0 = mm_find_pte(mm, BASE);
	if (!ptep0)
		return -1;
	for (int i = 0; i < CONT_PTES; i++)
		saved[i] = pte_mkold(__pte(READ_ONCE(ptep0[i].pte)));
	return 0;
}

static void unmap_block(void)
{
	reset(NULL);
	mmput(mm);
	truncate_inode_pages(&mapping);
	address_space_destroy(&mapping);
}

/*
 * One step each, no interleaving: a contiguous block's dirty and young bits
 * are the OR of its entries (here only the first entry has them), both when
 * the block is read and when it is unfolded.
 */
static void block_bits_gathered(void)
{
	pte_t pte;

	reset(NULL);		/* the block as faulted, every entry old and clean */
	WRITE_ONCE(ptep0[0].pte, pte_val(pte_mkyoung(pte_mkdirty(saved[0]))));
	pte = ptep_get(ptep0 + HW_IDX);
	ok(pte_dirty(pte) && pte_young(pte),
	   "ptep_get of a block's entry reports the dirty and young bits of its first entry");
	ptep_get_and_clear(mm, BASE + HW_IDX * PAGE_SIZE, ptep0 + HW_IDX);
	pte = __pte(READ_ONCE(ptep0[1].pte));
	ok(!pte_cont(pte) && pte_dirty(pte) && pte_young(pte),
	   "unfolding the block gives every entry the dirty and young bits of the first");
	reset(NULL);
}

static void run_all(enum mmu_arch arch)
{
	ok(map_block(arch) == 0, "map a writable 64 KiB folio (%s)", arch == MMU_ARM64 ? "arm64" : "x86");
	is_int(pte_cont(saved[0]), arch == MMU_ARM64, "  ... %s", arch == MMU_ARM64 ?
	       "as one contiguous block" : "without the contiguous hint");
	if (arch == MMU_ARM64)
		block_bits_gathered();
	expect(&sc_clear_batched, CHECKER_OK);
	expect(&sc_clear_one, CHECKER_OK);
	expect(&sc_age_batched, CHECKER_OK);
	expect(&sc_clear_racy, CHECKER_VIOLATION);
	expect(&sc_age_racy, CHECKER_VIOLATION);
	unmap_block();
}

int main(void)
{
	plan_no_plan();
	machine_init();
	vm_warn_quiet = true;
	diag("MMU vs reclaim's entry primitives, design %s", MM_KERNEL_NAME);
	ok(mem_init(16ULL << 20) == 0, "boot 16 MiB");
	run_all(MMU_ARM64);
	run_all(MMU_X86_64);
	mmu_arch = MMU_X86_64;
	is_int(vm_warn_count, 0, "no VM_WARN fired");
	mem_exit();
	return done_testing();
}
