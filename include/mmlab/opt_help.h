/*
 * The `mmlab run NAME --help` text (opt_help.c).
 */
#ifndef MMLAB_OPT_HELP_H
#define MMLAB_OPT_HELP_H

#include <stdio.h>

struct experiment;
struct lab_machine;

/* The experiment's variants, then every option with its default and valid values. */
void lab_print_help(FILE *f, const struct experiment *exp,
		    const struct lab_machine *m);

#endif
