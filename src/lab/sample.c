/*
 * What run_one() records into a sample besides its value.  Counter names
 * are kept by pointer: they must live until the run ends (literals and
 * sample_name()'s copies do).
 */
#define _GNU_SOURCE
#include <pthread.h>
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

void sample_metric(struct sample *s, const char *name, double value)
{
	int i;

	for (i = 0; i < s->nr_metrics; i++)
		if (!strcmp(s->metrics[i].name, name)) {
			s->metrics[i].value = value;
			return;
		}
	if (s->nr_metrics >= MAX_METRICS - 1) {
		fprintf(stderr, "mmlab: internal error: more than %d extra metrics (at '%s')\n",
			MAX_METRICS - 1, name);
		abort();
	}
	s->metrics[s->nr_metrics].name = name;
	s->metrics[s->nr_metrics].value = value;
	s->nr_metrics++;
}

/* Names made at run time: never freed, one copy per text. */
struct name {
	struct name *next;
	char text[];
};

static struct name *names;
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;

const char *sample_name(const char *fmt, ...)
{
	struct name *n;
	va_list ap;
	char *text;
	int len;

	va_start(ap, fmt);
	len = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (len < 0) {
		fprintf(stderr, "mmlab: out of memory\n");
		abort();
	}
	pthread_mutex_lock(&names_lock);
	for (n = names; n; n = n->next)
		if (!strcmp(n->text, text))
			break;
	if (!n) {
		n = malloc(sizeof(*n) + len + 1);
		if (!n) {
			fprintf(stderr, "mmlab: out of memory\n");
			abort();
		}
		memcpy(n->text, text, len + 1);
		n->next = names;
		names = n;
	}
	pthread_mutex_unlock(&names_lock);
	free(text);
	return n->text;
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

int exp_points_from_list(struct exp_ctx *ctx, const char *opt, const char *key)
{
	const struct opt_value *v = exp_opt(ctx, opt);

	if (v->nr_list > MAX_POINTS) {
		fprintf(stderr, "mmlab: --%s lists %d values; at most %d\n", opt, v->nr_list, MAX_POINTS);
		return -1;
	}
	for (int i = 0; i < v->nr_list; i++) {
		struct exp_point *p = &ctx->points[i];

		p->arg = v->list[i];
		snprintf(p->json, sizeof(p->json), "{\"%s\": %lld}", key, p->arg);
		snprintf(p->label, sizeof(p->label), "%lld", p->arg);
	}
	ctx->nr_points = v->nr_list;
	return 0;
}
