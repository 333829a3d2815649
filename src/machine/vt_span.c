// SPDX-License-Identifier: GPL-2.0
/*
 * Timed spans of the kernel model in virtual time: where the event build
 * reads the host's clock around a function (remove_migration_ptes(),
 * try_to_unmap(), ...), the vt flavour reads the virtual CPU's clock, so a
 * run on a simulated machine says where its time went as a host run does.
 * Reading it costs the model nothing.
 */
#include <machine/vt.h>

#include "vt_int.h"

unsigned long vt_span_clock(void)
{
	struct vt_cpu *c = vt.cur;

	return c ? (unsigned long)vt_now(c) : 0;
}

void vt_span_add(int key, unsigned long start)
{
	struct vt_cpu *c = vt.cur;
	vt_ps d;

	/* Agents (kthreads) are not the machine's CPUs: their time is not the run's. */
	if (!c || c->agent || key < 0 || key >= VT_NR_SPANS)
		return;
	d = vt_now(c) - start;
	vt.span_ps[key] += d;
	if (vt.window_open)
		vt.window_span_ps[key] += d;
}
