/*
 * The machine a run is on, as the runner records it (src/lab/machine.c):
 * the host's CPUs, memory and model, or the simulated machine's name; and
 * the checkout's git revision.
 */
#ifndef MMLAB_HOST_H
#define MMLAB_HOST_H

#include <stddef.h>

struct lab_machine {
	int cpus;			/* online */
	unsigned long long mem_bytes;	/* physical */
	char cpu_model[128];
	char name[64];			/* --machine: "" on the host, else the simulated machine */
};

void lab_machine_probe(struct lab_machine *m);
/* `git rev-parse --short HEAD` of the working directory, or "unknown". */
void lab_git_rev(char *buf, size_t len);

#endif
