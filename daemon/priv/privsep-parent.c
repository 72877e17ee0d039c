/* privsep-parent.c: the privileged process (privsep.h, privsep-parent.h): its request loop
 * on the channel from the main process (privsep_parent_run), each request checked again
 * here (privsep-check.c, and the checks that need the system: the file opened without
 * following symlinks, the executable's owner and mode, the client's credentials) and then
 * done (a tuning write, ETHTOOL_SFLAGS, a profile saved, a spawn, a signal), the processes
 * it started reaped and reported (EXIT), and the clean-up when the main process goes. The
 * main process's side of the channel is privsep.c; the messages are privsep-msg.h. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <net/if.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpfset.h"
#include "cgroup.h"
#include "child.h"
#include "config.h"
#include "error.h"
#include "ethtool.h"
#include "log.h"
#include "napinl.h"
#include "privsep-check.h"
#include "privsep-msg.h"
#include "privsep-parent.h"
#include "privsep.h"
#include "profile.h"
#include "usergroups.h"
#include "xmalloc.h"

/* privsep.c sends a device name of at most IFNAMSIZ bytes with NTUPLE. */
_Static_assert(PROFILE_DEV_MAX == IFNAMSIZ, "PROFILE_DEV_MAX is IFNAMSIZ");

struct ps_proc {
	pid_t pid;
	bool reaped, released;
};

struct ps_parent {
	int fd;
	const struct privsep_setup *setup;
	int rootfd; /* "/" for the tuning writes */
	int ethfd;  /* for ETHTOOL_SFLAGS; -1 until needed */
	struct ps_proc *procs;
	size_t nprocs;
	bool bye; /* the main process said it stops in order */
	struct ps_msg msg;
	/* The BPF program sets loaded (by set number: BPFSET_IRQ, BPFSET_DROP), attached until the
	 * end, and the fd that keeps the kernel's BPF statistics on (-1: not yet, or refused). */
	struct bpfset *bpf[BPFSET_MAX + 1];
	int bpf_stats_fd;
	bool bpf_stats_off; /* PS_BPF_STATS said off: a set loaded does not switch them on */
};

#define PS_PROCS_MAX 4096

/* Reply to request id: e (errno or 0), pid, a message. */
static void
reply(struct ps_parent *pp, uint32_t id, int e, pid_t pid, const char *text)
{
	struct ps_hdr h = {.type = PS_REPLY, .id = id, .a = e, .b = pid};

	h.len = (uint32_t)strlen(text) + 1;
	if (privsep_send_msg(pp->fd, &h, text, NULL, 0) < 0)
		log_warn("privsep: reply");
}

/* Reply to request id with fds and their count as the pid field. */
static void
reply_fds(struct ps_parent *pp, uint32_t id, const int *fds, size_t nfds)
{
	struct ps_hdr h = {.type = PS_REPLY, .id = id, .b = (int32_t)nfds, .len = 1};

	if (privsep_send_msg(pp->fd, &h, "", fds, nfds) < 0)
		log_warn("privsep: reply");
}

/* BPF: one of the fixed program sets, loaded and attached once, its fds handed over. */
static void
do_bpf(struct ps_parent *pp)
{
	int set = pp->msg.h.a, fds[BPFSET_FDS_MAX];
	struct nm_error err;
	size_t n;

	if (pp->msg.h.len != 0 || bpfset_name(set) == NULL ||
	    set >= (int)(sizeof(pp->bpf) / sizeof(pp->bpf[0]))) {
		reply(pp, pp->msg.h.id, EINVAL, 0, "privsep: no such BPF program set");
		return;
	}
	if (pp->bpf[set] == NULL) {
		if ((pp->bpf[set] = bpfset_load(set, &err)) == NULL) {
			log_warnx("privsep: %s", err.message);
			reply(pp, pp->msg.h.id, errno ? errno : EPERM, 0, err.message);
			return;
		}
		log_info("privsep: BPF program set %s loaded and attached", bpfset_name(set));
		/* The programs' run time: on while this process lives (no sysctl to restore),
		 * unless the main process said off. */
		if (!pp->bpf_stats_off && pp->bpf_stats_fd < 0 &&
		    (pp->bpf_stats_fd = bpfset_enable_stats(&err)) < 0)
			log_warnx("privsep: %s: the programs' run time stays 0", err.message);
	}
	n = bpfset_fds(pp->bpf[set], fds, BPFSET_FDS_MAX);
	reply_fds(pp, pp->msg.h.id, fds, n);
}

/* BPF_DETACH: one of the fixed program sets detached and unloaded (a set not loaded: done). */
static void
do_bpf_detach(struct ps_parent *pp)
{
	int set = pp->msg.h.a;

	if (pp->msg.h.len != 0 || bpfset_name(set) == NULL ||
	    set >= (int)(sizeof(pp->bpf) / sizeof(pp->bpf[0]))) {
		reply(pp, pp->msg.h.id, EINVAL, 0, "privsep: no such BPF program set");
		return;
	}
	if (pp->bpf[set] != NULL) {
		bpfset_free(pp->bpf[set]);
		pp->bpf[set] = NULL;
		log_info("privsep: BPF program set %s detached", bpfset_name(set));
	}
	reply(pp, pp->msg.h.id, 0, 0, "");
}

/* Is any BPF program set loaded? */
static bool
bpf_loaded(const struct ps_parent *pp)
{
	for (size_t i = 0; i < sizeof(pp->bpf) / sizeof(pp->bpf[0]); i++)
		if (pp->bpf[i] != NULL)
			return true;
	return false;
}

/* BPF_STATS: the kernel's BPF statistics held on (a = 1) or let go (a = 0). */
static void
do_bpf_stats(struct ps_parent *pp)
{
	struct nm_error err;
	bool on = pp->msg.h.a == 1;

	if (pp->msg.h.len != 0 || (pp->msg.h.a != 0 && pp->msg.h.a != 1)) {
		reply(pp, pp->msg.h.id, EINVAL, 0, "privsep: malformed bpf stats request");
		return;
	}
	pp->bpf_stats_off = !on;
	if (!on && pp->bpf_stats_fd >= 0) {
		close(pp->bpf_stats_fd);
		pp->bpf_stats_fd = -1;
		log_info("privsep: the kernel's BPF statistics let go");
	} else if (on && pp->bpf_stats_fd < 0 && bpf_loaded(pp)) {
		/* (With no set loaded yet, the first one loaded switches them on.) */
		if ((pp->bpf_stats_fd = bpfset_enable_stats(&err)) < 0) {
			reply(pp, pp->msg.h.id, errno ? errno : EPERM, 0, err.message);
			return;
		}
	}
	reply(pp, pp->msg.h.id, 0, 0, "");
}

/* The next NUL-terminated string of a payload, or NULL past its end. */
static const char *
next_str(const struct ps_msg *m, size_t *off)
{
	const char *s;

	if (*off >= m->h.len)
		return NULL;
	s = m->data + *off;
	*off += strlen(s) + 1;
	return *off <= m->h.len ? s : NULL;
}

/* WRITE: checked, then written below / (profile_host_write: no symlink followed below the
 * base directory, a regular file only). */
static void
do_write(struct ps_parent *pp)
{
	size_t off = 0;
	const char *dev = next_str(&pp->msg, &off), *rel = next_str(&pp->msg, &off),
	           *val = next_str(&pp->msg, &off);
	struct profile_host h;
	char why[512];

	if (dev == NULL || rel == NULL || val == NULL || off != pp->msg.h.len) {
		reply(pp, pp->msg.h.id, EINVAL, 0, "privsep: malformed write");
		return;
	}
	if (privsep_check_write(pp->msg.h.a, *dev ? dev : NULL, rel, val, why, sizeof(why)) < 0) {
		log_warnx("privsep: write refused: %s", why);
		reply(pp, pp->msg.h.id, EPERM, 0, why);
		return;
	}
	memset(&h, 0, sizeof(h));
	h.rootfd = pp->rootfd;
	h.real = true;
	h.ethfd = -1;
	if (profile_host_write(&h, (enum profile_base)pp->msg.h.a, *dev ? dev : NULL, rel, val) <
	    0) {
		int e = errno;
		snprintf(why, sizeof(why), "%s: %s", rel, strerror(e));
		reply(pp, pp->msg.h.id, e, 0, why);
		return;
	}
	reply(pp, pp->msg.h.id, 0, 0, "");
}

/* SAVE: a new profile file in the profile directory the process was given at start, never
 * replacing one (profile_write_file: O_EXCL, no symlink followed). */
static void
do_save(struct ps_parent *pp)
{
	size_t off = 0;
	const char *name = next_str(&pp->msg, &off), *text = next_str(&pp->msg, &off);
	struct nm_error err;

	if (name == NULL || text == NULL || off != pp->msg.h.len) {
		reply(pp, pp->msg.h.id, EINVAL, 0, "privsep: malformed save");
		return;
	}
	if (pp->setup->profile_dir == NULL) {
		reply(pp, pp->msg.h.id, EPERM, 0, "privsep: no profile directory");
		return;
	}
	if (profile_write_file(pp->setup->profile_dir, name, text, &err) < 0) {
		int e = errno ? errno : EINVAL;
		log_warnx("privsep: save refused: %s", err.message);
		reply(pp, pp->msg.h.id, e, 0, err.message);
		return;
	}
	log_info("privsep: profile %s/%s.conf written", pp->setup->profile_dir, name);
	reply(pp, pp->msg.h.id, 0, 0, "");
}

/* UNLINK: the control socket the daemon made, and only that file (the device and inode
 * seen at the split), from a directory the main process may not write. */
static void
do_unlink(struct ps_parent *pp)
{
	const struct privsep_setup *s = pp->setup;
	struct stat st;

	if (s->socket_path == NULL) {
		reply(pp, pp->msg.h.id, EPERM, 0, "privsep: no socket of the daemon's to remove");
		return;
	}
	if (lstat(s->socket_path, &st) < 0) {
		reply(pp, pp->msg.h.id, errno, 0, "");
		return;
	}
	if (!S_ISSOCK(st.st_mode) || st.st_dev != s->socket_dev || st.st_ino != s->socket_ino) {
		reply(pp, pp->msg.h.id, EPERM, 0,
		      "privsep: the file at the socket's path is not the daemon's socket");
		return;
	}
	if (unlink(s->socket_path) < 0) {
		int e = errno;
		reply(pp, pp->msg.h.id, e, 0, strerror(e));
		return;
	}
	reply(pp, pp->msg.h.id, 0, 0, "");
}

/* NTUPLE: a device name checked, then ETHTOOL_SFLAGS. */
static void
do_ntuple(struct ps_parent *pp)
{
	char why[256];

	if (pp->msg.h.len != strlen(pp->msg.data) + 1 ||
	    privsep_check_dev(pp->msg.data, why, sizeof(why)) < 0) {
		reply(pp, pp->msg.h.id, EINVAL, 0, "privsep: ntuple: not a device name");
		return;
	}
	if (pp->ethfd < 0 && (pp->ethfd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0) {
		reply(pp, pp->msg.h.id, errno, 0, "privsep: ethtool socket");
		return;
	}
	if (ethtool_set_ntuple(pp->ethfd, pp->msg.data, pp->msg.h.a != 0) < 0) {
		int e = errno;
		snprintf(why, sizeof(why), "ethtool %s: %s", pp->msg.data, strerror(e));
		reply(pp, pp->msg.h.id, e, 0, why);
		return;
	}
	reply(pp, pp->msg.h.id, 0, 0, "");
}

/* FEATURE: the device and feature names checked, the feature there and changeable, then
 * ETHTOOL_SFEATURES of that one bit. What the kernel did is read back by the main
 * process. */
static void
do_feature(struct ps_parent *pp)
{
	const char *dev = pp->msg.data, *name;
	struct ethtool_feature f;
	char why[256];
	size_t dl = strlen(dev);

	name = dev + dl + 1;
	if (dl + 1 >= pp->msg.h.len || pp->msg.h.len != dl + 1 + strlen(name) + 1 ||
	    privsep_check_dev(dev, why, sizeof(why)) < 0 ||
	    privsep_check_feature(name, why, sizeof(why)) < 0) {
		reply(pp, pp->msg.h.id, EINVAL, 0,
		      "privsep: feature: not a device and feature name");
		return;
	}
	if (pp->ethfd < 0 && (pp->ethfd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0) {
		reply(pp, pp->msg.h.id, errno, 0, "privsep: ethtool socket");
		return;
	}
	if (ethtool_get_feature(pp->ethfd, dev, name, &f) < 0) {
		int e = errno;
		snprintf(why, sizeof(why), "ethtool %s %s: %s", dev, name,
		         e == ENOENT ? "no such feature" : strerror(e));
		reply(pp, pp->msg.h.id, e, 0, why);
		return;
	}
	if (!f.changeable) {
		snprintf(why, sizeof(why), "ethtool %s %s: [fixed]", dev, name);
		reply(pp, pp->msg.h.id, EOPNOTSUPP, 0, why);
		return;
	}
	if (ethtool_set_feature(pp->ethfd, dev, name, pp->msg.h.a != 0) < 0) {
		int e = errno;
		snprintf(why, sizeof(why), "ethtool %s %s: %s", dev, name, strerror(e));
		reply(pp, pp->msg.h.id, e, 0, why);
		return;
	}
	reply(pp, pp->msg.h.id, 0, 0, "");
}

/* CHANNELS: the device name and which checked, the count 1 to the device's maximum (checked
 * again by ethtool_set_channel), then ETHTOOL_SCHANNELS. */
static void
do_channels(struct ps_parent *pp)
{
	char why[256];

	if (pp->msg.h.len != strlen(pp->msg.data) + 1 ||
	    privsep_check_dev(pp->msg.data, why, sizeof(why)) < 0 ||
	    (pp->msg.h.a != ETHTOOL_CHAN_RX && pp->msg.h.a != ETHTOOL_CHAN_TX &&
	     pp->msg.h.a != ETHTOOL_CHAN_COMBINED) ||
	    pp->msg.h.b < 1) {
		reply(pp, pp->msg.h.id, EINVAL, 0, "privsep: channels: not a device and a count");
		return;
	}
	if (pp->ethfd < 0 && (pp->ethfd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0) {
		reply(pp, pp->msg.h.id, errno, 0, "privsep: ethtool socket");
		return;
	}
	if (ethtool_set_channel(pp->ethfd, pp->msg.data, (enum ethtool_chan_which)pp->msg.h.a,
	                        (uint32_t)pp->msg.h.b) < 0) {
		int e = errno;
		snprintf(why, sizeof(why), "ethtool %s channels: %s", pp->msg.data,
		         e == ERANGE ? "above the device's maximum" : strerror(e));
		reply(pp, pp->msg.h.id, e, 0, why);
		return;
	}
	reply(pp, pp->msg.h.id, 0, 0, "");
}

/* NAPI: the device name, the setting and the value checked, the queue's NAPI resolved here
 * (queue-get), then napi-set. */
static void
do_napi(struct ps_parent *pp)
{
	const char *dev = pp->msg.data, *name;
	size_t dl = strlen(dev);
	struct nm_error e;
	struct napinl n;
	unsigned ifindex;
	uint32_t id;
	char why[256];
	enum napinl_attr attr;

	name = dev + dl + 1;
	if (dl + 1 >= pp->msg.h.len || pp->msg.h.len != dl + 1 + strlen(name) + 1 ||
	    privsep_check_dev(dev, why, sizeof(why)) < 0 || pp->msg.h.a < 0 || pp->msg.h.b < 0 ||
	    pp->msg.h.b > 999999999 ||
	    (strcmp(name, "defer_hard_irqs") != 0 && strcmp(name, "gro_flush_timeout") != 0)) {
		reply(pp, pp->msg.h.id, EINVAL, 0,
		      "privsep: napi: not a device, queue and setting");
		return;
	}
	attr = strcmp(name, "defer_hard_irqs") == 0 ? NAPINL_DEFER_HARD_IRQS
	                                            : NAPINL_GRO_FLUSH_TIMEOUT;
	if ((ifindex = if_nametoindex(dev)) == 0) {
		int en = errno;
		reply(pp, pp->msg.h.id, en, 0, "privsep: napi: no such device");
		return;
	}
	if (napinl_open(&n, &e) < 0) {
		reply(pp, pp->msg.h.id, errno ? errno : EOPNOTSUPP, 0, e.message);
		return;
	}
	if (napinl_rx_napi(&n, (int)ifindex, (unsigned)pp->msg.h.a, &id, &e) < 0 ||
	    napinl_set(&n, id, attr, (uint64_t)pp->msg.h.b, &e) < 0) {
		int en = errno;
		napinl_close(&n);
		reply(pp, pp->msg.h.id, en, 0, e.message);
		return;
	}
	napinl_close(&n);
	reply(pp, pp->msg.h.id, 0, 0, "");
}

/* RINGS: the device name, rx or tx and a size of at least 1 checked (the maximum by
 * ethtool_set_ring), then ETHTOOL_SRINGPARAM. */
static void
do_rings(struct ps_parent *pp)
{
	char why[256];

	if (pp->msg.h.len != strlen(pp->msg.data) + 1 ||
	    privsep_check_dev(pp->msg.data, why, sizeof(why)) < 0 ||
	    (pp->msg.h.a != 0 && pp->msg.h.a != 1) || pp->msg.h.b < 1) {
		reply(pp, pp->msg.h.id, EINVAL, 0, "privsep: rings: not a device and a size");
		return;
	}
	if (pp->ethfd < 0 && (pp->ethfd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0) {
		reply(pp, pp->msg.h.id, errno, 0, "privsep: ethtool socket");
		return;
	}
	if (ethtool_set_ring(pp->ethfd, pp->msg.data, pp->msg.h.a == 1, (uint32_t)pp->msg.h.b) <
	    0) {
		int e = errno;
		snprintf(why, sizeof(why), "ethtool %s rings: %s", pp->msg.data,
		         e == ERANGE ? "above the device's maximum" : strerror(e));
		reply(pp, pp->msg.h.id, e, 0, why);
		return;
	}
	reply(pp, pp->msg.h.id, 0, 0, "");
}

/* COALESCE: the device name, the parameter and its range checked, then ETHTOOL_SCOALESCE. */
static void
do_coalesce(struct ps_parent *pp)
{
	int32_t p = pp->msg.h.a, v = pp->msg.h.b;
	bool adaptive = p == ETHTOOL_COAL_ADAPTIVE_RX || p == ETHTOOL_COAL_ADAPTIVE_TX;
	char why[256];

	if (pp->msg.h.len != strlen(pp->msg.data) + 1 ||
	    privsep_check_dev(pp->msg.data, why, sizeof(why)) < 0 || p < ETHTOOL_COAL_RX_USECS ||
	    p > ETHTOOL_COAL_ADAPTIVE_TX || v < 0 || v > (adaptive ? 1 : 999999999)) {
		reply(pp, pp->msg.h.id, EINVAL, 0,
		      "privsep: coalesce: not a device, a parameter and a value");
		return;
	}
	if (pp->ethfd < 0 && (pp->ethfd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0) {
		reply(pp, pp->msg.h.id, errno, 0, "privsep: ethtool socket");
		return;
	}
	if (ethtool_set_coalesce(pp->ethfd, pp->msg.data, (enum ethtool_coal_param)p, (uint32_t)v) <
	    0) {
		int e = errno;
		snprintf(why, sizeof(why), "ethtool %s coalesce: %s", pp->msg.data, strerror(e));
		reply(pp, pp->msg.h.id, e, 0, why);
		return;
	}
	reply(pp, pp->msg.h.id, 0, 0, "");
}

/* The device's RSS sizes for a check: table entries, rx rings, key bytes. 0, or -1 with
 * errno (EOPNOTSUPP: no RSS). */
static int
rss_sizes(int fd, const char *dev, uint32_t *nindir, uint32_t *nrings, uint32_t *nkey)
{
	uint32_t *indir = xcalloc(ETHTOOL_RSS_TABLE_MAX, sizeof(uint32_t));
	uint8_t key[ETHTOOL_RSS_KEY_MAX], hfunc;
	int r = ethtool_get_rss(fd, dev, indir, ETHTOOL_RSS_TABLE_MAX, nindir, key, sizeof(key),
	                        nkey, &hfunc);

	free(indir);
	if (r == 0 && *nindir == 0 && *nkey == 0)
		errno = EOPNOTSUPP, r = -1; /* the driver has neither (virtio_net without RSS) */
	if (r == 0 && *nindir > 0 && ethtool_get_rxrings(fd, dev, nrings) < 0)
		r = -1;
	return r;
}

/* RSS: the device name, then the request checked against the device (privsep_check_rss),
 * then ETHTOOL_SRSSH or ETHTOOL_SRXFH. */
static void
do_rss(struct ps_parent *pp)
{
	const char *dev = pp->msg.data;
	size_t dl = strnlen(dev, pp->msg.h.len), len;
	uint32_t nindir = 0, nrings = 0, nkey = 0, fields = 0;
	int32_t part = pp->msg.h.a, b = pp->msg.h.b;
	const char *data;
	char why[256];
	int r, e;

	if (dl >= pp->msg.h.len || privsep_check_dev(dev, why, sizeof(why)) < 0) {
		reply(pp, pp->msg.h.id, EINVAL, 0, "privsep: rss: not a device");
		return;
	}
	data = dev + dl + 1;
	len = pp->msg.h.len - dl - 1;
	if (pp->ethfd < 0 && (pp->ethfd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0) {
		reply(pp, pp->msg.h.id, errno, 0, "privsep: ethtool socket");
		return;
	}
	if ((part == ETHTOOL_RSS_INDIR || part == ETHTOOL_RSS_KEY) &&
	    rss_sizes(pp->ethfd, dev, &nindir, &nrings, &nkey) < 0) {
		e = errno;
		snprintf(why, sizeof(why), "ethtool %s rss: %s", dev,
		         e == EOPNOTSUPP ? "not supported by the driver" : strerror(e));
		reply(pp, pp->msg.h.id, e, 0, why);
		return;
	}
	if (privsep_check_rss(part, b, data, len, nindir, nrings, nkey, why, sizeof(why)) < 0) {
		char msg[320];
		snprintf(msg, sizeof(msg), "privsep: rss: %s: %s", dev, why);
		reply(pp, pp->msg.h.id, EINVAL, 0, msg);
		return;
	}
	switch (part) {
	case ETHTOOL_RSS_INDIR: {
		uint32_t *indir = xcalloc(nindir, sizeof(uint32_t)); /* data is not aligned */
		memcpy(indir, data, len);
		r = ethtool_set_rss(pp->ethfd, dev, indir, nindir, NULL, 0, 0);
		e = errno;
		free(indir);
		errno = e;
		break;
	}
	case ETHTOOL_RSS_KEY:
		r = ethtool_set_rss(pp->ethfd, dev, NULL, 0, (const uint8_t *)data, nkey, 0);
		break;
	case ETHTOOL_RSS_HFUNC:
		r = ethtool_set_rss(pp->ethfd, dev, NULL, 0, NULL, 0, (uint8_t)b);
		break;
	default:
		memcpy(&fields, data, 4);
		r = ethtool_set_rxfh_fields(pp->ethfd, dev, (uint32_t)b, fields);
		break;
	}
	if (r < 0) {
		e = errno;
		snprintf(why, sizeof(why), "ethtool %s rss: %s", dev,
		         e == EOPNOTSUPP ? "not supported by the driver" : strerror(e));
		reply(pp, pp->msg.h.id, e, 0, why);
		return;
	}
	reply(pp, pp->msg.h.id, 0, 0, "");
}

/* The cgroup.procs passed with a spawn: it must be DIR/test-N/cgroup.procs of the tree the
 * privileged process was given; opened again here, as root (the kernel checks a move
 * with the credentials the file was opened with). The new fd, or -1 with why. */
static int
reopen_cgroup(const struct ps_parent *pp, int fd, char *why, size_t size)
{
	char link[64], path[4400], want[4400];
	const char *p, *end;
	ssize_t n;
	size_t dlen;
	int nfd;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if (pp->setup->cgroup_path == NULL || (n = readlink(link, path, sizeof(path) - 1)) < 0) {
		snprintf(why, size, "privsep: no test cgroup to join");
		return -1;
	}
	path[n] = '\0';
	dlen = (size_t)snprintf(want, sizeof(want), "%s/test-", pp->setup->cgroup_path);
	p = path + dlen;
	if (strncmp(path, want, dlen) != 0 || strspn(p, "0123456789") == 0 ||
	    (end = p + strspn(p, "0123456789"), strcmp(end, "/cgroup.procs") != 0)) {
		snprintf(why, size, "privsep: %.300s is not a test cgroup", path);
		return -1;
	}
	if ((nfd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		snprintf(why, size, "privsep: %.300s: %s", path, strerror(errno));
	return nfd;
}

/* Is the request's uid, gid and groups a user's own? 0 or -1 with why. */
static int
check_user(const struct ps_spawn *s, const gid_t *groups, char *why, size_t size)
{
	gid_t allowed[USERGROUPS_MAX];
	size_t n = 0;

	if (!s->as_user || s->uid == 0)
		return 0;
	if (usergroups_get(s->uid, allowed, USERGROUPS_MAX, &n) < 0) {
		snprintf(why, size, "privsep: uid %u has no password entry", (unsigned)s->uid);
		return -1;
	}
	/* The client's gid may be one it took with newgrp: a group of the user's in any case. */
	return privsep_check_groups(s->uid, s->gid, groups, s->ngroups, allowed, n, why, size);
}

/* The directory of path must be one the main process cannot change. */
static int
check_parent_dir(const char *path, uid_t uid, char *why, size_t size)
{
	char dir[4096];
	char *slash;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) == NULL)
		return 0;
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (stat(dir, &st) < 0) {
		snprintf(why, size, "%.300s: %s", dir, strerror(errno));
		return -1;
	}
	return privsep_check_dir(dir, &st, uid, why, size);
}

/* What a spawn runs: the file path resolves to, and the directories of both, are root's
 * (or the user's it runs as). 0 or -1 with why. */
static int
check_program(const char *path, uid_t uid, char *why, size_t size)
{
	char real[4096];
	struct stat st;

	if (path[0] != '/') {
		snprintf(why, size, "%.300s: not an absolute path", path);
		return -1;
	}
	if (realpath(path, real) == NULL || stat(real, &st) < 0) {
		snprintf(why, size, "%.300s: %s", path, strerror(errno));
		return -1;
	}
	if (privsep_check_exec(real, &st, uid, why, size) < 0 ||
	    check_parent_dir(path, uid, why, size) < 0 ||
	    check_parent_dir(real, uid, why, size) < 0)
		return -1;
	return 0;
}

/* The client a spawn is for: fd must be a connection accepted on the control socket (a
 * socket the main process made itself, or one it connected elsewhere, would name other
 * credentials); its SO_PEERCRED, and whether it is an admin now, checked against the
 * request (privsep_check_peer). 0 or -1 with why. */
static int
check_peer(const struct ps_parent *pp, int fd, const struct ps_spawn *s, const char *netns,
           char *const *argv, struct ucred *peer, char *why, size_t size)
{
	struct sockaddr_un sun;
	socklen_t slen = sizeof(sun), clen;
	struct ucred cred;
	int type = 0;
	bool admin;

	if (fd < 0) {
		snprintf(why, size, "privsep: a spawn comes with the socket of its client");
		return -1;
	}
	memset(&sun, 0, sizeof(sun));
	clen = sizeof(type);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &clen) < 0 || type != SOCK_STREAM ||
	    getsockname(fd, (struct sockaddr *)&sun, &slen) < 0 || sun.sun_family != AF_UNIX ||
	    slen <= offsetof(struct sockaddr_un, sun_path) || pp->setup->control_path == NULL ||
	    strncmp(sun.sun_path, pp->setup->control_path, sizeof(sun.sun_path)) != 0) {
		snprintf(why, size,
		         "privsep: the client's socket is not a connection of the "
		         "control socket");
		return -1;
	}
	clen = sizeof(cred);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0) {
		snprintf(why, size, "privsep: SO_PEERCRED: %s", strerror(errno));
		return -1;
	}
	*peer = cred;
	admin = cred.uid == 0 || usergroups_is_admin(cred.uid, cred.gid, pp->setup->admin_group);
	return privsep_check_peer(cred.uid, cred.gid, admin, s->as_user != 0, s->uid, s->gid, argv,
	                          netns, why, size);
}

/* Is argv the transport v of a configured peer: the same words, argv[0] resolved from a
 * bare v[0] on PATH? */
static bool
transport_matches(char *const *v, char *const *argv)
{
	const char *base = strrchr(argv[0], '/');
	size_t i;

	if (v[0] == NULL ||
	    (strcmp(v[0], argv[0]) != 0 &&
	     (strchr(v[0], '/') != NULL || base == NULL || strcmp(base + 1, v[0]) != 0)))
		return false;
	for (i = 1; v[i] != NULL && argv[i] != NULL; i++)
		if (strcmp(v[i], argv[i]) != 0)
			return false;
	return v[i] == NULL && argv[i] == NULL;
}

/* A spawn with no client socket: only a peer's transport (a duplex spawn in no namespace),
 * and only the argv that a [peer NAME] of the configuration file, read here, gives: the
 * main process's word is not taken for it. A SIGHUP's new peers are in the file already.
 * 0 (with the peer's name) or -1 with why. */
static int
check_transport(const struct ps_parent *pp, const struct ps_spawn *s, const char *netns,
                char *const *argv, char *name, size_t nsize, char *why, size_t size)
{
	struct config cfg;
	struct nm_error err;
	int r = -1;

	if (!s->duplex || netns[0] != '\0' || pp->setup->config_path == NULL) {
		snprintf(why, size, "privsep: a spawn comes with the socket of its client");
		return -1;
	}
	config_defaults(&cfg);
	if (config_load(&cfg, pp->setup->config_path, true, &err) < 0) {
		snprintf(why, size, "privsep: a peer's transport: %.400s", err.message);
		config_free(&cfg);
		return -1;
	}
	for (size_t i = 0; i < cfg.npeers && r < 0; i++) {
		char **v = config_peer_argv(&cfg.peers[i]);
		if (transport_matches(v, argv)) {
			snprintf(name, nsize, "%s", cfg.peers[i].name);
			r = 0;
		}
		config_strv_free(v);
	}
	config_free(&cfg);
	if (r < 0)
		snprintf(why, size,
		         "privsep: %.200s ... is no configured peer's transport (%.200s)", argv[0],
		         pp->setup->config_path);
	return r;
}

/* An admin's trafgen reads its configuration as root: the file -i names (its shape checked
 * by privsep_check_root_argv) must be what the main process wrote, a regular file of its
 * user's (no symlink to another file, no hard link of root's) in a directory of that user's
 * that no one else may enter (mkdtemp's 0700). 0 or -1 with why. */
static int
check_root_files(const struct ps_parent *pp, char *const *argv, char *why, size_t size)
{
	const char *base = strrchr(argv[0], '/'), *cfg = NULL;
	char dir[4096], *slash;
	struct stat st;

	base = base != NULL ? base + 1 : argv[0];
	if (strcmp(base, "trafgen") != 0)
		return 0;
	for (size_t i = 1; argv[i] != NULL; i++)
		if (strcmp(argv[i], "-i") == 0 && argv[i + 1] != NULL)
			cfg = argv[i + 1];
	if (cfg == NULL)
		return 0;
	if (lstat(cfg, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != pp->setup->uid ||
	    st.st_nlink != 1) {
		snprintf(
		    why, size,
		    "privsep: %.300s: not a regular file of uid %u's (trafgen's configuration)",
		    cfg, (unsigned)pp->setup->uid);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s", cfg);
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != pp->setup->uid ||
	    (st.st_mode & 077) != 0) {
		snprintf(why, size, "privsep: %.300s: not a private directory of uid %u's", dir,
		         (unsigned)pp->setup->uid);
		return -1;
	}
	return 0;
}

/* SPAWN: checked, started with child_spawn_fds, remembered. */
static void
do_spawn_req(struct ps_parent *pp, int *fds)
{
	struct ps_spawn s;
	gid_t groups[PRIVSEP_GROUPS];
	char *argv[PRIVSEP_ARGV_MAX + 1], *envp[PRIVSEP_ENV_MAX + 1], why[512];
	size_t off, na = 0, ne = 0;
	const char *netns, *str;
	struct child_spawn how;
	struct nm_error err;
	pid_t pid;
	struct ucred peer = {0};
	char transport[512] = "";
	char **own_env;
	bool admin_root;
	int cgfd = -1, peerfd, r, e;

	if (pp->msg.h.len < sizeof(s) || fds[0] < 0 || fds[1] < 0)
		goto malformed;
	memcpy(&s, pp->msg.data, sizeof(s));
	peerfd = s.has_peer ? fds[s.has_cgroup ? 3 : 2] : -1;
	if (s.ngroups > PRIVSEP_GROUPS || (s.has_cgroup && fds[2] < 0) ||
	    (s.has_peer && peerfd < 0) || pp->msg.h.len < sizeof(s) + s.ngroups * sizeof(uint32_t))
		goto malformed;
	for (size_t i = 0; i < s.ngroups; i++) {
		uint32_t g;
		memcpy(&g, pp->msg.data + sizeof(s) + i * sizeof(g), sizeof(g));
		groups[i] = g;
	}
	off = sizeof(s) + s.ngroups * sizeof(uint32_t);
	if ((netns = next_str(&pp->msg, &off)) == NULL)
		goto malformed;
	while ((str = next_str(&pp->msg, &off)) != NULL && *str) {
		if (na == PRIVSEP_ARGV_MAX)
			goto malformed;
		argv[na++] = (char *)str;
	}
	if (str == NULL)
		goto malformed;
	while ((str = next_str(&pp->msg, &off)) != NULL) {
		if (ne == PRIVSEP_ENV_MAX)
			goto malformed;
		envp[ne++] = (char *)str;
	}
	argv[na] = envp[ne] = NULL;
	if (privsep_check_strv(argv, PRIVSEP_ARGV_MAX, false, why, sizeof(why)) < 0 ||
	    privsep_check_strv(envp, PRIVSEP_ENV_MAX, true, why, sizeof(why)) < 0 ||
	    (peerfd < 0 ? check_transport(pp, &s, netns, argv, transport, sizeof(transport), why,
	                                  sizeof(why))
	                : check_peer(pp, peerfd, &s, netns, argv, &peer, why, sizeof(why))) < 0 ||
	    check_user(&s, groups, why, sizeof(why)) < 0)
		goto refused;
	if (check_program(argv[0], s.as_user ? s.uid : 0, why, sizeof(why)) < 0)
		goto refused;
	/* What root reads for an admin who is not root (privsep_check_root_argv's shapes). */
	admin_root = peerfd >= 0 && peer.uid != 0 && !(s.as_user && s.uid != 0);
	if (admin_root && check_root_files(pp, argv, why, sizeof(why)) < 0)
		goto refused;
	if (s.has_cgroup && (cgfd = reopen_cgroup(pp, fds[2], why, sizeof(why))) < 0)
		goto refused;
	if (pp->nprocs == PS_PROCS_MAX) {
		snprintf(why, sizeof(why), "privsep: %d processes at once", PS_PROCS_MAX);
		goto refused;
	}
	memset(&how, 0, sizeof(how));
	how.argv = argv;
	how.netns = netns;
	how.as_user = s.as_user;
	how.uid = s.uid;
	how.gid = s.gid;
	how.groups = groups;
	how.ngroups = s.ngroups;
	how.cgroup_fd = cgfd;
	how.peer_fd = -1;
	/* An admin's command line as root gets this process's own clean environment (PATH,
	 * LANG=C, HOME), not the main process's: tc dlopen()s TC_LIB_DIR/q_KIND.so, ip
	 * IP_LIB_DIR's, and PATH chooses what a root process runs. */
	own_env = admin_root ? child_env(0, NULL) : NULL;
	how.envp = own_env != NULL ? own_env : envp;
	how.duplex = s.duplex != 0;
	how.nproc_max = s.as_user && s.uid != 0 ? s.nproc_max : 0;
	r = child_spawn_fds(&how, fds[0], fds[1], &pid, &err);
	e = errno;
	child_env_free(own_env);
	if (r < 0) {
		reply(pp, pp->msg.h.id, e ? e : EIO, 0, err.message);
		goto out;
	}
	pp->procs = xreallocarray(pp->procs, pp->nprocs + 1, sizeof(*pp->procs));
	pp->procs[pp->nprocs++] = (struct ps_proc){pid, false, false};
	if (peerfd < 0)
		log_info("privsep: %s as uid %u, the transport of peer %s: pid %d", argv[0],
		         s.as_user ? (unsigned)s.uid : 0u, transport, (int)pid);
	else
		log_info("privsep: %s as uid %u for a client of uid %u (pid %d): pid %d", argv[0],
		         s.as_user ? (unsigned)s.uid : 0u, (unsigned)peer.uid, (int)peer.pid,
		         (int)pid);
	reply(pp, pp->msg.h.id, 0, pid, "");
	goto out;
malformed:
	snprintf(why, sizeof(why), "privsep: malformed spawn");
refused:
	log_warnx("privsep: spawn refused: %s", why);
	reply(pp, pp->msg.h.id, EPERM, 0, why);
out:
	if (cgfd >= 0)
		close(cgfd);
}

/* The entry of pid, or NULL: the privileged process signals only what it started. */
static struct ps_proc *
find_proc(struct ps_parent *pp, pid_t pid)
{
	for (size_t i = 0; i < pp->nprocs; i++)
		if (pp->procs[i].pid == pid && pid > 0)
			return &pp->procs[i];
	return NULL;
}

/* Drop entry p once it is reaped and released. */
static void
maybe_forget(struct ps_parent *pp, struct ps_proc *p)
{
	if (p->reaped && p->released)
		*p = pp->procs[--pp->nprocs];
}

/* Reap what exited and report it. */
static void
reap(struct ps_parent *pp)
{
	int st;
	pid_t pid;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		struct ps_proc *p = find_proc(pp, pid);
		struct ps_hdr h = {.type = PS_EXIT, .a = pid, .b = st};

		if (p == NULL)
			continue;
		p->reaped = true;
		if (!p->released && privsep_send_msg(pp->fd, &h, NULL, NULL, 0) < 0)
			log_warn("privsep: exit report");
		maybe_forget(pp, p);
	}
}

/* One request. */
static void
handle(struct ps_parent *pp, int *fds)
{
	struct ps_proc *p;

	switch (pp->msg.h.type) {
	case PS_WRITE:
		do_write(pp);
		break;
	case PS_NTUPLE:
		do_ntuple(pp);
		break;
	case PS_FEATURE:
		do_feature(pp);
		break;
	case PS_CHANNELS:
		do_channels(pp);
		break;
	case PS_NAPI:
		do_napi(pp);
		break;
	case PS_RINGS:
		do_rings(pp);
		break;
	case PS_COALESCE:
		do_coalesce(pp);
		break;
	case PS_RSS:
		do_rss(pp);
		break;
	case PS_SAVE:
		do_save(pp);
		break;
	case PS_UNLINK:
		do_unlink(pp);
		break;
	case PS_SPAWN:
		do_spawn_req(pp, fds);
		break;
	case PS_BPF:
		do_bpf(pp);
		break;
	case PS_BPF_DETACH:
		do_bpf_detach(pp);
		break;
	case PS_BPF_STATS:
		do_bpf_stats(pp);
		break;
	case PS_KILL:
		if ((p = find_proc(pp, pp->msg.h.a)) != NULL && pp->msg.h.b > 0 &&
		    pp->msg.h.b < NSIG && kill(-p->pid, pp->msg.h.b) < 0 && errno != ESRCH)
			log_warn("privsep: kill %d", (int)p->pid);
		break;
	case PS_RELEASE:
		if ((p = find_proc(pp, pp->msg.h.a)) != NULL) {
			if (!p->reaped)
				kill(-p->pid, SIGKILL);
			p->released = true;
			maybe_forget(pp, p);
		}
		break;
	case PS_BYE:
		pp->bye = true;
		break;
	default:
		log_warnx("privsep: unknown request %u", (unsigned)pp->msg.h.type);
		reply(pp, pp->msg.h.id, EINVAL, 0, "privsep: unknown request");
	}
	for (int i = 0; i < PS_FDS_MAX; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* The main process has gone: kill what is left, the test cgroups too. */
static void
parent_finish(struct ps_parent *pp)
{
	struct stat st;

	for (size_t i = 0; i < pp->nprocs; i++)
		if (!pp->procs[i].reaped)
			kill(-pp->procs[i].pid, SIGKILL);
	if (pp->setup->cgroup_path != NULL)
		cgroup_sweep_path(pp->setup->cgroup_path);
	/* The main process may not remove the socket from a directory of root's; after a crash
	 * it is left, as it would be without the split (the next start finds it stale). */
	if (pp->bye && pp->setup->socket_path != NULL && lstat(pp->setup->socket_path, &st) == 0 &&
	    S_ISSOCK(st.st_mode) && st.st_dev == pp->setup->socket_dev &&
	    st.st_ino == pp->setup->socket_ino)
		unlink(pp->setup->socket_path);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	for (size_t i = 0; i < sizeof(pp->bpf) / sizeof(pp->bpf[0]); i++)
		bpfset_free(pp->bpf[i]);
	if (pp->bpf_stats_fd >= 0)
		close(pp->bpf_stats_fd);
}

/* Close the listening sockets inherited from the main process (the control socket): a
 * client must never reach a socket only this process holds, and after a crash of the main
 * process the next start must find the socket stale. Other inherited fds are left: the
 * journal's among them. */
static void
close_listeners(int keep)
{
	for (int fd = 3; fd < 4096; fd++) {
		int on = 0;
		socklen_t len = sizeof(on);

		if (fd != keep && getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &len) == 0 && on)
			close(fd);
	}
}

void
privsep_parent_run(int fd, const struct privsep_setup *setup)
{
	static struct ps_parent pp;
	struct sigaction sa;
	sigset_t chld;
	int sfd;

	/* No handler of the main process's loop runs here: their pipe is the loop's. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);
	/* A stop signal is for the main process, whose end this one follows. */
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_SETMASK, &chld, NULL);
	prctl(PR_SET_NAME, "netmetricsd-pri", 0, 0, 0);
	if ((sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		fatal("privsep: signalfd");
	close_listeners(fd);
	/* The starter waits for the main process's word, or for the pipe to close. */
	if (setup->ready_fd >= 0)
		close(setup->ready_fd);
	pp.fd = fd;
	pp.setup = setup;
	pp.ethfd = -1;
	pp.bpf_stats_fd = -1;
	if ((pp.rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		fatal("privsep: open /");
	for (;;) {
		struct pollfd pfd[2] = {{fd, POLLIN, 0}, {sfd, POLLIN, 0}};
		int fds[PS_FDS_MAX], r;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			fatal("privsep: poll");
		}
		if (pfd[1].revents) {
			struct signalfd_siginfo si;
			while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				;
			reap(&pp);
		}
		if (!pfd[0].revents)
			continue;
		r = privsep_recv_msg(fd, &pp.msg, fds, PS_FDS_MAX, MSG_DONTWAIT);
		if (r < 0 && errno == EAGAIN)
			continue;
		if (r < 0 && errno == ECONNRESET)
			break; /* the main process ended with requests unread */
		if (r < 0) {
			log_warn("privsep: bad message from the main process; stopping");
			break;
		}
		if (r == 0)
			break;
		handle(&pp, fds);
	}
	parent_finish(&pp);
}
