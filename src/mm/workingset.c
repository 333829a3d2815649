// SPDX-License-Identifier: GPL-2.0
/*
 * The part of mm/workingset.c that runs when a folio is activated: the
 * lruvec's non-resident age clock advances by the folio's pages.  Refault
 * distances (shadow entries) are not modelled; the clock is, because the
 * kernel advances it on the read path: folio_mark_accessed() activates a
 * folio on its second touch, and a folio parked in some CPU's activation
 * batch (off the LRU, so never made active) is "activated" again on every
 * second read, one atomic add on a line every reader
 * shares.  The kernel with memcg enabled adds once for the folio's cgroup
 * and once for each of its ancestors; the model adds once, for the node
 * (as with mem_cgroup_disabled()), whether or not the folio is charged
 * (linux/memcontrol.h: only reclaim-large charges its file).
 */
#include <linux/atomic.h>
#include <linux/mm.h>
#include <linux/swap.h>

void workingset_age_nonresident(struct lruvec *lruvec, unsigned long nr_pages)
{
	atomic_long_add((long)nr_pages, &lruvec->nonresident_age);
}

void workingset_activation(struct folio *folio)
{
	workingset_age_nonresident(&node_lruvec, folio_nr_pages(folio));
}
