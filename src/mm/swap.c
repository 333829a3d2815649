// SPDX-License-Identifier: GPL-2.0
/*
 * Freeing a folio whose last reference is gone, and moving folios onto and
 * between the LRU lists (mm/swap.c).  As in the kernel, additions and
 * activations are batched per CPU (cpu_fbatches: lru_add, lru_activate):
 * a folio joins this CPU's batch with a reference, and a full batch (or a
 * large folio) is moved under one lru_lock hold.  The batches belong to
 * their CPU alone (local_lock, which is preemption control on !RT: no
 * atomic); lru_add_drain_all() drains other CPUs' batches only when they
 * are quiescent (the kernel schedules the drain on each CPU instead).
 */
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/memcontrol.h>
#include <linux/pagemap.h>
#include <linux/smp.h>
#include <linux/swap.h>

struct lruvec node_lruvec = {
	.lru_lock = __SPIN_LOCK_UNLOCKED(node_lruvec.lru_lock),
};

struct cpu_fbatches {
	struct folio_batch lru_add;
	struct folio_batch lru_activate;
} __attribute__((aligned(SMP_CACHE_BYTES)));

static struct cpu_fbatches cpu_fbatches[NR_CPUS];

/* Swap-backed (anonymous) folios age on the anon lists, the rest on the file lists. */
static inline enum lru_list folio_lru_list(const struct folio *folio)
{
	enum lru_list lru;

	if (folio_test_unevictable(folio))
		return LRU_UNEVICTABLE;
	lru = folio_is_file_lru(folio) ? LRU_INACTIVE_FILE : LRU_INACTIVE_ANON;
	if (folio_test_active(folio))
		lru += LRU_ACTIVE;
	return lru;
}

void lru_batches_init(void)
{
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		folio_batch_init(&cpu_fbatches[cpu].lru_add);
		folio_batch_init(&cpu_fbatches[cpu].lru_activate);
	}
}

void lruvec_init(struct lruvec *lruvec)
{
	spin_lock_init(&lruvec->lru_lock);
	for (int lru = 0; lru < NR_LRU_LISTS; lru++) {
		INIT_LIST_HEAD(&lruvec->lists[lru]);
		lruvec->nr_pages[lru] = 0;
	}
	atomic_long_set(&lruvec->nonresident_age, 0);
}

/* Under lru_lock; reclaim sizes its scans from these without it. */
void update_lru_size(struct lruvec *lruvec, enum lru_list lru, long nr_pages)
{
	WRITE_ONCE(lruvec->nr_pages[lru], lruvec->nr_pages[lru] + nr_pages);
}

/* lruvec_add_folio(): at the head, where the newest folios go. */
void lruvec_add_folio(struct lruvec *lruvec, struct folio *folio)
{
	enum lru_list lru = folio_lru_list(folio);

	list_add(&folio->lru, &lruvec->lists[lru]);
	update_lru_size(lruvec, lru, (long)folio_nr_pages(folio));
}

void lruvec_del_folio(struct lruvec *lruvec, struct folio *folio)
{
	enum lru_list lru = folio_lru_list(folio);

	list_del(&folio->lru);
	update_lru_size(lruvec, lru, -(long)folio_nr_pages(folio));
}

typedef void (*move_fn_t)(struct lruvec *lruvec, struct folio *folio);

static void lru_add(struct lruvec *lruvec, struct folio *folio)
{
	VM_WARN_ON_ONCE_FOLIO(folio_test_lru(folio), folio);
	lruvec_add_folio(lruvec, folio);
}

static void lru_activate(struct lruvec *lruvec, struct folio *folio)
{
	if (folio_test_active(folio) || folio_test_unevictable(folio))
		return;
	lruvec_del_folio(lruvec, folio);
	folio_set_active(folio);
	lruvec_add_folio(lruvec, folio);
}

/* One lru_lock hold for the whole batch; then drop the batch's references. */
static void folio_batch_move_lru(struct folio_batch *fbatch, move_fn_t move_fn)
{
	struct lruvec *lruvec = &node_lruvec;

	spin_lock(&lruvec->lru_lock);
	for (unsigned int i = 0; i < fbatch->nr; i++) {
		move_fn(lruvec, fbatch->folios[i]);
		folio_set_lru(fbatch->folios[i]);
	}
	spin_unlock(&lruvec->lru_lock);
	for (unsigned int i = 0; i < fbatch->nr; i++)
		folio_put(fbatch->folios[i]);
	folio_batch_init(fbatch);
}

/*
 * A folio already on the LRU leaves it logically (PG_lru cleared, so that
 * isolation skips it) until its batch is moved; a new one joins as is.
 */
static void folio_batch_add_and_move(struct folio_batch *fbatch, struct folio *folio,
				     move_fn_t move_fn, bool on_lru)
{
	if (on_lru && !folio_test_clear_lru(folio))
		return;
	folio_get(folio);
	if (!folio_batch_add(fbatch, folio) || folio_test_large(folio) || lru_cache_disabled())
		folio_batch_move_lru(fbatch, move_fn);
}

void folio_add_lru(struct folio *folio)
{
	VM_WARN_ON_ONCE_FOLIO(folio_test_lru(folio), folio);
	folio_batch_add_and_move(&cpu_fbatches[smp_processor_id()].lru_add, folio, lru_add, false);
}

static void folio_activate(struct folio *folio)
{
	if (folio_test_active(folio) || folio_test_unevictable(folio))
		return;
	folio_batch_add_and_move(&cpu_fbatches[smp_processor_id()].lru_activate, folio,
				 lru_activate, true);
}

/*
 * A folio not on the LRU may be in this CPU's lru_add batch (just added):
 * mark it active there so it lands on the active list.  Other CPUs'
 * batches are not looked at.
 */
static void __lru_cache_activate_folio(struct folio *folio)
{
	struct folio_batch *fbatch = &cpu_fbatches[smp_processor_id()].lru_add;

	for (int i = fbatch->nr - 1; i >= 0; i--) {
		if (fbatch->folios[i] == folio) {
			folio_set_active(folio);
			break;
		}
	}
}

/*
 * The classic LRU's two-touch rule: the first access sets PG_referenced,
 * the second activates the folio and clears it.  An active, referenced
 * folio costs only the flag reads.  One that waits in some CPU's
 * activation batch is off the LRU and not yet active: every second access
 * clears PG_referenced and ages the workingset clock again, as in the
 * kernel, until that CPU's batch moves.
 */
void folio_mark_accessed(struct folio *folio)
{
	if (!folio_test_referenced(folio)) {
		folio_set_referenced(folio);
	} else if (folio_test_unevictable(folio)) {
		/* Unevictable folios are never activated. */
	} else if (!folio_test_active(folio)) {
		if (folio_test_lru(folio))
			folio_activate(folio);
		else
			__lru_cache_activate_folio(folio);
		folio_clear_referenced(folio);
		workingset_activation(folio);
	}
}

void lru_add_drain_cpu(int cpu)
{
	struct cpu_fbatches *fbatches = &cpu_fbatches[cpu];

	if (fbatches->lru_add.nr)
		folio_batch_move_lru(&fbatches->lru_add, lru_add);
	if (fbatches->lru_activate.nr)
		folio_batch_move_lru(&fbatches->lru_activate, lru_activate);
}

void lru_add_drain(void)
{
	lru_add_drain_cpu(smp_processor_id());
}

/*
 * The kernel queues a drain on every CPU with folios in its batches and
 * waits for them.  The model cannot run code on another running CPU: it
 * drains its own batches and those of CPUs not running; a running CPU's
 * batch moves at its next addition if the LRU cache is disabled
 * (lru_cache_disable()), at its next full batch otherwise.
 */
void lru_add_drain_all(void)
{
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (cpu == smp_processor_id() || !machine_cpu_running(cpu))
			lru_add_drain_cpu(cpu);
}

atomic_t lru_disable_count = ATOMIC_INIT(0);

/*
 * Migration wants every folio it may isolate on the LRU: stop batching and
 * drain every CPU's batches (the kernel waits for a drain run on each CPU;
 * the model drains them itself, the other CPUs quiescent).
 */
/*
 * What the model's lru_cache_disable() does not run: the kernel's
 * synchronize_rcu_expedited() and __lru_add_drain_all(true), which queues a
 * drain on every CPU with batched folios and waits for each.  0 unless a
 * workload sets it (migrate-fork --lru-disable-ns).
 */
unsigned long lru_cache_disable_ns;

void lru_cache_disable(void)
{
	atomic_inc(&lru_disable_count);
	lru_add_drain_all();
	if (lru_cache_disable_ns)
		ndelay(lru_cache_disable_ns);
}

void lru_cache_enable(void)
{
	atomic_dec(&lru_disable_count);
}

unsigned int lru_batched_folios(void)
{
	unsigned int nr = 0;

	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		nr += cpu_fbatches[cpu].lru_add.nr + cpu_fbatches[cpu].lru_activate.nr;
	return nr;
}

void folio_lru_release(struct folio *folio)
{
	struct lruvec *lruvec = &node_lruvec;

	spin_lock(&lruvec->lru_lock);
	lruvec_del_folio(lruvec, folio);
	__folio_clear_lru(folio);
	__folio_clear_active(folio);
	spin_unlock(&lruvec->lru_lock);
}

void __folio_put(struct folio *folio)
{
	if (unlikely(folio_test_lru(folio)))
		folio_lru_release(folio);
	/*
	 * An anonymous folio still points to its anon_vma; the kernel clears
	 * that in free_pages_prepare() (PageMappingFlags), the model here, off
	 * the allocator's paths that other experiments time.  (PG_swapbacked
	 * goes with the other flags at free.)
	 */
	if (folio_test_anon(folio))
		folio->mapping = NULL;
	VM_WARN_ON_ONCE_FOLIO(folio->mapping != NULL, folio);
	mem_cgroup_uncharge(folio);
	free_frozen_pages(&folio->page, folio_order(folio));
}
