/*
 * Parsing one option's value by its type (opt_value.c): what the global
 * options (opt_global.c) and the help (opt_help.c) share besides the
 * public lab_parse_value() / lab_parse_size() / lab_format_size().
 */
#ifndef MMLAB_OPT_VALUE_H
#define MMLAB_OPT_VALUE_H

#include <stddef.h>
#include <stdint.h>

#include <mmlab/experiment.h>

/* Formats one error line into @buf; returns -1. */
int opt_fail(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A decimal integer at the start of @s; *end is set past it.  0 or -1. */
int opt_scan_ll(const char *s, long long *v, const char **end);
/* All of @s a decimal integer. */
int opt_parse_ll(const char *s, long long *v);
/* All of @s an unsigned 64-bit decimal integer. */
int opt_parse_u64(const char *s, uint64_t *v);

/* "an integer in 1..64": what @o accepts, for errors and help. */
void opt_describe_valid(const struct exp_option *o, char *buf, size_t len);
/* "N", "SIZE", "LIST": the placeholder of @o's value in the help. */
const char *opt_metavar(const struct exp_option *o);
/* The text of @o's default at @s, NULL if it has none. */
const char *opt_default(const struct exp_option *o, enum scale s);

#endif
