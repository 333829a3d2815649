/*
 * Option parsing of `mmlab run NAME`: values of every type, the --scale
 * presets, the global options, and that every bad input comes back as one
 * line naming the option, the value and the valid range, without exiting.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mmlab/lab.h>
#include <mmlab/opt_help.h>
#include <mmlab/opt_value.h>
#include <mmlab/options.h>

#include "tap.h"
#include "lab_synth.h"

static char err[LAB_ERR_LEN];

/* Parse a NULL-terminated argument list; the config is freed unless @keep. */
static int parse(struct lab_config *cfg, const char *const *args)
{
	int argc = 0;

	while (args[argc])
		argc++;
	return lab_parse_args(cfg, &synth_higher, &synth_machine, argc, (char **)args,
			      err, sizeof(err));
}

static const struct opt_value *value_of(const struct lab_config *cfg, const char *name)
{
	int i;

	for (i = 0; i < cfg->exp->nr_options; i++)
		if (!strcmp(cfg->exp->options[i].name, name))
			return &cfg->values[i];
	return NULL;
}

static bool has(const char *s, const char *part)
{
	return strstr(s, part) != NULL;
}

/* An error must be one line that names the option, the value and what is valid. */
static void expect_error(const char *const *args, const char *opt, const char *value,
			 const char *valid)
{
	struct lab_config cfg;
	int ret = parse(&cfg, args);

	ok(ret == -1, "%s %s: rejected", opt, value);
	ok(has(err, opt) && has(err, value) && has(err, valid) && !strchr(err, '\n'),
	   "%s %s: one line naming it and '%s' (got: %s)", opt, value, valid, err);
}

static void test_sizes(void)
{
	unsigned long long b;
	char buf[64];

	ok(!lab_parse_size("4096", &b) && b == 4096, "size 4096");
	ok(!lab_parse_size("4K", &b) && b == 4096, "size 4K");
	ok(!lab_parse_size("4k", &b) && b == 4096, "size 4k");
	ok(!lab_parse_size("256M", &b) && b == 256ULL << 20, "size 256M");
	ok(!lab_parse_size("1G", &b) && b == 1ULL << 30, "size 1G");
	ok(!lab_parse_size("2T", &b) && b == 2ULL << 40, "size 2T");
	ok(!lab_parse_size("1.5G", &b) && b == 3ULL << 29, "size 1.5G");
	ok(lab_parse_size("", &b) == -1, "size '' rejected");
	ok(lab_parse_size("-1", &b) == -1, "size -1 rejected");
	{
		long long ll;

		ok(!opt_parse_ll("-5", &ll) && ll == -5, "integer -5 (a signed option's value)");
		ok(!opt_parse_ll("+7", &ll) && ll == 7, "integer +7");
		ok(opt_parse_ll("-", &ll) == -1, "a lone sign rejected");
	}
	ok(lab_parse_size("12Q", &b) == -1, "size 12Q rejected");
	ok(lab_parse_size("1.5", &b) == -1, "size 1.5 (bytes) rejected");
	ok(lab_parse_size("4KB", &b) == -1, "size 4KB rejected");
	ok(lab_parse_size(" 4K", &b) == -1, "size ' 4K' rejected");
	ok(lab_parse_size("99999999999999999999", &b) == -1, "size overflow rejected");
	ok(lab_parse_size("99999999999T", &b) == -1, "size overflow by suffix rejected");
	lab_format_size(buf, sizeof(buf), 256ULL << 20);
	ok(!strcmp(buf, "256M"), "format 256M (got %s)", buf);
	lab_format_size(buf, sizeof(buf), 3ULL << 29);
	ok(!strcmp(buf, "1536M"), "format 1536M (got %s)", buf);
	lab_format_size(buf, sizeof(buf), 1000);
	ok(!strcmp(buf, "1000"), "format 1000 (got %s)", buf);
	lab_format_size(buf, sizeof(buf), (1ULL << 30) + 1);
	ok(has(buf, "1.0G") && has(buf, "1073741825 bytes"), "format inexact (got %s)", buf);
}

static void test_values(void)
{
	const struct exp_option *list = &synth_options[0], *choice = &synth_options[4];
	struct opt_value v;

	ok(!lab_parse_value(list, "1,2,4", &synth_machine, &v, err, sizeof(err)) &&
	   v.nr_list == 3 && v.list[0] == 1 && v.list[1] == 2 && v.list[2] == 4, "list 1,2,4");
	lab_value_free(&v);
	ok(!lab_parse_value(list, "1-4", &synth_machine, &v, err, sizeof(err)) &&
	   v.nr_list == 4 && v.list[0] == 1 && v.list[3] == 4, "list 1-4");
	lab_value_free(&v);
	ok(!lab_parse_value(list, "2-3,8,10-11", &synth_machine, &v, err, sizeof(err)) &&
	   v.nr_list == 5 && v.list[1] == 3 && v.list[2] == 8 && v.list[4] == 11, "list 2-3,8,10-11");
	lab_value_free(&v);
	ok(!lab_parse_value(list, "nproc", &synth_machine, &v, err, sizeof(err)) &&
	   v.nr_list == 4 && v.list[0] == 1 && v.list[3] == 4, "list nproc = 1..cpus");
	lab_value_free(&v);
	ok(!lab_parse_value(list, "64", &synth_machine, &v, err, sizeof(err)) && v.list[0] == 64,
	   "list at the maximum");
	lab_value_free(&v);
	ok(!lab_parse_value(choice, "abort", &synth_machine, &v, err, sizeof(err)) && v.choice == 3,
	   "choice abort is index 3");
	ok(lab_parse_value(choice, "abor", &synth_machine, &v, err, sizeof(err)) == -1 &&
	   has(err, "none|data|invariants|abort|refuse"), "choice prefix rejected, choices listed");
	ok(lab_parse_value(list, "4-1", &synth_machine, &v, err, sizeof(err)) == -1 &&
	   has(err, "empty"), "list 4-1 rejected as empty (%s)", err);
	ok(lab_parse_value(list, "1,,2", &synth_machine, &v, err, sizeof(err)) == -1, "list 1,,2 rejected");
	ok(lab_parse_value(list, "1,", &synth_machine, &v, err, sizeof(err)) == -1, "list '1,' rejected");
	ok(lab_parse_value(list, "", &synth_machine, &v, err, sizeof(err)) == -1, "list '' rejected");
	ok(lab_parse_value(list, "1-", &synth_machine, &v, err, sizeof(err)) == -1, "list '1-' rejected");
	ok(lab_parse_value(list, "1-x", &synth_machine, &v, err, sizeof(err)) == -1, "list '1-x' rejected");
	ok(lab_parse_value(list, "0,1", &synth_machine, &v, err, sizeof(err)) == -1 &&
	   has(err, "0 is out of range") && has(err, "1..64"), "list below the minimum (%s)", err);
	ok(lab_parse_value(list, "60-70", &synth_machine, &v, err, sizeof(err)) == -1 &&
	   has(err, "70 is out of range"), "range past the maximum (%s)", err);
}

/* An integer option that also takes a word ("auto"), as --syscall-ns does. */
static void test_int_or_word(void)
{
	const struct exp_option o = { "cost", OPT_INT, "a cost or auto", { [SCALE_DEFAULT] = "auto" },
				      0, 100, "auto" };
	struct opt_value v;

	ok(!lab_parse_value(&o, "auto", &synth_machine, &v, err, sizeof(err)) && v.choice == 0 && v.i == 0,
	   "int-or-word: 'auto' is the word");
	ok(!lab_parse_value(&o, "42", &synth_machine, &v, err, sizeof(err)) && v.choice == -1 && v.i == 42,
	   "int-or-word: 42 is a number (choice -1)");
	ok(lab_parse_value(&o, "autox", &synth_machine, &v, err, sizeof(err)) == -1 &&
	   has(err, "valid: an integer in 0..100 or auto"), "int-or-word: other words rejected, naming both (%s)", err);
	ok(lab_parse_value(&o, "101", &synth_machine, &v, err, sizeof(err)) == -1 && has(err, "out of range"),
	   "int-or-word: the range still holds");
}

static void test_defaults_and_scales(void)
{
	const char *def[] = { NULL };
	const char *tiny[] = { "--scale", "tiny", NULL };
	const char *full[] = { "--scale=full", NULL };
	struct lab_config cfg;

	ok(!parse(&cfg, def), "no arguments: defaults (%s)", err);
	ok(cfg.scale == SCALE_DEFAULT && cfg.repeat == 5 && cfg.seed == 1 &&
	   cfg.mem_bytes == 256ULL << 20 && !cfg.json_path, "global defaults");
	ok(cfg.nr_variants == 4 && !strcmp(cfg.variants[0]->name, "vanilla"), "all variants by default");
	ok(value_of(&cfg, "n")->nr_list == 2 && value_of(&cfg, "bytes")->i == 65536 &&
	   value_of(&cfg, "factor")->d == 1.5 && value_of(&cfg, "count")->i == 7 &&
	   value_of(&cfg, "fail")->choice == 0, "option defaults at --scale default");
	lab_config_free(&cfg);

	ok(!parse(&cfg, tiny), "--scale tiny");
	ok(cfg.repeat == 2 && value_of(&cfg, "n")->nr_list == 1 && value_of(&cfg, "count")->i == 7,
	   "tiny: its own repeat and list, default's count (NULL preset)");
	lab_config_free(&cfg);

	ok(!parse(&cfg, full), "--scale=full");
	ok(cfg.repeat == 7 && value_of(&cfg, "count")->i == 9 &&
	   value_of(&cfg, "bytes")->i == (long long)synth_machine.mem_bytes,
	   "full: repeat 7, count 9, bytes = machine");
	lab_config_free(&cfg);
}

static void test_globals(void)
{
	const char *args[] = { "--variant", "slow,vanilla", "--repeat=3", "--seed",
			       "18446744073709551615", "--mem", "8G", "--json", "/tmp/x.json",
			       "--count", "100", "--n=3-5", "--bytes", "1.5G", "--factor", "0",
			       "--fail", "data", NULL };
	const char *help[] = { "--bogus", "--help", NULL };
	struct lab_config cfg;

	ok(!parse(&cfg, args), "every option given (%s)", err);
	ok(cfg.nr_variants == 2 && !strcmp(cfg.variants[0]->name, "vanilla") &&
	   !strcmp(cfg.variants[1]->name, "slow"), "--variant: the experiment's order");
	ok(cfg.repeat == 3 && cfg.seed == UINT64_MAX && cfg.mem_bytes == 8ULL << 30 &&
	   !strcmp(cfg.json_path, "/tmp/x.json"), "--repeat --seed --mem --json");
	ok(value_of(&cfg, "count")->i == 100 && value_of(&cfg, "n")->nr_list == 3 &&
	   value_of(&cfg, "n")->list[0] == 3 && value_of(&cfg, "bytes")->i == 3LL << 29 &&
	   value_of(&cfg, "factor")->d == 0 && value_of(&cfg, "fail")->choice == FAIL_DATA,
	   "experiment options, both spellings");
	lab_config_free(&cfg);

	ok(!parse(&cfg, help) && cfg.help, "--help wins over a bad option");
	lab_config_free(&cfg);
}

static void test_errors(void)
{
	expect_error((const char *[]){ "--variant", "vanilla,turbo", NULL }, "--variant", "turbo",
		     "vanilla, fast, slow, same");
	expect_error((const char *[]){ "--variant", "", NULL }, "--variant", "''", "vanilla");
	expect_error((const char *[]){ "--scale", "huge", NULL }, "--scale", "huge", "tiny|default|full");
	expect_error((const char *[]){ "--repeat", "0", NULL }, "--repeat", "'0'", "1..1000");
	expect_error((const char *[]){ "--repeat", "1001", NULL }, "--repeat", "1001", "1..1000");
	expect_error((const char *[]){ "--repeat", "2x", NULL }, "--repeat", "2x", "1..1000");
	expect_error((const char *[]){ "--seed", "-1", NULL }, "--seed", "-1", "0..18446744073709551615");
	expect_error((const char *[]){ "--seed", "18446744073709551616", NULL }, "--seed",
		     "18446744073709551616", "0..18446744073709551615");
	expect_error((const char *[]){ "--mem", "1M", NULL }, "--mem", "1M", "4M..8G");
	expect_error((const char *[]){ "--mem", "9G", NULL }, "--mem", "9G", "more than the machine's memory); valid: a size in 4M..8G");
	expect_error((const char *[]){ "--mem", "lots", NULL }, "--mem", "lots", "4M..8G");
	expect_error((const char *[]){ "--json", NULL }, "--json", "missing value", "file name");
	expect_error((const char *[]){ "--json=", NULL }, "--json", "''", "file name");
	expect_error((const char *[]){ "--repeat", "--seed", "3", NULL }, "--repeat", "missing value", "1..1000");
	expect_error((const char *[]){ "--count", "0", NULL }, "--count", "'0'", "1..100");
	expect_error((const char *[]){ "--count", "101", NULL }, "--count", "101", "1..100");
	expect_error((const char *[]){ "--count", "1.5", NULL }, "--count", "1.5", "integer in 1..100");
	expect_error((const char *[]){ "--factor", "10.5", NULL }, "--factor", "10.5", "0..10");
	expect_error((const char *[]){ "--factor", "nan", NULL }, "--factor", "nan", "0..10");
	expect_error((const char *[]){ "--bytes", "1K", NULL }, "--bytes", "1K", "4K..1024T");
	expect_error((const char *[]){ "--n", "65", NULL }, "--n", "65", "1..64");
	expect_error((const char *[]){ "--fail", "maybe", NULL }, "--fail", "maybe", "none|data");
	expect_error((const char *[]){ "--threads", "2", NULL }, "--threads", "synth", "--count");
	expect_error((const char *[]){ "stray", NULL }, "stray", "synth", "--NAME VALUE");
	expect_error((const char *[]){ "-x", NULL }, "-x", "synth", "--NAME VALUE");
	expect_error((const char *[]){ "--repeat", "auto:0", NULL }, "--repeat", "auto:0", "1..86400");
	expect_error((const char *[]){ "--repeat", "auto:86401", NULL }, "--repeat", "auto:86401", "1..86400");
	expect_error((const char *[]){ "--repeat", "auto:x", NULL }, "--repeat", "auto:x", "1..86400");
	expect_error((const char *[]){ "--repeat", "autox", NULL }, "--repeat", "autox", "1..1000");
	expect_error((const char *[]){ "--ci-target", "5", NULL }, "--ci-target", "without --repeat auto",
		     "0.1..50");
	expect_error((const char *[]){ "--repeat", "auto", "--ci-target", "0", NULL }, "--ci-target",
		     "'0'", "0.1..50");
	expect_error((const char *[]){ "--repeat", "auto", "--ci-target", "1x", NULL }, "--ci-target",
		     "1x", "0.1..50");
	expect_error((const char *[]){ "--shard", "2/2", NULL }, "--shard", "2/2", "I in 0..N-1");
	expect_error((const char *[]){ "--shard", "0/0", NULL }, "--shard", "0/0", "N in 1..1024");
	expect_error((const char *[]){ "--shard", "-1/2", NULL }, "--shard", "-1/2", "I in 0..N-1");
	expect_error((const char *[]){ "--shard", "1", NULL }, "--shard", "'1'", "I/N");
	expect_error((const char *[]){ "--shard", "1/2x", NULL }, "--shard", "1/2x", "I/N");
}

static void test_auto_and_shard(void)
{
	const char *args[] = { "--repeat", "auto:30", "--ci-target", "1.5", "--shard", "1/3", NULL };
	const char *plain[] = { "--repeat", "auto", NULL };
	struct lab_config cfg;

	ok(!parse(&cfg, args) && cfg.repeat_auto && cfg.auto_seconds == 30 &&
	   cfg.ci_target_pct == 1.5 && cfg.repeat == LAB_AUTO_MAX_REPEAT &&
	   cfg.shard_index == 1 && cfg.shard_count == 3, "--repeat auto:30 --ci-target 1.5 --shard 1/3 (%s)", err);
	lab_config_free(&cfg);
	ok(!parse(&cfg, plain) && cfg.repeat_auto && cfg.auto_seconds == LAB_AUTO_SECONDS &&
	   cfg.ci_target_pct == LAB_CI_TARGET_PCT && cfg.shard_count == 0,
	   "--repeat auto: the default bound and target, no shard");
	lab_config_free(&cfg);
}

/* An experiment's own --mem defaults: taken when --mem is not given, shown by --help. */
static void test_default_mem(void)
{
	struct experiment big = synth_higher;
	const char *tiny[] = { "--scale", "tiny" }, *full[] = { "--scale", "full" };
	const char *given[] = { "--scale", "full", "--mem", "1G" };
	struct lab_config cfg;
	char *help = NULL;
	size_t help_len;
	FILE *f;

	big.default_mem[SCALE_TINY] = "256M";
	big.default_mem[SCALE_DEFAULT] = "1536M";
	big.default_mem[SCALE_FULL] = "9G";
	ok(!lab_parse_args(&cfg, &big, &synth_machine, 0, NULL, err, sizeof(err)) &&
	   cfg.mem_bytes == 1536ULL << 20, "default_mem at --scale default (%s)", err);
	lab_config_free(&cfg);
	ok(!lab_parse_args(&cfg, &big, &synth_machine, 2, (char **)tiny, err, sizeof(err)) &&
	   cfg.mem_bytes == 256ULL << 20, "default_mem at --scale tiny (%s)", err);
	lab_config_free(&cfg);
	ok(!lab_parse_args(&cfg, &big, &synth_machine, 4, (char **)given, err, sizeof(err)) &&
	   cfg.mem_bytes == 1ULL << 30, "--mem wins over default_mem (%s)", err);
	lab_config_free(&cfg);
	ok(lab_parse_args(&cfg, &big, &synth_machine, 2, (char **)full, err, sizeof(err)) == -1 &&
	   has(err, "--mem: invalid value '9G' (synth's default at --scale full, more than the machine's memory)") &&
	   has(err, "4M..8G") && !strchr(err, '\n'), "a default_mem above the machine's memory: one line (%s)", err);

	big.default_mem[SCALE_TINY] = NULL;
	big.default_mem[SCALE_FULL] = NULL;
	ok(!lab_parse_args(&cfg, &big, &synth_machine, 2, (char **)tiny, err, sizeof(err)) &&
	   cfg.mem_bytes == 1536ULL << 20, "a NULL default_mem at a scale is the default scale's (%s)", err);
	lab_config_free(&cfg);

	big.default_mem[SCALE_TINY] = "256M";
	f = open_memstream(&help, &help_len);
	lab_print_help(f, &big, &synth_machine);
	fclose(f);
	ok(has(help, "default 1536M, at --scale tiny 256M; valid: a size in 4M..8G"),
	   "--help shows default_mem per scale");
	free(help);
	help = NULL;
	f = open_memstream(&help, &help_len);
	lab_print_help(f, &synth_higher, &synth_machine);
	fclose(f);
	ok(has(help, "default 256M; valid: a size in 4M..8G"), "--help without default_mem: 256M");
	free(help);
}

int main(void)
{
	plan_no_plan();
	test_sizes();
	test_values();
	test_int_or_word();
	test_defaults_and_scales();
	test_globals();
	test_errors();
	test_auto_and_shard();
	test_default_mem();
	return done_testing();
}
