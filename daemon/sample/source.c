/* source.c: helpers every source uses to read below the root prefix without copying. */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
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

/* Read fd whole from offset 0 into *buf. A sized fd (a regular file with a size) ends at the
 * first short read; /proc files return a page or so per read() and end only at a read of 0. */
static ssize_t
read_whole(int fd, bool sized, char **buf, size_t *cap)
{
	size_t len = 0, want;
	ssize_t n;

	if (reserve(buf, cap, 4095) < 0)
		return -1;
	for (;;) {
		want = *cap - 1 - len;
		n = pread(fd, *buf + len, want, (off_t)len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (sized && (size_t)n < want)
			break;
		/* Full buffer: there may be more; grow and go on. */
		if (len == *cap - 1 && reserve(buf, cap, *cap * 2) < 0)
			return -1;
	}
	(*buf)[len] = '\0';
	return (ssize_t)len;
}

/* Read a kept fd whole from offset 0 into *buf. */
ssize_t
source_pread_fd(int fd, bool sized, char **buf, size_t *cap)
{
	return read_whole(fd, sized, buf, cap);
}

/* Whether fd ends at a short read. */
bool
source_fd_sized(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

/* Open a path below the root. */
int
source_open(struct source *src, const char *path)
{
	while (*path == '/')
		path++;
	return openat(src->rootfd, path, O_RDONLY | O_CLOEXEC);
}

/* Open, read whole and close a file below the root. */
ssize_t
source_read_file(struct source *src, const char *path, char **buf, size_t *cap)
{
	int fd = source_open(src, path);
	ssize_t n;
	int e;

	if (fd < 0)
		return -1;
	n = read_whole(fd, false, buf, cap);
	e = errno;
	close(fd);
	errno = e;
	return n;
}

/* Set f up, closed, for path. */
void
source_file_init(struct source_file *f, const char *path)
{
	memset(f, 0, sizeof(*f));
	f->path = path;
	f->fd = -1;
}

/* Fill err for a failed open or read of f. */
static int
source_file_error(struct source *src, struct source_file *f, struct nm_error *err, int e)
{
	return nm_error_set(err, e == ENOENT ? NM_ERR_UNSUPPORTED : NM_ERR_FAILED,
	                    "source %s: %s: %s", src->ops->name, f->path, strerror(e));
}

/* Open f below the root and see whether it is sized; 0 or -1 with err. */
int
source_file_open(struct source *src, struct source_file *f, struct nm_error *err)
{
	f->fd = source_open(src, f->path);
	if (f->fd < 0)
		return source_file_error(src, f, err, errno);
	f->sized = source_fd_sized(f->fd);
	return 0;
}

/* Read f into the buffer not holding the kept read, reopening it if closed. */
ssize_t
source_file_read(struct source *src, struct source_file *f, const char **buf, struct nm_error *err)
{
	int nxt = f->cur ^ 1;
	ssize_t n;

	if (f->fd < 0 && source_file_open(src, f, err) < 0)
		return -1;
	n = read_whole(f->fd, f->sized, &f->buf[nxt], &f->cap[nxt]);
	if (n < 0)
		return source_file_error(src, f, err, errno);
	f->len[nxt] = (size_t)n;
	*buf = f->buf[nxt];
	return n;
}

/* The read kept last, or NULL. */
const char *
source_file_prev(const struct source_file *f, size_t *len)
{
	return source_file_prev_mut((struct source_file *)f, len);
}

/* The read kept last, writable. */
char *
source_file_prev_mut(struct source_file *f, size_t *len)
{
	if (len != NULL)
		*len = f->have_prev ? f->len[f->cur] : 0;
	return f->have_prev ? f->buf[f->cur] : NULL;
}

/* Keep the last read. */
void
source_file_keep(struct source_file *f)
{
	f->cur ^= 1;
	f->have_prev = true;
}

/* Close f and free its buffers. */
void
source_file_free(struct source_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	free(f->buf[0]);
	free(f->buf[1]);
	source_file_init(f, f->path);
}

struct series_labels
source_labels(struct source *src)
{
	series_registry_name_source(src->reg, src->index, src->ops->name);
	return SERIES_LABELS_NONE;
}

series_atom
source_atom(struct source *src, const char *s, size_t len)
{
	return series_atom_intern(src->reg, s, len);
}

const struct source_family source_not_exported[] = {{.family = NULL}};

/* Whether s matches one of the NULL-terminated globs. */
static bool
glob_any(const char *const *globs, const char *s)
{
	for (; *globs != NULL; globs++)
		if (fnmatch(*globs, s, 0) == 0)
			return true;
	return false;
}

/* Whether a label (set or not) meets a condition. */
static bool
label_ok(enum source_label_match m, bool set)
{
	return m == SOURCE_ANY_LABEL || (m == SOURCE_HAS) == set;
}

/* Whether the series si with labels l of reg matches m. */
static bool
match_labels(const struct source_match *m, const struct series_registry *reg,
             const struct series_info *si, const struct series_labels *l)
{
	bool gauge = si->kind == SERIES_GAUGE;

	if ((m->kind == SOURCE_COUNTERS && gauge) || (m->kind == SOURCE_GAUGES && !gauge))
		return false;
	if (!label_ok(m->cpu, l->cpu >= 0) || !label_ok(m->irq, l->irq >= 0) ||
	    !label_ok(m->mode, l->mode != SERIES_ATOM_NONE))
		return false;
	if (m->field != NULL && !glob_any(m->field, series_atom_str(reg, l->field)))
		return false;
	if (m->type != NULL && !glob_any(m->type, series_atom_str(reg, l->type)))
		return false;
	if (m->unit != NULL && (si->unit == NULL || strcmp(si->unit, m->unit) != 0))
		return false;
	return m->name == NULL || fnmatch(m->name, si->name, 0) == 0;
}

bool
source_match(const struct source_match *m, const struct series_registry *reg, series_id id)
{
	struct series_labels l = series_labels_of(reg, id);

	return match_labels(m, reg, series_get(reg, id), &l);
}

const struct source_family *
source_family_of(const struct source_ops *ops, const struct series_registry *reg, series_id id)
{
	const struct series_info *si = series_get(reg, id);
	struct series_labels l = series_labels_of(reg, id);

	/* The sampler's peak-rate gauges (sampler.h) are not exported: a family as large as the
	 * counters they come from, whose value a scrape every 15 s would sample, not keep. */
	if (si->peak)
		return NULL;
	for (const struct source_family *r = ops->prom; r != NULL && r->family != NULL; r++)
		if (match_labels(&r->match, reg, si, &l))
			return r->family[0] != '\0' ? r : NULL;
	return NULL;
}

bool
source_keeps(const struct source_ops *ops, const struct series_registry *reg, series_id id)
{
	if (ops->keep != SOURCE_KEPT)
		return false;
	return ops->keep_except == NULL || !source_match(ops->keep_except, reg, id);
}
