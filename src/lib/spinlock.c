// SPDX-License-Identifier: GPL-2.0
/*
 * The contended path of spin_lock(): see include/linux/spinlock.h for why
 * it yields.
 */
#include <sched.h>

#include <linux/spinlock.h>

#ifdef MMLAB_CHECKER
void checker_spin_wait(void);
#endif

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	barrier();
#endif
}

static void spin_wait(unsigned int *spins)
{
#ifdef MMLAB_CHECKER
	(void)spins;
	checker_spin_wait();
#else
	if (++*spins < SPIN_BEFORE_YIELD)
		cpu_relax();
	else
		sched_yield();
#endif
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
