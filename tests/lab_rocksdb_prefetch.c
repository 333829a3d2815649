/*
 * RocksDB's implicit auto-readahead (include/mmlab/workloads/rocksdb_prefetch.h),
 * the readahead(2) calls of readseq --readahead rocksdb, drawn for 8 KiB
 * records read in order (K = KiB; "RA a+n": readahead(2) of n bytes at a):
 *
 *   read   0K  8K | 16K        24K | 32K        40K 48K | 56K        64K..88K | 96K
 *   RA     -   -  | 16K+16K    -   | 32K+24K    -   -   | 56K+40K    -        | 96K+72K
 *   limit  0   0  | 32K        32K | 56K        56K 56K | 96K        96K      | 168K
 *
 * readahead_size 8K doubles after each call (16K, 32K, 64K, 128K) and stays
 * at 256K; a read out of order starts over, and counts as the first.
 */
#include "tap.h"
#include <mmlab/workloads/rocksdb_prefetch.h>

#define K 1024ull

/* Reads 8K records from @from to @to (exclusive); the readahead(2) sizes asked for, in order. */
static int run(struct rocksdb_prefetcher *p, uint64_t from, uint64_t to, uint64_t *at, uint64_t *n, int max)
{
	int k = 0;

	for (uint64_t off = from; off < to; off += 8 * K) {
		uint64_t r = rocksdb_prefetch_if_needed(p, off, 8 * K);

		if (r && k < max) {
			at[k] = off;
			n[k++] = r;
		}
	}
	return k;
}

static void test_growth(void)
{
	static const uint64_t want_at[] = { 16 * K, 32 * K, 56 * K, 96 * K, 168 * K, 304 * K, 568 * K, 832 * K };
	static const uint64_t want_n[] = { 16 * K, 24 * K, 40 * K, 72 * K, 136 * K, 264 * K, 264 * K, 264 * K };
	struct rocksdb_prefetcher p;
	uint64_t at[16], n[16];
	int k, same = 1;

	rocksdb_prefetcher_init(&p);
	k = run(&p, 0, 1096 * K, at, n, 16);
	for (int i = 0; i < 8 && i < k; i++)
		same &= at[i] == want_at[i] && n[i] == want_n[i];
	ok(k == 8 && same, "8K records 0..1096K: readahead at 16K 32K 56K 96K 168K 304K 568K 832K, "
	   "of the record and 8K 16K 32K 64K 128K then 256K after it (%d calls)", k);
}

/* The limit: a record ending at it asks for nothing, one ending past it asks. */
static void test_limit(void)
{
	struct rocksdb_prefetcher p;

	rocksdb_prefetcher_init(&p);
	ok(rocksdb_prefetch_if_needed(&p, 0, 8 * K) == 0, "first read: none");
	ok(rocksdb_prefetch_if_needed(&p, 8 * K, 8 * K) == 0, "second read: none (two reads first)");
	ok(rocksdb_prefetch_if_needed(&p, 16 * K, 8 * K) == 16 * K, "third read: its 8K and 8K after it");
	ok(rocksdb_prefetch_if_needed(&p, 24 * K, 8 * K) == 0, "a record ending at the limit (32K): none");
	ok(rocksdb_prefetch_if_needed(&p, 32 * K, 8 * K) == 24 * K, "one ending 8K past it: 8K + 16K");
	rocksdb_prefetcher_init(&p);
	rocksdb_prefetch_if_needed(&p, 0, 8 * K);
	rocksdb_prefetch_if_needed(&p, 8 * K, 8 * K);
	rocksdb_prefetch_if_needed(&p, 16 * K, 8 * K);		/* limit 32K */
	ok(rocksdb_prefetch_if_needed(&p, 24 * K, 8 * K + 1) == 8 * K + 1 + 16 * K,
	   "a record ending one byte past the limit asks: its 8K+1 and 16K");
}

/* Out of order: starts over, the out-of-order read counting as the first. */
static void test_reset(void)
{
	struct rocksdb_prefetcher p;

	rocksdb_prefetcher_init(&p);
	for (uint64_t off = 0; off < 64 * K; off += 8 * K)
		rocksdb_prefetch_if_needed(&p, off, 8 * K);	/* limit 96K, next size 64K */
	ok(rocksdb_prefetch_if_needed(&p, 200 * K, 8 * K) == 0, "a jump to 200K: none");
	ok(rocksdb_prefetch_if_needed(&p, 208 * K, 8 * K) == 0, "the next in order is the second read since: none");
	ok(rocksdb_prefetch_if_needed(&p, 216 * K, 8 * K) == 16 * K,
	   "the third asks for its 8K and 8K again, not the 64K the stream had reached");
	rocksdb_prefetcher_init(&p);
	rocksdb_prefetch_if_needed(&p, 0, 8 * K);
	ok(rocksdb_prefetch_if_needed(&p, 0, 8 * K) == 0 && rocksdb_prefetch_if_needed(&p, 8 * K, 8 * K) == 0 &&
	   rocksdb_prefetch_if_needed(&p, 16 * K, 8 * K) == 16 * K,
	   "a repeated record is out of order: two reads in order after it, then the third asks");
}

int main(void)
{
	test_growth();
	test_limit();
	test_reset();
	return done_testing();
}
