/* source.c: helpers every source uses to read below the root prefix without copying. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "source.h"
#include "xmalloc.h"

#define SOURCE_MAX_FILE (64u << 20) /* a /proc file larger than this is refused */

/* Make sure *buf has room for at least need bytes plus a NUL. */
static int
reserve(char **buf, size_t *cap, size_t need)
{
	size_t n = *cap ? *cap : 4096;

	if (need + 1 <= *cap)
		return 0;
	if (need + 1 > SOURCE_MAX_FILE) {
		errno = EFBIG;
		return -1;
	}
	while (n < need + 1)
		n *= 2;
	*buf = xreallocarray(*buf, n, 1);
	*cap = n;
	return 0;
}

ssize_t
source_pread_fd(int fd, char **buf, size_t *cap)
{
	size_t len = 0;
	ssize_t n;

	if (reserve(buf, cap, 4095) < 0)
		return -1;
	for (;;) {
		n = pread(fd, *buf + len, *cap - 1 - len, (off_t)len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		/* Full buffer: there may be more; grow and go on. */
		if (len == *cap - 1 && reserve(buf, cap, *cap * 2) < 0)
			return -1;
	}
	(*buf)[len] = '\0';
	return (ssize_t)len;
}

int
source_open(struct source *src, const char *path)
{
	while (*path == '/')
		path++;
	return openat(src->rootfd, path, O_RDONLY | O_CLOEXEC);
}

ssize_t
source_read_file(struct source *src, const char *path, char **buf, size_t *cap)
{
	int fd = source_open(src, path);
	ssize_t n;
	int e;

	if (fd < 0)
		return -1;
	n = source_pread_fd(fd, buf, cap);
	e = errno;
	close(fd);
	errno = e;
	return n;
}
