/*
 * build/mmlab: the registry of experiments.  The only file that names
 * them; everything else takes a `const struct experiment *`.
 */
#include <alloca.h>
#include <stdint.h>
#include <stdio.h>

#include <mmlab/lab.h>

/* Every experiment, in `mmlab list` order: one line each (src/experiments/<name>.c's exp_<name>). */
#define EXPERIMENTS(X)		\
	X(refcount_scale)	\
	X(free_contig)		\
	X(readseq)		\
	X(vmalloc)		\
	X(migrate_fork)		\
	X(reclaim_large)	\
	X(pcp_drain)		\
	X(alloc_free)

#define DECLARE_EXPERIMENT(name) extern const struct experiment exp_##name;
EXPERIMENTS(DECLARE_EXPERIMENT)

#define EXPERIMENT_ENTRY(name) &exp_##name,
const struct experiment *const experiments[] = {
	EXPERIMENTS(EXPERIMENT_ENTRY)
	NULL,
};

/*
 * The kernel model reads structures on this thread's stack in virtual
 * time, and the simulated caches see which 64-byte lines they straddle.
 * The kernel places the stack at a random 16-byte offset in its page: a
 * pad puts lab_main()'s frames at the same page offset in every run, so a
 * simulated machine gives the same numbers every time.
 */
int main(int argc, char **argv)
{
	volatile char *pad = alloca(((uintptr_t)__builtin_frame_address(0) & 4095) + 64);

	pad[0] = 0;
	return lab_main(argc, argv, experiments, stdout, stderr);
}
