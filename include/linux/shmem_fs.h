/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_SHMEM_FS_H
#define _LINUX_SHMEM_FS_H

#include <linux/pagemap.h>

/* A read of a tmpfs file (shmem_file_read_iter()), into @buf. */
ssize_t shmem_file_read(struct file *file, loff_t pos, size_t count, char *buf);

#endif
