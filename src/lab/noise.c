/*
 * Host noise: what the host did while a sample ran, read by the runner
 * just before and just after run_one(), never inside it.
 *
 *   steal     /proc/stat's first line ("cpu ..."): the steal ticks over all
 *             the ticks of every CPU between the two reads, in percent, so
 *             it is a share of the whole machine's time, not only of the
 *             CPUs the run used (a run cannot tell which CPUs a hypervisor
 *             preempted).  Ticks are 1/USER_HZ s: a sample of a few
 *             milliseconds sees none and reads as 0.
 *   nivcsw    getrusage(RUSAGE_SELF) involuntary context switches, every
 *             thread of the process (exited ones included).
 *   migrations  a perf software counter PERF_COUNT_SW_CPU_MIGRATIONS on
 *             the process, inherited by the threads a sample starts; when
 *             perf events are not permitted it is unavailable (-1), and
 *             the run goes on.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <mmlab/noise.h>

int lab_parse_proc_stat(const char *text, struct lab_cpu_times *t)
{
	unsigned long long v[10] = { 0 };
	const char *p = text;
	char *end;
	int n;

	if (strncmp(p, "cpu ", 4))
		return -1;
	p += 4;
	/* user nice system idle iowait irq softirq steal guest guest_nice */
	for (n = 0; n < 10; n++) {
		while (*p == ' ')
			p++;
		if (*p == '\n' || !*p)
			break;
		if (*p < '0' || *p > '9')
			return -1;
		v[n] = strtoull(p, &end, 10);
		p = end;
	}
	if (n < 4 || (*p && *p != '\n' && *p != ' '))
		return -1;
	/* guest time is already counted in user and nice */
	t->total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
	t->steal = v[7];
	return 0;
}

static int read_proc_stat(struct lab_cpu_times *t)
{
	char buf[512];
	FILE *f = fopen("/proc/stat", "r");
	int ret = -1;

	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		ret = lab_parse_proc_stat(buf, t);
	fclose(f);
	return ret;
}

void lab_noise_open(struct lab_noise_probe *probe)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_MIGRATIONS;
	attr.inherit = 1;
	attr.exclude_kernel = 0;
	probe->perf_fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (probe->perf_fd < 0) {
		/* an unprivileged user may still count its own user-space events */
		attr.exclude_kernel = 1;
		probe->perf_fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1,
					 PERF_FLAG_FD_CLOEXEC);
	}
}

void lab_noise_close(struct lab_noise_probe *probe)
{
	if (probe->perf_fd >= 0)
		close(probe->perf_fd);
	probe->perf_fd = -1;
}

void lab_noise_mark(const struct lab_noise_probe *probe, struct lab_noise_mark *m)
{
	struct rusage ru;
	unsigned long long count;

	m->cpu_ok = !read_proc_stat(&m->cpu);
	m->nivcsw = getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_nivcsw;
	m->migrations = -1;
	if (probe->perf_fd >= 0 && read(probe->perf_fd, &count, sizeof(count)) == sizeof(count))
		m->migrations = (long long)count;
}

void lab_noise_delta(const struct lab_noise_mark *a, const struct lab_noise_mark *b,
		     struct lab_sample_noise *n)
{
	memset(n, 0, sizeof(*n));
	n->steal_pct = NAN;
	if (a->cpu_ok && b->cpu_ok && b->cpu.total >= a->cpu.total && b->cpu.steal >= a->cpu.steal) {
		n->total_ticks = b->cpu.total - a->cpu.total;
		n->steal_ticks = b->cpu.steal - a->cpu.steal;
		n->steal_pct = n->total_ticks ? 100.0 * n->steal_ticks / n->total_ticks : 0;
	}
	n->nivcsw = a->nivcsw >= 0 && b->nivcsw >= a->nivcsw ? b->nivcsw - a->nivcsw : -1;
	n->cpu_migrations = a->migrations >= 0 && b->migrations >= a->migrations ?
			    b->migrations - a->migrations : -1;
	n->flagged = isfinite(n->steal_pct) && n->steal_pct >= LAB_STEAL_FLAG_PCT;
}

void lab_noise_sum(const struct lab_sample_noise *s, int nr, struct lab_noise *sum)
{
	unsigned long long steal = 0, total = 0;
	bool cpu = false;
	int i;

	memset(sum, 0, sizeof(*sum));
	sum->max_steal_pct = NAN;
	for (i = 0; i < nr; i++) {
		if (isfinite(s[i].steal_pct)) {
			cpu = true;
			steal += s[i].steal_ticks;
			total += s[i].total_ticks;
			if (!(s[i].steal_pct <= sum->max_steal_pct))
				sum->max_steal_pct = s[i].steal_pct;
		}
		if (sum->nivcsw >= 0)
			sum->nivcsw = s[i].nivcsw < 0 ? -1 : sum->nivcsw + s[i].nivcsw;
		if (sum->cpu_migrations >= 0)
			sum->cpu_migrations = s[i].cpu_migrations < 0 ? -1 :
					      sum->cpu_migrations + s[i].cpu_migrations;
		sum->flagged_samples += s[i].flagged;
	}
	sum->steal_pct = !cpu ? NAN : total ? 100.0 * steal / total : 0;
}
