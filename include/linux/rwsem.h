/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read-write semaphores on POSIX rwlocks: sleeping locks, as the kernel's
 * are, which ThreadSanitizer understands.
 */
#ifndef _LINUX_RWSEM_H
#define _LINUX_RWSEM_H

#include <pthread.h>
#include <stdbool.h>

#ifdef MMLAB_VT
/*
 * The virtual-time flavour runs every CPU on one host thread, where a
 * blocking rwlock would stop them all: there an rwsem is a count (readers,
 * or -1 for a writer) taken by compare-exchange, polling while it cannot,
 * so its costs and waits are virtual ones.
 */
#include <asm/processor.h>

struct rw_semaphore {
	int count;
};

static inline void init_rwsem(struct rw_semaphore *sem)		{ sem->count = 0; }
static inline void destroy_rwsem(struct rw_semaphore *sem)	{ }

static inline bool down_read_trylock(struct rw_semaphore *sem)
{
	int c = __atomic_load_n(&sem->count, __ATOMIC_RELAXED);

	return c >= 0 && __atomic_compare_exchange_n(&sem->count, &c, c + 1, false,
						     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline void down_read(struct rw_semaphore *sem)
{
	while (!down_read_trylock(sem))
		cpu_relax();
}

static inline void up_read(struct rw_semaphore *sem)
{
	__atomic_fetch_sub(&sem->count, 1, __ATOMIC_RELEASE);
}

static inline void down_write(struct rw_semaphore *sem)
{
	int c = 0;

	while (!__atomic_compare_exchange_n(&sem->count, &c, -1, false,
					    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		c = 0;
		cpu_relax();
	}
}

static inline void up_write(struct rw_semaphore *sem)
{
	__atomic_store_n(&sem->count, 0, __ATOMIC_RELEASE);
}

#elif defined(MMLAB_CHECKER)
/*
 * The interleaving checker runs one thread at a time, where a blocking
 * rwlock would hang the holder's successor: the same count as above, on
 * the shim atomics, so that every take, release and poll is a step and a
 * thread that cannot take it waits in checker_spin_wait().
 */
#include <linux/atomic.h>
#include <asm/processor.h>

struct rw_semaphore {
	atomic_t count;
};

static inline void init_rwsem(struct rw_semaphore *sem)		{ atomic_set(&sem->count, 0); }
static inline void destroy_rwsem(struct rw_semaphore *sem)	{ }

/*
 * As the kernel's __down_read_trylock(): a failed exchange that still finds
 * no writer tries again at once.  (Polling instead would wait for another
 * thread's step, which never comes once the other reader has finished.)
 */
static inline bool down_read_trylock(struct rw_semaphore *sem)
{
	int c = atomic_read(&sem->count);

	while (c >= 0) {
		if (atomic_try_cmpxchg_acquire(&sem->count, &c, c + 1))
			return true;
	}
	return false;
}

static inline void down_read(struct rw_semaphore *sem)
{
	while (!down_read_trylock(sem))
		cpu_relax();
}

static inline void up_read(struct rw_semaphore *sem)
{
	atomic_fetch_add_release(-1, &sem->count);
}

static inline void down_write(struct rw_semaphore *sem)
{
	int c = 0;

	while (!atomic_try_cmpxchg_acquire(&sem->count, &c, -1)) {
		c = 0;
		cpu_relax();
	}
}

static inline void up_write(struct rw_semaphore *sem)
{
	atomic_set_release(&sem->count, 0);
}

#else

struct rw_semaphore {
	pthread_rwlock_t lock;
};

static inline void init_rwsem(struct rw_semaphore *sem)
{
	pthread_rwlock_init(&sem->lock, NULL);
}

static inline void destroy_rwsem(struct rw_semaphore *sem)
{
	pthread_rwlock_destroy(&sem->lock);
}

static inline void down_read(struct rw_semaphore *sem)		{ pthread_rwlock_rdlock(&sem->lock); }
static inline bool down_read_trylock(struct rw_semaphore *sem)	{ return !pthread_rwlock_tryrdlock(&sem->lock); }
static inline void up_read(struct rw_semaphore *sem)		{ pthread_rwlock_unlock(&sem->lock); }
static inline void down_write(struct rw_semaphore *sem)		{ pthread_rwlock_wrlock(&sem->lock); }
static inline void up_write(struct rw_semaphore *sem)		{ pthread_rwlock_unlock(&sem->lock); }

#endif /* MMLAB_VT */

#endif
