/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The virtual-time flavour's hooks (-DMMLAB_VT only; included by
 * linux/compiler.h): every GCC __atomic builtin the kernel model uses,
 * directly or through the shims (atomic_t, READ_ONCE/WRITE_ONCE, the
 * page-flag bit operations, seqcounts, page-table entries), first reports
 * its address and kind to the machine (vt_access()), which charges the
 * access's coherence cost and may run another virtual CPU first.  A
 * function-like macro is not expanded inside its own expansion, so each
 * macro below ends in the builtin it stands for.  A release-ordered write
 * is flagged: it is how the model's sleeping locks unlock (clear_bit_unlock
 * of PG_locked, up_read/up_write), and what wakes one of their sleepers.  Fences cost nothing
 * extra: under one-at-a-time execution every order is sequential, and on
 * x86 the locked RMW already is the barrier.
 */
#ifndef MACHINE_VT_HOOKS_H
#define MACHINE_VT_HOOKS_H

#ifdef MMLAB_VT

#include <stdbool.h>

void vt_access(const volatile void *p, int kind);
void vt_cas_result(bool ok);
void vt_frames(const void *arena, const void *memmap, unsigned long nr,
	       unsigned long page_size, unsigned long page_struct,
	       uint64_t present, uint64_t pfn_mask, unsigned int pfn_shift);

#define VT_HK_READ	0
#define VT_HK_WRITE	1
#define VT_HK_RMW	2
#define VT_HK_RELEASE	4	/* a release write: an unlock, which wakes a sleeper */
#define VT_HK_LOAD	8	/* a marked load the core may overlap like a plain one */
#define VT_HK_WORD	16	/* 8 bytes: what it loads may be a pointer */
#define VT_HK_ENTRY	32	/* a page-table entry: its frame is the next address */
#define __vt_rel(o)	((o) == __ATOMIC_RELEASE ? VT_HK_RELEASE : 0)
#define __vt_word(p)	(sizeof(*(p)) == 8 ? VT_HK_WORD : 0)

#define __atomic_load_n(p, o)						\
	(vt_access((p), VT_HK_READ | VT_HK_LOAD | __vt_word(p)), __atomic_load_n((p), (o)))
#define __atomic_store_n(p, v, o)					\
	(vt_access((p), VT_HK_WRITE | __vt_rel(o)), __atomic_store_n((p), (v), (o)))
#define __atomic_fetch_add(p, v, o)					\
	(vt_access((p), VT_HK_RMW | __vt_rel(o)), __atomic_fetch_add((p), (v), (o)))
#define __atomic_fetch_sub(p, v, o)					\
	(vt_access((p), VT_HK_RMW | __vt_rel(o)), __atomic_fetch_sub((p), (v), (o)))
#define __atomic_fetch_and(p, v, o)					\
	(vt_access((p), VT_HK_RMW | __vt_rel(o)), __atomic_fetch_and((p), (v), (o)))
#define __atomic_fetch_or(p, v, o)					\
	(vt_access((p), VT_HK_RMW | __vt_rel(o)), __atomic_fetch_or((p), (v), (o)))
#define __atomic_fetch_xor(p, v, o)					\
	(vt_access((p), VT_HK_RMW | __vt_rel(o)), __atomic_fetch_xor((p), (v), (o)))
#define __atomic_add_fetch(p, v, o)					\
	(vt_access((p), VT_HK_RMW | __vt_rel(o)), __atomic_add_fetch((p), (v), (o)))
#define __atomic_sub_fetch(p, v, o)					\
	(vt_access((p), VT_HK_RMW | __vt_rel(o)), __atomic_sub_fetch((p), (v), (o)))
#define __atomic_exchange_n(p, v, o)					\
	(vt_access((p), VT_HK_RMW | __vt_rel(o)), __atomic_exchange_n((p), (v), (o)))
#define __atomic_compare_exchange_n(p, e, v, w, s, f)			\
	({ bool __vt_ok;						\
	   vt_access((p), VT_HK_RMW);					\
	   __vt_ok = __atomic_compare_exchange_n((p), (e), (v), (w), (s), (f)); \
	   vt_cas_result(__vt_ok);					\
	   __vt_ok; })

#endif /* MMLAB_VT */

#endif
