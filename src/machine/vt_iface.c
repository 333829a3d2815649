// SPDX-License-Identifier: GPL-2.0
/*
 * A simulated machine in virtual time (machine/vt.h) as a machine of the
 * machine interface (machine/machine.h): its runs are vt_run()s of the vt
 * builds, its CPUs the machine file's, its clock virtual.
 */
#include <stdio.h>

#include <machine/machine.h>
#include <machine/vt.h>

/*
 * The line table's bound (2^24 slots, 3/4 used) at about two lines a cached
 * page: the page cache a run can hold.
 */
#define VT_MAX_PAGE_CACHE	(16ULL << 30)

static int vt_iface_set_cpus(const struct machine *m, int nr_cpus)
{
	(void)m;
	return vt_set_nr_cpus(nr_cpus);
}

/*
 * The window: the run's virtual time to the stop (when every CPU's clock
 * has passed @stop->virtual_ns), or to the last CPU's end; where the
 * run's code marks windows, theirs (vt_window_begin()).
 */
static int vt_iface_run(const struct machine *m, int n, machine_thread_fn fn, void *const *args,
			const struct machine_stop *stop, struct machine_stats *st)
{
	if (vt_run(m->priv, n, fn, args, stop ? stop->flag : NULL, stop ? stop->virtual_ns : 0, st))
		return -1;
	st->counted = true;
	return 0;
}

static int vt_iface_call(const struct machine *m, machine_thread_fn fn, void *arg,
			 struct machine_stats *st)
{
	void *args[1] = { arg };

	return vt_iface_run(m, 1, fn, args, NULL, st);
}

/* A vt build's __delay() loop is one virtual nanosecond. */
static double vt_iface_delay_loops_per_ns(const struct machine *m)
{
	(void)m;
	return 1.0;
}

static const struct machine_ops vt_iface_ops = {
	.set_cpus = vt_iface_set_cpus,
	.run = vt_iface_run,
	.call = vt_iface_call,
	.delay_loops_per_ns = vt_iface_delay_loops_per_ns,
};

/*
 * Here, in the machine library, which is linked after the kernel builds:
 * storage in the runner's objects would move the builds' globals, whose
 * places in their cache lines a simulated machine's timings depend on.
 */
static struct machine vt_iface_machine;

const struct machine *machine_vt(const struct vt_machine *vm)
{
	struct machine *m = &vt_iface_machine;

	*m = (struct machine){
		.nr_cpus = vm->nr_cpus,
		.max_nr_cpu_ids = VT_MAX_CPUS,
		.cpus_more = "",
		.build = MACHINE_BUILD_VT,
		.syscall_ns = vm->syscall_ns,
		.tlb_flush_ns = vm->tlb_flush_ns,
		.tlbi_ns = vm->tlbi_ns,
		.first_touch_ns = vm->first_touch_ns,
		.backing_order = vm->backing_order,
		.max_page_cache = VT_MAX_PAGE_CACHE,
		.counts = true,
		.ops = &vt_iface_ops,
		.priv = vm,
	};
	snprintf(m->name_buf, sizeof(m->name_buf), "%s", vm->name);
	snprintf(m->what_buf, sizeof(m->what_buf), "%s's", vm->name);
	m->name = m->name_buf;
	m->cpus_what = m->what_buf;
	return m;
}
