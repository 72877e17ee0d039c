/* statefile.c: atomic JSON files in the state directory: write, read, remove, scan. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "jsonutil.h"
#include "log.h"
#include "regfile.h"
#include "statefile.h"
#include "strutil.h"
#include "xmalloc.h"

/* Nesting of a stored JSON file accepted on reading. */
#define STATEFILE_MAX_DEPTH 64
/* Directory levels walked by a scan (a 200-byte name has at most 100). */
#define STATEFILE_MAX_LEVELS 128

/* root/rel into buf; -1 with err when it does not fit. */
static int
join_path(char *buf, size_t size, const char *root, const char *rel, const char *suffix,
          struct nm_error *err)
{
	int n = snprintf(buf, size, "%s/%s%s", root, rel, suffix);

	if (n < 0 || (size_t)n >= size)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "path %s/%s is too long", root, rel);
	return 0;
}

/* fsync the directory dir, so that a rename or unlink in it is on disk. */
static int
sync_dir(const char *dir, struct nm_error *err)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || fsync(fd) < 0) {
		nm_error_set(err, NM_ERR_FAILED, "sync %s: %s", dir, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* fsync the directory holding path. */
static int
sync_parent(const char *path, struct nm_error *err)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) == NULL)
		return sync_dir(".", err);
	*slash = '\0';
	return sync_dir(dir[0] ? dir : "/", err);
}

/* Create a directory when missing and sync its parent. */
int
statefile_mkdir(const char *dir, struct nm_error *err)
{
	struct stat st;

	if (mkdir(dir, 0750) == 0)
		return sync_parent(dir, err);
	if (errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	if (errno == EEXIST)
		errno = ENOTDIR;
	return nm_error_set(err, NM_ERR_FAILED, "create directory %s: %s", dir, strerror(errno));
}

/* Create the directories of path below root (path starts with root + '/'). */
static int
make_parents(const char *root, char *path, struct nm_error *err)
{
	for (char *s = path + strlen(root) + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		int rc = statefile_mkdir(path, err);
		*s = '/';
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Write all of buf to fd. */
static int
write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Move tmp to path; with noreplace, fail with EEXIST when path exists. */
static int
move_into_place(const char *tmp, const char *path, bool noreplace)
{
	if (!noreplace)
		return rename(tmp, path);
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	/* A file system without RENAME_NOREPLACE: link(2) refuses an existing name too. */
	if (link(tmp, path) < 0)
		return -1;
	unlink(tmp);
	return 0;
}

/* Write a JSON file atomically: temp file, fsync, rename, fsync of the directory. */
int
statefile_write_json(const char *root, const char *rel, json_object *obj, bool noreplace,
                     struct nm_error *err)
{
	return statefile_write_json_flags(root, rel, obj, noreplace ? STATEFILE_NOREPLACE : 0, err);
}

/* Write atomically; fsync the file and its directory unless STATEFILE_NOSYNC. */
int
statefile_write_json_flags(const char *root, const char *rel, json_object *obj, unsigned flags,
                           struct nm_error *err)
{
	size_t len;
	const char *line = json_to_line(obj, &len);

	return statefile_write_line(root, rel, line, len, flags, err);
}

/* The test-only delay before each fsync of a written file (statefile_test_fsync_delay). */
static unsigned fsync_delay_ms;

/* Make every fsync of a written file slower by ms (tests only: a slow disk on demand). */
void
statefile_test_fsync_delay(unsigned ms)
{
	fsync_delay_ms = ms;
}

/* fsync fd, after the test-only delay when one is set. */
static int
sync_file(int fd)
{
	if (fsync_delay_ms > 0) {
		struct timespec ts = {(time_t)(fsync_delay_ms / 1000),
		                      (long)(fsync_delay_ms % 1000) * 1000000L};
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	return fsync(fd);
}

/* Write line and a newline atomically; fsync unless STATEFILE_NOSYNC. */
int
statefile_write_line(const char *root, const char *rel, const char *line, size_t len,
                     unsigned flags, struct nm_error *err)
{
	bool noreplace = flags & STATEFILE_NOREPLACE, sync = !(flags & STATEFILE_NOSYNC);
	char path[PATH_MAX], tmp[PATH_MAX];
	int fd;

	if (join_path(path, sizeof(path), root, rel, "", err) < 0 ||
	    join_path(tmp, sizeof(tmp), root, rel, STATEFILE_TMP_SUFFIX, err) < 0 ||
	    make_parents(root, path, err) < 0)
		return -1;
	/* A fresh regular file: whatever has the name (a crash's leftover, or a FIFO or a link
	 * someone put there, which open would block on or follow) goes first. */
	if (unlink(tmp) < 0 && errno != ENOENT)
		return nm_error_set(err, NM_ERR_FAILED, "remove %s: %s", tmp, strerror(errno));
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0640);
	if (fd < 0)
		return nm_error_set(err, NM_ERR_FAILED, "create %s: %s", tmp, strerror(errno));
	if (write_all(fd, line, len) < 0 || write_all(fd, "\n", 1) < 0 ||
	    (sync && sync_file(fd) < 0)) {
		nm_error_set(err, NM_ERR_FAILED, "write %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	if (close(fd) < 0) {
		nm_error_set(err, NM_ERR_FAILED, "write %s: %s", tmp, strerror(errno));
		unlink(tmp);
		return -1;
	}
	if (move_into_place(tmp, path, noreplace) < 0) {
		int e = errno;
		unlink(tmp);
		if (e == EEXIST)
			return nm_error_set(err, NM_ERR_EXISTS, "%s exists", path);
		return nm_error_set(err, NM_ERR_FAILED, "rename %s: %s", tmp, strerror(e));
	}
	return sync ? sync_parent(path, err) : 0;
}

/* Read a JSON file of at most STATEFILE_MAX_BYTES (a regular file, see regfile.c). */
static json_object *
read_any(const char *root, const char *rel, struct nm_error *err)
{
	char path[PATH_MAX], msg[256];
	json_object *obj;
	size_t len = 0;
	char *buf;

	if (join_path(path, sizeof(path), root, rel, "", err) < 0)
		return NULL;
	if ((buf = regfile_read(path, STATEFILE_MAX_BYTES, &len, err)) == NULL)
		return NULL;
	msg[0] = '\0';
	obj = json_parse_bounded(buf, len, STATEFILE_MAX_DEPTH, msg, sizeof(msg));
	free(buf);
	/* A file holding "null" parses to NULL without a message. */
	if (obj == NULL)
		nm_error_set(err, NM_ERR_FAILED, "%s: %s", path,
		             msg[0] ? msg : "null, not a JSON object");
	return obj;
}

/* Read a JSON object; anything else (an array, a number, a string, null) is an error. */
json_object *
statefile_read_json(const char *root, const char *rel, struct nm_error *err)
{
	json_object *obj = read_any(root, rel, err);

	if (obj != NULL && !json_object_is_type(obj, json_type_object)) {
		nm_error_set(err, NM_ERR_FAILED, "%s/%s: a JSON %s, not an object", root, rel,
		             json_type_to_name(json_object_get_type(obj)));
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

/* Remove a file and the directories it leaves empty. */
int
statefile_remove(const char *root, const char *rel, struct nm_error *err)
{
	return statefile_remove_flags(root, rel, 0, err);
}

/* Remove; sync the directory unless STATEFILE_NOSYNC. */
int
statefile_remove_flags(const char *root, const char *rel, unsigned flags, struct nm_error *err)
{
	char path[PATH_MAX];
	char *slash;

	if (join_path(path, sizeof(path), root, rel, "", err) < 0)
		return -1;
	if (unlink(path) < 0)
		return nm_error_set(err, errno == ENOENT ? NM_ERR_NOT_FOUND : NM_ERR_FAILED,
		                    "remove %s: %s", path, strerror(errno));
	if (!(flags & STATEFILE_NOSYNC) && sync_parent(path, err) < 0)
		return -1;
	/* Directories of names with '/' go with their last file; root itself stays. */
	while ((slash = strrchr(path, '/')) != NULL && (size_t)(slash - path) > strlen(root)) {
		*slash = '\0';
		if (rmdir(path) < 0)
			break;
	}
	return 0;
}

/* Walk root/rel (rel "" for root itself), level levels deep. */
static void
scan_dir(const char *root, char *rel, size_t rel_size, const char *suffix,
         statefile_scan_stat_fn fn, void *arg, bool clean, int level)
{
	char dirpath[PATH_MAX];
	size_t base = strlen(rel);
	struct dirent *de;
	DIR *dir;
	int len = snprintf(dirpath, sizeof(dirpath), "%s%s%s", root, base ? "/" : "", rel);

	if (len < 0 || (size_t)len >= sizeof(dirpath)) {
		log_warnx("state: %s/%s: path too long, not read", root, rel);
		return;
	}
	if ((dir = opendir(dirpath)) == NULL) {
		if (errno != ENOENT)
			log_warn("state: cannot read %s", dirpath);
		return;
	}
	while ((de = readdir(dir)) != NULL) {
		struct stat st;
		int n;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		n = snprintf(rel + base, rel_size - base, "%s%s", base ? "/" : "", de->d_name);
		if (n < 0 || (size_t)n >= rel_size - base)
			continue;
		if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode) && level < STATEFILE_MAX_LEVELS)
			scan_dir(root, rel, rel_size, suffix, fn, arg, clean, level + 1);
		else if (S_ISREG(st.st_mode) &&
		         strutil_ends_with(de->d_name, STATEFILE_TMP_SUFFIX)) {
			if (clean) {
				log_info("state: removing %s/%s, a write a crash interrupted", root,
				         rel);
				unlinkat(dirfd(dir), de->d_name, 0);
			}
		} else if (S_ISREG(st.st_mode) && strutil_ends_with(de->d_name, suffix))
			fn(rel, &st, arg);
		rel[base] = '\0';
	}
	closedir(dir);
}

/* Walk a tree for files with a suffix, with their stat; interrupted writes stay. */
void
statefile_scan_stat(const char *root, const char *suffix, statefile_scan_stat_fn fn, void *arg)
{
	char rel[PATH_MAX] = "";

	scan_dir(root, rel, sizeof(rel), suffix, fn, arg, false, 0);
}

/* statefile_scan's function and its argument, behind statefile_scan_stat. */
struct scan_plain {
	statefile_scan_fn fn;
	void *arg;
};

/* Call the plain function of a scan without the stat. */
static void
scan_plain_one(const char *rel, const struct stat *st, void *arg)
{
	struct scan_plain *p = arg;

	(void)st;
	p->fn(rel, p->arg);
}

/* Walk a tree for files with a suffix, removing interrupted writes. */
void
statefile_scan(const char *root, const char *suffix, statefile_scan_fn fn, void *arg)
{
	struct scan_plain p = {fn, arg};
	char rel[PATH_MAX] = "";

	scan_dir(root, rel, sizeof(rel), suffix, scan_plain_one, &p, true, 0);
}
