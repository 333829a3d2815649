/*
 * The command line: `mmlab list`, `mmlab run NAME [options]`, the help
 * texts.  Bad usage is one line on @err starting "mmlab: " and status 2.
 */
#include <stdio.h>
#include <string.h>

#include <mmlab/host_facts.h>
#include <mmlab/lab.h>
#include <mmlab/opt_help.h>
#include <mmlab/options.h>
#include <mmlab/result.h>
#include <mmlab/vt_presets.h>

#define COMMANDS	"list, variants NAME, machines, calibrate, run NAME [options], compare [--force] A B, merge OUT SHARD..., --help"

static void names_of(char *buf, size_t len, const struct experiment *const *exps)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; exps[i] && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? ", " : "", exps[i]->name);
}

static const struct experiment *find_experiment(const struct experiment *const *exps,
						const char *name)
{
	int i;

	for (i = 0; exps[i]; i++)
		if (!strcmp(exps[i]->name, name))
			return exps[i];
	return NULL;
}

/* The experiment @name, or NULL after one line on @err naming the valid ones. */
static const struct experiment *known_experiment(const struct experiment *const *exps,
						 const char *name, FILE *err)
{
	const struct experiment *exp = find_experiment(exps, name);
	char msg[LAB_ERR_LEN];

	if (!exp) {
		names_of(msg, sizeof(msg), exps);
		fprintf(err, "mmlab: unknown experiment '%s'; valid: %s\n", name, msg);
	}
	return exp;
}

static void list_experiments(FILE *f, const struct experiment *const *exps)
{
	int i, w = 0;

	for (i = 0; exps[i]; i++)
		if ((int)strlen(exps[i]->name) > w)
			w = strlen(exps[i]->name);
	for (i = 0; exps[i]; i++)
		fprintf(f, "%-*s  %s  %s\n", w, exps[i]->name,
			exps[i]->seed ? exps[i]->seed : "-", exps[i]->desc ? exps[i]->desc : "");
}

static void usage(FILE *f, const struct experiment *const *exps)
{
	fprintf(f, "usage: mmlab list                  the experiments, one a line\n"
		   "       mmlab variants NAME         its variants built into this mmlab, one a line\n"
		   "       mmlab machines              the machines --machine accepts, one a line\n"
		   "       mmlab calibrate             measure this host's latencies: a machine file\n"
		   "       mmlab run NAME [options]    run one, print its table\n"
		   "       mmlab run NAME --help       its variants and options\n"
		   "       mmlab compare A B           two runs side by side, A the baseline: two JSON\n"
		   "                                   result files, or two results/<run-id>/ directories;\n"
		   "                                   --force pairs runs whose parameters differ\n"
		   "       mmlab merge OUT SHARD...    merge the JSON of mmlab run --shard I/N into OUT\n\n"
		   "options of every experiment: --variant LIST|all, --scale tiny|default|full,\n"
		   "  --repeat R|auto[:SECONDS], --ci-target PCT, --shard I/N, --seed S, --json FILE,\n"
		   "  --mem SIZE, --machine host|NAME|FILE; VALUE may follow as --opt=VALUE\n"
		   "exit status: 0 success, 1 a check failed, 2 bad usage\n\n"
		   "experiments:\n");
	list_experiments(f, exps);
}

static int cmd_run(int argc, char **argv, const struct experiment *const *exps,
		   FILE *out, FILE *err)
{
	const struct experiment *exp;
	struct lab_config cfg;
	struct host_facts m;
	char msg[LAB_ERR_LEN];
	int status;

	if (argc < 1 || argv[0][0] == '-') {
		names_of(msg, sizeof(msg), exps);
		fprintf(err, "mmlab: run: missing experiment name%s%s%s; valid: %s\n",
			argc ? " before '" : "", argc ? argv[0] : "", argc ? "'" : "", msg);
		return 2;
	}
	exp = known_experiment(exps, argv[0], err);
	if (!exp)
		return 2;
	host_facts_probe(&m);
	if (lab_parse_args(&cfg, exp, &m, argc - 1, argv + 1, msg, sizeof(msg))) {
		fprintf(err, "mmlab: %s\n", msg);
		return 2;
	}
	if (cfg.help) {
		lab_print_help(out, exp, &m);
		status = 0;
	} else {
		status = lab_run(&cfg, &m, out, err);
	}
	lab_config_free(&cfg);
	return status;
}

/*
 * `variants NAME`: the variants of NAME whose design this mmlab was built
 * with (make DESIGNS=...), one a line in the experiment's order: what
 * --variant all picks, and what a script may name in --variant.
 */
static int cmd_variants(int argc, char **argv, const struct experiment *const *exps,
			FILE *out, FILE *err)
{
	const struct experiment *exp;
	char msg[LAB_ERR_LEN];
	int i;

	if (argc != 1) {
		names_of(msg, sizeof(msg), exps);
		fprintf(err, "mmlab: variants: takes one experiment name, got %d argument%s; valid: %s\n",
			argc, argc == 1 ? "" : "s", msg);
		return 2;
	}
	exp = known_experiment(exps, argv[0], err);
	if (!exp)
		return 2;
	for (i = 0; i < exp->nr_variants; i++)
		if (!lab_variant_not_built(&exp->variants[i]))
			fprintf(out, "%s\n", exp->variants[i].name);
	return 0;
}

/* `compare [--force] A B`, --force anywhere. */
static int cmd_compare(int argc, char **argv, FILE *out, FILE *err)
{
	const char *files[2];
	bool force = false;
	int i, n = 0;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--force")) {
			force = true;
		} else if (!strncmp(argv[i], "--", 2)) {
			fprintf(err, "mmlab: compare: unknown option '%s'; valid: --force\n", argv[i]);
			return 2;
		} else if (n < 2) {
			files[n++] = argv[i];
		} else {
			n++;
		}
	}
	if (n != 2) {
		fprintf(err, "mmlab: compare: takes 2 arguments (A B: result files or "
			"results/<run-id>/ directories; --force besides), got %d\n", n);
		return 2;
	}
	return lab_compare(files[0], files[1], force, out, err);
}

static bool is_help(const char *arg)
{
	return !strcmp(arg, "--help") || !strcmp(arg, "-h") || !strcmp(arg, "help");
}

int lab_main(int argc, char **argv, const struct experiment *const *exps,
	     FILE *out, FILE *err)
{
	if (argc < 2) {
		fprintf(err, "mmlab: missing command; valid: %s\n", COMMANDS);
		return 2;
	}
	if (is_help(argv[1])) {
		usage(out, exps);
		return 0;
	}
	if (!strcmp(argv[1], "list")) {
		if (argc > 2) {
			fprintf(err, "mmlab: list: unexpected argument '%s'; list takes none\n", argv[2]);
			return 2;
		}
		list_experiments(out, exps);
		return 0;
	}
	if (!strcmp(argv[1], "machines")) {
		if (argc > 2) {
			fprintf(err, "mmlab: machines: unexpected argument '%s'; machines takes none\n", argv[2]);
			return 2;
		}
		return lab_machines(out, err);
	}
	if (!strcmp(argv[1], "calibrate")) {
		if (argc > 2) {
			fprintf(err, "mmlab: calibrate: unexpected argument '%s'; calibrate takes none\n", argv[2]);
			return 2;
		}
		return lab_calibrate(out, err);
	}
	if (!strcmp(argv[1], "variants"))
		return cmd_variants(argc - 2, argv + 2, exps, out, err);
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 2, argv + 2, exps, out, err);
	if (!strcmp(argv[1], "compare"))
		return cmd_compare(argc - 2, argv + 2, out, err);
	if (!strcmp(argv[1], "merge")) {
		if (argc < 4) {
			fprintf(err, "mmlab: merge: takes OUT.json and at least 1 shard file, got %d "
				"argument%s\n", argc - 2, argc == 3 ? "" : "s");
			return 2;
		}
		return lab_merge(argv[2], argc - 3, argv + 3, exps, out, err);
	}
	fprintf(err, "mmlab: unknown command '%s'; valid: %s\n", argv[1], COMMANDS);
	return 2;
}
