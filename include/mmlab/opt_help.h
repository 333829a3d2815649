/*
 * The `mmlab run NAME --help` text (opt_help.c).
 */
#ifndef MMLAB_OPT_HELP_H
#define MMLAB_OPT_HELP_H

#include <stdio.h>

struct experiment;
struct host_facts;

/* The experiment's variants, then every option with its default and valid values. */
void lab_print_help(FILE *f, const struct experiment *exp,
		    const struct host_facts *m);

#endif
