/*
 * Migration against fork, COW, faults and exit, every design, run plain
 * and under ThreadSanitizer, on a two-node machine.
 *
 * The parent P maps and writes 64 pages, then forks C.  CPU 0 keeps
 * migrating every page P maps between the nodes (do_mbind with
 * MPOL_MF_MOVE_ALL, so the pages C still shares move too, and C's entries
 * with them) and checks P's bytes after each move.  A second CPU runs C:
 * it writes its own copy of random pages of the first half (COW faults
 * that may meet a migration entry and wait), touches pages of the second
 * half, which it shares with P for good, without reading them,
 * and now and then forks a grandchild G, which copies whatever migration
 * entries C has at that moment, writes a few pages of its own and exits
 * (zapping them; in the mgt-entry build no fork overlaps a migration, see
 * fork_outside_migration()).  Only data no other CPU can be moving is compared while
 * the CPUs run: with no real TLB, nothing holds off a page's migration
 * while another CPU still uses a pointer into it, which is what the
 * kernel's flush IPI does.  At the end: every byte of every process, no
 * migration entry left, the rmap census, the LRU, and every page free
 * after exit.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/migrate.h>
#include <linux/mmzone.h>
#include <linux/rmap.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <machine/machine.h>
#include <mmlab/random.h>

#include "migrate_test.h"
#include "tap.h"

#define BASE		0x7f0000000000UL
#define NPAGES		64
#define RUN_SECONDS	0.5
#define MIN_ROUNDS	20

static struct mm_struct *p, *c;
static int done;
static int child_forks;	/* the child's forks so far, for the main loop's end */
static unsigned char c_byte[NPAGES];	/* what C last wrote at offset 8 of page i (0: nothing) */

struct child_stats {
	uint64_t seed;
	unsigned long writes, forks, errors;
};

static unsigned char *access_byte(struct mm_struct *mm, unsigned long addr, bool write)
{
	return mt_access(mm, addr, write, 1000, false);
}

/*
 * mgt-entry miscounts an entry that a fork copies while try_to_migrate()
 * walks (docs/design/seed-003-migrate-fork.md; check_migrate's scenario finds the schedule): the
 * restore then stops with the copy left, naming a freed page.  Here, in that
 * build only, the fork holds P's mmap lock, which do_mbind() holds for
 * writing, so that no fork overlaps a migration and what else races
 * (faults, COW, zaps while the type is set) is still stressed.
 */
#ifdef CONFIG_MGT_ENTRY
static struct mm_struct *fork_outside_migration(struct mm_struct *mm)
{
	struct mm_struct *g;

	mmap_read_lock(p);
	g = dup_mm(mm);
	mmap_read_unlock(p);
	return g;
}
#else
static struct mm_struct *fork_outside_migration(struct mm_struct *mm)
{
	return dup_mm(mm);
}
#endif

static void grandchild(struct child_stats *s)
{
	struct mm_struct *g = fork_outside_migration(c);

	if (!g) {
		s->errors++;
		return;
	}
	for (int k = 0; k < 4; k++) {
		unsigned long i = splitmix64_next(&s->seed) % NPAGES;
		unsigned char *b = access_byte(g, BASE + (i << PAGE_SHIFT) + 16, true);

		if (!b)
			s->errors++;
		else
			*b = 0x77;
	}
	mmput(g);
	s->forks++;
	__atomic_store_n(&child_forks, (int)s->forks, __ATOMIC_RELAXED);
}

static void child_main(void *arg)
{
	struct child_stats *s = arg;

	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		uint64_t r = splitmix64_next(&s->seed);
		unsigned long i = r % NPAGES;
		unsigned long addr = BASE + (i << PAGE_SHIFT);

		if ((r >> 8) % 4 == 0 && i < NPAGES / 2) {
			/* A store: C's own copy from now on, which nobody migrates. */
			unsigned char v = (unsigned char)(1 + (r >> 16) % 200), *b;

			b = access_byte(c, addr + 8, true);
			if (!b) {
				s->errors++;
				continue;
			}
			if (c_byte[i] && *b != c_byte[i])
				s->errors++;		/* its own copy lost a store */
			*b = v;
			c_byte[i] = v;
			s->writes++;
		} else if ((r >> 8) % 64 == 1) {
			grandchild(s);
		} else if (!access_byte(c, addr, false)) {
			s->errors++;
		}
	}
}

static int migration_entries(struct mm_struct *mm)
{
	int n = 0;

	for (unsigned long i = 0; i < NPAGES; i++) {
		pte_t *ptep = mm_find_pte(mm, BASE + (i << PAGE_SHIFT));

		n += ptep && is_swap_pte(__ptep_get(ptep));
	}
	return n;
}

static bool p_data_ok(void)
{
	for (unsigned long i = 0; i < NPAGES; i++) {
		unsigned char *b = access_byte(p, BASE + (i << PAGE_SHIFT) + 8, false);

		if (!b || *b != (unsigned char)(i + 1))
			return false;
	}
	return true;
}

/* C's bytes at the end: its own stores, or P's where it never wrote. */
static bool c_data_ok(void)
{
	for (unsigned long i = 0; i < NPAGES; i++) {
		unsigned char *b = access_byte(c, BASE + (i << PAGE_SHIFT) + 8, false);

		if (!b || *b != (c_byte[i] ? c_byte[i] : (unsigned char)(i + 1)))
			return false;
	}
	return true;
}

int main(void)
{
	struct child_stats stats = { .seed = 2026 };
	void *args[1] = { &stats };
	struct page_alloc_report rep;
	struct machine_threads *t;
	struct mm_struct *mms[2];
	unsigned long rounds = 0, bad_rounds = 0, busy_rounds = 0;
	char msg[256] = "";
	double start;

	plan_no_plan();
	machine_init();
	nr_online_nodes = 2;
	ok(mem_init(64ULL << 20) == 0, "boot 64 MiB on two nodes");

	p = mm_alloc();
	do_mmap(p, NULL, BASE, NPAGES * PAGE_SIZE, VM_READ | VM_WRITE, 0);
	for (unsigned long i = 0; i < NPAGES; i++)
		*access_byte(p, BASE + (i << PAGE_SHIFT) + 8, true) = (unsigned char)(i + 1);
	c = dup_mm(p);
	ok(c != NULL, "fork");

	t = machine_threads_start_at(1, 1, child_main, args);	/* CPU 1: P runs on CPU 0 */
	ok(t != NULL, "start the child's CPU");
	start = machine_now();
	/* Long enough for the child to have forked too (a loaded host may start it late). */
	while (machine_now() < start + RUN_SECONDS || rounds < MIN_ROUNDS ||
	       (!__atomic_load_n(&child_forks, __ATOMIC_RELAXED) && machine_now() < start + 60)) {
		int nid = (int)(rounds & 1);

		if (do_mbind(p, BASE, NPAGES * PAGE_SIZE, nid, MPOL_MF_MOVE_ALL))
			busy_rounds++;	/* some folio stayed busy through every pass: fine */
		if (!p_data_ok())
			bad_rounds++;
		rounds++;
	}
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	machine_threads_join(t);

	diag("%s: %lu migration rounds (%lu with a busy folio), %lu stores and %lu forks by the child",
	     MM_KERNEL_NAME, rounds, busy_rounds, stats.writes, stats.forks);
	ok(stats.writes > 0 && stats.forks > 0, "the child stored and forked meanwhile");
	is_int(bad_rounds, 0, "P read its own bytes after every migration");
	is_int(stats.errors, 0, "the child never lost a store or failed an access");
	ok(p_data_ok() && c_data_ok(), "every byte of both processes at the end");
	is_int(migration_entries(p) + migration_entries(c), 0, "no migration entry left");
	mms[0] = p;
	mms[1] = c;
	ok(rmap_check(mms, 2, NULL, 0, msg, sizeof(msg)) == 0, "rmap census: %s", msg);
	ok(lruvec_check(&node_lruvec, msg, sizeof(msg)) == 0, "LRU: %s", msg);
	mmput(c);
	mmput(p);
	lru_add_drain_all();	/* the LRU batches' references, after the child's CPU stopped */
	for (int nid = 0; nid < nr_online_nodes; nid++)
		drain_all_pages(&NODE_DATA(nid)->node_zones[ZONE_NORMAL]);
	ok(page_alloc_check(&rep, msg, sizeof(msg)) == 0 && rep.allocated == 0,
	   "nothing leaked (%lu allocated) %s", rep.allocated, msg);
	is_int(atomic_long_read(&nr_anon_vmas), 0, "every anon_vma freed");
	is_int(vm_warn_count, 0, "no VM_WARN fired");
	rcu_barrier();
	mem_exit();
	nr_online_nodes = 1;
	return done_testing();
}
