/*
 * The files the runner reads and writes (results, shards, merged files):
 * an input must be a regular file no larger than LAB_MAX_INPUT; an output
 * is written whole or not at all: to a temporary name in its directory,
 * then renamed into place, so that a reader sees the old file or the whole
 * new one, never a part.
 */
#ifndef MMLAB_FILES_H
#define MMLAB_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <signal.h>

/* The largest input file (a result is a few MB); docs/INTERFACE.md says it. */
#define LAB_MAX_INPUT		(64ULL << 20)
#define LAB_MAX_INPUT_TEXT	"64 MiB"

/*
 * The whole of @path into a malloc'ed, NUL-terminated @buf of @len bytes.
 * Refused, without reading: anything but a regular file (a directory, a
 * FIFO, a device: not even opened for reading), and a file larger than
 * LAB_MAX_INPUT.  Returns 0, or -1 with one line in @err naming the file.
 */
int lab_read_file(const char *path, char **buf, size_t *len, char *err, size_t errlen);

/*
 * What @path is when it is not a regular file ("a directory", "a
 * character device", ...), or NULL for a regular file.
 */
const char *lab_file_kind(unsigned int st_mode);

struct lab_out {
	char path[4096];	/* where the file goes (a symbolic link's target) */
	char tmp[4096];		/* the temporary name beside it, "" when none */
	FILE *f;
	sigset_t saved;		/* the signal mask before lab_out_open() */
};

/*
 * Whether @path can be written before any work is done: it does not
 * exist or is a regular file (not a directory, a device, a FIFO), and a
 * file can be created in its directory.  0, or -1 with one line in @err.
 */
int lab_out_check(const char *path, char *err, size_t errlen);
/*
 * Opens the temporary file for @path (lab_out_check()'s rules apply).
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT are held until lab_out_commit() or
 * lab_out_abort(), so an interrupt does not leave the temporary behind.
 */
int lab_out_open(struct lab_out *o, const char *path, char *err, size_t errlen);
/*
 * Flushes, syncs and closes the temporary file and renames it to the
 * path; @ok false (the caller's writing failed) discards it.  0, or -1 with
 * the reason (strerror) in @err; nothing is left under the temporary name.
 */
int lab_out_commit(struct lab_out *o, bool ok, char *err, size_t errlen);
/* Removes the temporary file, leaving the path as it was. */
void lab_out_abort(struct lab_out *o);
/* @a and @b name the same existing file (the same device and inode). */
bool lab_same_file(const char *a, const char *b);

#endif
