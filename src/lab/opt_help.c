/*
 * `mmlab run NAME --help`: the variants, the global options and the
 * experiment's own, each with its default (per scale where it differs)
 * and the values it accepts.
 */
#include <stdio.h>
#include <string.h>

#include <mmlab/host_facts.h>
#include <mmlab/lab.h>
#include <mmlab/opt_global.h>
#include <mmlab/opt_help.h>
#include <mmlab/opt_value.h>
#include <mmlab/options.h>

static void help_line(FILE *f, const char *name, const char *meta, const char *help,
		      const char *def, const char *valid)
{
	char head[64];

	snprintf(head, sizeof(head), "--%s %s", name, meta);
	fprintf(f, "  %-26s %s\n", head, help);
	fprintf(f, "  %-26s default %s; valid: %s\n", "", def, valid);
}

static void describe_default(const struct exp_option *o, const struct host_facts *m,
			     char *buf, size_t len)
{
	const char *def = opt_default(o, SCALE_DEFAULT);
	size_t used;
	char size[64];
	int s;

	if (!def) {
		snprintf(buf, len, "none (required)");
		return;
	}
	used = snprintf(buf, len, "%s", def);
	if (!strcmp(def, "nproc") && used < len)
		used += snprintf(buf + used, len - used, " (1-%d here)", m->cpus);
	if (!strcmp(def, "machine") && used < len) {
		lab_format_size(size, sizeof(size), m->mem_bytes);
		used += snprintf(buf + used, len - used, " (%s here)", size);
	}
	for (s = 0; s < NR_SCALES; s++) {
		if (s == SCALE_DEFAULT || !o->def[s] || !strcmp(o->def[s], def) || used >= len)
			continue;
		used += snprintf(buf + used, len - used, ", at --scale %s %s",
				 lab_scale_names[s], o->def[s]);
	}
}

static void print_variants(FILE *f, const struct experiment *exp)
{
	int i;

	fprintf(f, "variants (%s is the baseline, unless one names its own):\n", LAB_BASELINE);
	for (i = 0; i < exp->nr_variants; i++) {
		fprintf(f, "  %-26s %s\n", exp->variants[i].name,
			exp->variants[i].desc ? exp->variants[i].desc : "");
		if (exp->variants[i].base)
			fprintf(f, "  %-26s baseline: %s, and %s too\n", "", exp->variants[i].base,
				LAB_BASELINE);
	}
}

static void print_globals(FILE *f, const struct experiment *exp, const struct host_facts *m)
{
	char valid[LAB_ERR_LEN / 2], def[128];
	int g, s;
	size_t used;

	fprintf(f, "options of every experiment:\n");
	for (g = 0; g < NR_GLOBALS; g++) {
		opt_describe_global(g, exp, m, valid, sizeof(valid));
		switch (g) {
		case G_VARIANT:	snprintf(def, sizeof(def), "all"); break;
		case G_SCALE:	snprintf(def, sizeof(def), "default"); break;
		case G_SEED:	snprintf(def, sizeof(def), "1"); break;
		case G_JSON:	snprintf(def, sizeof(def), "none"); break;
		case G_MACHINE:	snprintf(def, sizeof(def), "host"); break;
		case G_PREEMPT:	snprintf(def, sizeof(def), "voluntary"); break;
		case G_CI_TARGET: snprintf(def, sizeof(def), "%g", LAB_CI_TARGET_PCT); break;
		case G_SHARD:	snprintf(def, sizeof(def), "none (every point)"); break;
		case G_MEM:
			used = snprintf(def, sizeof(def), "%s", opt_default_mem(exp, SCALE_DEFAULT));
			for (s = 0; s < NR_SCALES && used < sizeof(def); s++)
				if (strcmp(opt_default_mem(exp, s), opt_default_mem(exp, SCALE_DEFAULT)))
					used += snprintf(def + used, sizeof(def) - used, ", at --scale %s %s",
							 lab_scale_names[s], opt_default_mem(exp, s));
			break;
		case G_REPEAT:
			used = snprintf(def, sizeof(def), "%d", opt_default_repeat(exp, SCALE_DEFAULT));
			for (s = 0; s < NR_SCALES && used < sizeof(def); s++)
				if (s != SCALE_DEFAULT)
					used += snprintf(def + used, sizeof(def) - used, ", at --scale %s %d",
							 lab_scale_names[s], opt_default_repeat(exp, s));
			break;
		}
		help_line(f, lab_globals[g].name, lab_globals[g].metavar, lab_globals[g].help, def, valid);
	}
}

void lab_print_help(FILE *f, const struct experiment *exp, const struct host_facts *m)
{
	char valid[LAB_ERR_LEN / 2], def[256];
	int i;

	fprintf(f, "usage: mmlab run %s [options]\n\n", exp->name);
	fprintf(f, "%s\n", exp->desc ? exp->desc : "");
	fprintf(f, "reproduces: %s\nmetric: %s (%s, %s is better)\n\n", exp->seed ? exp->seed : "-",
		exp->metric, exp->unit, exp->higher_is_better ? "higher" : "lower");
	print_variants(f, exp);
	fprintf(f, "\n");
	print_globals(f, exp, m);
	if (!exp->nr_options)
		return;
	fprintf(f, "\noptions of %s:\n", exp->name);
	for (i = 0; i < exp->nr_options; i++) {
		const struct exp_option *o = &exp->options[i];

		opt_describe_valid(o, valid, sizeof(valid));
		describe_default(o, m, def, sizeof(def));
		help_line(f, o->name, opt_metavar(o), o->help ? o->help : "", def, valid);
	}
}
