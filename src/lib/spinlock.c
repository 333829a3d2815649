// SPDX-License-Identifier: GPL-2.0
/*
 * The contended path of spin_lock(): see include/linux/spinlock.h for why
 * it yields.
 */
#include <asm/processor.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

/* Under the checker, cpu_relax() is already a wait for another thread. */
static void spin_wait(unsigned int *spins)
{
	if (++*spins < SPIN_BEFORE_YIELD)
		cpu_relax();
	else
		schedule();
}

void spin_lock_slowpath(spinlock_t *lock)
{
	unsigned int spins = 0;

	for (;;) {
		/* Test before test-and-set: poll the line shared, not owned. */
		while (atomic_read(&lock->locked))
			spin_wait(&spins);
		if (spin_trylock(lock))
			return;
	}
}
