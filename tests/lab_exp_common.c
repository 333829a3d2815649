/*
 * Tests of src/experiments/common.c against a stand-in kernel build: the
 * boot, check and exit sequence every experiment shares, and reading vm
 * events by name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/cpumask.h>

#include "../src/experiments/common.h"
#include "tap.h"

static int booted, exited, check_fails;
static int boot_error;
static int cpus_at_boot;

static int fake_mem_init(unsigned long long bytes)
{
	if (boot_error)
		return boot_error;
	booted++;
	cpus_at_boot = nr_cpu_ids;
	return 0;
}

static void fake_mem_exit(void)
{
	exited++;
}

static int fake_mem_check(char *msg, size_t len)
{
	if (!check_fails)
		return 0;
	snprintf(msg, len, "3 pages still allocated");
	return -1;
}

static const char *const fake_names[] = { "pgfault", "pgref_cas_retry", "pte_rmw" };

static int fake_preempt = -1;

static const struct mm_kernel fake = {
	.name = "fake",
	.preempt_model = &fake_preempt,
	.events = true,
	.vm_event_names = fake_names,
	.nr_vm_events = 3,
	.mem_init = fake_mem_init,
	.mem_exit = fake_mem_exit,
	.mem_check = fake_mem_check,
};

static void test_boot_check_exit(void)
{
	struct exp_ctx ctx = { .mem_bytes = 64 << 20, .machine = &machine_host,
			       .preempt = PREEMPT_MODEL_FULL };
	struct sample s = { 0 };

	ok(exp_mem_boot(&ctx, &fake, 1) == 0 && booted == 1, "exp_mem_boot boots the build");
	ok(fake_preempt == PREEMPT_MODEL_FULL, "exp_mem_boot gives the build --preempt's model "
	   "before mem_init (got %d)", fake_preempt);
	exp_mem_check_exit(&fake, "fake", &s);
	ok(exited == 1 && !s.invariants_failed && !s.data_failed,
	   "a sound machine: shut down, nothing recorded");

	check_fails = 1;
	exp_mem_check_exit(&fake, "fake (event build)", &s);
	ok(exited == 2 && s.invariants_failed && !s.data_failed,
	   "a failed check is an invariant failure, and the machine is still shut down");
	ok(!strcmp(s.failure, "fake (event build): 3 pages still allocated"),
	   "... recorded as \"who: reason\" (%s)", s.failure);

	boot_error = -ENOMEM;
	ok(exp_mem_boot(&ctx, &fake, 1) == -1 && booted == 1, "a failed boot returns -1");
	boot_error = 0;
}

/*
 * The machine is sized for the point before the kernel boots: per-CPU
 * sizing at boot must see the point's CPUs, not the last sample's.
 */
static void test_sized_before_boot(void)
{
	struct exp_ctx ctx = { .mem_bytes = 64 << 20, .machine = &machine_host };
	struct sample s = { 0 };
	int ret = exp_mem_boot(&ctx, &fake, 24);

	ok(ret == 0 && cpus_at_boot == 24, "a 24-CPU point boots with nr_cpu_ids 24 (%d)", cpus_at_boot);
	exp_mem_check_exit(&fake, "fake", &s);
	ret = exp_mem_boot(&ctx, &fake, 2);
	ok(ret == 0 && cpus_at_boot == 2, "the next point (2 CPUs) boots with 2, not the 24 before it (%d)",
	   cpus_at_boot);
	exp_mem_check_exit(&fake, "fake", &s);
	booted = 0;
	fprintf(stderr, "# (two 'cannot size the machine' lines below are expected)\n");
	ok(exp_mem_boot(&ctx, &fake, 0) == -1 && exp_mem_boot(&ctx, &fake, NR_CPUS + 1) == -1 && !booted,
	   "0 or more than NR_CPUS CPUs: -1, nothing booted");
}

static void test_vm_events_by_name(void)
{
	unsigned long *ev = exp_vm_events_alloc(&fake);

	ok(ev && ev[0] == 0 && ev[1] == 0 && ev[2] == 0, "exp_vm_events_alloc: one zeroed slot per item");
	if (!ev)
		return;
	ev[0] = 7;
	ev[1] = 11;
	ev[2] = 13;
	is_int(exp_vm_event(&fake, ev, "pgref_cas_retry"), 11, "exp_vm_event finds an item by name");
	is_int(exp_vm_event(&fake, ev, "pte_rmw"), 13, "... the last one too");
	is_int(exp_vm_event(&fake, ev, "pgfault"), 7, "... and the first");
	free(ev);
}

int main(void)
{
	plan_no_plan();
	test_boot_check_exit();
	test_sized_before_boot();
	test_vm_events_by_name();
	return done_testing();
}
