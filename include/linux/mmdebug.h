/* SPDX-License-Identifier: GPL-2.0 */
/*
 * VM_BUG_ON / VM_WARN_ON debug checks, compiled in only with CONFIG_DEBUG_VM
 * (as in the kernel).  A warning is reported on stderr and counted, so that
 * tests can assert that a check fired on misuse and stayed silent on
 * correct use.  VM_BUG_ON aborts.
 */
#ifndef _LINUX_MMDEBUG_H
#define _LINUX_MMDEBUG_H

#include <linux/compiler.h>

struct page;
struct folio;

/* Number of VM_WARN* checks that fired since start (CONFIG_DEBUG_VM). */
extern unsigned long vm_warn_count;
/* When set, fired warnings are counted but not printed (for tests). */
extern bool vm_warn_quiet;

void __vm_warn(const char *cond, const char *file, int line, const struct page *page);
void __vm_bug(const char *cond, const char *file, int line, const struct page *page) __attribute__((noreturn));

#ifdef CONFIG_DEBUG_VM
#define VM_WARN_ON_PAGE(cond, page) ({					\
	bool __c = !!(cond);						\
	if (unlikely(__c))						\
		__vm_warn(#cond, __FILE__, __LINE__, (page));		\
	__c;								\
})
#define VM_WARN_ON_ONCE_PAGE(cond, page) ({				\
	static bool __warned;						\
	bool __c = !!(cond);						\
	if (unlikely(__c) && !__atomic_exchange_n(&__warned, true, __ATOMIC_RELAXED)) \
		__vm_warn(#cond, __FILE__, __LINE__, (page));		\
	else if (unlikely(__c))						\
		__atomic_fetch_add(&vm_warn_count, 1, __ATOMIC_RELAXED); \
	__c;								\
})
#define VM_BUG_ON_PAGE(cond, page) do {					\
	if (unlikely(cond))						\
		__vm_bug(#cond, __FILE__, __LINE__, (page));		\
} while (0)
#else
#define VM_WARN_ON_PAGE(cond, page)		({ (void)sizeof(cond); false; })
#define VM_WARN_ON_ONCE_PAGE(cond, page)	({ (void)sizeof(cond); false; })
#define VM_BUG_ON_PAGE(cond, page)		do { (void)sizeof(cond); } while (0)
#endif

/* BUG_ON() is compiled in whatever CONFIG_DEBUG_VM says, as CONFIG_BUG is by default. */
#define BUG_ON(cond) do {						\
	if (unlikely(cond))						\
		__vm_bug(#cond, __FILE__, __LINE__, NULL);		\
} while (0)

#define VM_WARN_ON(cond)		VM_WARN_ON_PAGE(cond, NULL)
#define VM_WARN_ON_ONCE(cond)		VM_WARN_ON_ONCE_PAGE(cond, NULL)
#define VM_BUG_ON(cond)			VM_BUG_ON_PAGE(cond, NULL)
#define VM_WARN_ON_FOLIO(cond, folio)	VM_WARN_ON_PAGE(cond, &(folio)->page)
#define VM_WARN_ON_ONCE_FOLIO(cond, folio) VM_WARN_ON_ONCE_PAGE(cond, &(folio)->page)
#define VM_BUG_ON_FOLIO(cond, folio)	VM_BUG_ON_PAGE(cond, &(folio)->page)

#endif
