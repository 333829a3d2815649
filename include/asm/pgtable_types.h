/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The page-table entry types (x86's asm/pgtable_types.h), apart from the
 * rest of linux/pgtable.h so that mm_types.h can name pgprot_t.
 */
#ifndef _ASM_PGTABLE_TYPES_H
#define _ASM_PGTABLE_TYPES_H

#include <linux/compiler.h>

typedef u64 pteval_t, pmdval_t, pudval_t, pgdval_t, pgprotval_t;

typedef struct { pteval_t pte; } pte_t;
typedef struct { pmdval_t pmd; } pmd_t;
typedef struct { pudval_t pud; } pud_t;
typedef struct { pgdval_t pgd; } pgd_t;
typedef struct { pgprotval_t pgprot; } pgprot_t;

#define pte_val(x)	((x).pte)
#define pmd_val(x)	((x).pmd)
#define pud_val(x)	((x).pud)
#define pgd_val(x)	((x).pgd)
#define pgprot_val(x)	((x).pgprot)
#define __pte(x)	((pte_t) { (x) })
#define __pmd(x)	((pmd_t) { (x) })
#define __pud(x)	((pud_t) { (x) })
#define __pgd(x)	((pgd_t) { (x) })
#define __pgprot(x)	((pgprot_t) { (x) })

#endif
