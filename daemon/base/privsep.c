/* privsep.c: the main process's side of the channel to the privileged process
 * (privsep.h): the requests (privsep_write, privsep_spawn, ...) and their replies, the
 * EXIT reports, privsep_start (the fork, and the drop of the main process), and the
 * messages' send and receive (privsep-msg.h). One process-wide channel, like stderr: the
 * operations are called from deep inside profile and child code that has no daemon at hand.
 * The privileged process itself is privsep-parent.c; this file calls nothing of it (nor of
 * the profile or check code): privsep_start runs the setup's parent_run in the child. */
#include <errno.h>
#include <event2/event.h>
#include <grp.h>
#include <linux/capability.h>
#include <net/if.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "ethtool.h"
#include "error.h"
#include "log.h"
#include "privsep-msg.h"
#include "privsep.h"
#include "xmalloc.h"

#define PS_EXITS_MAX 1024 /* EXIT reports kept while a reply is awaited */

/* The main process's side. */
static struct {
	int fd; /* -1: no split */
	pid_t pid;
	uint32_t next_id;
	struct event_base *base;
	struct event *ev, *deliver;
	void (*on_exit)(pid_t, int, void *);
	void *arg;
	struct {
		pid_t pid;
		int status;
	} exits[PS_EXITS_MAX]; /* arrived during a synchronous wait, delivered after it */
	size_t nexits;
	bool expected; /* privsep_expect() was called */
} ps = {.fd = -1};

bool
privsep_on(void)
{
	return ps.fd >= 0;
}

void
privsep_expect(void)
{
	ps.expected = true;
}

bool
privsep_expected(void)
{
	return ps.expected || ps.fd >= 0;
}

pid_t
privsep_pid(void)
{
	return ps.pid;
}

int
privsep_send_msg(int fd, const struct ps_hdr *h, const void *data, const int *fds, size_t nfds)
{
	struct iovec iov[2] = {{(void *)h, sizeof(*h)}, {(void *)data, h->len}};
	union {
		char buf[CMSG_SPACE(PS_FDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr m = {.msg_iov = iov, .msg_iovlen = h->len ? 2 : 1};
	ssize_t n;

	if (nfds > 0) {
		struct cmsghdr *c;
		memset(&u, 0, sizeof(u));
		m.msg_control = u.buf;
		m.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	do
		n = sendmsg(fd, &m, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -1 : 0;
}

int
privsep_recv_msg(int fd, struct ps_msg *msg, int *fds, size_t maxfds, int flags)
{
	union {
		char buf[CMSG_SPACE(PS_FDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {msg, sizeof(*msg) - 1};
	struct msghdr m = {.msg_iov = &iov,
	                   .msg_iovlen = 1,
	                   .msg_control = u.buf,
	                   .msg_controllen = sizeof(u.buf)};
	ssize_t n;

	for (size_t i = 0; i < maxfds; i++)
		fds[i] = -1;
	do
		n = recvmsg(fd, &m, flags | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return (int)n;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c != NULL; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			int got[PS_FDS_MAX];
			memcpy(got, CMSG_DATA(c), (k > PS_FDS_MAX ? PS_FDS_MAX : k) * sizeof(int));
			for (size_t i = 0; i < k && i < PS_FDS_MAX; i++) {
				if (i < maxfds)
					fds[i] = got[i];
				else
					close(got[i]);
			}
		}
	if ((size_t)n < sizeof(msg->h) || (m.msg_flags & MSG_TRUNC) ||
	    msg->h.len != (size_t)n - sizeof(msg->h)) {
		for (size_t i = 0; i < maxfds; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		errno = EBADMSG;
		return -1;
	}
	/* Whole, but its fds cut short (the receiver out of descriptors, or more than it
	 * takes): the message without any, so that the receiver refuses it or says why rather
	 * than losing its place in the channel. */
	if (m.msg_flags & MSG_CTRUNC)
		for (size_t i = 0; i < maxfds; i++) {
			if (fds[i] >= 0)
				close(fds[i]);
			fds[i] = -1;
		}
	msg->data[msg->h.len] = '\0';
	return 1;
}

/* Deliver the EXIT reports kept during a wait. */
static void
deliver_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	for (size_t i = 0; i < ps.nexits; i++) {
		if (ps.on_exit != NULL)
			ps.on_exit(ps.exits[i].pid, ps.exits[i].status, ps.arg);
	}
	ps.nexits = 0;
}

void
privsep_deliver(void)
{
	deliver_cb(-1, 0, NULL);
}

/* An EXIT report: keep it for deliver_cb. */
static void
keep_exit(pid_t pid, int status)
{
	if (ps.nexits == PS_EXITS_MAX) {
		log_warnx("privsep: too many exit reports at once; child %d lost", (int)pid);
		return;
	}
	ps.exits[ps.nexits].pid = pid;
	ps.exits[ps.nexits++].status = status;
	if (ps.deliver != NULL)
		event_active(ps.deliver, EV_TIMEOUT, 0);
}

/* The privileged process is gone: nothing the daemon does for tests works any more. */
static void __attribute__((noreturn)) channel_lost(const char *how)
{
	fatalx("privsep: the privileged process %s (pid %d); stopping", how, (int)ps.pid);
}

/* The channel is readable: EXIT reports. */
static void
channel_cb(evutil_socket_t fd, short what, void *arg)
{
	static struct ps_msg msg;
	int fds[1];

	(void)what;
	(void)arg;
	for (int i = 0; i < 64; i++) {
		int r = privsep_recv_msg(fd, &msg, fds, 0, MSG_DONTWAIT);
		if (r == 0)
			channel_lost("closed the channel");
		if (r < 0 && errno == EAGAIN)
			return;
		if (r < 0)
			channel_lost("sent a bad message");
		if (msg.h.type == PS_EXIT)
			keep_exit(msg.h.a, msg.h.b);
		else
			log_warnx("privsep: unexpected message %u", (unsigned)msg.h.type);
	}
}

/* Send a request and wait (at most PRIVSEP_REPLY_MS) for its reply. 0 with *pid (and the
 * reply's fds in rfds[0..rmax), -1 filled), or -1 with errno and err. */
static int
call_fds(struct ps_hdr *h, const void *data, const int *fds, size_t nfds, int *pid, int *rfds,
         size_t rmax, struct nm_error *err)
{
	static struct ps_msg msg;
	struct timespec t0, now;
	int nofds[1];

	if (rfds == NULL) {
		rfds = nofds;
		rmax = 0;
	}

	h->id = ++ps.next_id;
	if (privsep_send_msg(ps.fd, h, data, fds, nfds) < 0) {
		int e = errno;
		nm_error_set(err, NM_ERR_INTERNAL, "privsep: send: %s", strerror(e));
		errno = e;
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd pfd = {ps.fd, POLLIN, 0};
		long ms;
		int r;

		clock_gettime(CLOCK_MONOTONIC, &now);
		ms = PRIVSEP_REPLY_MS -
		     ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000);
		if (ms <= 0)
			channel_lost("did not answer in time");
		if ((r = poll(&pfd, 1, (int)ms)) < 0 && errno != EINTR)
			channel_lost("cannot be polled");
		if (r <= 0)
			continue;
		r = privsep_recv_msg(ps.fd, &msg, rfds, rmax, 0);
		if (r == 0)
			channel_lost("closed the channel");
		if (r < 0)
			channel_lost("sent a bad message");
		if (msg.h.type == PS_EXIT) {
			keep_exit(msg.h.a, msg.h.b);
			continue;
		}
		if (msg.h.type != PS_REPLY || msg.h.id != h->id)
			channel_lost("answered out of turn");
		break;
	}
	if (msg.h.a != 0) {
		for (size_t i = 0; i < rmax; i++)
			if (rfds[i] >= 0)
				close(rfds[i]);
		nm_error_set(err, NM_ERR_FAILED, "%s", msg.data);
		errno = msg.h.a;
		return -1;
	}
	if (pid != NULL)
		*pid = msg.h.b;
	return 0;
}

/* call_fds with no fds in the reply. */
static int
call(struct ps_hdr *h, const void *data, const int *fds, size_t nfds, int *pid,
     struct nm_error *err)
{
	return call_fds(h, data, fds, nfds, pid, NULL, 0, err);
}

/* Append s and its NUL to buf (len used of PRIVSEP_MSG_MAX). false when it does not fit. */
static bool
put_str(char *buf, size_t *len, const char *s)
{
	size_t n = strlen(s) + 1;

	if (*len + n > PRIVSEP_MSG_MAX)
		return false;
	memcpy(buf + *len, s, n);
	*len += n;
	return true;
}

int
privsep_write(int base, const char *dev, const char *rel, const char *val, struct nm_error *err)
{
	static char buf[PRIVSEP_MSG_MAX];
	struct ps_hdr h = {.type = PS_WRITE, .a = base};
	size_t len = 0;

	if (!put_str(buf, &len, dev ? dev : "") || !put_str(buf, &len, rel) ||
	    !put_str(buf, &len, val)) {
		errno = E2BIG;
		return nm_error_set(err, NM_ERR_BAD_ARGS, "privsep: %s: request too long", rel);
	}
	h.len = (uint32_t)len;
	return call(&h, buf, NULL, 0, NULL, err);
}

int
privsep_save_profile(const char *name, const char *text, struct nm_error *err)
{
	static char buf[PRIVSEP_MSG_MAX];
	struct ps_hdr h = {.type = PS_SAVE};
	size_t len = 0;

	if (!put_str(buf, &len, name) || !put_str(buf, &len, text)) {
		errno = E2BIG;
		return nm_error_set(err, NM_ERR_BAD_ARGS, "privsep: profile %s: too long", name);
	}
	h.len = (uint32_t)len;
	return call(&h, buf, NULL, 0, NULL, err);
}

int
privsep_bpf(int set, int *fds, size_t max, size_t *n, struct nm_error *err)
{
	struct ps_hdr h = {.type = PS_BPF, .a = set};
	int got[PS_FDS_MAX];
	int count = 0;

	*n = 0;
	if (call_fds(&h, NULL, NULL, 0, &count, got, PS_FDS_MAX, err) < 0)
		return -1;
	for (size_t i = 0; i < PS_FDS_MAX; i++) {
		if (got[i] < 0)
			continue;
		if (*n < max && (int)*n < count)
			fds[(*n)++] = got[i];
		else
			close(got[i]);
	}
	if ((int)*n != count) {
		size_t got_n = *n;

		for (size_t i = 0; i < *n; i++)
			close(fds[i]);
		*n = 0;
		errno = EMFILE;
		return nm_error_set(err, NM_ERR_FAILED,
		                    "privsep: bpf set %d: %d fds sent, %zu received (out of file "
		                    "descriptors?)",
		                    set, count, got_n);
	}
	return 0;
}

int
privsep_bpf_detach(int set, struct nm_error *err)
{
	struct ps_hdr h = {.type = PS_BPF_DETACH, .a = set};

	return call(&h, NULL, NULL, 0, NULL, err);
}

int
privsep_bpf_stats(bool on, struct nm_error *err)
{
	struct ps_hdr h = {.type = PS_BPF_STATS, .a = on ? 1 : 0};

	return call(&h, NULL, NULL, 0, NULL, err);
}

int
privsep_unlink_socket(struct nm_error *err)
{
	struct ps_hdr h = {.type = PS_UNLINK};

	return call(&h, NULL, NULL, 0, NULL, err);
}

int
privsep_ntuple(const char *dev, bool on, struct nm_error *err)
{
	struct ps_hdr h = {.type = PS_NTUPLE, .a = on};
	char buf[IFNAMSIZ + 1];

	snprintf(buf, sizeof(buf), "%s", dev);
	h.len = (uint32_t)strlen(buf) + 1;
	return call(&h, buf, NULL, 0, NULL, err);
}

int
privsep_spawn(const struct child_spawn *how, int outw, int errw, pid_t *pid, struct nm_error *err)
{
	static char buf[PRIVSEP_MSG_MAX];
	struct ps_hdr h = {.type = PS_SPAWN};
	struct ps_spawn s = {.as_user = how->as_user,
	                     .uid = how->uid,
	                     .gid = how->gid,
	                     .ngroups = how->as_user ? (uint32_t)how->ngroups : 0,
	                     .has_cgroup = how->cgroup_fd >= 0,
	                     .duplex = how->duplex,
	                     .has_peer = how->peer_fd >= 0,
	                     .nproc_max = how->nproc_max};
	int fds[PS_FDS_MAX] = {outw, errw}, p = 0;
	size_t nfds = 2;
	size_t len = sizeof(s) + s.ngroups * sizeof(uint32_t);
	bool fit = s.ngroups <= PRIVSEP_GROUPS && how->envp != NULL;

	if (fit) {
		memcpy(buf, &s, sizeof(s));
		for (size_t i = 0; i < s.ngroups; i++) {
			uint32_t g = how->groups[i];
			memcpy(buf + sizeof(s) + i * sizeof(g), &g, sizeof(g));
		}
		fit = put_str(buf, &len, how->netns ? how->netns : "");
	}
	for (size_t i = 0; fit && how->argv[i] != NULL; i++)
		fit = put_str(buf, &len, how->argv[i]) && how->argv[i][0] != '\0';
	fit = fit && put_str(buf, &len, "");
	for (size_t i = 0; fit && how->envp[i] != NULL; i++)
		fit = put_str(buf, &len, how->envp[i]);
	if (!fit) {
		errno = E2BIG;
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "%s: arguments, environment or groups too long to start",
		                    how->argv[0]);
	}
	h.len = (uint32_t)len;
	if (how->cgroup_fd >= 0)
		fds[nfds++] = how->cgroup_fd;
	if (how->peer_fd >= 0)
		fds[nfds++] = how->peer_fd;
	if (call(&h, buf, fds, nfds, &p, err) < 0)
		return -1;
	*pid = p;
	return 0;
}

void
privsep_kill(pid_t pid, int sig)
{
	struct ps_hdr h = {.type = PS_KILL, .a = pid, .b = sig};

	if (privsep_send_msg(ps.fd, &h, NULL, NULL, 0) < 0)
		log_warn("privsep: kill %d", (int)pid);
}

void
privsep_bye(void)
{
	struct ps_hdr h = {.type = PS_BYE};

	if (ps.fd >= 0 && privsep_send_msg(ps.fd, &h, NULL, NULL, 0) < 0)
		log_warn("privsep: bye");
}

void
privsep_wait(void)
{
	struct timespec tick = {0, 10 * 1000 * 1000};

	if (ps.fd < 0 || ps.pid <= 0)
		return;
	privsep_unwatch();
	close(ps.fd);
	ps.fd = -1;
	for (int i = 0; i < 300; i++) {
		pid_t r = waitpid(ps.pid, NULL, WNOHANG);
		if (r == ps.pid || (r < 0 && errno != EINTR))
			return;
		nanosleep(&tick, NULL);
	}
	log_warnx("privsep: the privileged process (pid %d) did not finish in 3 s", (int)ps.pid);
}

void
privsep_release(pid_t pid)
{
	struct ps_hdr h = {.type = PS_RELEASE, .a = pid};

	if (privsep_send_msg(ps.fd, &h, NULL, NULL, 0) < 0)
		log_warn("privsep: release %d", (int)pid);
}

/* Put the channel on the loop once both are there (the children are set up before the
 * split). */
static void
watch_channel(void)
{
	if (ps.fd < 0 || ps.base == NULL || ps.ev != NULL)
		return;
	ps.ev = event_new(ps.base, ps.fd, EV_READ | EV_PERSIST, channel_cb, NULL);
	ps.deliver = event_new(ps.base, -1, 0, deliver_cb, NULL);
	event_add(ps.ev, NULL);
	if (ps.nexits > 0)
		event_active(ps.deliver, EV_TIMEOUT, 0);
}

void
privsep_watch(struct event_base *base, void (*on_exit)(pid_t, int, void *), void *arg)
{
	ps.on_exit = on_exit;
	ps.arg = arg;
	ps.base = base;
	watch_channel();
}

void
privsep_unwatch(void)
{
	if (ps.ev != NULL)
		event_free(ps.ev);
	if (ps.deliver != NULL)
		event_free(ps.deliver);
	ps.ev = ps.deliver = NULL;
	ps.on_exit = NULL;
	ps.base = NULL;
}

/* Drop the main process to uid/gid for good. 0 or -1 with err. */
static int
drop(uid_t uid, gid_t gid, struct nm_error *err)
{
	struct __user_cap_header_struct ch = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct cd[2];

	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	for (int cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL)
			return nm_error_set(err, NM_ERR_INTERNAL, "privsep: drop capability %d: %s",
			                    cap, strerror(errno));
	if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
		return nm_error_set(err, NM_ERR_INTERNAL, "privsep: cannot become uid %u: %s",
		                    (unsigned)uid, strerror(errno));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		log_warn("privsep: PR_SET_NO_NEW_PRIVS");
	/* Check: no way back, and no capability left. */
	if (uid != 0 && (setuid(0) == 0 || seteuid(0) == 0))
		return nm_error_set(err, NM_ERR_INTERNAL, "privsep: uid 0 came back");
	if (syscall(SYS_capget, &ch, cd) < 0 || cd[0].effective || cd[1].effective ||
	    cd[0].permitted || cd[1].permitted)
		return nm_error_set(err, NM_ERR_INTERNAL,
		                    "privsep: capabilities left after the drop");
	return 0;
}

void
privsep_attach(int fd, pid_t pid)
{
	ps.fd = fd;
	ps.pid = pid;
	watch_channel();
}

int
privsep_start(const struct privsep_setup *setup, struct nm_error *err)
{
	int sv[2];
	pid_t pid;

	if (setup->parent_run == NULL)
		return nm_error_set(err, NM_ERR_INTERNAL, "privsep: no privileged process to run");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return nm_error_set(err, NM_ERR_INTERNAL, "privsep: socketpair: %s",
		                    strerror(errno));
	if ((pid = fork()) < 0) {
		close(sv[0]);
		close(sv[1]);
		return nm_error_set(err, NM_ERR_INTERNAL, "privsep: fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(sv[0]);
		setup->parent_run(sv[1], setup);
		_exit(0);
	}
	close(sv[1]);
	ps.fd = sv[0];
	ps.pid = pid;
	watch_channel();
	if (drop(setup->uid, setup->gid, err) < 0)
		return -1;
	log_info("privsep: main process runs as uid %u gid %u without capabilities; "
	         "privileged process %d",
	         (unsigned)setup->uid, (unsigned)setup->gid, (int)pid);
	return 0;
}

int
privsep_feature(const char *dev, const char *feature, bool on, struct nm_error *err)
{
	struct ps_hdr h = {.type = PS_FEATURE, .a = on};
	char buf[IFNAMSIZ + 64];
	int n;

	n = snprintf(buf, sizeof(buf), "%s%c%s", dev, '\0', feature);
	if (n < 0 || (size_t)n >= sizeof(buf) - 1) {
		errno = EINVAL;
		return nm_error_set(err, NM_ERR_BAD_ARGS, "privsep: feature: name too long");
	}
	h.len = (uint32_t)n + 1;
	return call(&h, buf, NULL, 0, NULL, err);
}

int
privsep_channels(const char *dev, int which, uint32_t count, struct nm_error *err)
{
	struct ps_hdr h = {.type = PS_CHANNELS, .a = which, .b = (int32_t)count};
	char buf[IFNAMSIZ + 1];

	if (count > INT32_MAX) {
		errno = ERANGE;
		return nm_error_set(err, NM_ERR_BAD_ARGS, "privsep: channels: count too large");
	}
	snprintf(buf, sizeof(buf), "%s", dev);
	h.len = (uint32_t)strlen(buf) + 1;
	return call(&h, buf, NULL, 0, NULL, err);
}

int
privsep_napi(const char *dev, unsigned queue, const char *setting, uint32_t value,
             struct nm_error *err)
{
	struct ps_hdr h = {.type = PS_NAPI, .a = (int32_t)queue, .b = (int32_t)value};
	char buf[IFNAMSIZ + 64];
	int n;

	n = snprintf(buf, sizeof(buf), "%s%c%s", dev, '\0', setting);
	if (n < 0 || (size_t)n >= sizeof(buf) - 1 || queue > INT32_MAX || value > INT32_MAX) {
		errno = EINVAL;
		return nm_error_set(err, NM_ERR_BAD_ARGS, "privsep: napi: bad request");
	}
	h.len = (uint32_t)n + 1;
	return call(&h, buf, NULL, 0, NULL, err);
}

int
privsep_rings(const char *dev, bool tx, uint32_t size, struct nm_error *err)
{
	struct ps_hdr h = {.type = PS_RINGS, .a = tx, .b = (int32_t)size};
	char buf[IFNAMSIZ + 1];

	if (size > INT32_MAX) {
		errno = ERANGE;
		return nm_error_set(err, NM_ERR_BAD_ARGS, "privsep: rings: size too large");
	}
	snprintf(buf, sizeof(buf), "%s", dev);
	h.len = (uint32_t)strlen(buf) + 1;
	return call(&h, buf, NULL, 0, NULL, err);
}

int
privsep_coalesce(const char *dev, int param, uint32_t value, struct nm_error *err)
{
	struct ps_hdr h = {.type = PS_COALESCE, .a = param, .b = (int32_t)value};
	char buf[IFNAMSIZ + 1];

	if (value > INT32_MAX) {
		errno = ERANGE;
		return nm_error_set(err, NM_ERR_BAD_ARGS, "privsep: coalesce: value too large");
	}
	snprintf(buf, sizeof(buf), "%s", dev);
	h.len = (uint32_t)strlen(buf) + 1;
	return call(&h, buf, NULL, 0, NULL, err);
}

int
privsep_rss(const char *dev, int part, int32_t b, const void *data, size_t n, struct nm_error *err)
{
	struct ps_hdr h = {.type = PS_RSS, .a = part, .b = b};
	size_t unit = part == ETHTOOL_RSS_KEY ? 1 : 4, dl = strnlen(dev, IFNAMSIZ);
	char *buf;
	int r;

	if (n > ETHTOOL_RSS_TABLE_MAX || dl >= IFNAMSIZ) {
		errno = ERANGE;
		return nm_error_set(err, NM_ERR_BAD_ARGS, "privsep: rss: request too large");
	}
	buf = xcalloc(1, dl + 1 + n * unit);
	memcpy(buf, dev, dl);
	if (n > 0)
		memcpy(buf + dl + 1, data, n * unit);
	h.len = (uint32_t)(dl + 1 + n * unit);
	r = call(&h, buf, NULL, 0, NULL, err);
	free(buf);
	return r;
}
