/*
 * The checksum readseq readers compute over every record they read and
 * compare with the backing file's (computed once when the file is made): a
 * Fletcher-style pair of sums over 64-bit words, which catches wrong, moved
 * and zeroed data, as RocksDB's block checksums would.
 */
#ifndef MMLAB_RECORD_SUM_H
#define MMLAB_RECORD_SUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <mmlab/uncharged.h>

static inline __lab_uncharged uint64_t record_sum(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t a = 0, b = 0, w;

	for (size_t i = 0; i + sizeof(w) <= len; i += sizeof(w)) {
		__builtin_memcpy(&w, p + i, sizeof(w));
		a += w;
		b += a;
	}
	return a ^ (b * 0x9e3779b97f4a7c15ULL);
}

/* Does record @rec of @len bytes at @buf differ from @sums[@rec]? */
static inline __lab_uncharged bool record_differs(const void *buf, size_t len,
						  const uint64_t *const *sums, int f,
						  unsigned long rec)
{
	return record_sum(buf, len) != sums[f][rec];
}

#endif
