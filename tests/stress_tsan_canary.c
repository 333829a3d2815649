/*
 * ThreadSanitizer canary: the RCU annotation in linux/rcupdate.h must hide
 * only what a grace period really orders.  Two children of this program:
 *
 *  racy	a reader copies a page's bytes under rcu_read_lock() with no
 *		reference, and the page is freed (and poisoned) with no grace
 *		period in between: a real use-after-free race that TSan must
 *		report;
 *  rcu		the same, but the freeing side waits in synchronize_rcu()
 *		first: correct, and TSan must stay silent.
 *
 * Plain (non-TSan) builds have nothing to check and skip.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/gfp.h>
#include <linux/mmzone.h>
#include <linux/rcupdate.h>
#include <machine/machine.h>

#include "tap.h"

static struct page *victim;
static int reader_done;
char canary_seen[64];	/* global, so the copy is not optimised away */

static void reader(void *arg)
{
	rcu_read_lock();
	memcpy(canary_seen, page_address(victim), sizeof(canary_seen));
	rcu_read_unlock();
	__atomic_store_n(&reader_done, 1, __ATOMIC_RELAXED);
	(void)arg;
}

static int child(bool grace_period)
{
	void *args[1] = { NULL };
	struct machine_threads *t;

	machine_init();
	if (mem_init(8ULL << 20))
		return 3;
	page_poisoning_on = true;
	victim = alloc_pages(GFP_KERNEL, 0);
	memset(page_address(victim), 1, PAGE_SIZE);
	t = machine_threads_start(1, reader, args);
	/* A relaxed flag orders nothing: only the grace period may. */
	while (!__atomic_load_n(&reader_done, __ATOMIC_RELAXED))
		;
	if (grace_period)
		synchronize_rcu();
	__free_pages(victim, 0);
	machine_threads_join(t);
	mem_exit();
	return 0;
}

/* Run this program as a child in @mode; returns its exit status and stderr. */
static int __maybe_unused run_child(const char *mode, char *err, size_t len)
{
	int pipefd[2], status;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		setenv("TSAN_OPTIONS", "halt_on_error=1 exitcode=66", 1);
		execl("/proc/self/exe", "stress_tsan_canary", mode, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	while (got < len - 1 && (n = read(pipefd[0], err + got, len - 1 - got)) > 0)
		got += (size_t)n;
	err[got] = 0;
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{

	if (argc == 2)
		return child(strcmp(argv[1], "rcu") == 0);

	plan_no_plan();
#ifndef __SANITIZE_THREAD__
	ok(1, "# SKIP only meaningful under ThreadSanitizer");
#else
	static char err[1 << 16];
	int status = run_child("racy", err, sizeof(err));

	is_int(status, 66, "a planted use-after-free race makes TSan fail the run");
	ok(strstr(err, "WARNING: ThreadSanitizer: data race") != NULL,
	   "TSan reports it as a data race");
	status = run_child("rcu", err, sizeof(err));
	is_int(status, 0, "with a grace period before the free, TSan is silent");
	if (status)
		diag("%.2000s", err);
#endif
	return done_testing();
}
