/*
 * RocksDB's implicit auto-readahead, as db_bench's readseq iterator does it
 * on a block-based table read with buffered I/O: BlockPrefetcher::
 * PrefetchIfNeeded() (table/block_based/block_prefetcher.cc) with
 * BlockBasedTableOptions' defaults (include/rocksdb/table.h).  From the third
 * sequential data-block read of a file (num_file_reads_for_auto_readahead,
 * 2), a block that ends past the last prefetch asks the file system for
 * the block and readahead_size bytes after it (PosixRandomAccessFile::
 * Prefetch(), which is readahead(2) on Linux), and readahead_size doubles
 * from initial_auto_readahead_size (8 KiB) up to max_auto_readahead_size
 * (256 KiB).  A block that does not follow the last one starts over.
 * Each iterator (each db_bench thread) has its own.  The kernel caps what
 * it reads of a readahead(2) (force_page_cache_ra()).  This bookkeeping is
 * db_bench's own user-space work, which a simulated machine does not charge
 * (__lab_uncharged); the readahead(2) it asks for is the kernel's.
 */
#ifndef MMLAB_WORKLOADS_ROCKSDB_PREFETCH_H
#define MMLAB_WORKLOADS_ROCKSDB_PREFETCH_H

#include <stdint.h>

#include <mmlab/uncharged.h>

#define ROCKSDB_INIT_AUTO_READAHEAD	(8 * 1024)
#define ROCKSDB_MAX_AUTO_READAHEAD	(256 * 1024)
#define ROCKSDB_READS_FOR_AUTO_READAHEAD	2

struct rocksdb_prefetcher {
	uint64_t readahead_size;	/* bytes past the block the next prefetch asks for */
	uint64_t readahead_limit;	/* end of the last prefetch */
	uint64_t prev_offset, prev_len;	/* the last block read */
	uint64_t num_file_reads;
};

static inline __lab_uncharged void rocksdb_prefetcher_init(struct rocksdb_prefetcher *p)
{
	*p = (struct rocksdb_prefetcher){ .readahead_size = ROCKSDB_INIT_AUTO_READAHEAD };
}

/*
 * Before reading the block at @offset, @len: the bytes from @offset it
 * prefetches first, 0 for none.
 */
static inline __lab_uncharged uint64_t rocksdb_prefetch_if_needed(struct rocksdb_prefetcher *p, uint64_t offset,
						  uint64_t len)
{
	uint64_t n;
	int sequential = !p->prev_len || p->prev_offset + p->prev_len == offset;

	p->prev_offset = offset;
	p->prev_len = len;
	if (offset + len <= p->readahead_limit)
		return 0;
	if (!sequential) {
		p->num_file_reads = 1;
		p->readahead_size = ROCKSDB_INIT_AUTO_READAHEAD;
		p->readahead_limit = 0;
		return 0;
	}
	if (++p->num_file_reads <= ROCKSDB_READS_FOR_AUTO_READAHEAD)
		return 0;
	n = len + p->readahead_size;
	p->readahead_limit = offset + n;
	p->readahead_size = p->readahead_size * 2 < ROCKSDB_MAX_AUTO_READAHEAD ?
			    p->readahead_size * 2 : ROCKSDB_MAX_AUTO_READAHEAD;
	return n;
}

#endif
