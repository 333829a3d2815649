/*
 * What run_one() records into a sample besides its value.  Counter names
 * are kept by pointer: they must live until the run ends (literals do).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mmlab/experiment.h>

static struct counter *new_counter(struct sample *s, const char *name)
{
	if (s->nr_counters >= MAX_COUNTERS) {
		fprintf(stderr, "mmlab: internal error: more than %d counters (at '%s')\n",
			MAX_COUNTERS, name);
		abort();
	}
	return &s->counters[s->nr_counters++];
}

void sample_counter(struct sample *s, const char *name, double value)
{
	struct counter *c = new_counter(s, name);

	c->name = name;
	c->value = value;
	c->json = NULL;
}

void sample_counter_json(struct sample *s, const char *name, const char *json)
{
	struct counter *c = new_counter(s, name);

	c->name = name;
	c->value = 0;
	c->json = strdup(json);
	if (!c->json) {
		fprintf(stderr, "mmlab: out of memory\n");
		abort();
	}
}

/* Keeps the first failure's message: later ones are usually its fallout. */
void sample_fail(struct sample *s, bool data, const char *fmt, ...)
{
	bool first = !s->invariants_failed && !s->data_failed;
	va_list ap;

	if (data)
		s->data_failed = true;
	else
		s->invariants_failed = true;
	if (!first)
		return;
	va_start(ap, fmt);
	vsnprintf(s->failure, sizeof(s->failure), fmt, ap);
	va_end(ap);
	s->failure[strcspn(s->failure, "\n")] = '\0';
}
