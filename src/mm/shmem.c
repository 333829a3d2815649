// SPDX-License-Identifier: GPL-2.0
/*
 * The read path of tmpfs (mm/shmem.c: shmem_file_read_iter()), for what it
 * does to a cached folio beyond filemap_read(): shmem_get_folio() looks the
 * folio up with a reference and locks it, to see that it was not truncated
 * or swapped out meanwhile; the read unlocks it again before the copy, and
 * marks it accessed when the read starts at the beginning of a page.  So a
 * short read of a cached tmpfs page makes two more read-modify-writes of the
 * folio's flags (lock, unlock) than filemap_read(), on the line that also
 * holds the refcount.  Holes (tmpfs reads them as zeroes), swap and
 * hardware poison are not modelled: the model's tmpfs file is all cached.
 */
#include <string.h>

#include <linux/pgtable.h>
#include <linux/shmem_fs.h>
#include <linux/swap.h>
#include <linux/uaccess.h>

/* shmem_get_folio(SGP_READ) of a cached folio: referenced and locked, or NULL. */
static struct folio *shmem_get_folio_read(struct address_space *mapping, pgoff_t index)
{
	return __filemap_get_folio(mapping, index, FGP_LOCK, 0);
}

ssize_t shmem_file_read(struct file *file, loff_t pos, size_t count, char *buf)
{
	struct address_space *mapping = file->f_mapping;
	loff_t isize = READ_ONCE(mapping->i_size);
	size_t copied = 0;

	if (pos >= isize)
		return 0;
	count = min(count, (size_t)(isize - pos));
	while (count) {
		struct folio *folio = shmem_get_folio_read(mapping, (pgoff_t)(pos >> PAGE_SHIFT));
		size_t offset, n;

		if (!folio)
			break;
		folio_unlock(folio);
		offset = (size_t)(pos - folio_pos(folio));
		n = min(min(PAGE_SIZE - offset_in_page(pos), folio_size(folio) - offset), count);
		if (!offset_in_page(pos))
			folio_mark_accessed(folio);
		copy_to_user(buf + copied, (char *)folio_address(folio) + offset, n);
		folio_put(folio);
		copied += n;
		pos += (loff_t)n;
		count -= n;
	}
	return (ssize_t)copied;
}
