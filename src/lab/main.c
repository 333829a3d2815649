/*
 * build/mmlab: the registry of experiments.  The only file that names
 * them; everything else takes a `const struct experiment *`.
 */
#include <alloca.h>
#include <stdint.h>
#include <stdio.h>

#include <mmlab/lab.h>

extern const struct experiment exp_refcount_scale;
extern const struct experiment exp_free_contig;
extern const struct experiment exp_readseq;
extern const struct experiment exp_vmalloc;
extern const struct experiment exp_migrate_fork;
extern const struct experiment exp_reclaim_large;

const struct experiment *const experiments[] = {
	&exp_refcount_scale,
	&exp_free_contig,
	&exp_readseq,
	&exp_vmalloc,
	&exp_migrate_fork,
	&exp_reclaim_large,
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
