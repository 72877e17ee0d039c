/* cgroup.c: the daemon's cgroup v2 test groups: found from /proc/self, made with mkdir,
 * joined by the child before exec (cgroup.procs), killed with cgroup.kill and removed with
 * rmdir once the kernel has seen their processes exit. */
#include <dirent.h>
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "log.h"
#include "xmalloc.h"

#define RETRY_MS      100 /* between tries to remove a killed group */
#define RETRY_MAX     100 /* tries on the loop before leaving it to the next start */
#define SWEEP_WAIT_MS 3000
#define TEXT_MAX      (1u << 20) /* bytes of mountinfo read */

struct cgroup_pending {
	unsigned id;
	unsigned tries;
};

struct cgroup_tree {
	struct event_base *base;
	char path[4096]; /* the test groups' parent */
	unsigned next_id;
	struct cgroup_pending *pending; /* killed, not yet removed */
	size_t npending;
	struct event *retry;
	bool own_parent; /* path is netmetricsd-HASH, made by the daemon */
	bool pids;       /* the test groups have the pids controller (pids.max) */
	char no_pids_why[256];
};

/* Read a small file into buf (NUL-terminated). Bytes read, or -1. */
static ssize_t
read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return -1;
		}
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

/* Write a short string to a file. 0 or -1 with errno. */
static int
write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW), e;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

int
cgroup_parse_self(const char *text, char *buf, size_t size)
{
	const char *p = text;

	while (p != NULL && *p) {
		if (strncmp(p, "0::", 3) == 0) {
			size_t len = strcspn(p + 3, "\n");
			if (len == 0 || p[3] != '/' || len >= size)
				return -1;
			memcpy(buf, p + 3, len);
			buf[len] = '\0';
			return 0;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return -1;
}

int
cgroup_parse_mountinfo(const char *text, char *buf, size_t size)
{
	const char *p = text;

	while (p != NULL && *p) {
		const char *eol = strchrnul(p, '\n'), *sep = strstr(p, " - cgroup2 ");
		char root[4096], mnt[4096];

		if (sep != NULL && sep < eol &&
		    sscanf(p, "%*s %*s %*s %4095s %4095s", root, mnt) == 2 &&
		    strcmp(root, "/") == 0 && strchr(mnt, '\\') == NULL && strlen(mnt) < size) {
			snprintf(buf, size, "%s", mnt);
			return 0;
		}
		p = *eol ? eol + 1 : NULL;
	}
	return -1;
}

/* FNV-1a of s, to name the groups of one state directory. */
static uint64_t
name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* Kill what is in the group at dir: cgroup.kill, or each process of cgroup.procs on
 * kernels without it. The number of processes it had. */
static unsigned
kill_dir(const char *dir)
{
	char path[4200], text[65536], *p, *end;
	unsigned n = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if (read_text(path, text, sizeof(text)) >= 0)
		for (p = text; *p; p = *end ? end + 1 : end) {
			end = strchrnul(p, '\n');
			n += end > p;
		}
	snprintf(path, sizeof(path), "%s/cgroup.kill", dir);
	if (write_text(path, "1") == 0)
		return n;
	for (p = text; *p; p = *end ? end + 1 : end) {
		long pid = strtol(p, &end, 10);
		if (pid > 0)
			kill((pid_t)pid, SIGKILL);
		end = strchrnul(end, '\n');
	}
	return n;
}

/* The group dir of test id. */
static void
group_dir(const struct cgroup_tree *ct, unsigned id, char *buf, size_t size)
{
	snprintf(buf, size, "%s/test-%u", ct->path, id);
}

/* Kill and remove what a previous run left: waits (at start, before the loop) up to
 * SWEEP_WAIT_MS for the killed processes to go. */
static void
sweep(struct cgroup_tree *ct, const char *whose)
{
	char dir[4400];
	unsigned groups = 0, procs = 0, left = 0;
	struct dirent *de;
	DIR *dp = opendir(ct->path);

	if (dp == NULL)
		return;
	while ((de = readdir(dp)) != NULL) {
		if (strncmp(de->d_name, "test-", 5) != 0)
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", ct->path, de->d_name);
		procs += kill_dir(dir);
		groups++;
		for (int ms = 0; rmdir(dir) < 0 && errno == EBUSY; ms += 20) {
			if (ms >= SWEEP_WAIT_MS) {
				left++;
				break;
			}
			if (ms % 500 == 0)
				kill_dir(dir);
			usleep(20000);
		}
	}
	closedir(dp);
	if (groups > 0)
		log_warnx("cgroup: %u test group%s %s in %s: %u process%s killed%s", groups,
		          groups == 1 ? "" : "s", whose, ct->path, procs, procs == 1 ? "" : "es",
		          left ? " (some still exiting)" : "");
}

/* The daemon's own group as a directory into buf. 0 or -1 with why. */
static int
own_dir(char *buf, size_t size, char *own, size_t own_size, char *why, size_t wsize)
{
	static char text[TEXT_MAX];
	char mnt[4096];

	if (read_text("/proc/self/mountinfo", text, sizeof(text)) < 0 ||
	    cgroup_parse_mountinfo(text, mnt, sizeof(mnt)) < 0) {
		snprintf(why, wsize, "no cgroup v2 file system is mounted");
		return -1;
	}
	if (read_text("/proc/self/cgroup", text, sizeof(text)) < 0 ||
	    cgroup_parse_self(text, own, own_size) < 0 || strstr(own, " (deleted)") != NULL) {
		snprintf(why, wsize, "/proc/self/cgroup names no cgroup v2 group");
		return -1;
	}
	if ((size_t)snprintf(buf, size, "%s%s", mnt, strcmp(own, "/") == 0 ? "" : own) >= size) {
		snprintf(why, wsize, "cgroup path too long");
		return -1;
	}
	return 0;
}

/* Is word one of the blank-separated words of text? */
static bool
has_word(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = text; (p = strstr(p, word)) != NULL; p += n)
		if ((p == text || p[-1] == ' ' || p[-1] == '\n') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

int
cgroup_enable_pids(const char *parent, const char *dir, char *why, size_t size)
{
	char path[4400], text[4096];

	/* The test groups' parent gets the controller from its own parent: enabled there
	 * first when it is not (allowed with processes in it: pids is a threaded
	 * controller). */
	if (parent != NULL) {
		snprintf(path, sizeof(path), "%s/cgroup.subtree_control", parent);
		if (read_text(path, text, sizeof(text)) >= 0 && !has_word(text, "pids") &&
		    write_text(path, "+pids") < 0)
			log_debug("cgroup: +pids in %s: %s", path, strerror(errno));
	}
	snprintf(path, sizeof(path), "%s/cgroup.controllers", dir);
	if (read_text(path, text, sizeof(text)) < 0) {
		snprintf(why, size, "%.300s: %s", path, strerror(errno));
		return -1;
	}
	if (!has_word(text, "pids")) {
		text[strcspn(text, "\n")] = '\0';
		snprintf(why, size, "the cgroup v2 tree has no pids controller (%.200s: \"%.60s\")",
		         path, text);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	if (write_text(path, "+pids") < 0) {
		snprintf(why, size, "+pids in %.300s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

struct cgroup_tree *
cgroup_open(struct event_base *base, const char *state_dir, char *why, size_t size)
{
	struct cgroup_tree *ct;
	char own[2048], dir[3900], leaf[4200];
	size_t olen;

	if (own_dir(dir, sizeof(dir), own, sizeof(own), why, size) < 0)
		return NULL;
	ct = xcalloc(1, sizeof(*ct));
	ct->base = base;
	ct->next_id = 1;
	olen = strlen(own);
	if (olen > 8 && strcmp(own + olen - 8, ".service") == 0) {
		/* A unit's delegated group: the daemon in a leaf, the tests beside it. */
		snprintf(ct->path, sizeof(ct->path), "%s", dir);
		snprintf(leaf, sizeof(leaf), "%s/daemon", dir);
		if ((mkdir(leaf, 0755) < 0 && errno != EEXIST) ||
		    (snprintf(leaf, sizeof(leaf), "%s/daemon/cgroup.procs", dir),
		     write_text(leaf, "0") < 0))
			log_warn("cgroup: cannot move the daemon into %s/daemon", dir);
	} else {
		snprintf(ct->path, sizeof(ct->path), "%s/netmetricsd-%016" PRIx64, dir,
		         name_hash(state_dir));
		ct->own_parent = true;
	}
	if (mkdir(ct->path, 0755) < 0 && errno != EEXIST) {
		snprintf(why, size, "cannot make %s: %s", ct->path, strerror(errno));
		free(ct);
		return NULL;
	}
	sweep(ct, "a previous run left");
	ct->pids = cgroup_enable_pids(ct->own_parent ? dir : NULL, ct->path, ct->no_pids_why,
	                              sizeof(ct->no_pids_why)) == 0;
	if (!ct->pids)
		log_info("cgroup: no pids limit per test group: %s", ct->no_pids_why);
	return ct;
}

bool
cgroup_has_pids(const struct cgroup_tree *ct, const char **why)
{
	if (why != NULL)
		*why = ct->pids ? NULL : ct->no_pids_why;
	return ct->pids;
}

void
cgroup_sweep_path(const char *path)
{
	struct cgroup_tree ct;
	const char *base = strrchr(path, '/');

	memset(&ct, 0, sizeof(ct));
	snprintf(ct.path, sizeof(ct.path), "%s", path);
	sweep(&ct, "left at exit");
	if (base != NULL && strncmp(base + 1, "netmetricsd-", 12) == 0)
		rmdir(path);
}

const char *
cgroup_path(const struct cgroup_tree *ct)
{
	return ct->path;
}

int
cgroup_create(struct cgroup_tree *ct, unsigned *id, unsigned pids_max, char *why, size_t size)
{
	char dir[4400], procs[4500], num[16];
	int fd;

	for (int tries = 0;; tries++) {
		*id = ct->next_id++;
		group_dir(ct, *id, dir, sizeof(dir));
		if (mkdir(dir, 0755) == 0)
			break;
		if (errno != EEXIST || tries >= 100) {
			snprintf(why, size, "cgroup %s: %s", dir, strerror(errno));
			return -1;
		}
	}
	if (ct->pids && pids_max > 0) {
		snprintf(procs, sizeof(procs), "%s/pids.max", dir);
		snprintf(num, sizeof(num), "%u", pids_max);
		if (write_text(procs, num) < 0) {
			snprintf(why, size, "cgroup %s: %s", procs, strerror(errno));
			rmdir(dir);
			return -1;
		}
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	if ((fd = open(procs, O_WRONLY | O_CLOEXEC)) < 0) {
		snprintf(why, size, "cgroup %s: %s", procs, strerror(errno));
		rmdir(dir);
		return -1;
	}
	return fd;
}

/* Try to remove the pending groups; keep the timer while some are left. */
static void
retry_cb(evutil_socket_t fd, short what, void *arg)
{
	struct cgroup_tree *ct = arg;
	struct timeval tv = {0, RETRY_MS * 1000};
	char dir[4400];
	size_t i = 0;

	(void)fd;
	(void)what;
	while (i < ct->npending) {
		struct cgroup_pending *p = &ct->pending[i];

		group_dir(ct, p->id, dir, sizeof(dir));
		if (rmdir(dir) == 0 || errno != EBUSY || ++p->tries >= RETRY_MAX) {
			if (p->tries >= RETRY_MAX)
				log_warnx(
				    "cgroup: %s still has processes; the next start removes it",
				    dir);
			ct->pending[i] = ct->pending[--ct->npending];
			continue;
		}
		if (p->tries % 10 == 0)
			kill_dir(dir); /* what was forked while the kill went out */
		i++;
	}
	if (ct->npending > 0 && ct->base != NULL)
		evtimer_add(ct->retry, &tv);
}

void
cgroup_release(struct cgroup_tree *ct, unsigned id)
{
	char dir[4400];
	unsigned n;

	group_dir(ct, id, dir, sizeof(dir));
	n = kill_dir(dir);
	if (n > 0)
		log_info("cgroup: test-%u: %u process%s left; killed", id, n, n == 1 ? "" : "es");
	if (rmdir(dir) == 0 || errno != EBUSY)
		return;
	ct->pending = xreallocarray(ct->pending, ct->npending + 1, sizeof(*ct->pending));
	ct->pending[ct->npending++] = (struct cgroup_pending){id, 0};
	if (ct->base == NULL)
		return;
	if (ct->retry == NULL)
		ct->retry = evtimer_new(ct->base, retry_cb, ct);
	if (!evtimer_pending(ct->retry, NULL)) {
		struct timeval tv = {0, RETRY_MS * 1000};
		evtimer_add(ct->retry, &tv);
	}
}

void
cgroup_close(struct cgroup_tree *ct)
{
	if (ct == NULL)
		return;
	if (ct->retry != NULL)
		event_free(ct->retry);
	free(ct->pending);
	sweep(ct, "left at exit"); /* every test group: kill, wait, remove */
	if (ct->own_parent)
		rmdir(ct->path);
	free(ct);
}
