/*
 * The options every experiment takes (opt_global.c): their table, what
 * each accepts, and the defaults the help (opt_help.c) shows.
 */
#ifndef MMLAB_OPT_GLOBAL_H
#define MMLAB_OPT_GLOBAL_H

#include <stddef.h>

#include <mmlab/experiment.h>

struct host_facts;

enum global_opt { G_VARIANT, G_SCALE, G_REPEAT, G_SEED, G_JSON, G_MEM, G_CI_TARGET, G_SHARD,
		  G_MACHINE, G_PREEMPT, NR_GLOBALS };

struct global_desc {
	const char *name, *metavar, *help;
};

extern const struct global_desc lab_globals[NR_GLOBALS];
extern const char *const lab_scale_names[NR_SCALES];
/* --preempt's word for an enum preempt_model (mmlab/kernel.h). */
const char *lab_preempt_name(int model);

/* What global option @g accepts, for errors and help. */
void opt_describe_global(int g, const struct experiment *exp,
			 const struct host_facts *m, char *buf, size_t len);
/* --repeat and --mem when not given, at scale @s. */
int opt_default_repeat(const struct experiment *exp, enum scale s);
const char *opt_default_mem(const struct experiment *exp, enum scale s);

#endif
