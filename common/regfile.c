/* regfile.c: open and read regular files only, without following links or blocking. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "regfile.h"
#include "xmalloc.h"

/* Open a regular file of at most max bytes. */
int
regfile_open(const char *path, size_t max, struct nm_error *err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0 && errno == ELOOP)
		return nm_error_set(err, NM_ERR_FAILED, "%s: a symbolic link, not followed", path);
	if (fd < 0)
		return nm_error_set(err, errno == ENOENT ? NM_ERR_NOT_FOUND : NM_ERR_FAILED,
		                    "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		nm_error_set(err, NM_ERR_FAILED, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		nm_error_set(err, NM_ERR_FAILED, "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	if ((unsigned long long)st.st_size > max) {
		nm_error_set(err, NM_ERR_TOO_LONG, "%s: longer than %zu bytes", path, max);
		close(fd);
		return -1;
	}
	return fd;
}

/* Read a whole regular file of at most max bytes. */
char *
regfile_read(const char *path, size_t max, size_t *len, struct nm_error *err)
{
	int fd = regfile_open(path, max, err);
	size_t n = 0, size;
	struct stat st;
	char *buf;

	if (fd < 0)
		return NULL;
	/* The size fstat saw, plus one byte to see that it did not grow. */
	size = fstat(fd, &st) == 0 ? (size_t)st.st_size + 1 : max + 1;
	buf = xmalloc(size + 1);
	for (;;) {
		ssize_t r;

		if (n == size) {
			if (size > max)
				break;
			size = size * 2 > max + 1 ? max + 1 : size * 2;
			buf = xreallocarray(buf, size + 1, 1);
		}
		r = read(fd, buf + n, size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			nm_error_set(err, NM_ERR_FAILED, "%s: %s", path, strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		nm_error_set(err, NM_ERR_TOO_LONG, "%s: longer than %zu bytes", path, max);
		goto fail;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	close(fd);
	free(buf);
	return NULL;
}
