// SPDX-License-Identifier: GPL-2.0
/*
 * Calibration of __delay() (include/linux/delay.h) on this host, and
 * ndelay() on top of it.
 */
#include <linux/delay.h>
#include <machine/machine.h>

static double loops_per_ns;

double delay_loops_per_ns(void)
{
	const unsigned long loops = 20 * 1000 * 1000;
	double best = 0;

	double cached;

	__atomic_load(&loops_per_ns, &cached, __ATOMIC_RELAXED);

	if (cached)
		return cached;
	/* Best of a few runs: the fastest is the least disturbed. */
	for (int i = 0; i < 5; i++) {
		double t0 = machine_now(), t;

		__delay(loops);
		t = machine_now() - t0;
		if (t > 0 && loops / (t * 1e9) > best)
			best = loops / (t * 1e9);
	}
	/* CPUs that calibrate at once store equally good values. */
	__atomic_store(&loops_per_ns, &best, __ATOMIC_RELAXED);
	return best;
}

void ndelay(unsigned long nsecs)
{
	__delay((unsigned long)(nsecs * delay_loops_per_ns()));
}
