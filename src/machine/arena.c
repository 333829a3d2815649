// SPDX-License-Identifier: GPL-2.0
/*
 * The host memory behind the simulated machine's frames (machine.h,
 * machine_arena_get()).  A run boots a fresh machine for every sample.  In
 * virtual time (machine_arena_reuse()) the arena the last one gave back is
 * handed to the next of the same size, so the host backs and zeroes its
 * pages once a run rather than once a sample (migrate-fork's 1,000 children
 * touch 5 GiB of it); the host's faults cost the model nothing either way.
 * On the host they are in the timed calls, so there every sample gets a
 * fresh mapping and pays its first touches as every other does.  Nothing in the
 * kernel model reads a frame it has not written since boot: frames are
 * zeroed where the kernel zeroes them (__GFP_ZERO, page tables, anonymous
 * faults) and filled where it fills them, so what a reused arena still
 * holds is never seen.  Called by the booting thread only.
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/mman.h>

#include <machine/machine.h>

static bool reuse;
static void *spare;
static size_t spare_bytes;

void machine_arena_reuse(bool on)
{
	reuse = on;
	if (!on)
		machine_arena_drop();
}

void *machine_arena_get(size_t bytes)
{
	void *p;

	if (spare && spare_bytes == bytes) {
		p = spare;
		spare = NULL;
		return p;
	}
	machine_arena_drop();
	/* Untouched pages cost the host nothing. */
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void machine_arena_put(void *p, size_t bytes)
{
	machine_arena_drop();
	if (!reuse) {
		munmap(p, bytes);
		return;
	}
	spare = p;
	spare_bytes = bytes;
}

void machine_arena_drop(void)
{
	if (spare)
		munmap(spare, spare_bytes);
	spare = NULL;
}
