/*
 * build/mmlab: the registry of experiments.  The only file that names
 * them; everything else takes a `const struct experiment *`.
 */
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

int main(int argc, char **argv)
{
	return lab_main(argc, argv, experiments, stdout, stderr);
}
