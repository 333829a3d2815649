/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Facts about the host a run happens on (src/lab/host_facts.c): its CPUs,
 * memory and CPU model, for option limits and the run's JSON record, and
 * the working tree's git revision.  A run on a simulated machine
 * (--machine) overwrites the CPUs, model and name with the simulated
 * machine's before they are recorded (src/lab/runner.c).
 */
#ifndef MMLAB_HOST_FACTS_H
#define MMLAB_HOST_FACTS_H

#include <stddef.h>

struct host_facts {
	int cpus;			/* online */
	unsigned long long mem_bytes;	/* physical */
	char cpu_model[128];
	char name[64];			/* --machine: "" on the host, else the simulated machine */
};

void host_facts_probe(struct host_facts *m);

/* `git rev-parse --short HEAD` of the working directory, or "unknown". */
void host_git_rev(char *buf, size_t len);

#endif
