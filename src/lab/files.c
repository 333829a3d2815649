/*
 * Input and output files of the runner (include/mmlab/files.h): inputs
 * bounded and regular, outputs renamed into place whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mmlab/files.h>

const char *lab_file_kind(unsigned int st_mode)
{
	switch (st_mode & S_IFMT) {
	case S_IFREG:
		return NULL;
	case S_IFDIR:
		return "a directory";
	case S_IFIFO:
		return "a FIFO";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFSOCK:
		return "a socket";
	default:
		return "not a regular file";
	}
}

int lab_read_file(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
	const char *kind;
	struct stat st;
	size_t n = 0;
	char *p;
	int fd;

	*buf = NULL;
	*len = 0;
	/* the type first: opening a FIFO or a device can block or act */
	if (stat(path, &st)) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	if ((kind = lab_file_kind(st.st_mode))) {
		snprintf(err, errlen, "cannot read '%s': it is %s; a regular file is needed", path, kind);
		return -1;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if ((kind = lab_file_kind(st.st_mode)) || (unsigned long long)st.st_size > LAB_MAX_INPUT) {
		if (kind)
			snprintf(err, errlen, "cannot read '%s': it is %s; a regular file is needed",
				 path, kind);
		else
			snprintf(err, errlen, "cannot read '%s': %lld bytes, more than the %s "
				 "(%llu bytes) an input file may have", path, (long long)st.st_size,
				 LAB_MAX_INPUT_TEXT, LAB_MAX_INPUT);
		close(fd);
		return -1;
	}
	p = malloc((size_t)st.st_size + 1);
	if (!p) {
		snprintf(err, errlen, "cannot read '%s': out of memory", path);
		close(fd);
		return -1;
	}
	/* a file that grows while read is read up to its size at open */
	while (n < (size_t)st.st_size) {
		ssize_t got = read(fd, p + n, (size_t)st.st_size - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
			free(p);
			close(fd);
			return -1;
		}
		if (!got)
			break;
		n += got;
	}
	close(fd);
	p[n] = '\0';
	*buf = p;
	*len = n;
	return 0;
}

/* The directory part of @path ("." if none) into @dir, the rest into @base. */
static int split_path(const char *path, char *dir, size_t dlen, const char **base)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		snprintf(dir, dlen, ".");
		*base = path;
	} else if (slash == path) {
		snprintf(dir, dlen, "/");
		*base = slash + 1;
	} else {
		if ((size_t)(slash - path) >= dlen)
			return -1;
		memcpy(dir, path, slash - path);
		dir[slash - path] = '\0';
		*base = slash + 1;
	}
	return 0;
}

/*
 * @path with a symbolic link followed into @o->path; checks that it is
 * absent or a regular file.  @mode: the existing file's, or 0.
 */
static int resolve(struct lab_out *o, const char *path, mode_t *mode, char *err, size_t errlen)
{
	char real[PATH_MAX];
	const char *kind;
	struct stat st;

	*mode = 0;
	if (!*path) {
		snprintf(err, errlen, "an empty file name; give a file to write");
		return -1;
	}
	if (!lstat(path, &st) && S_ISLNK(st.st_mode) && realpath(path, real))
		path = real;
	if (strlen(path) >= sizeof(o->path) - 16) {
		snprintf(err, errlen, "cannot write '%.200s...': the name is too long", path);
		return -1;
	}
	snprintf(o->path, sizeof(o->path), "%s", path);
	if (!stat(path, &st)) {
		if ((kind = lab_file_kind(st.st_mode))) {
			snprintf(err, errlen, "cannot write '%s': it is %s; the file is written whole "
				 "to a temporary name and renamed into place, so it must be a regular "
				 "file or not exist", path, kind);
			return -1;
		}
		*mode = st.st_mode & 07777;
	} else if (errno != ENOENT) {
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Creates the temporary file beside @o->path; its descriptor, or -1. */
static int make_tmp(struct lab_out *o, char *err, size_t errlen)
{
	char dir[4096];
	const char *base;
	int fd;

	if (split_path(o->path, dir, sizeof(dir), &base) || !*base) {
		snprintf(err, errlen, "cannot write '%s': it names a directory; give a file name",
			 o->path);
		return -1;
	}
	if ((size_t)snprintf(o->tmp, sizeof(o->tmp), "%s/.%s.XXXXXX", dir, base) >= sizeof(o->tmp)) {
		snprintf(err, errlen, "cannot write '%.200s...': the name is too long", o->path);
		o->tmp[0] = '\0';
		return -1;
	}
	fd = mkstemp(o->tmp);
	if (fd >= 0)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot write '%s': cannot create a file in '%s': %s",
			 o->path, dir, strerror(errno));
		o->tmp[0] = '\0';
	}
	return fd;
}

int lab_out_check(const char *path, char *err, size_t errlen)
{
	struct lab_out *o = calloc(1, sizeof(*o));
	mode_t mode;
	int fd = -1;

	if (!o) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (!resolve(o, path, &mode, err, errlen) && (fd = make_tmp(o, err, errlen)) >= 0) {
		close(fd);
		unlink(o->tmp);
	}
	free(o);
	return fd >= 0 ? 0 : -1;
}

int lab_out_open(struct lab_out *o, const char *path, char *err, size_t errlen)
{
	sigset_t hold;
	mode_t mode, mask;
	int fd;

	memset(o, 0, sizeof(*o));
	if (resolve(o, path, &mode, err, errlen))
		return -1;
	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigaddset(&hold, SIGTERM);
	sigaddset(&hold, SIGHUP);
	sigaddset(&hold, SIGQUIT);
	sigprocmask(SIG_BLOCK, &hold, &o->saved);
	fd = make_tmp(o, err, errlen);
	if (fd < 0) {
		sigprocmask(SIG_SETMASK, &o->saved, NULL);
		return -1;
	}
	if (!mode) {	/* a new file gets what fopen(path, "w") would give it */
		mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	if (fchmod(fd, mode) || !(o->f = fdopen(fd, "w"))) {
		snprintf(err, errlen, "cannot write '%s': %s", o->tmp, strerror(errno));
		close(fd);
		lab_out_abort(o);
		return -1;
	}
	return 0;
}

void lab_out_abort(struct lab_out *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = '\0';
	sigprocmask(SIG_SETMASK, &o->saved, NULL);
}

int lab_out_commit(struct lab_out *o, bool ok, char *err, size_t errlen)
{
	int e = ok ? 0 : (errno ? errno : EIO);

	if (!e && (fflush(o->f) || ferror(o->f)))
		e = errno ? errno : EIO;
	if (!e && fsync(fileno(o->f)) && errno != EINVAL && errno != EROFS)
		e = errno;
	if (fclose(o->f) && !e)
		e = errno ? errno : EIO;
	o->f = NULL;
	if (!e && rename(o->tmp, o->path))
		e = errno;
	if (e) {
		snprintf(err, errlen, "writing '%s' failed: %s", o->path, strerror(e));
		lab_out_abort(o);
		return -1;
	}
	o->tmp[0] = '\0';
	sigprocmask(SIG_SETMASK, &o->saved, NULL);
	return 0;
}

bool lab_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
