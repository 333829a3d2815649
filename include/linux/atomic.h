/* SPDX-License-Identifier: GPL-2.0 */
/*
 * atomic_t with the kernel's ordering rules (Documentation/atomic_t.txt):
 *
 *  - atomic_read/atomic_set and the void RMWs (atomic_add, atomic_inc, ...)
 *    are unordered (relaxed);
 *  - value-returning RMWs (atomic_add_return, atomic_dec_and_test,
 *    atomic_cmpxchg on success, atomic_add_unless on success, ...) are fully
 *    ordered;
 *  - the _relaxed, _acquire and _release forms order as their name says;
 *  - a failed cmpxchg orders nothing.
 *
 * Fully ordered is mapped to __ATOMIC_SEQ_CST.  On x86-64 that is a LOCK'd
 * instruction, which is a full barrier, exactly the kernel's code.  On other
 * architectures a SEQ_CST RMW does not order surrounding plain accesses, so
 * there the full forms are bracketed by fences (see __atomic_full_fence()).
 *
 * In the interleaving-checker build (MMLAB_CHECKER) every operation here
 * is first a scheduling point of the deterministic scheduler, so the checker
 * explores the real functions built on these primitives.
 */
#ifndef _LINUX_ATOMIC_H
#define _LINUX_ATOMIC_H

#include <linux/compiler.h>
#include <stdint.h>

#include <machine/machine.h>

#define __atomic_step()	machine_step()

/*
 * The memory operations themselves.  In the checker build they go through
 * the machine, whose weak-memory mode decides what a load returns;
 * elsewhere they are the compiler's builtins.
 */
#ifdef MMLAB_CHECKER
#define __shim_load(p, o)						\
	((__typeof__(*(p)))(intptr_t)checker_wm_load((p), sizeof(*(p)), (o)))
#define __shim_store(p, v, o)						\
	checker_wm_store((p), sizeof(*(p)), (long long)(intptr_t)(v), (o))
#define __shim_fetch_add(p, v, o)					\
	((__typeof__(*(p)))checker_wm_rmw((p), sizeof(*(p)), MACHINE_RMW_ADD, (v), (o)))
#define __shim_xchg(p, v, o)						\
	((__typeof__(*(p)))checker_wm_rmw((p), sizeof(*(p)), MACHINE_RMW_XCHG, (v), (o)))
#define __shim_fetch_or(p, v, o)					\
	((__typeof__(*(p)))checker_wm_rmw((p), sizeof(*(p)), MACHINE_RMW_OR, (long long)(v), (o)))
#define __shim_fetch_and(p, v, o)					\
	((__typeof__(*(p)))checker_wm_rmw((p), sizeof(*(p)), MACHINE_RMW_AND, (long long)(v), (o)))
#define __shim_fetch_xor(p, v, o)					\
	((__typeof__(*(p)))checker_wm_rmw((p), sizeof(*(p)), MACHINE_RMW_XOR, (long long)(v), (o)))
#define __shim_fence(o)		checker_wm_fence(o)

static inline bool __shim_cmpxchg(int *p, int *old, int new, int o, int fail)
{
	long long e = *old;
	bool ok = checker_wm_cmpxchg(p, sizeof(*p), &e, new, o, fail);

	*old = (int)e;
	return ok;
}
#else
#define __shim_load(p, o)		__atomic_load_n((p), (o))
#define __shim_store(p, v, o)		__atomic_store_n((p), (v), (o))
#define __shim_fetch_add(p, v, o)	__atomic_fetch_add((p), (v), (o))
#define __shim_xchg(p, v, o)		__atomic_exchange_n((p), (v), (o))
#define __shim_fetch_or(p, v, o)	__atomic_fetch_or((p), (v), (o))
#define __shim_fetch_and(p, v, o)	__atomic_fetch_and((p), (v), (o))
#define __shim_fetch_xor(p, v, o)	__atomic_fetch_xor((p), (v), (o))
#define __shim_fence(o)			__atomic_thread_fence(o)
#define __shim_cmpxchg(p, old, new, o, fail)				\
	__atomic_compare_exchange_n((p), (old), (new), false, (o), (fail))
#endif

#if defined(__x86_64__) || defined(__i386__)
#define __atomic_full_fence()	do { } while (0)
#else
#define __atomic_full_fence()	__shim_fence(__ATOMIC_SEQ_CST)
#endif

#define smp_mb()	__shim_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()	__shim_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()	__shim_fence(__ATOMIC_RELEASE)
#define smp_mb__before_atomic()	smp_mb()
#define smp_mb__after_atomic()	smp_mb()

#define smp_load_acquire(p)	__shim_load(p, __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__shim_store(p, v, __ATOMIC_RELEASE)

typedef struct {
	int counter;
} atomic_t;

typedef struct {
	long counter;
} atomic_long_t;

#define ATOMIC_INIT(i)	{ (i) }

/* --- plain accesses ----------------------------------------------------- */

static inline int atomic_read(const atomic_t *v)
{
	__atomic_step();
	return __shim_load(&v->counter, __ATOMIC_RELAXED);
}

static inline int atomic_read_acquire(const atomic_t *v)
{
	__atomic_step();
	return __shim_load(&v->counter, __ATOMIC_ACQUIRE);
}

static inline void atomic_set(atomic_t *v, int i)
{
	__atomic_step();
	__shim_store(&v->counter, i, __ATOMIC_RELAXED);
}

static inline void atomic_set_release(atomic_t *v, int i)
{
	__atomic_step();
	__shim_store(&v->counter, i, __ATOMIC_RELEASE);
}

/* --- void RMWs: unordered ----------------------------------------------- */

static inline void atomic_add(int i, atomic_t *v)
{
	__atomic_step();
	(void)__shim_fetch_add(&v->counter, i, __ATOMIC_RELAXED);
}

static inline void atomic_sub(int i, atomic_t *v)
{
	__atomic_step();
	(void)__shim_fetch_add(&v->counter, -i, __ATOMIC_RELAXED);
}

static inline void atomic_inc(atomic_t *v)
{
	atomic_add(1, v);
}

static inline void atomic_dec(atomic_t *v)
{
	atomic_sub(1, v);
}

/* --- value-returning RMWs ----------------------------------------------- */

static inline int atomic_fetch_add_relaxed(int i, atomic_t *v)
{
	__atomic_step();
	return __shim_fetch_add(&v->counter, i, __ATOMIC_RELAXED);
}

static inline int atomic_fetch_add_acquire(int i, atomic_t *v)
{
	__atomic_step();
	return __shim_fetch_add(&v->counter, i, __ATOMIC_ACQUIRE);
}

static inline int atomic_fetch_add_release(int i, atomic_t *v)
{
	__atomic_step();
	return __shim_fetch_add(&v->counter, i, __ATOMIC_RELEASE);
}

static inline int atomic_fetch_add(int i, atomic_t *v)
{
	int old;

	__atomic_step();
	__atomic_full_fence();
	old = __shim_fetch_add(&v->counter, i, __ATOMIC_SEQ_CST);
	__atomic_full_fence();
	return old;
}

static inline int atomic_fetch_sub(int i, atomic_t *v)
{
	return atomic_fetch_add(-i, v);
}

static inline int atomic_add_return_relaxed(int i, atomic_t *v)
{
	return atomic_fetch_add_relaxed(i, v) + i;
}

static inline int atomic_add_return_acquire(int i, atomic_t *v)
{
	return atomic_fetch_add_acquire(i, v) + i;
}

static inline int atomic_add_return_release(int i, atomic_t *v)
{
	return atomic_fetch_add_release(i, v) + i;
}

static inline int atomic_add_return(int i, atomic_t *v)
{
	return atomic_fetch_add(i, v) + i;
}

static inline int atomic_sub_return_relaxed(int i, atomic_t *v)
{
	return atomic_fetch_add_relaxed(-i, v) - i;
}

static inline int atomic_sub_return(int i, atomic_t *v)
{
	return atomic_fetch_add(-i, v) - i;
}

static inline int atomic_inc_return(atomic_t *v)
{
	return atomic_add_return(1, v);
}

static inline int atomic_dec_return(atomic_t *v)
{
	return atomic_sub_return(1, v);
}

static inline bool atomic_sub_and_test(int i, atomic_t *v)
{
	return atomic_sub_return(i, v) == 0;
}

static inline bool atomic_dec_and_test(atomic_t *v)
{
	return atomic_sub_return(1, v) == 0;
}

static inline bool atomic_inc_and_test(atomic_t *v)
{
	return atomic_add_return(1, v) == 0;
}

/* True if the result is negative: the last unmapping of a page's _mapcount. */
static inline bool atomic_add_negative(int i, atomic_t *v)
{
	return atomic_add_return(i, v) < 0;
}

static inline int atomic_xchg(atomic_t *v, int new)
{
	int old;

	__atomic_step();
	__atomic_full_fence();
	old = __shim_xchg(&v->counter, new, __ATOMIC_SEQ_CST);
	__atomic_full_fence();
	return old;
}

/* --- compare-and-exchange ----------------------------------------------- */

/* Returns the value found; the exchange happened iff that equals @old. */
static inline int __atomic_cmpxchg_order(atomic_t *v, int old, int new, int order)
{
	__atomic_step();
	__shim_cmpxchg(&v->counter, &old, new, order, __ATOMIC_RELAXED);
	return old;
}

static inline int atomic_cmpxchg_relaxed(atomic_t *v, int old, int new)
{
	return __atomic_cmpxchg_order(v, old, new, __ATOMIC_RELAXED);
}

static inline int atomic_cmpxchg_acquire(atomic_t *v, int old, int new)
{
	return __atomic_cmpxchg_order(v, old, new, __ATOMIC_ACQUIRE);
}

static inline int atomic_cmpxchg_release(atomic_t *v, int old, int new)
{
	return __atomic_cmpxchg_order(v, old, new, __ATOMIC_RELEASE);
}

static inline int atomic_cmpxchg(atomic_t *v, int old, int new)
{
	int ret;

	__atomic_full_fence();
	ret = __atomic_cmpxchg_order(v, old, new, __ATOMIC_SEQ_CST);
	if (ret == old)
		__atomic_full_fence();
	return ret;
}

/* try_cmpxchg: on failure *old is updated to the value found. */
static inline bool atomic_try_cmpxchg_relaxed(atomic_t *v, int *old, int new)
{
	__atomic_step();
	return __shim_cmpxchg(&v->counter, old, new, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

static inline bool atomic_try_cmpxchg_acquire(atomic_t *v, int *old, int new)
{
	__atomic_step();
	return __shim_cmpxchg(&v->counter, old, new, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline bool atomic_try_cmpxchg(atomic_t *v, int *old, int new)
{
	bool ok;

	__atomic_full_fence();
	__atomic_step();
	ok = __shim_cmpxchg(&v->counter, old, new, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
	if (ok)
		__atomic_full_fence();
	return ok;
}

/*
 * atomic_fetch_add_unless: add @a unless the counter is @u; returns the old
 * value.  A read followed by a try_cmpxchg loop, as the generic kernel
 * fallback: fully ordered on success, unordered on failure.
 */
static inline int atomic_fetch_add_unless(atomic_t *v, int a, int u)
{
	int c = atomic_read(v);

	do {
		if (unlikely(c == u))
			break;
	} while (!atomic_try_cmpxchg(v, &c, c + a));
	return c;
}

static inline bool atomic_add_unless(atomic_t *v, int a, int u)
{
	return atomic_fetch_add_unless(v, a, u) != u;
}

/* --- atomic_long_t: the few operations the model needs ------------------ */

static inline long atomic_long_read(const atomic_long_t *v)
{
	__atomic_step();
	return __shim_load(&v->counter, __ATOMIC_RELAXED);
}

static inline void atomic_long_set(atomic_long_t *v, long i)
{
	__atomic_step();
	__shim_store(&v->counter, i, __ATOMIC_RELAXED);
}

static inline void atomic_long_add(long i, atomic_long_t *v)
{
	__atomic_step();
	(void)__shim_fetch_add(&v->counter, i, __ATOMIC_RELAXED);
}

static inline void atomic_long_sub(long i, atomic_long_t *v)
{
	atomic_long_add(-i, v);
}

static inline void atomic_long_inc(atomic_long_t *v)
{
	atomic_long_add(1, v);
}

static inline long atomic_long_add_return(long i, atomic_long_t *v)
{
	long ret;

	__atomic_step();
	__atomic_full_fence();
	ret = __shim_fetch_add(&v->counter, i, __ATOMIC_SEQ_CST) + i;
	__atomic_full_fence();
	return ret;
}

#endif /* _LINUX_ATOMIC_H */
