/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read-write semaphores on POSIX rwlocks: sleeping locks, as the kernel's
 * are, which ThreadSanitizer understands.
 */
#ifndef _LINUX_RWSEM_H
#define _LINUX_RWSEM_H

#include <pthread.h>
#include <stdbool.h>

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

#endif
