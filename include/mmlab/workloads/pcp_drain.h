/*
 * pcp-drain (src/workloads/pcp_drain.c): free order-0 pages onto this
 * CPU's pcp lists, then drain them back to the buddy.
 */
#ifndef MMLAB_WORKLOADS_PCP_DRAIN_H
#define MMLAB_WORKLOADS_PCP_DRAIN_H

struct pd_params {
	unsigned long pages;		/* order-0 pages allocated, then freed, before each drain */
	unsigned long iterations;	/* drains per sample */
};

struct pd_result {
	double usec;			/* the drains, summed */
	unsigned long drained;		/* pages on the lists at the drains, summed */
	int batch;			/* pcp->batch of this CPU */
};

#endif
