// SPDX-License-Identifier: GPL-2.0
/*
 * Where the blocks go: MMLAB_VT_BLOCKPROF=FILE counts every basic block a
 * CPU of a run enters by its call site (the trace-pc hook's return
 * address, so one count per instrumented block of the kernel model), and
 * apart those inside a timed window (vt_window_begin() .. _end(), the
 * single-threaded experiments' measured calls); at exit it writes FILE:
 * "OFFSET COUNT WINDOWED" lines, OFFSET the site's address less the
 * binary's load address, most counted first.  tools/blockprof.sh names
 * them (addr2line) and sums them by function.  The host pays a lookup per
 * block; virtual time, which counts blocks, is the same with and without.
 * memcpy()'s bytes charged as blocks (vt_cache.c) have no call site and are
 * not in it.  MMLAB_VT_BLOCKPROF_EVENTS=rmw counts the locked RMWs instead,
 * by the site that made each (vt_access()'s caller: the kernel model's
 * atomic, or the machine's spinlock), blocks not at all; =miss counts the
 * L1 misses (a line from the L2, the L3, memory or another core) by the
 * access that made each: a plain load or store (its instrumentation call's
 * caller), a marked one or an atomic (vt_access()'s), a memcpy() or memset()
 * (its caller) for all the lines it moves; the prefetcher's fills, which no
 * access waits on at once, are not misses.
 * =stall counts the picoseconds each access stalled on the memory system
 * (share_mem_pct's time): the access that waits, which is not always the
 * one whose miss it waits for (a locked RMW waits for the stores buffered
 * before it; a full window of misses stalls the access that finds it full).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vt_int.h"

#define VT_PROF_BITS	20
#define VT_PROF_SLOTS	(1UL << VT_PROF_BITS)

struct vt_prof_slot *vt_prof;
enum vt_prof_event vt_prof_ev;
static const char *vt_prof_path;
static unsigned long vt_prof_lost;	/* sites past a full table */
static unsigned long vt_prof_used;

void vt_prof_add(uintptr_t pc, unsigned long n, bool windowed)
{
	unsigned long i = (unsigned long)((pc * 0x9E3779B97F4A7C15ull) >> (64 - VT_PROF_BITS));

	while (vt_prof[i].pc != pc) {
		if (!vt_prof[i].pc) {
			if (vt_prof_used + 1 >= VT_PROF_SLOTS / 2) {
				vt_prof_lost += n;
				return;
			}
			vt_prof_used++;
			vt_prof[i].pc = pc;
			break;
		}
		i = (i + 1) & (VT_PROF_SLOTS - 1);
	}
	vt_prof[i].n += n;
	vt_prof[i].windowed += windowed ? n : 0;
}

static int by_count(const void *a, const void *b)
{
	const struct vt_prof_slot *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : (x->pc > y->pc) - (x->pc < y->pc);
}

static void vt_prof_write(void)
{
	uintptr_t base = 0;
	unsigned long n = 0;
	char tmp[4096];
	Dl_info info;
	FILE *f;

	if (dladdr((void *)vt_prof_write, &info) && info.dli_fbase)
		base = (uintptr_t)info.dli_fbase;
	for (unsigned long i = 0; i < VT_PROF_SLOTS; i++)
		if (vt_prof[i].pc)
			vt_prof[n++] = vt_prof[i];
	qsort(vt_prof, n, sizeof(*vt_prof), by_count);
	/* Whole or not at all: written under a temporary name, then renamed. */
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", vt_prof_path, (long)getpid());
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "mmlab: MMLAB_VT_BLOCKPROF: cannot write %s\n", tmp);
		return;
	}
	for (unsigned long i = 0; i < n; i++)
		fprintf(f, "%#lx %lu %lu\n", (unsigned long)(vt_prof[i].pc - base), vt_prof[i].n,
			vt_prof[i].windowed);
	if (vt_prof_lost)
		fprintf(f, "# lost %lu events: more call sites than the table holds\n", vt_prof_lost);
	if (ferror(f) | fclose(f) || rename(tmp, vt_prof_path)) {
		fprintf(stderr, "mmlab: MMLAB_VT_BLOCKPROF: cannot write %s\n", vt_prof_path);
		unlink(tmp);
	}
}

__attribute__((constructor)) static void vt_prof_init(void)
{
	const char *ev = getenv("MMLAB_VT_BLOCKPROF_EVENTS");

	vt_prof_path = getenv("MMLAB_VT_BLOCKPROF");
	if (!vt_prof_path || !*vt_prof_path)
		return;
	if (!ev || !*ev || !strcmp(ev, "blocks")) {
		vt_prof_ev = VT_PROF_BLOCKS;
	} else if (!strcmp(ev, "rmw")) {
		vt_prof_ev = VT_PROF_RMW;
	} else if (!strcmp(ev, "miss")) {
		vt_prof_ev = VT_PROF_MISS;
	} else if (!strcmp(ev, "stall")) {
		vt_prof_ev = VT_PROF_STALL;
	} else {
		fprintf(stderr, "mmlab: MMLAB_VT_BLOCKPROF_EVENTS=%s: valid: blocks, rmw, miss, stall\n", ev);
		exit(2);
	}
	vt_prof = calloc(VT_PROF_SLOTS, sizeof(*vt_prof));
	if (!vt_prof) {
		fprintf(stderr, "mmlab: MMLAB_VT_BLOCKPROF: no memory for the table\n");
		return;
	}
	atexit(vt_prof_write);
}
