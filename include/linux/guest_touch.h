/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's backing of a guest's memory (seed 003's "2-node test
 * environment using QEMU"; not a kernel interface).  In a fresh KVM guest
 * the first write to a guest-physical frame the host has never backed exits
 * on an EPT violation; KVM faults the page in on the host side
 * (handle_ept_violation -> kvm_mmu_faultin_pfn -> hva_to_pfn -> get_user_pages
 * -> handle_mm_fault: allocate and zero a host page) and maps it.  QEMU
 * madvises guest RAM MADV_HUGEPAGE (ram_block_add()), so with host THP one
 * fault backs a whole 2 MiB host page.
 *
 * Off (backed == NULL) unless a workload arms it: then every allocation
 * marks its host pages backed; one made while @armed whose host page was
 * never backed pays the first touch at its first write: at once for a
 * __GFP_ZERO allocation (the zeroing), else at guest_touch_write() (a copy).
 * The charge: @fault_ns (ndelay) plus the host's zeroing of the host page,
 * a memset through the machine's memory model.
 */
#ifndef _LINUX_GUEST_TOUCH_H
#define _LINUX_GUEST_TOUCH_H

#include <stdbool.h>

struct page;

struct guest_touch {
	unsigned long *backed;		/* bit per host page; NULL: not modelled */
	unsigned long *pending;		/* bit per frame: first write pays the host fault */
	unsigned int host_order;	/* a host page is 1 << host_order frames */
	unsigned long fault_ns;		/* exit + host fault path, zeroing excluded */
	bool armed;			/* inside the timed call: charge */
	unsigned long faults;		/* host pages charged */
};

extern struct guest_touch guest_touch;

void guest_touch_alloc(struct page *page, unsigned int order, bool zeroed);
void guest_touch_write(struct page *page, unsigned int order);

#endif
