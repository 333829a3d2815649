/*
 * Backing files of the experiments (include/mmlab/data_file.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mmlab/data_file.h>

#define DATA_FILE_CHUNK	(1 << 20)

/* 0, or the errno of what failed. */
static int write_contents(int fd, unsigned long long size, uint64_t seed, int id)
{
	unsigned char *buf = malloc(DATA_FILE_CHUNK);
	struct data_stream s;
	int err = 0;

	if (!buf)
		return ENOMEM;
	data_stream_init(&s, seed, id);
	for (unsigned long long off = 0; off < size && !err; off += DATA_FILE_CHUNK) {
		size_t len = size - off < DATA_FILE_CHUNK ? (size_t)(size - off) : DATA_FILE_CHUNK;
		ssize_t done;

		data_stream_fill(&s, buf, len);
		done = pwrite(fd, buf, len, (off_t)off);
		if (done != (ssize_t)len)
			err = done < 0 ? errno : ENOSPC;
	}
	free(buf);
	return err;
}

int data_file_create(const char *who, unsigned long long size, uint64_t seed, int id)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char path[4096];
	int fd, err;

	snprintf(path, sizeof(path), "%s/mmlab-%s-XXXXXX", dir, who);
	fd = mkstemp(path);
	if (fd < 0) {
		fprintf(stderr, "mmlab: %s: cannot create a backing file in %s: %s\n",
			who, dir, strerror(errno));
		return -1;
	}
	unlink(path);
	err = write_contents(fd, size, seed, id);
	if (err) {
		fprintf(stderr, "mmlab: %s: cannot write a %llu-byte backing file in %s: %s\n",
			who, size, dir, strerror(err));
		close(fd);
		return -1;
	}
	return fd;
}
