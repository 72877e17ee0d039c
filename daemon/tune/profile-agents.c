/* profile-agents.c: the other agents that change what a profile sets, so that an applied
 * profile that does not hold can say who could have changed it: irqbalance (IRQ
 * affinities), tuned and its active profile (its sysctl, irq and net plugins: sysctls, IRQ
 * affinities, channels, rings, coalescing, offloads) and another netmetricsd.
 *
 * A daemon holding an applied profile on a device holds that device's lock: an abstract
 * Unix socket "@netmetricsd/applied/DEV", listening. Abstract names belong to the network
 * namespace, as device names do, so two daemons in two namespaces with a device of the same
 * name do not collide, and the kernel drops the name when the daemon exits (a crash leaves
 * no stale lock). A second daemon that would apply a profile to the device finds the name
 * taken and is refused (busy), naming the holder: it connects, and SO_PEERCRED gives the
 * pid of the process that listens. The holder accepts and closes those connections when it
 * next looks (apply, status). The lock is the daemon's one (one state directory, one
 * applied profile): a static here, not in a struct, for that reason; a fixture root takes
 * none. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "error.h"
#include "jsonutil.h"
#include "profile.h"

static int lock_fd = -1;
static char lock_dev[PROFILE_DEV_MAX];

/* The abstract address of dev's lock; its length into *len. */
static void
lock_addr(const char *dev, struct sockaddr_un *sa, socklen_t *len)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1, "netmetricsd/applied/%s", dev);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/* Accept and close what asked who holds the lock. */
static void
drain(void)
{
	int c;

	while (lock_fd >= 0 && (c = accept4(lock_fd, NULL, NULL, SOCK_CLOEXEC)) >= 0)
		close(c);
}

/* The pid of another daemon holding dev's lock: 0 none, -1 held but not said. */
int
profile_agents_holder(const char *dev)
{
	struct sockaddr_un sa;
	struct ucred cr;
	socklen_t len, crl = sizeof(cr);
	pid_t pid = -1;
	int fd;

	if (lock_fd >= 0 && strcmp(lock_dev, dev) == 0)
		return 0;
	lock_addr(dev, &sa, &len);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
		return 0;
	if (connect(fd, (struct sockaddr *)&sa, len) < 0) {
		pid = errno == EAGAIN ? -1 : 0; /* a full backlog is still someone's */
	} else if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crl) == 0 && cr.pid > 0)
		pid = cr.pid;
	close(fd);
	return pid;
}

/* Take (or keep) dev's lock. */
int
profile_agents_lock(const char *dev, struct nm_error *err)
{
	struct sockaddr_un sa;
	socklen_t len;
	int other;
	int fd;

	drain();
	if (lock_fd >= 0 && strcmp(lock_dev, dev) == 0)
		return 0;
	lock_addr(dev, &sa, &len);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
		return nm_error_set(err, NM_ERR_FAILED, "profile lock %s: %s", dev,
		                    strerror(errno));
	if (bind(fd, (struct sockaddr *)&sa, len) < 0 || listen(fd, 16) < 0) {
		int e = errno;
		close(fd);
		if (e != EADDRINUSE)
			return nm_error_set(err, NM_ERR_FAILED, "profile lock %s: %s", dev,
			                    strerror(e));
		other = profile_agents_holder(dev);
		if (other > 0)
			return nm_error_set(
			    err, NM_ERR_BUSY,
			    "another netmetricsd (pid %d) holds a profile applied to "
			    "%s: revert it there first (two daemons would overwrite "
			    "each other's values and saved state)",
			    (int)other, dev);
		return nm_error_set(err, NM_ERR_BUSY,
		                    "another netmetricsd holds a profile applied to %s: revert it "
		                    "there first",
		                    dev);
	}
	if (lock_fd >= 0)
		close(lock_fd); /* a profile applied to another device before: this one now */
	lock_fd = fd;
	snprintf(lock_dev, sizeof(lock_dev), "%s", dev);
	return 0;
}

/* Let the lock go (after a revert, or a failed first apply). */
void
profile_agents_unlock(void)
{
	if (lock_fd >= 0)
		close(lock_fd);
	lock_fd = -1;
	lock_dev[0] = '\0';
}

/* Read a number after "PPid:" in proc/PID/status below the root; -1 when unknown. */
static long
ppid_of(struct profile_host *h, const char *pid)
{
	char rel[300], buf[2048], *p;

	snprintf(rel, sizeof(rel), "proc/%s/status", pid);
	if (profile_host_read(h, PROFILE_BASE_ROOT, NULL, rel, buf, sizeof(buf)) < 0 ||
	    (p = strstr(buf, "PPid:")) == NULL)
		return -1;
	return strtol(p + 5, NULL, 10);
}

/* The pids of the netmetricsd processes below the root that are not this daemon's (this
 * process, its privileged parent, its children), up to max; how many. */
size_t
profile_agents_daemons(struct profile_host *h, long *pids, size_t max)
{
	long self = h->real ? (long)getpid() : 0, parent = h->real ? (long)getppid() : 0;
	struct dirent *de;
	size_t n = 0;
	DIR *dp;
	int fd = profile_host_openat(h, PROFILE_BASE_ROOT, NULL, "proc", O_RDONLY | O_DIRECTORY);

	if (fd < 0 || (dp = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (n < max && (de = readdir(dp)) != NULL) {
		char rel[300], comm[64];
		long pid;
		if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
		    strspn(de->d_name, "0123456789") != strlen(de->d_name))
			continue;
		snprintf(rel, sizeof(rel), "proc/%s/comm", de->d_name);
		if (profile_host_read(h, PROFILE_BASE_ROOT, NULL, rel, comm, sizeof(comm)) < 0 ||
		    strcmp(comm, "netmetricsd") != 0)
			continue;
		pid = strtol(de->d_name, NULL, 10);
		if (pid == self || pid == parent || (self > 0 && ppid_of(h, de->d_name) == self))
			continue;
		pids[n++] = pid;
	}
	closedir(dp);
	/* readdir's order is the kernel's: sort, so that messages and tests are stable */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && pids[j - 1] > pids[j]; j--) {
			long t = pids[j];
			pids[j] = pids[j - 1];
			pids[j - 1] = t;
		}
	return n;
}

/* The agents now: {"irqbalance": BOOL, "tuned": {"running","profile"}, "netmetricsd":
 * [pids], "holder": pid or null (another daemon holding dev's lock)}. */
json_object *
profile_agents_json(struct profile_host *h, const char *dev)
{
	json_object *o = json_object_new_object(), *t = json_object_new_object(),
	            *a = json_object_new_array();
	char tp[PROFILE_NAME_MAX];
	long pids[16];
	size_t n = profile_agents_daemons(h, pids, 16);
	int holder = h->real && dev != NULL ? profile_agents_holder(dev) : 0;

	json_add_bool(o, "irqbalance", profile_host_irqbalance(h));
	json_add_bool(t, "running", profile_host_tuned(h, tp, sizeof(tp)));
	json_add_string(t, "profile", tp[0] ? tp : NULL);
	json_object_object_add(o, "tuned", t);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int64(pids[i]));
	json_object_object_add(o, "netmetricsd", a);
	json_object_object_add(o, "holder", holder > 0 ? json_object_new_int64(holder) : NULL);
	return o;
}

/* Who of agents could have changed a value of kind: ["irqbalance", "tuned (profile
 * network-latency)", "netmetricsd pid 4242", ...]; empty when none runs. */
json_object *
profile_agents_who(json_object *agents, enum plan_kind kind)
{
	json_object *who = json_object_new_array(), *t = NULL, *d = NULL;
	char buf[96];

	if (kind == PLAN_IRQ && json_get_bool(agents, "irqbalance", false))
		json_object_array_add(who, json_object_new_string("irqbalance"));
	json_object_object_get_ex(agents, "tuned", &t);
	if (json_get_bool(t, "running", false) &&
	    (kind == PLAN_SYSCTL || kind == PLAN_IRQ || kind == PLAN_CHANNELS ||
	     kind == PLAN_RINGS || kind == PLAN_COALESCE || kind == PLAN_OFFLOAD)) {
		snprintf(buf, sizeof(buf), "tuned (profile %s)",
		         json_get_string(t, "profile", NULL) ? json_get_string(t, "profile", NULL)
		                                             : "unknown");
		json_object_array_add(who, json_object_new_string(buf));
	}
	json_object_object_get_ex(agents, "netmetricsd", &d);
	for (size_t i = 0; d != NULL && i < json_object_array_length(d); i++) {
		snprintf(buf, sizeof(buf), "netmetricsd pid %lld",
		         (long long)json_object_get_int64(json_object_array_get_idx(d, i)));
		json_object_array_add(who, json_object_new_string(buf));
	}
	return who;
}
