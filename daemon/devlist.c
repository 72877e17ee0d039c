/* devlist.c: list network devices from a kept directory fd, read their counters, and the
 * "devices" filter. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devlist.h"
#include "error.h"
#include "ethtool.h"
#include "log.h"
#include "source.h"
#include "xmalloc.h"

#define DEVLIST_BUF 32768

/* Open /sys/class/net (host) or DIR/ethtool (fixture root) and keep it. */
int
devlist_open(struct devlist *dl, struct source *src, struct nm_error *err)
{
	const char *path = src->host ? "sys/class/net" : "ethtool";

	memset(dl, 0, sizeof(*dl));
	dl->fixture = !src->host;
	dl->dirfd = openat(src->rootfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dl->dirfd < 0)
		return nm_error_set(err, NM_ERR_FAILED, "%s/%s: %s", src->root, path,
		                    strerror(errno));
	dl->cap = DEVLIST_BUF;
	dl->buf = xmalloc(dl->cap);
	return 0;
}

/* Close the directory and free the buffer. */
void
devlist_close(struct devlist *dl)
{
	if (dl->buf != NULL) /* opened: a zeroed struct's fd 0 is not ours */
		close(dl->dirfd);
	free(dl->buf);
	memset(dl, 0, sizeof(*dl));
	dl->dirfd = -1;
}

/* The device name an entry stands for into name (DEVLIST_NAME_MAX); false when it is none. */
static bool
entry_name(const struct devlist *dl, const struct dirent64 *de, char *name)
{
	size_t len = strlen(de->d_name);

	if (de->d_name[0] == '.')
		return false;
	if (dl->fixture) {
		if (len < 5 || strcmp(de->d_name + len - 4, ".txt") != 0)
			return false;
		len -= 4;
	} else if (de->d_type != DT_LNK && de->d_type != DT_UNKNOWN) {
		return false; /* bonding_masters and the like */
	}
	if (len == 0 || len >= DEVLIST_NAME_MAX)
		return false;
	memcpy(name, de->d_name, len);
	name[len] = '\0';
	return true;
}

/* Walk the directory with getdents64, handing each device name to fn. */
int
devlist_scan(struct devlist *dl, void (*fn)(const char *name, void *arg), void *arg,
             struct nm_error *err)
{
	char name[DEVLIST_NAME_MAX];
	ssize_t n;

	if (lseek(dl->dirfd, 0, SEEK_SET) < 0)
		return nm_error_set(err, NM_ERR_FAILED, "device list: %s", strerror(errno));
	for (;;) {
		n = getdents64(dl->dirfd, dl->buf, dl->cap);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return nm_error_set(err, NM_ERR_FAILED, "device list: %s", strerror(errno));
		if (n == 0)
			return 0;
		for (ssize_t off = 0; off < n;) {
			const struct dirent64 *de = (const struct dirent64 *)(dl->buf + off);
			if (entry_name(dl, de, name))
				fn(name, arg);
			off += de->d_reclen;
		}
	}
}

/* Read one device's counters by ioctl or from its fixture text. */
int
devlist_read_counters(struct source *src, int fd, const char *name, struct ethtool_counters *ec,
                      struct devlist_status *ds, char **buf, size_t *cap)
{
	struct nm_error e;
	char path[64];
	ssize_t len;

	if (fd >= 0) {
		if (ethtool_read(fd, name, ec, &e) < 0) {
			if (e.code == NM_ERR_NOT_FOUND)
				ds->seen = 0; /* went away after the listing */
			else if (!ds->failing)
				log_warnx("source %s: %s", src->ops->name, e.message);
			ds->failing = true;
			return -1;
		}
		ds->failing = false;
		if (ec->n == 0)
			ds->nostats = true;
		return 0;
	}
	snprintf(path, sizeof(path), "ethtool/%s.txt", name);
	len = source_read_file(src, path, buf, cap);
	if (len < 0) {
		if (errno == ENOENT)
			ds->seen = 0;
		return -1;
	}
	ethtool_parse_text(*buf, (size_t)len, ec);
	return 0;
}

/* Forget the globs. */
void
devlist_filter_free(struct devlist_filter *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->globs[i]);
	free(f->globs);
	memset(f, 0, sizeof(*f));
}

/* Parse a blank- or comma-separated glob list into f. */
int
devlist_filter_parse(struct devlist_filter *f, const char *val, struct nm_error *err)
{
	const char *sep = " \t,";
	struct devlist_filter nf = {NULL, 0};
	const char *s = val;
	size_t len;

	for (;;) {
		s += strspn(s, sep);
		if (*s == '\0')
			break;
		len = strcspn(s, sep);
		if (len >= 256) {
			devlist_filter_free(&nf);
			return nm_error_set(err, NM_ERR_BAD_ARGS, "devices: glob too long");
		}
		nf.globs = xreallocarray(nf.globs, nf.n + 1, sizeof(*nf.globs));
		nf.globs[nf.n++] = xstrndup(s, len);
		s += len;
	}
	if (nf.n == 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "devices: empty list");
	devlist_filter_free(f);
	*f = nf;
	return 0;
}

/* Does name pass the filter (default: every device but lo)? */
bool
devlist_filter_match(const struct devlist_filter *f, const char *name)
{
	if (f == NULL || f->n == 0)
		return strcmp(name, "lo") != 0;
	for (size_t i = 0; i < f->n; i++)
		if (fnmatch(f->globs[i], name, 0) == 0)
			return true;
	return false;
}
