/* profile-host.c: the host a profile is applied to, seen below the root prefix: its CPUs,
 * the device and its queues, the default route, irqbalance; and the one way files are opened
 * for profiles: below a base directory that the path may not leave.
 *
 * Files are opened with openat2(2): the base directory (sys/class/net/DEV, proc/irq,
 * proc/sys) resolves with RESOLVE_IN_ROOT, so even an absolute symlink stays below the root,
 * and the path below it with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, so it cannot leave the
 * device's own directory. Where openat2 is missing (ENOSYS) the path is checked by hand. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "error.h"
#include "ethtool.h"
#include "irqtable.h"
#include "privsep.h"
#include "profile.h"
#include "sampler.h"
#include "xmalloc.h"

#define RTF_UP_FLAG 0x1
#define OPEN2_TRIES 64
#define ROUTE_MAX   (1u << 20) /* bytes of a route table read to find the default */

/* openat2 with one resolve mode; -1 with errno (ENOSYS where the kernel lacks it). */
static int
open2(int dirfd, const char *path, int flags, uint64_t resolve)
{
	struct open_how how;

	memset(&how, 0, sizeof(how));
	/* openat2 refuses O_PATH with flags it would ignore. */
	how.flags = (uint64_t)(flags | O_CLOEXEC | ((flags & O_PATH) ? 0 : O_NOCTTY));
	how.resolve = resolve;
	/* EAGAIN: a rename anywhere raced a ".." of the walk (the device symlink has some);
	 * the kernel asks the caller to try again. */
	for (int i = 0; i < OPEN2_TRIES; i++) {
		int fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
		if (fd >= 0 || errno != EAGAIN)
			return fd;
	}
	return -1;
}

/* Does rel stay below its directory by its text alone (no "..", not absolute)? */
static bool
rel_plain(const char *rel)
{
	const char *p = rel;

	if (*rel == '/' || *rel == '\0')
		return false;
	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == 0 || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += n + (e != NULL);
	}
	return true;
}

/* The base directory of a kind, below the root. */
static int
base_path(enum profile_base base, const char *dev, char *buf, size_t size)
{
	switch (base) {
	case PROFILE_BASE_NETDEV:
		if (dev == NULL || profile_host_check_dev(dev, NULL) < 0) {
			errno = EINVAL;
			return -1;
		}
		snprintf(buf, size, "sys/class/net/%s", dev);
		return 0;
	case PROFILE_BASE_IRQ:
		snprintf(buf, size, "proc/irq");
		return 0;
	case PROFILE_BASE_SYSCTL:
		snprintf(buf, size, "proc/sys");
		return 0;
	case PROFILE_BASE_ROOT:
		snprintf(buf, size, ".");
		return 0;
	}
	errno = EINVAL;
	return -1;
}

/* Open rel below base without leaving it (see the top of this file). */
int
profile_host_openat(struct profile_host *h, enum profile_base base, const char *dev,
                    const char *rel, int flags)
{
	char bpath[64], joined[512];
	int bfd, fd, e;

	if (!rel_plain(rel) || base_path(base, dev, bpath, sizeof(bpath)) < 0) {
		errno = EINVAL;
		return -1;
	}
	if (base == PROFILE_BASE_ROOT) {
		/* Host facts (proc/net/route is a symlink into proc/self): symlinks may be
		 * followed, but only inside the root. */
		fd = open2(h->rootfd, rel, flags, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
		if (fd >= 0 || errno != ENOSYS)
			return fd;
		return openat(h->rootfd, rel, flags | O_CLOEXEC | O_NOCTTY);
	}
	bfd =
	    open2(h->rootfd, bpath, O_PATH | O_DIRECTORY, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
	if (bfd < 0 && errno == ENOSYS) {
		snprintf(joined, sizeof(joined), "%s/%s", bpath, rel);
		return openat(h->rootfd, joined, flags | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
	}
	if (bfd < 0)
		return -1;
	fd = open2(bfd, rel, flags, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	e = errno;
	close(bfd);
	errno = e;
	return fd;
}

/* Read a small file below base, trailing whitespace cut. */
int
profile_host_read(struct profile_host *h, enum profile_base base, const char *dev, const char *rel,
                  char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;
	int fd = profile_host_openat(h, base, dev, rel, O_RDONLY);

	if (fd < 0)
		return -1;
	while (n + 1 < size && (r = read(fd, buf + n, size - 1 - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		n += (size_t)r;
	}
	close(fd);
	if (n + 1 >= size) {
		errno = EFBIG;
		return -1;
	}
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = '\0';
	return 0;
}

/* Write a value and a newline in one write(2), as echo does: every tuning write of a
 * profile comes here. On the host with privilege separation the privileged process writes
 * it (privsep.h), after checking it against its allow-list. */
int
profile_host_write(struct profile_host *h, enum profile_base base, const char *dev, const char *rel,
                   const char *val)
{
	size_t n = strlen(val);
	char *line;
	struct stat st;
	ssize_t w;
	int fd, e;

	if (h->real && privsep_on()) {
		struct nm_error err;
		return privsep_write((int)base, dev, rel, val, &err);
	}
	if ((line = malloc(n + 2)) == NULL)
		return -1;
	memcpy(line, val, n);
	line[n] = '\n';
	if ((fd = profile_host_openat(h, base, dev, rel, O_WRONLY | O_TRUNC | O_NONBLOCK)) < 0) {
		free(line);
		return -1;
	}
	/* Tuning files are regular files of procfs and sysfs: never a FIFO or a device. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		free(line);
		close(fd);
		errno = EINVAL;
		return -1;
	}
	/* One write: sysfs and procfs take a value in a single call. */
	do
		w = write(fd, line, n + 1);
	while (w < 0 && errno == EINTR);
	e = errno;
	free(line);
	if (close(fd) < 0 && w >= 0) {
		e = errno;
		w = -1;
	}
	if (w >= 0 && (size_t)w != n + 1) {
		e = EIO;
		w = -1;
	}
	errno = e;
	return w < 0 ? -1 : 0;
}

/* Check a device name as the kernel's dev_valid_name() does. */
int
profile_host_check_dev(const char *dev, struct nm_error *err)
{
	size_t n = strlen(dev);

	if (n == 0 || n >= PROFILE_DEV_MAX || strcmp(dev, ".") == 0 || strcmp(dev, "..") == 0)
		goto bad;
	for (const char *s = dev; *s; s++)
		if (*s == '/' || *s == ':' || isspace((unsigned char)*s) ||
		    (unsigned char)*s < 0x20 || *s == 0x7f)
			goto bad;
	return 0;
bad:
	return nm_error_set(err, NM_ERR_BAD_ARGS,
	                    "\"%.64s\" is not a network device name (1-15 bytes, no '/', ':' "
	                    "or spaces, not \".\" or \"..\")",
	                    dev);
}

/* Read a CPU list file below the root into set; 0 or -1 (errno). Missing files are -1. */
static int
read_cpulist(struct profile_host *h, const char *rel, struct cpuset *set)
{
	char buf[4096];

	cpuset_zero(set);
	if (profile_host_read(h, PROFILE_BASE_ROOT, NULL, rel, buf, sizeof(buf)) < 0)
		return -1;
	if (cpuset_parse_list(set, buf, NULL) < 0) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* Open the root and read its CPUs: online, possible, isolated and nohz_full. */
int
profile_host_open(struct profile_host *h, const char *root, struct nm_error *err)
{
	struct cpuset set;
	int last;

	memset(h, 0, sizeof(*h));
	h->ethfd = -1;
	snprintf(h->root, sizeof(h->root), "%s", root);
	h->real = strcmp(root, "/") == 0;
	if ((h->rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return nm_error_set(err, NM_ERR_FAILED, "root %s: %s", root, strerror(errno));
	if (read_cpulist(h, "sys/devices/system/cpu/online", &h->online) < 0 ||
	    cpuset_empty(&h->online)) {
		nm_error_set(err, NM_ERR_FAILED,
		             "cannot read the online CPUs (%s%ssys/devices/"
		             "system/cpu/online): %s",
		             root, h->real ? "" : "/", strerror(errno));
		profile_host_close(h);
		return -1;
	}
	last = cpuset_last(&h->online);
	if (read_cpulist(h, "sys/devices/system/cpu/possible", &set) == 0 &&
	    cpuset_last(&set) > last)
		last = cpuset_last(&set);
	h->nr_cpus = (unsigned)last + 1;
	/* The kernel keeps isolated and nohz_full CPUs out of rps_cpus. */
	if (read_cpulist(h, "sys/devices/system/cpu/isolated", &set) == 0)
		cpuset_or(&h->unhoused, &set);
	if (read_cpulist(h, "sys/devices/system/cpu/nohz_full", &set) == 0)
		cpuset_or(&h->unhoused, &set);
	snprintf(h->irq_reason, sizeof(h->irq_reason), "no IRQ table");
	return 0;
}

/* Open the root with the sampler's IRQ table (or the reason there is none). */
int
profile_host_open_sampled(struct profile_host *h, const char *root, struct sampler *s,
                          struct nm_error *err)
{
	const struct irq_table *t;
	struct nm_error e;

	if (profile_host_open(h, root, err) < 0)
		return -1;
	if ((t = sampler_irq_table(s, &e)) == NULL) {
		snprintf(h->irq_reason, sizeof(h->irq_reason), "%.120s", e.message);
		return 0;
	}
	h->sampler = s;
	h->irqs = t->v;
	h->nirqs = t->n;
	if (h->irqs == NULL)
		snprintf(h->irq_reason, sizeof(h->irq_reason), "/proc/interrupts lists no IRQ");
	return 0;
}

/* Take the sampler's IRQ table again (after a channel change renumbered the IRQs). */
void
profile_host_refresh_irqs(struct profile_host *h)
{
	const struct irq_table *t;
	struct nm_error e;

	if (h->sampler == NULL || (t = sampler_irq_table(h->sampler, &e)) == NULL)
		return;
	h->irqs = t->v;
	h->nirqs = t->n;
}

/* Close the root and the ethtool socket. */
void
profile_host_close(struct profile_host *h)
{
	if (h->rootfd >= 0)
		close(h->rootfd);
	if (h->ethfd >= 0)
		close(h->ethfd);
	h->rootfd = h->ethfd = -1;
}

/* The ethtool socket, opened on first use. */
int
profile_host_ethfd(struct profile_host *h, struct nm_error *err)
{
	if (h->ethfd < 0)
		h->ethfd = ethtool_socket(err);
	return h->ethfd;
}

/* The interface of the IPv4 default route with the lowest metric, from proc/net/route. */
static bool
route4(struct profile_host *h, char *dev, size_t size)
{
	char *buf = xmalloc(ROUTE_MAX), *line, *save = NULL;
	unsigned long best = (unsigned long)-1;
	bool found = false;

	if (profile_host_read(h, PROFILE_BASE_ROOT, NULL, "proc/net/route", buf, ROUTE_MAX) < 0) {
		free(buf);
		return false;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char ifc[64], dst[16], gw[16], mask[16];
		unsigned flags, ref, use;
		unsigned long metric;
		if (sscanf(line, "%63s %15s %15s %x %u %u %lu %15s", ifc, dst, gw, &flags, &ref,
		           &use, &metric, mask) != 8)
			continue;
		if (strcmp(dst, "00000000") != 0 || strcmp(mask, "00000000") != 0 ||
		    !(flags & RTF_UP_FLAG) || metric >= best)
			continue;
		best = metric;
		snprintf(dev, size, "%s", ifc);
		found = true;
	}
	free(buf);
	return found;
}

/* The same from proc/net/ipv6_route (::/0 through a device other than lo). */
static bool
route6(struct profile_host *h, char *dev, size_t size)
{
	char *buf = xmalloc(ROUTE_MAX), *line, *save = NULL;
	unsigned long best = (unsigned long)-1;
	bool found = false;

	if (profile_host_read(h, PROFILE_BASE_ROOT, NULL, "proc/net/ipv6_route", buf, ROUTE_MAX) <
	    0) {
		free(buf);
		return false;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char dst[40], dlen[4], src[40], slen[4], hop[40], ifc[64];
		unsigned long metric, ref, use, flags;
		if (sscanf(line, "%39s %3s %39s %3s %39s %lx %lx %lx %lx %63s", dst, dlen, src,
		           slen, hop, &metric, &ref, &use, &flags, ifc) != 10)
			continue;
		if (strspn(dst, "0") != 32 || strcmp(dlen, "00") != 0 || !(flags & RTF_UP_FLAG) ||
		    strcmp(ifc, "lo") == 0 || metric >= best)
			continue;
		best = metric;
		snprintf(dev, size, "%s", ifc);
		found = true;
	}
	free(buf);
	return found;
}

/* Does the device have a queues directory below the root? */
bool
profile_host_dev_exists(struct profile_host *h, const char *dev)
{
	int fd = profile_host_openat(h, PROFILE_BASE_NETDEV, dev, "queues", O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Count the rx-N and tx-N directories of the device's queues. */
static int
count_queues(struct profile_host *h, struct nm_error *err)
{
	struct dirent *de;
	DIR *dp;
	int fd =
	    profile_host_openat(h, PROFILE_BASE_NETDEV, h->dev, "queues", O_RDONLY | O_DIRECTORY);

	if (fd < 0 || (dp = fdopendir(fd)) == NULL) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		if (e == ENOENT)
			return nm_error_set(err, NM_ERR_NOT_FOUND,
			                    "no network device \"%s\" (no /sys/class/net/%s)",
			                    h->dev, h->dev);
		return nm_error_set(err, NM_ERR_FAILED, "/sys/class/net/%s/queues: %s", h->dev,
		                    strerror(e));
	}
	h->nrx = h->ntx = 0;
	while ((de = readdir(dp)) != NULL) {
		unsigned q;
		if (profile_queue_key(de->d_name, "rx-", &q) && q + 1 > h->nrx)
			h->nrx = q + 1;
		if (profile_queue_key(de->d_name, "tx-", &q) && q + 1 > h->ntx)
			h->ntx = q + 1;
	}
	closedir(dp);
	return 0;
}

/* Choose the device (or the default route's) and count its queues. */
int
profile_host_set_device(struct profile_host *h, const char *dev, struct nm_error *err)
{
	char found[64];

	h->dev_from_route = false;
	if (dev == NULL || *dev == '\0' || strcmp(dev, PROFILE_DEFAULT_ROUTE) == 0) {
		if (!route4(h, found, sizeof(found)) && !route6(h, found, sizeof(found)))
			return nm_error_set(err, NM_ERR_NOT_FOUND,
			                    "no default route to take the device from: name the "
			                    "device");
		dev = found;
		h->dev_from_route = true;
	}
	if (profile_host_check_dev(dev, err) < 0)
		return -1;
	snprintf(h->dev, sizeof(h->dev), "%.15s", dev);
	return count_queues(h, err);
}

/* The device's NUMA-local CPUs (device/local_cpulist), or -1 with err. */
static int
local_cpus(struct profile_host *h, const char *what, struct cpuset *out, struct nm_error *err)
{
	char rel[96];

	snprintf(rel, sizeof(rel), "sys/class/net/%s/device/local_cpulist", h->dev);
	if (read_cpulist(h, rel, out) < 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "%s: \"local\": %s has no device/local_cpulist (%s): name the "
		                    "CPUs",
		                    what, h->dev, strerror(errno));
	cpuset_and(out, &h->online);
	return 0;
}

/* Resolve a profile's CPUs on the host, refusing offline, missing and (for RPS) isolated ones. */
int
profile_host_cpus(struct profile_host *h, const struct profile_cpus *c, bool for_rps,
                  const char *what, struct cpuset *out, struct nm_error *err)
{
	char list[256];

	switch (c->kind) {
	case PROFILE_CPUS_ALL:
	case PROFILE_CPUS_LOCAL:
		if (c->kind == PROFILE_CPUS_ALL)
			*out = h->online;
		else if (local_cpus(h, what, out, err) < 0)
			return -1;
		if (for_rps)
			for (int cpu = cpuset_last(&h->unhoused); cpu >= 0; cpu--)
				if (cpuset_has(&h->unhoused, (unsigned)cpu))
					cpuset_del(out, (unsigned)cpu);
		if (cpuset_empty(out))
			return nm_error_set(err, NM_ERR_BAD_ARGS, "%s: no CPU left to use", what);
		return 0;
	case PROFILE_CPUS_SET:
		*out = c->set;
		for (int cpu = 0; cpu <= cpuset_last(out); cpu++) {
			if (!cpuset_has(out, (unsigned)cpu))
				continue;
			cpuset_format_list(&h->online, list, sizeof(list));
			if ((unsigned)cpu >= h->nr_cpus)
				return nm_error_set(err, NM_ERR_BAD_ARGS,
				                    "%s: CPU %d does not exist (this host has CPUs "
				                    "0-%u)",
				                    what, cpu, h->nr_cpus - 1);
			if (!cpuset_has(&h->online, (unsigned)cpu))
				return nm_error_set(err, NM_ERR_BAD_ARGS,
				                    "%s: CPU %d is offline (online: %s)", what, cpu,
				                    list);
			if (for_rps && cpuset_has(&h->unhoused, (unsigned)cpu))
				return nm_error_set(
				    err, NM_ERR_BAD_ARGS,
				    "%s: CPU %d is isolated (isolcpus or nohz_full): "
				    "the kernel leaves it out of rps_cpus",
				    what, cpu);
		}
		return 0;
	case PROFILE_CPUS_UNSET:
		break;
	}
	return nm_error_set(err, NM_ERR_BAD_ARGS, "%s: no CPUs given", what);
}

/* Is a process named irqbalance running below the root? */
bool
profile_host_irqbalance(struct profile_host *h)
{
	return profile_host_running(h, "irqbalance");
}

/* Does tuned run; its active profile (etc/tuned/active_profile) into buf ("" unknown). */
bool
profile_host_tuned(struct profile_host *h, char *profile, size_t size)
{
	if (profile_host_read(h, PROFILE_BASE_ROOT, NULL, "etc/tuned/active_profile", profile,
	                      size) < 0)
		profile[0] = '\0';
	return profile_host_running(h, "tuned");
}

/* Is a process whose comm is name running below the root? */
bool
profile_host_running(struct profile_host *h, const char *name)
{
	struct dirent *de;
	bool found = false;
	DIR *dp;
	int fd = profile_host_openat(h, PROFILE_BASE_ROOT, NULL, "proc", O_RDONLY | O_DIRECTORY);

	if (fd < 0 || (dp = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (!found && (de = readdir(dp)) != NULL) {
		char rel[300], comm[64];
		if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
		    strspn(de->d_name, "0123456789") != strlen(de->d_name))
			continue;
		snprintf(rel, sizeof(rel), "proc/%s/comm", de->d_name);
		if (profile_host_read(h, PROFILE_BASE_ROOT, NULL, rel, comm, sizeof(comm)) == 0 &&
		    strcmp(comm, name) == 0)
			found = true;
	}
	closedir(dp);
	return found;
}
