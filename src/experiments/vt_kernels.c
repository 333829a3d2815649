/*
 * The virtual-time builds of every design, found by the design's name
 * (exp_build(), src/experiments/common.h).  Apart from common.c so
 * that what links the shared helpers alone needs no kernel build.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const struct mm_kernel *const vt_kernels[] = {
	&mm_kernel_vanilla_vt, &mm_kernel_refcount_frozen_bit_vt, &mm_kernel_refcount_cmpxchg_guess_vt,
	&mm_kernel_refcount_seqcount_read_vt, &mm_kernel_ra_batched_vt, &mm_kernel_vanilla_v1base_vt,
	&mm_kernel_contig_batched_vt, &mm_kernel_contig_bulk_vt, &mm_kernel_contig_chunk_prepare_vt,
	&mm_kernel_mgt_entry_vt, &mm_kernel_mgt_counter_vt, &mm_kernel_rmap_referenced_vt,
	&mm_kernel_rmap_batched_vt,
};

const struct mm_kernel *exp_build(const struct exp_ctx *ctx, const struct mm_kernel *k)
{
	if (!ctx->vt)
		return k;
	for (size_t i = 0; i < sizeof(vt_kernels) / sizeof(vt_kernels[0]); i++)
		if (!strcmp(vt_kernels[i]->name, k->name))
			return vt_kernels[i];
	/* Every design is in VT_KERNELS: a missing one is a bug of the lab. */
	fprintf(stderr, "mmlab: no virtual-time build of %s in src/experiments/vt_kernels.c\n", k->name);
	abort();
}
