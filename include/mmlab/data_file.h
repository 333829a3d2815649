/*
 * Backing files of the experiments that cache a file: unlinked files under
 * $TMPDIR whose bytes are a splitmix64 stream from (seed, id), so the same
 * --seed gives the same contents, and the lab can recompute any file's
 * bytes in order (for checksums) without reading it back.
 */
#ifndef MMLAB_DATA_FILE_H
#define MMLAB_DATA_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <mmlab/random.h>

/* The contents of file @id of a run with @seed, from its first byte on. */
struct data_stream {
	uint64_t x;
};

static inline void data_stream_init(struct data_stream *s, uint64_t seed, int id)
{
	s->x = seed * 1000003 + (uint64_t)id;
}

/* The next @len bytes; a length not a multiple of 8 ends the stream. */
static inline void data_stream_fill(struct data_stream *s, void *buf, size_t len)
{
	unsigned char *p = buf;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t v = splitmix64_next(&s->x);

		memcpy(p + i, &v, len - i < 8 ? len - i : 8);
	}
}

/*
 * Create file @id of @size bytes with the contents above, unlinked: the
 * descriptor is the only reference.  Returns it, or -1 after a one-line
 * "mmlab: @who: ..." error on stderr.
 */
int data_file_create(const char *who, unsigned long long size, uint64_t seed, int id);

#endif
