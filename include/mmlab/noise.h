/*
 * What the host did while a sample ran (noise.c): CPU time stolen by a
 * hypervisor, involuntary context switches, CPU migrations.
 */
#ifndef MMLAB_NOISE_H
#define MMLAB_NOISE_H

#include <stdbool.h>

/*
 * A sample is flagged when the host stole at least this share of the
 * machine's CPU time while it ran (a hypervisor running other guests).
 */
#define LAB_STEAL_FLAG_PCT	10.0

struct lab_cpu_times {
	unsigned long long total, steal;	/* ticks, all CPUs together */
};

/* The first line of /proc/stat ("cpu  user nice system idle ... steal ..."); 0 or -1. */
int lab_parse_proc_stat(const char *text, struct lab_cpu_times *t);

struct lab_noise_probe {
	int perf_fd;			/* CPU migrations counter, -1 if not permitted */
};

struct lab_noise_mark {
	struct lab_cpu_times cpu;
	bool cpu_ok;
	long nivcsw;			/* -1: unknown */
	long long migrations;		/* -1: unavailable */
};

/* What the host did during one sample. */
struct lab_sample_noise {
	double steal_pct;		/* NAN: /proc/stat unreadable */
	unsigned long long steal_ticks, total_ticks;
	long nivcsw;			/* -1: unknown */
	long long cpu_migrations;	/* -1: unavailable */
	bool flagged;			/* steal_pct >= LAB_STEAL_FLAG_PCT */
};

/* Over a cell's samples: the JSON "host_noise" object. */
struct lab_noise {
	double steal_pct;		/* all its samples' ticks together */
	double max_steal_pct;		/* the worst sample */
	long nivcsw;			/* summed; -1 unknown */
	long long cpu_migrations;	/* summed; -1 unavailable */
	int flagged_samples;
};

void lab_noise_open(struct lab_noise_probe *probe);
void lab_noise_close(struct lab_noise_probe *probe);
void lab_noise_mark(const struct lab_noise_probe *probe, struct lab_noise_mark *m);
void lab_noise_delta(const struct lab_noise_mark *before, const struct lab_noise_mark *after,
		     struct lab_sample_noise *n);
void lab_noise_sum(const struct lab_sample_noise *s, int nr, struct lab_noise *sum);

#endif
