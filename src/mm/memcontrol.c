// SPDX-License-Identifier: GPL-2.0
/*
 * Memory cgroups: a folio's charge and its cgroup's statistics
 * (linux/memcontrol.h says how much of the kernel's memcontrol.c this is).
 *
 * The per-CPU updates are the kernel's this_cpu_*() operations, whose
 * instructions differ by architecture: x86-64 has one unlocked
 * %gs-relative add, arm64 an LSE atomic on this CPU's copy (STADD, LDADD,
 * SWP: arch/arm64/include/asm/percpu.h), which the machine charges as the
 * RMW it is.  Which one follows the machine's MMU (mmu_arch).
 */
#include <stdlib.h>
#include <string.h>

#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/pgtable.h>

static struct mem_cgroup *active_memcg;

static int nr_memcg_cpus(void)
{
	return nr_cpu_ids < NR_CPUS ? nr_cpu_ids : NR_CPUS;
}

struct mem_cgroup *mem_cgroup_alloc(struct mem_cgroup *parent)
{
	struct mem_cgroup *memcg = calloc(1, sizeof(*memcg));

	if (!memcg)
		return NULL;
	memcg->memory.parent = parent ? &parent->memory : NULL;
	memcg->vmstats_percpu = aligned_alloc(SMP_CACHE_BYTES, NR_CPUS * sizeof(*memcg->vmstats_percpu));
	if (!memcg->vmstats_percpu)
		goto fail;
	memset(memcg->vmstats_percpu, 0, NR_CPUS * sizeof(*memcg->vmstats_percpu));
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		memcg->vmstats_percpu[cpu].vmstats = &memcg->vmstats;
		memcg->vmstats_percpu[cpu].parent_pcpu = parent ? parent->vmstats_percpu : NULL;
	}
	for (int nid = 0; nid < nr_online_nodes; nid++) {
		struct lruvec_stats_percpu *s = aligned_alloc(SMP_CACHE_BYTES, NR_CPUS * sizeof(*s));

		if (!s)
			goto fail;
		memset(s, 0, NR_CPUS * sizeof(*s));
		memcg->nodeinfo[nid].lruvec_stats_percpu = s;
	}
	return memcg;
fail:
	mem_cgroup_free(memcg);
	return NULL;
}

void mem_cgroup_free(struct mem_cgroup *memcg)
{
	if (!memcg)
		return;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		free(memcg->nodeinfo[nid].lruvec_stats_percpu);
	free(memcg->vmstats_percpu);
	free(memcg);
}

struct mem_cgroup *set_active_memcg(struct mem_cgroup *memcg)
{
	struct mem_cgroup *old = active_memcg;

	active_memcg = memcg;
	return old;
}

/* this_cpu_add() on @p, this CPU's copy. */
static inline void memcg_this_cpu_add(long *p, long val)
{
	if (mmu_arch == MMU_ARM64)
		__atomic_fetch_add(p, val, __ATOMIC_RELAXED);	/* STADD */
	else
		WRITE_ONCE(*p, READ_ONCE(*p) + val);
}

/* this_cpu_add_return() on @p. */
static inline unsigned int memcg_this_cpu_add_return(unsigned int *p, unsigned int val)
{
	unsigned int v;

	if (mmu_arch == MMU_ARM64)
		return __atomic_add_fetch(p, val, __ATOMIC_RELAXED);	/* LDADD */
	v = READ_ONCE(*p) + val;
	WRITE_ONCE(*p, v);
	return v;
}

/* this_cpu_xchg() on @p. */
static inline unsigned int memcg_this_cpu_xchg(unsigned int *p, unsigned int val)
{
	unsigned int old;

	if (mmu_arch == MMU_ARM64)
		return __atomic_exchange_n(p, val, __ATOMIC_RELAXED);	/* SWP */
	old = READ_ONCE(*p);
	WRITE_ONCE(*p, val);
	return old;
}

/* The cgroup has enough updates folded to be flushed: its ancestors too. */
static bool memcg_vmstats_needs_flush(struct memcg_vmstats *vmstats)
{
	return atomic_long_read(&vmstats->stats_updates) > (long)MEMCG_CHARGE_BATCH * nr_memcg_cpus();
}

/*
 * Count @val updates of @memcg on @cpu at each level up to the root: a
 * level's count goes to its shared atomic once it reaches
 * MEMCG_CHARGE_BATCH, and a level already due a flush ends the walk.
 */
static void memcg_rstat_updated(struct mem_cgroup *memcg, long val, int cpu)
{
	struct memcg_vmstats_percpu *statc_pcpu = memcg->vmstats_percpu;
	unsigned int stats_updates;

	if (!val)
		return;
	/* css_rstat_updated(): the cgroup goes on this CPU's updated list once. */
	if (!READ_ONCE(statc_pcpu[cpu].rstat_updated))
		WRITE_ONCE(statc_pcpu[cpu].rstat_updated, true);
	for (; statc_pcpu; statc_pcpu = statc_pcpu[cpu].parent_pcpu) {
		struct memcg_vmstats_percpu *statc = &statc_pcpu[cpu];

		if (memcg_vmstats_needs_flush(statc->vmstats))
			break;
		stats_updates = memcg_this_cpu_add_return(&statc->stats_updates,
							  (unsigned int)(val < 0 ? -val : val));
		if (stats_updates < MEMCG_CHARGE_BATCH)
			continue;
		stats_updates = memcg_this_cpu_xchg(&statc->stats_updates, 0);
		atomic_long_add(stats_updates, &statc->vmstats->stats_updates);
	}
}

void __mod_memcg_lruvec_state(struct mem_cgroup *memcg, int nid, enum node_stat_item idx, long val)
{
	int cpu = smp_processor_id();

	memcg_this_cpu_add(&memcg->vmstats_percpu[cpu].state[idx], val);
	memcg_this_cpu_add(&memcg->nodeinfo[nid].lruvec_stats_percpu[cpu].state[idx], val);
	memcg_rstat_updated(memcg, val, cpu);
}

long memcg_page_state(struct mem_cgroup *memcg, enum node_stat_item idx)
{
	long x = 0;

	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		x += READ_ONCE(memcg->vmstats_percpu[cpu].state[idx]);
	return x;
}

long lruvec_page_state(struct mem_cgroup *memcg, int nid, enum node_stat_item idx)
{
	long x = 0;

	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		x += READ_ONCE(memcg->nodeinfo[nid].lruvec_stats_percpu[cpu].state[idx]);
	return x;
}

/* Charge @nr pages at every level from @counter up (no limits here). */
static void page_counter_charge(struct page_counter *counter, long nr)
{
	for (struct page_counter *c = counter; c; c = c->parent)
		atomic_long_add(nr, &c->usage);
}

static void page_counter_uncharge(struct page_counter *counter, long nr)
{
	for (struct page_counter *c = counter; c; c = c->parent)
		atomic_long_sub(nr, &c->usage);
}

void mem_cgroup_charge(struct folio *folio)
{
	struct mem_cgroup *memcg = active_memcg;

	if (!memcg)
		return;
	page_counter_charge(&memcg->memory, (long)folio_nr_pages(folio));
	folio->memcg_data = (unsigned long)memcg;	/* commit_charge() */
}

void mem_cgroup_uncharge(struct folio *folio)
{
	struct mem_cgroup *memcg = (struct mem_cgroup *)folio->memcg_data;

	if (!memcg)
		return;
	page_counter_uncharge(&memcg->memory, (long)folio_nr_pages(folio));
	folio->memcg_data = 0;
}

/*
 * The kernel's uncharge_folio() per folio, then uncharge_batch() once per
 * cgroup met: the page counters.  A batch from reclaim is one cgroup's.
 */
void mem_cgroup_uncharge_folios(struct folio_batch *fbatch)
{
	struct mem_cgroup *memcg = NULL;
	long nr = 0;

	for (unsigned int i = 0; i < fbatch->nr; i++) {
		struct folio *folio = fbatch->folios[i];
		struct mem_cgroup *m = (struct mem_cgroup *)folio->memcg_data;

		if (!m)
			continue;
		if (m != memcg) {
			if (memcg)
				page_counter_uncharge(&memcg->memory, nr);
			memcg = m;
			nr = 0;
		}
		nr += (long)folio_nr_pages(folio);
		folio->memcg_data = 0;
	}
	if (memcg)
		page_counter_uncharge(&memcg->memory, nr);
}
