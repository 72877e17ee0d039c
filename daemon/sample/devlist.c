/* devlist.c: list network devices from a kept directory fd and read their counters, once for
 * every source that asks within DEVLIST_FRESH_NS of the same time; the "devices" filter. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devlist.h"
#include "error.h"
#include "ethtool.h"
#include "log.h"
#include "source.h"
#include "xmalloc.h"

#define DEVLIST_BUF 32768

/* A new devlist, closed. */
struct devlist *
devlist_new(void)
{
	struct devlist *dl = xcalloc(1, sizeof(*dl));

	dl->dirfd = -1;
	dl->sock = -1;
	dl->notify = -1;
	dl->reuse_ns = DEVLIST_REUSE_NS;
	return dl;
}

/* Release one entry: its counters and its file. */
static void
entry_free(struct devlist_entry *e)
{
	ethtool_counters_free(&e->ec);
	source_file_free(&e->file);
	free(e);
}

/* Close everything and free dl. */
void
devlist_free(struct devlist *dl)
{
	if (dl == NULL)
		return;
	for (size_t i = 0; i < dl->nentries; i++)
		entry_free(dl->entries[i]);
	free(dl->entries);
	free(dl->names);
	free(dl->inos);
	free(dl->buf);
	if (dl->dirfd >= 0)
		close(dl->dirfd);
	if (dl->sock >= 0)
		close(dl->sock);
	if (dl->notify >= 0)
		close(dl->notify);
	free(dl);
}

/* A non-blocking rtnetlink socket in the link group: any message on it (a device came, went,
 * was renamed or changed state) means the listing may be stale. -1 when it cannot be had. */
static int
link_notify_open(void)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK};
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Read whatever the link group said since the last call; true when it said anything (or lost
 * messages: ENOBUFS), or when there is no socket to ask. */
static bool
link_notified(struct devlist *dl)
{
	char buf[4096];
	bool any = false;
	ssize_t n;

	if (dl->notify < 0)
		return true;
	for (;;) {
		n = recv(dl->notify, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return any || (errno != EAGAIN && errno != EWOULDBLOCK);
		any = true;
	}
}

/* Whether the directory may have changed since the listing (fixture: its mtime moved). */
static bool
directory_changed(struct devlist *dl)
{
	struct stat st;

	if (!dl->fixture)
		return link_notified(dl);
	if (fstat(dl->dirfd, &st) < 0)
		return true;
	return st.st_mtim.tv_sec != dl->dir_mtime.tv_sec ||
	       st.st_mtim.tv_nsec != dl->dir_mtime.tv_nsec;
}

/* Fixture: note the directory's mtime before a listing; the listing is sure only when that
 * mtime is more than a few clock ticks old, so that a change in the same tick as the listing
 * (which may leave the mtime as it was) is not missed: the next sample lists again. */
static void
note_directory(struct devlist *dl)
{
	struct timespec now;
	struct stat st;

	dl->listing_sure = false;
	if (!dl->fixture) {
		(void)link_notified(dl); /* what it said is older than this listing */
		dl->listing_sure = dl->notify >= 0;
		return;
	}
	if (fstat(dl->dirfd, &st) < 0 || clock_gettime(CLOCK_REALTIME, &now) < 0)
		return;
	dl->dir_mtime = st.st_mtim;
	dl->listing_sure =
	    now.tv_sec > st.st_mtim.tv_sec + 1 ||
	    (now.tv_sec - st.st_mtim.tv_sec) * 1000000000ll + (now.tv_nsec - st.st_mtim.tv_nsec) >
	        50000000ll;
}

/* Open /sys/class/net and the ethtool socket (host), or DIR/ethtool (fixture root), once. */
int
devlist_open(struct devlist *dl, struct source *src, struct nm_error *err)
{
	const char *path = src->host ? "sys/class/net" : "ethtool";

	if (dl->opened)
		return 0;
	dl->fixture = !src->host;
	dl->dirfd = openat(src->rootfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dl->dirfd < 0)
		return nm_error_set(err, NM_ERR_FAILED, "%s/%s: %s", src->root, path,
		                    strerror(errno));
	if (src->host && (dl->sock = ethtool_socket(err)) < 0) {
		close(dl->dirfd);
		dl->dirfd = -1;
		return -1;
	}
	/* Before the first listing, so that no change after it goes unsaid. Without it every
	 * sample lists, as before. */
	if (src->host)
		dl->notify = link_notify_open();
	dl->cap = DEVLIST_BUF;
	dl->buf = xmalloc(dl->cap);
	dl->opened = true;
	return 0;
}

/* The time a source asks at: its round's (source.round_ns), else its sample time. */
static uint64_t
asked_at(const struct source *src)
{
	return src->round_ns != 0 ? src->round_ns : src->sample_ns;
}

/* Whether something done at sample time then may stand for sample time now: both are
 * sampler times (0 is a read outside the sampler, always made afresh) less than
 * DEVLIST_FRESH_NS apart. */
static bool
is_fresh(uint64_t then, uint64_t now)
{
	return then != 0 && now != 0 && now >= then && now - then < DEVLIST_FRESH_NS;
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

/* Append a name and its inode to the listing, growing it only past its largest size. */
static void
add_name(struct devlist *dl, const char *name, ino_t ino)
{
	if (dl->nnames == dl->capnames) {
		dl->capnames = dl->capnames ? dl->capnames * 2 : 32;
		dl->names = xreallocarray(dl->names, dl->capnames, sizeof(*dl->names));
		dl->inos = xreallocarray(dl->inos, dl->capnames, sizeof(*dl->inos));
	}
	memcpy(dl->names[dl->nnames], name, DEVLIST_NAME_MAX);
	dl->inos[dl->nnames++] = ino;
}

/* The entry of device name, or NULL; *at is its index. Requests come in directory order,
 * so the search starts where the last one matched. */
static struct devlist_entry *
find_entry(struct devlist *dl, const char *name, size_t *at)
{
	size_t i;

	for (size_t k = 0; k < dl->nentries; k++) {
		i = (dl->hint + k) % dl->nentries;
		if (strcmp(dl->entries[i]->name, name) == 0) {
			dl->hint = i + 1;
			*at = i;
			return dl->entries[i];
		}
	}
	return NULL;
}

/* Forget the entry at index i. */
static void
drop_entry(struct devlist *dl, size_t i)
{
	entry_free(dl->entries[i]);
	memmove(dl->entries + i, dl->entries + i + 1,
	        (dl->nentries - i - 1) * sizeof(*dl->entries));
	dl->nentries--;
	dl->hint = i;
}

/* A names stamp not given before (0 is never one). */
static unsigned
next_names_stamp(struct devlist *dl)
{
	if (++dl->names_clock == 0)
		dl->names_clock = 1;
	return dl->names_clock;
}

/* The inode the last listing gives name, 0 when it does not name it. */
static ino_t
listed_ino(const struct devlist *dl, const char *name)
{
	for (size_t i = 0; i < dl->nnames; i++)
		if (strcmp(dl->names[i], name) == 0)
			return dl->inos[i];
	return 0;
}

/* A new entry for device name, named by the last listing. */
static struct devlist_entry *
add_entry(struct devlist *dl, const char *name)
{
	struct devlist_entry *e = xcalloc(1, sizeof(*e));

	snprintf(e->name, sizeof(e->name), "%s", name);
	ethtool_counters_init(&e->ec);
	e->names = next_names_stamp(dl);
	e->names_generation = e->ec.generation;
	e->idle_ns = DEVLIST_IDLE_NS;
	e->listed = dl->listing;
	snprintf(e->path, sizeof(e->path), "ethtool/%s.txt", name);
	source_file_init(&e->file, e->path);
	e->ino = listed_ino(dl, name);
	if (dl->nentries == dl->capentries) {
		dl->capentries = dl->capentries ? dl->capentries * 2 : 16;
		dl->entries = xreallocarray(dl->entries, dl->capentries, sizeof(*dl->entries));
	}
	dl->entries[dl->nentries++] = e;
	dl->hint = dl->nentries;
	return e;
}

/* After a new listing: mark the entries it names, and drop those it does not (the device went
 * away) and those nobody asked for in their idle time. A fixture file whose directory entry
 * now has another inode was replaced: its kept fd is closed so that the next read opens the
 * new one. */
static void
prune_entries(struct devlist *dl, uint64_t now)
{
	struct devlist_entry *e;
	size_t at;

	for (size_t i = 0; i < dl->nnames; i++) {
		e = find_entry(dl, dl->names[i], &at);
		if (e == NULL)
			continue;
		e->listed = dl->listing;
		if (e->ino != dl->inos[i] && e->file.fd >= 0) {
			close(e->file.fd);
			e->file.fd = -1;
		}
		e->ino = dl->inos[i];
	}
	for (size_t i = dl->nentries; i-- > 0;) {
		e = dl->entries[i];
		if (e->listed != dl->listing ||
		    (now != 0 && e->asked_ns != 0 && now > e->asked_ns &&
		     now - e->asked_ns > e->idle_ns))
			drop_entry(dl, i);
	}
	dl->hint = 0;
}

/* List the directory anew with getdents64 into the kept names; 0 or -1 with err. */
static int
list_directory(struct devlist *dl, uint64_t now, struct nm_error *err)
{
	char name[DEVLIST_NAME_MAX];
	ssize_t n;

	dl->listed_ns = 0;
	dl->nnames = 0;
	note_directory(dl);
	if (lseek(dl->dirfd, 0, SEEK_SET) < 0)
		return nm_error_set(err, NM_ERR_FAILED, "device list: %s", strerror(errno));
	for (;;) {
		n = getdents64(dl->dirfd, dl->buf, dl->cap);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			dl->nnames = 0;
			return nm_error_set(err, NM_ERR_FAILED, "device list: %s", strerror(errno));
		}
		if (n == 0)
			break;
		for (ssize_t off = 0; off < n;) {
			const struct dirent64 *de = (const struct dirent64 *)(dl->buf + off);
			if (entry_name(dl, de, name))
				add_name(dl, name, de->d_ino);
			off += de->d_reclen;
		}
	}
	dl->scans++;
	dl->listing++;
	dl->listed_ns = now;
	prune_entries(dl, now);
	return 0;
}

/* Hand each listed device name to fn, listing the directory again unless the last listing is
 * fresh. */
int
devlist_scan(struct devlist *dl, struct source *src, void (*fn)(const char *name, void *arg),
             void *arg, struct nm_error *err)
{
	uint64_t now = asked_at(src);

	if (is_fresh(dl->listed_ns, now))
		; /* a listing of this round */
	else if (dl->reuse_ns != 0 && dl->listing_sure && now != 0 && dl->listed_ns != 0 &&
	         now - dl->listed_ns < dl->reuse_ns && !directory_changed(dl)) {
		/* The same devices: no getdents64 pass. Idle entries are still dropped. */
		dl->reused++;
		dl->listing++;
		prune_entries(dl, now);
	} else if (list_directory(dl, now, err) < 0)
		return -1;
	for (size_t i = 0; i < dl->nnames; i++)
		fn(dl->names[i], arg);
	return 0;
}

/* Note that src asked for e now: it is kept for twice src's interval, at least the idle
 * time. */
static void
note_asked(struct devlist_entry *e, const struct source *src)
{
	uint64_t twice = 2 * src->interval_ms * 1000000ull;

	if (asked_at(src) != 0)
		e->asked_ns = asked_at(src);
	e->idle_ns = twice > DEVLIST_IDLE_NS ? twice : DEVLIST_IDLE_NS;
}

/* Read e's counters through the ioctl; 0, or -1 (the entry dropped when the device went
 * away, a failure logged once per ds). */
static int
read_ioctl(struct devlist *dl, struct source *src, struct devlist_entry *e, size_t at,
           struct devlist_status *ds)
{
	struct nm_error err;

	if (ethtool_read(dl->sock, e->name, &e->ec, &err) == 0)
		return 0;
	if (err.code == NM_ERR_NOT_FOUND) {
		ds->seen = 0; /* went away after the listing */
		drop_entry(dl, at);
		return -1;
	}
	if (!ds->failing)
		log_warnx("source %s: %s", src->ops->name, err.message);
	ds->failing = true;
	return -1;
}

/* Read and parse e's fixture text on its kept fd (opened on first use); 0, or -1 (the entry
 * dropped when the file is gone). */
static int
read_text(struct devlist *dl, struct source *src, struct devlist_entry *e, size_t at,
          struct devlist_status *ds)
{
	struct nm_error err;
	const char *buf, *prev;
	size_t prevlen;
	ssize_t len;

	len = source_file_read(src, &e->file, &buf, &err);
	if (len < 0) {
		if (err.code == NM_ERR_UNSUPPORTED) { /* ENOENT */
			ds->seen = 0;
			drop_entry(dl, at);
		}
		return -1;
	}
	prev = source_file_prev(&e->file, &prevlen);
	ethtool_parse_text_since(buf, (size_t)len, prev, prevlen, &e->ec);
	source_file_keep(&e->file); /* the text the next parse compares with */
	return 0;
}

/* Read e's counters now: on success bump its seq and, when the names changed, its stamp. */
static int
read_entry(struct devlist *dl, struct source *src, struct devlist_entry *e, size_t at,
           struct devlist_status *ds)
{
	int rc;

	e->read_ns = 0;
	dl->reads++;
	rc = dl->fixture ? read_text(dl, src, e, at, ds) : read_ioctl(dl, src, e, at, ds);
	if (rc < 0)
		return -1;
	if (e->ec.generation != e->names_generation) {
		e->names = next_names_stamp(dl);
		e->names_generation = e->ec.generation;
	}
	e->seq++;
	e->read_ns = asked_at(src);
	return 0;
}

/* The counters of one device: the last read when fresh, else a new one. */
const struct devlist_entry *
devlist_read_counters(struct devlist *dl, struct source *src, const char *name,
                      struct devlist_status *ds)
{
	struct devlist_entry *e;
	size_t at;

	e = find_entry(dl, name, &at);
	if (e == NULL) {
		e = add_entry(dl, name);
		at = dl->nentries - 1;
	}
	note_asked(e, src);
	if (!is_fresh(e->read_ns, asked_at(src)) && read_entry(dl, src, e, at, ds) < 0)
		return NULL;
	ds->failing = false;
	if (e->ec.n == 0 && !dl->fixture)
		ds->nostats = true;
	return e;
}

/* Keep an entry from going idle without reading it. */
void
devlist_touch(struct devlist *dl, struct source *src, const char *name)
{
	size_t at;
	struct devlist_entry *e = find_entry(dl, name, &at);

	if (e != NULL)
		note_asked(e, src);
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
