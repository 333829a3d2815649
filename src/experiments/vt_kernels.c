/*
 * Every design's builds, one per kind of machine (enum machine_build), for
 * exp_build() (src/experiments/common.h).  Apart from common.c so that
 * what links the shared helpers alone needs no kernel build.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define DESIGN(d) { [MACHINE_BUILD_RUN] = &mm_kernel_##d##_run, [MACHINE_BUILD_VT] = &mm_kernel_##d##_vt }

static const struct mm_kernel *const designs[][MACHINE_NR_BUILDS] = {
	DESIGN(vanilla), DESIGN(refcount_frozen_bit), DESIGN(refcount_cmpxchg_guess),
	DESIGN(refcount_seqcount_read), DESIGN(ra_batched), DESIGN(vanilla_v1base),
	DESIGN(contig_batched), DESIGN(contig_bulk), DESIGN(contig_chunk_prepare),
	DESIGN(mgt_entry), DESIGN(mgt_counter), DESIGN(rmap_batched_referenced), DESIGN(rmap_batched),
	DESIGN(pcp_drain_batch),
};

const struct mm_kernel *exp_build(const struct exp_ctx *ctx, const struct mm_kernel *k)
{
	for (size_t i = 0; i < sizeof(designs) / sizeof(designs[0]); i++)
		if (!strcmp(designs[i][MACHINE_BUILD_RUN]->name, k->name))
			return designs[i][ctx->machine->build];
	/* Every design is in VT_KERNELS: a missing one is a bug of the lab. */
	fprintf(stderr, "mmlab: no build of %s in src/experiments/vt_kernels.c\n", k->name);
	abort();
}
