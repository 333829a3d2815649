/*
 * The runner's commands (`mmlab ARGS`, compare, merge) and the names
 * every part of it shares: its version, the baseline variant, the size of
 * an error buffer.  Each concept of the runner has a header of its own:
 * options.h, stats.h, noise.h, result.h, output.h, host_facts.h, vt_presets.h.
 * Everything takes a `const struct experiment *`; only src/lab/main.c
 * knows the real experiments, so tests link the runner (liblab.a) against
 * synthetic ones.
 */
#ifndef MMLAB_LAB_H
#define MMLAB_LAB_H

#include <stdbool.h>
#include <stdio.h>

#include <mmlab/experiment.h>
/* lab_format_size(), for the experiments that still include this header for it */
#include <mmlab/options.h>

#define LAB_VERSION	"0.1.0"
#define LAB_BASELINE	"vanilla"
#define LAB_ERR_LEN	512		/* size of every error buffer */

/* --- comparing and merging result files (compare.c, merge.c) ------------------ */

/*
 * `mmlab compare [--force] A B`: files or results/<run-id>/ directories;
 * the exit status.  Runs whose params differ (other than the repetitions,
 * the variants and a point's axis) are refused unless @force.
 */
int lab_compare(const char *a, const char *b, bool force, FILE *out, FILE *err);
/* `mmlab merge OUT SHARD...`: the exit status (2 usage or unreadable, 1 inconsistent). */
int lab_merge(const char *out_path, int nr, char **shards,
	      const struct experiment *const *exps, FILE *out, FILE *err);

/* --- the command line (cli.c) ---------------------------------------------- */

/* `mmlab ARGS...` over the NULL-terminated @exps; returns the exit status. */
int lab_main(int argc, char **argv, const struct experiment *const *exps,
	     FILE *out, FILE *err);

#endif
