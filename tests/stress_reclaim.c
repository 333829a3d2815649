/*
 * Reclaim against faults and accesses, every design, run plain and under
 * ThreadSanitizer: the hardware setting accessed bits on one CPU while
 * another ages and clears the same entries (blocks unfolding under it on
 * arm64), faults mapping folios that reclaim is trying to free, and the
 * LRU, i_mmap and page-table locks between them.
 *
 * Two processes map one file of order-4 folios, all faulted in first.  Two
 * CPUs keep touching random pages of the first three quarters of the file
 * in either process, in bursts with short pauses (so reclaim sometimes
 * finds a hot folio old and takes it, and the next touch faults it back),
 * while CPU 0 keeps asking memory_reclaim() for small amounts; the last
 * quarter is never touched again, so reclaim always has something to take.
 * At the end every checker runs and every mapped page's bytes are compared
 * with the file.  (The touching CPUs do not read page contents: with no
 * real TLB, nothing would hold off the free of a page they still read,
 * which is what the kernel's flush IPI does.)
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/mmzone.h>
#include <linux/rmap.h>
#include <linux/swap.h>
#include <machine/machine.h>
#include <mmlab/random.h>

#include "tap.h"

#define FILE_PAGES	1024		/* 4 MiB: 64 order-4 folios */
#define NR_MMS		2
#define NR_TOUCHERS	2
#define MAP_BASE	0x7f0000000000UL
#define HOT_PAGES	(FILE_PAGES / 4 * 3)
#define BURST		4096	/* touches between pauses */
#define RUN_SECONDS	0.6
#define MAX_SECONDS	20.0	/* reclaim goes on until it has taken something */

static struct address_space mapping;
static struct backing_file backing;
static struct file file;
static struct mm_struct *mms[NR_MMS];
static int done;

struct toucher {
	uint64_t seed;
	unsigned long touches, faults, fault_errors;
};

/* A load (or a fault, then the load) at page @n of @mm; false if the fault failed. */
static bool touch(struct mm_struct *mm, unsigned long n, unsigned long *faults)
{
	unsigned long addr = MAP_BASE + (n << PAGE_SHIFT);
	vm_fault_t ret;

	if (mmu_access(mm, addr, false))
		return true;
	mmap_read_lock(mm);
	ret = handle_mm_fault(vma_lookup(mm, addr), addr, 0);
	mmap_read_unlock(mm);
	(*faults)++;
	return !(ret & VM_FAULT_ERROR);
}

static void toucher_main(void *arg)
{
	struct toucher *t = arg;

	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		uint64_t r = splitmix64_next(&t->seed);

		if (!touch(mms[r % NR_MMS], (r >> 8) % HOT_PAGES, &t->faults))
			t->fault_errors++;
		if (++t->touches % BURST == 0)
			machine_sleep(0.0002);
	}
}

static int make_file(void)
{
	static unsigned char buf[FILE_PAGES * 4096];
	char path[] = "/tmp/mmlab-stress-reclaim.XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	unlink(path);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)((i * 13) ^ (i >> 12));
	if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
		close(fd);
		return -1;
	}
	return fd;
}

static unsigned long bad_mapped_pages(void)
{
	unsigned char buf[4096];
	unsigned long bad = 0;

	for (int m = 0; m < NR_MMS; m++)
		for (unsigned long n = 0; n < FILE_PAGES; n++) {
			pte_t *ptep = mm_find_pte(mms[m], MAP_BASE + (n << PAGE_SHIFT));
			pte_t pte = ptep ? __ptep_get(ptep) : __pte(0);

			if (!pte_present(pte))
				continue;
			if (pread(backing.fd, buf, sizeof(buf), (off_t)(n << PAGE_SHIFT)) != sizeof(buf) ||
			    memcmp(buf, page_address(pte_page(pte)), sizeof(buf)))
				bad++;
		}
	return bad;
}

static void stress(enum mmu_arch arch, const char *name)
{
	struct toucher touchers[NR_TOUCHERS] = { 0 };
	void *args[NR_TOUCHERS];
	struct machine_threads *t;
	struct reclaim_stat stat;
	unsigned long rounds = 0, reclaimed = 0, touches = 0, faults = 0, errors = 0;
	struct address_space *maps[1] = { &mapping };
	struct page_alloc_report rep;
	char msg[256] = "";
	int err;
	double start;

	mmu_arch = arch;
	address_space_init(&mapping);
	mapping.i_size = FILE_PAGES * PAGE_SIZE;
	mapping.folio_order = 4;
	mapping.backing = &backing;
	file.f_mapping = &mapping;
	for (int m = 0; m < NR_MMS; m++) {
		mms[m] = mm_alloc();
		do_mmap(mms[m], &file, MAP_BASE, FILE_PAGES * PAGE_SIZE, VM_READ, 0);
	}
	for (int m = 0; m < NR_MMS; m++)
		for (unsigned long n = 0; n < FILE_PAGES; n++)
			errors += !touch(mms[m], n, &faults);
	__atomic_store_n(&done, 0, __ATOMIC_RELEASE);
	for (int i = 0; i < NR_TOUCHERS; i++) {
		touchers[i].seed = 77 + i;
		args[i] = &touchers[i];
	}
	t = machine_threads_start_at(1, NR_TOUCHERS, toucher_main, args);	/* reclaim runs here, on CPU 0 */
	ok(t != NULL, "%s: start %d touching CPUs", name, NR_TOUCHERS);
	start = machine_now();
	while (machine_now() < start + RUN_SECONDS || rounds < 50 ||
	       (!reclaimed && machine_now() < start + MAX_SECONDS)) {
		reclaimed += memory_reclaim(64, &stat);
		rounds++;
	}
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	machine_threads_join(t);
	for (int i = 0; i < NR_TOUCHERS; i++) {
		touches += touchers[i].touches;
		faults += touchers[i].faults;
		errors += touchers[i].fault_errors;
	}
	diag("%s %s: %lu reclaim rounds, %lu pages reclaimed, %lu touches, %lu faults "
	     "(%lu of them to set up)", MM_KERNEL_NAME, name, rounds, reclaimed, touches, faults,
	     FILE_PAGES / 16 * NR_MMS);
	ok(reclaimed > 0 && touches > 0, "%s: reclaim took pages while the CPUs touched", name);
	is_int(errors, 0, "%s: no fault failed", name);
	ok(rmap_check(mms, NR_MMS, maps, 1, msg, sizeof(msg)) == 0, "%s: rmap census: %s", name, msg);
	ok(lruvec_check(&node_lruvec, msg, sizeof(msg)) == 0, "%s: LRU: %s", name, msg);
	ok(filemap_check(&mapping, msg, sizeof(msg)) == 0, "%s: page cache: %s", name, msg);
	is_int(bad_mapped_pages(), 0, "%s: every mapped page holds the file's bytes", name);

	for (int m = 0; m < NR_MMS; m++)
		mmput(mms[m]);
	truncate_inode_pages(&mapping);
	address_space_destroy(&mapping);
	/*
	 * The touchers' CPUs are gone: their LRU batches give back the folios
	 * they still hold a reference on (a small folio made when two faults
	 * raced for one large one), as every experiment's final check does.
	 */
	lru_add_drain_all();
	drain_all_pages(&contig_zone);
	msg[0] = '\0';
	err = page_alloc_check(&rep, msg, sizeof(msg));
	/* (The check runs before ok(): its arguments must be the check's results.) */
	ok(!err && rep.allocated == 0, "%s: nothing leaked (%lu allocated) %s", name, rep.allocated, msg);
	mmu_arch = MMU_X86_64;
}

int main(void)
{
	plan_no_plan();
	machine_init();
	backing.fd = make_file();
	ok(backing.fd >= 0, "backing file");
	ok(mem_init(64ULL << 20) == 0, "boot 64 MiB");
	stress(MMU_ARM64, "arm64 contpte");
	stress(MMU_X86_64, "x86-64");
	is_int(vm_warn_count, 0, "no VM_WARN fired");
	mem_exit();
	close(backing.fd);
	return done_testing();
}
