/*
 * A minimal TAP producer for mmlab's C tests (read by tools/run-tests.sh).
 *
 *	plan_no_plan();
 *	ok(cond, "what must hold");
 *	is_int(got, expected, "name");
 *	return done_testing();
 */
#ifndef MMLAB_TAP_H
#define MMLAB_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_run, tap_failed;

static inline void plan_no_plan(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

static inline int tap_vok(int cond, const char *fmt, va_list ap)
{
	tap_run++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_run);
	vprintf(fmt, ap);
	printf("\n");
	return cond;
}

static inline int __attribute__((format(printf, 2, 3))) ok(int cond, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = tap_vok(cond, fmt, ap);
	va_end(ap);
	return ret;
}

#define is_int(got, expected, ...) ({					\
	long long __g = (long long)(got), __e = (long long)(expected);	\
	int __r = ok(__g == __e, __VA_ARGS__);				\
	if (!__r)							\
		printf("#   got %lld (0x%llx), expected %lld (0x%llx)\n",	\
		       __g, (unsigned long long)__g, __e, (unsigned long long)__e); \
	__r;								\
})

static inline void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

/* A multi-line text (a checker trace) as indented diagnostic lines. */
static inline void diag_trace(const char *text)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);

		diag("  %.*s", n, p);
		p += n + (nl ? 1 : 0);
	}
}

static inline int done_testing(void)
{
	printf("1..%d\n", tap_run);
	return tap_failed ? 1 : 0;
}

#endif
