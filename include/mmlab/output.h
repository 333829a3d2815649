/*
 * A run's results as tables (table.c) and as JSON (json.c).
 */
#ifndef MMLAB_OUTPUT_H
#define MMLAB_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include <mmlab/experiment.h>

struct lab_results;

/* Per metric: medians with boosts, spread, mmtests rows; then one footer. */
void lab_table_print(FILE *f, const struct lab_results *r);
/* A median or sample as the tables show it: integer when large. */
void lab_format_value(char *buf, size_t len, double v);
/* "#threads 2": the point as messages name it. */
void lab_format_point(char *buf, size_t len, const struct experiment *exp,
		      const struct exp_point *p);
/* Returns 0, or -1 if writing failed. */
int lab_json_write(FILE *f, const struct lab_results *r, const char *git);

#endif
