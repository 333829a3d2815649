/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_LOG2_H
#define _LINUX_LOG2_H

#include <linux/compiler.h>

/* __ffs: index of the lowest set bit; undefined for 0, as in the kernel. */
static inline unsigned long __ffs(unsigned long word)
{
	return (unsigned long)__builtin_ctzl(word);
}

/* __fls: index of the highest set bit; undefined for 0. */
static inline unsigned long __fls(unsigned long word)
{
	return 63 - (unsigned long)__builtin_clzl(word);
}

/* fls: 1-based index of the highest set bit, 0 for 0. */
static inline int fls(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

static inline int ilog2(unsigned long n)
{
	return (int)__fls(n);
}

static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

static inline unsigned long rounddown_pow_of_two(unsigned long n)
{
	return 1UL << ilog2(n);
}

static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return n <= 1 ? 1 : 1UL << (ilog2(n - 1) + 1);
}

#endif
