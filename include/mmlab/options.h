/*
 * A run's configuration from the command line (opt_global.c, opt_value.c):
 * the global options, each experiment option's value, their limits, and
 * sizes as the options write them.  The help text is opt_help.h.
 */
#ifndef MMLAB_OPTIONS_H
#define MMLAB_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mmlab/experiment.h>

struct host_facts;
struct vt_machine;

#define LAB_MAX_LIST	1024		/* items in one OPT_INT_LIST */
#define LAB_MAX_REPEAT	1000
/*
 * --repeat auto[:SECONDS]: at least LAB_AUTO_MIN_REPEAT repetitions, then
 * more until every comparison's interval is narrow (--ci-target), until
 * SECONDS of sampling have passed, or LAB_AUTO_MAX_REPEAT repetitions.
 */
#define LAB_AUTO_MIN_REPEAT	3
#define LAB_AUTO_MAX_REPEAT	200
#define LAB_AUTO_SECONDS	60
#define LAB_AUTO_MAX_SECONDS	86400
#define LAB_CI_TARGET_PCT	2.0
#define LAB_CI_TARGET_MIN	0.1
#define LAB_CI_TARGET_MAX	50.0
#define LAB_MAX_SHARDS		1024
#define LAB_MIN_MEM	(4ULL << 20)
#define LAB_DEFAULT_MEM	"256M"		/* unless the experiment has its default_mem */

struct lab_config {
	const struct experiment *exp;
	enum scale scale;
	int repeat;			/* with repeat_auto: the most repetitions */
	bool repeat_auto;		/* --repeat auto[:SECONDS] */
	double auto_seconds;		/* its time bound */
	double ci_target_pct;		/* --ci-target: half-width of the interval, % of the ratio */
	int shard_index, shard_count;	/* --shard I/N; 0/0 when not sharded */
	uint64_t seed;
	unsigned long long mem_bytes;
	int preempt;			/* --preempt: the kernel's enum preempt_model */
	const char *json_path;		/* NULL: no JSON */
	bool help;			/* --help was given: nothing else parsed */
	bool quiet;			/* no progress lines (tests) */
	/* Selected variants, in the experiment's order. */
	const struct exp_variant **variants;
	int nr_variants;
	struct opt_value *values;	/* one per exp->options[] */
	struct vt_machine *vt;		/* --machine: NULL for host, else the simulated machine */
};

/*
 * The design of @v's kernel build when `make DESIGNS=...` left it out of
 * build/mmlab (see struct exp_variant.impl), or NULL.
 */
const char *lab_variant_not_built(const struct exp_variant *v);

/*
 * Parse the arguments after `run NAME`.  Returns 0, or -1 with one line
 * in @err (no "mmlab: " prefix, no newline) naming the option, the bad
 * value and what is valid.  Never exits.  On success free with
 * lab_config_free().
 */
int lab_parse_args(struct lab_config *cfg, const struct experiment *exp,
		   const struct host_facts *m, int argc, char **argv,
		   char *err, size_t len);
void lab_config_free(struct lab_config *cfg);

/* Parse @text as the value of @o into @v (v->list is malloc'ed). */
int lab_parse_value(const struct exp_option *o, const char *text,
		    const struct host_facts *m, struct opt_value *v,
		    char *err, size_t len);
void lab_value_free(struct opt_value *v);

/* "256M", "1.5G", "4096": bytes (K/M/G/T are powers of 1024). */
int lab_parse_size(const char *text, unsigned long long *bytes);
/* "256M" when exact, else "23.4G (25153044480 bytes)". */
void lab_format_size(char *buf, size_t len, unsigned long long bytes);

const char *lab_scale_name(enum scale s);

#endif
