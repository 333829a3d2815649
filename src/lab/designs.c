/*
 * Stand-ins for the designs `make DESIGNS=...` leaves out of build/mmlab.
 *
 * The experiments name every design's descriptors (mm_kernel_<design>_run,
 * _ev, _vt); a design that is not built gets three here instead, so mmlab
 * links with any set of designs and the measured paths call a built
 * design's descriptor exactly as before.  The runner refuses a variant of a
 * stand-in before any sample (lab_variant_not_built()); should anything
 * boot one regardless, its mem_init() says which designs are built and
 * exits 2.  The list is build/gen/designs.h, written by the Makefile:
 *
 *	#define MM_DESIGNS_BUILT "vanilla contig-bulk"
 *	NOT_BUILT(contig_batched, "contig-batched")
 *	...
 *
 * Linked into build/mmlab only (not liblab.a, which the runner's tests use).
 */
#include <stdio.h>
#include <stdlib.h>

#include <mmlab/kernel.h>

/* What migrate-fork and every boot set before they boot a build. */
static int stand_in_nodes __attribute__((unused)) = 1;
static int stand_in_preempt __attribute__((unused));

static __attribute__((unused)) int not_built(const char *design)
{
	fflush(stdout);
	fprintf(stderr, "mmlab: design %s is not built into this mmlab; built: %s (make DESIGNS=...)\n",
		design, mm_designs_built);
	exit(2);
}

#define NOT_BUILT(sym, design)								\
	static int sym##_mem_init(unsigned long long bytes)				\
	{										\
		(void)bytes;								\
		return not_built(design);						\
	}										\
	const struct mm_kernel mm_kernel_##sym##_run = {				\
		.name = design, .mem_init = sym##_mem_init, .nr_online_nodes = &stand_in_nodes, \
		.preempt_model = &stand_in_preempt,					\
	};										\
	const struct mm_kernel mm_kernel_##sym##_ev = {					\
		.name = design, .events = true, .mem_init = sym##_mem_init,		\
		.nr_online_nodes = &stand_in_nodes, .preempt_model = &stand_in_preempt,	\
	};										\
	const struct mm_kernel mm_kernel_##sym##_vt = {					\
		.name = design, .mem_init = sym##_mem_init, .nr_online_nodes = &stand_in_nodes, \
		.preempt_model = &stand_in_preempt,					\
	};
#include "designs.h"
#undef NOT_BUILT

const struct mm_kernel *const mm_kernels_not_built[] = {
#define NOT_BUILT(sym, design)	&mm_kernel_##sym##_run, &mm_kernel_##sym##_ev, &mm_kernel_##sym##_vt,
#include "designs.h"
#undef NOT_BUILT
	NULL
};

const char mm_designs_built[] = MM_DESIGNS_BUILT;
