/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copies to user memory.  The model's "user" buffer is ordinary memory, so
 * the copy is a memcpy(); what the kernel's copy_to_user() costs beyond it
 * (STAC/CLAC, the string-copy start-up, copy_page_to_iter()'s iov_iter
 * steps) is copy_user_loops of __delay(), 0 unless an experiment models it
 * (refcount-scale --copy-ns).  It matters where it is spent: between a
 * reader's page-cache get and put, while it holds the folio.
 */
#ifndef _LINUX_UACCESS_H
#define _LINUX_UACCESS_H

#include <string.h>

#include <linux/delay.h>

extern unsigned long copy_user_loops;

/* 0: every byte copied (the model's user memory never faults). */
static inline unsigned long copy_to_user(void *to, const void *from, unsigned long n)
{
	memcpy(to, from, n);
	__delay(copy_user_loops);
	return 0;
}

#endif
