/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compiler shims: the kernel's spelling of GCC builtins.
 */
#ifndef _LINUX_COMPILER_H
#define _LINUX_COMPILER_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>	/* loff_t (glibc defines it; do not redefine) */

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#undef __always_inline		/* glibc's <sys/cdefs.h> has its own */
#define __always_inline	inline __attribute__((always_inline))
#define noinline	__attribute__((noinline))
#define __aligned(x)	__attribute__((aligned(x)))
#define __cacheline_aligned __aligned(SMP_CACHE_BYTES)
#define __maybe_unused	__attribute__((unused))
#define __must_check	__attribute__((warn_unused_result))

/*
 * A switch case that goes on into the next one on purpose: the statement
 * attribute -Wimplicit-fallthrough (in -Wextra) accepts, as the kernel's
 * compiler_attributes.h spells it; an empty statement where the compiler
 * lacks the attribute.
 */
#if defined(__has_attribute)
#if __has_attribute(__fallthrough__)
#define fallthrough	__attribute__((__fallthrough__))
#endif
#endif
#ifndef fallthrough
#define fallthrough	do {} while (0)
#endif

#define SMP_CACHE_BYTES	64

#define barrier()	__asm__ __volatile__("" ::: "memory")

/*
 * READ_ONCE/WRITE_ONCE: single-copy-atomic, not torn, not fused, not
 * reordered by the compiler against other _ONCE accesses.  Relaxed atomics
 * give C11 (and ThreadSanitizer) the same meaning.
 */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, val)	__atomic_store_n(&(x), (val), __ATOMIC_RELAXED)

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), #cond)

typedef int8_t s8;
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

/*
 * The machine (machine/machine.h): in the virtual-time flavour every
 * __atomic builtin reports to it.
 */
#include <machine/machine.h>

#endif /* _LINUX_COMPILER_H */
