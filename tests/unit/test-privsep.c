/* test-privsep.c: the privileged process (privsep_parent_run) driven over a socket pair
 * with crafted requests, as a compromised main process would send them: a tuning write
 * outside the allow-list, a value of the wrong syntax, a device name that climbs, a
 * program the main process's user planted, a signal to a process it did not start: each
 * refused with EPERM and a reason, and the process keeps serving; a spawn it accepts
 * reports the child's pid and, later, its exit. Each spawn comes with its client's socket
 * (accepted on a listener at the path the privileged process was given): one without, one
 * of another socket, a spawn as root or as another uid for a client of uid 65534: refused.
 * A BPF program set: a number that is no set refused; set irq (as root, with the programs
 * built and BTF) loaded once, its six fds handed over twice, the maps read-only; and when
 * the main process is out of descriptors for them, the request fails, the channel lives. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpfset.h"
#include "child.h"
#include "error.h"
#include "privsep-parent.h"
#include "ethtool.h"
#include "privsep.h"
#include "profile.h"

static pid_t parent_pid;
static char sock_path[64];
static int listen_fd = -1;
static int root_peer = -1; /* a connection of this process (root) */
static int exits;
static pid_t exit_pid;
static int exit_status;

static void
on_exit_cb(pid_t pid, int status, void *arg)
{
	(void)arg;
	exits++;
	exit_pid = pid;
	exit_status = status;
}

/* A connection of the listener whose client runs as uid (connected from a child that took
 * it), or -1. */
static int
peer_as(uid_t uid)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	pid_t pid;
	int fd, st;

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", sock_path);
	if ((pid = fork()) == 0) {
		int c = socket(AF_UNIX, SOCK_STREAM, 0);
		if ((uid != 0 && (setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)) ||
		    connect(c, (struct sockaddr *)&sun, sizeof(sun)) < 0)
			_exit(1);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -1;
	fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	return fd;
}

static int
setup(void **state)
{
	static struct privsep_setup ps = {.ready_fd = -1};
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int sv[2];

	(void)state;
	snprintf(sock_path, sizeof(sock_path), "/tmp/nm-privsep-%d.sock", (int)getpid());
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", sock_path);
	unlink(sock_path);
	if ((listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    bind(listen_fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 || listen(listen_fd, 8) < 0 ||
	    chmod(sock_path, 0777) < 0)
		return -1;
	ps.control_path = sock_path;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	if ((parent_pid = fork()) == 0) {
		close(sv[0]);
		privsep_parent_run(sv[1], &ps);
		_exit(0);
	}
	close(sv[1]);
	privsep_attach(sv[0], parent_pid);
	privsep_watch(NULL, on_exit_cb, NULL);
	root_peer = peer_as(0);
	return root_peer >= 0 ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	kill(parent_pid, SIGKILL);
	waitpid(parent_pid, NULL, 0);
	close(root_peer);
	close(listen_fd);
	unlink(sock_path);
	return 0;
}

static void
test_write_refused(void **state)
{
	struct nm_error err;

	(void)state;
	errno = 0;
	assert_int_equal(
	    privsep_write(PROFILE_BASE_SYSCTL, NULL, "kernel/core_pattern", "|/x", &err), -1);
	assert_int_equal(errno, EPERM);
	assert_non_null(strstr(err.message, "not a net.* sysctl"));
	assert_int_equal(privsep_write(PROFILE_BASE_IRQ, NULL, "24/../../../etc/passwd", "1", &err),
	                 -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(
	    privsep_write(PROFILE_BASE_NETDEV, "../../..", "queues/tx-0/xps_cpus", "f", &err), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(
	    privsep_write(PROFILE_BASE_IRQ, NULL, "24/smp_affinity_list", "1\n0", &err), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(privsep_write(PROFILE_BASE_ROOT, NULL, "etc/shadow", "x", &err), -1);
	assert_int_equal(errno, EPERM);
	/* An allowed file that is not there: tried, and the kernel's reason comes back. */
	assert_int_equal(
	    privsep_write(PROFILE_BASE_NETDEV, "nmnosuch0", "queues/tx-0/xps_cpus", "1", &err), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(privsep_ntuple("../x", true, &err), -1);
	assert_int_equal(errno, EINVAL);
	/* The NIC knobs' requests: names and ranges checked in the privileged process. */
	assert_int_equal(privsep_feature("../x", "rx-gro", true, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(privsep_feature("lo", "rx gro;", true, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(privsep_feature("lo", "rx-no-such-feature", true, &err), -1);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err.message, "ethtool lo rx-no-such-feature: no such feature"));
	assert_int_equal(privsep_channels("../x", ETHTOOL_CHAN_RX, 2, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(privsep_channels("lo", 7, 2, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(privsep_channels("lo", ETHTOOL_CHAN_RX, 0, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(privsep_rings("../x", false, 512, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(privsep_rings("lo", false, 0, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(privsep_coalesce("lo", 99, 1, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(privsep_coalesce("lo", ETHTOOL_COAL_ADAPTIVE_RX, 2, &err), -1);
	assert_int_equal(errno, EINVAL);
	{
		uint32_t t[2] = {0, 1}, f = 1;
		assert_int_equal(privsep_rss("../x", ETHTOOL_RSS_HFUNC, 2, NULL, 0, &err), -1);
		assert_int_equal(errno, EINVAL);
		assert_int_equal(privsep_rss("lo", ETHTOOL_RSS_HFUNC, 3, NULL, 0, &err), -1);
		assert_int_equal(errno, EINVAL);
		assert_int_equal(privsep_rss("lo", ETHTOOL_RSS_FIELDS, TCP_V4_FLOW, &f, 1, &err),
		                 -1);
		assert_int_equal(errno, EINVAL);
		assert_int_equal(privsep_rss("lo", 9, 0, NULL, 0, &err), -1);
		assert_int_equal(errno, EINVAL);
		/* lo has no RSS: the driver's answer, said so. */
		assert_int_equal(privsep_rss("lo", ETHTOOL_RSS_INDIR, 0, t, 2, &err), -1);
		assert_int_equal(errno, EOPNOTSUPP);
		assert_non_null(strstr(err.message, "ethtool lo rss: not supported by the driver"));
	}
	assert_int_equal(privsep_napi("lo", 0, "threaded", 1, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(privsep_napi("../x", 0, "defer_hard_irqs", 1, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(privsep_napi("lo", 0, "defer_hard_irqs", 1000000000, &err), -1);
	assert_int_equal(errno, EINVAL);
}

/* Spawn a program with pipes for the client of socket peer; 0 with *pid, or -1 with errno. */
static int
spawn_for(int peer, char *const *argv, bool as_user, uid_t uid, pid_t *pid, struct nm_error *err)
{
	char *env[] = {"PATH=/usr/bin:/bin", NULL};
	struct child_spawn how = {.argv = argv,
	                          .as_user = as_user,
	                          .uid = uid,
	                          .gid = uid,
	                          .cgroup_fd = -1,
	                          .peer_fd = peer,
	                          .envp = env};
	int out[2], errp[2], r;

	if (pipe(out) < 0 || pipe(errp) < 0)
		return -1;
	r = privsep_spawn(&how, out[1], errp[1], pid, err);
	close(out[0]);
	close(out[1]);
	close(errp[0]);
	close(errp[1]);
	return r;
}

/* For the root client. */
static int
spawn(char *const *argv, bool as_user, uid_t uid, pid_t *pid, struct nm_error *err)
{
	return spawn_for(root_peer, argv, as_user, uid, pid, err);
}

/* The client's socket decides as whom a spawn may run. */
static void
test_spawn_peer(void **state)
{
	char *truev[] = {"/bin/true", NULL};
	struct nm_error err;
	pid_t pid = 0;
	int nobody = peer_as(65534), sv[2];

	(void)state;
	assert_true(nobody >= 0);
	/* Without a client's socket. */
	assert_int_equal(spawn_for(-1, truev, false, 0, &pid, &err), -1);
	assert_int_equal(errno, EPERM);
	assert_non_null(strstr(err.message, "comes with the socket of its client"));
	/* A socket the main process made (its SO_PEERCRED would be root's here). */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(spawn_for(sv[0], truev, false, 0, &pid, &err), -1);
	assert_int_equal(errno, EPERM);
	assert_non_null(strstr(err.message, "not a connection of the control socket"));
	close(sv[0]);
	close(sv[1]);
	/* A client of uid 65534: not as root, not as uid 1... */
	assert_int_equal(spawn_for(nobody, truev, false, 0, &pid, &err), -1);
	assert_int_equal(errno, EPERM);
	assert_non_null(strstr(err.message, "as root for a client of uid 65534"));
	assert_int_equal(spawn_for(nobody, truev, true, 1, &pid, &err), -1);
	assert_int_equal(errno, EPERM);
	assert_non_null(strstr(err.message, "as uid 1 gid 1 for a client of uid 65534"));
	/* ...as itself, yes. */
	exits = 0;
	assert_int_equal(spawn_for(nobody, truev, true, 65534, &pid, &err), 0);
	assert_true(pid > 0);
	privsep_release(pid);
	close(nobody);
}

static void
test_spawn_checked(void **state)
{
	char dir[] = "/tmp/nm-privsep-XXXXXX", planted[64];
	char *argv[] = {planted, NULL}, *rel[] = {"bin/true", NULL};
	char *truev[] = {"/bin/true", NULL};
	struct nm_error err;
	pid_t pid = 0;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(planted, sizeof(planted), "%s/x", dir);
	fd = open(planted, O_WRONLY | O_CREAT, 0755);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);
	/* Writable by its group: refused. */
	assert_int_equal(chmod(planted, 0775), 0);
	assert_int_equal(spawn(argv, false, 0, &pid, &err), -1);
	assert_int_equal(errno, EPERM);
	assert_non_null(strstr(err.message, "writable by its group or others"));
	/* Not an absolute path. */
	assert_int_equal(spawn(rel, false, 0, &pid, &err), -1);
	assert_int_equal(errno, EPERM);
	/* A uid without a password entry. */
	assert_int_equal(spawn(truev, true, 4000000000u, &pid, &err), -1);
	assert_int_equal(errno, EPERM);
	assert_non_null(strstr(err.message, "no password entry"));
	unlink(planted);
	rmdir(dir);
	/* A signal to a process it did not start is not sent (the test lives on). */
	privsep_kill(getpid(), SIGKILL);
	/* Still serving: a good spawn answers with a pid, and its exit is reported. */
	exits = 0;
	assert_int_equal(spawn(truev, false, 0, &pid, &err), 0);
	assert_true(pid > 0);
	for (int i = 0; i < 100 && exits == 0; i++) {
		/* The report arrives on the channel; without a loop, a later call keeps it. */
		usleep(20000);
		privsep_write(PROFILE_BASE_SYSCTL, NULL, "kernel/x", "1", &err);
		privsep_deliver();
	}
	assert_int_equal(exits, 1);
	assert_int_equal(exit_pid, pid);
	assert_true(WIFEXITED(exit_status) && WEXITSTATUS(exit_status) == 0);
	privsep_release(pid);
}

/* Out of descriptors, the reply's fds cannot all come: the request fails saying so, and the
 * channel goes on (the daemon used to stop: "the privileged process sent a bad message"). */
static void
test_bpf_out_of_fds(void)
{
	struct rlimit old, low;
	int fds[BPFSET_FDS_MAX], probe;
	size_t n = 0;
	struct nm_error err;

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	/* Room for two more descriptors than are open now. */
	probe = dup(0);
	assert_true(probe >= 0);
	close(probe);
	low.rlim_cur = low.rlim_max = old.rlim_max;
	low.rlim_cur = (rlim_t)probe + 2;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	assert_int_equal(privsep_bpf(BPFSET_IRQ, fds, BPFSET_FDS_MAX, &n, &err), -1);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_int_equal(n, 0);
	assert_non_null(strstr(err.message, "out of file descriptors"));
	/* The channel is in step: the next request is answered. */
	assert_int_equal(privsep_bpf(BPFSET_IRQ, fds, BPFSET_FDS_MAX, &n, &err), 0);
	assert_int_equal(n, BPFSET_IRQ_MAPS + BPFSET_IRQ_PROGS);
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
}

/* BPF_DETACH: set irq (its fds in fds) runs until detached, then not at all (its programs'
 * run count, the kernel's statistics, stands still though the fds are open); loaded again,
 * it is new programs. A set not loaded detaches as done; no set is refused. */
static void
test_bpf_detach(const int *fds, size_t n)
{
	struct timespec ms200 = {0, 200 * 1000 * 1000};
	struct bpfset_prog_stats a, b;
	int again[BPFSET_FDS_MAX];
	size_t m = 0;
	struct nm_error err;

	assert_int_equal(bpfset_prog_stats(fds[BPFSET_IRQ_MAPS], &a), 0);
	nanosleep(&ms200, NULL);
	assert_int_equal(bpfset_prog_stats(fds[BPFSET_IRQ_MAPS], &b), 0);
	assert_true(b.run_cnt > a.run_cnt); /* the timer's softirqs at least */
	assert_int_equal(privsep_bpf_detach(BPFSET_IRQ, &err), 0);
	assert_int_equal(bpfset_prog_stats(fds[BPFSET_IRQ_MAPS], &a), 0);
	nanosleep(&ms200, NULL);
	assert_int_equal(bpfset_prog_stats(fds[BPFSET_IRQ_MAPS], &b), 0);
	assert_true(b.run_cnt == a.run_cnt);
	assert_int_equal(privsep_bpf_detach(BPFSET_NAPI, &err), 0); /* not loaded */
	assert_int_equal(privsep_bpf_detach(0, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(privsep_bpf_detach(77, &err), -1);
	assert_int_equal(privsep_bpf(BPFSET_IRQ, again, BPFSET_FDS_MAX, &m, &err), 0);
	assert_int_equal(m, n);
	assert_int_equal(bpfset_prog_stats(again[BPFSET_IRQ_MAPS], &b), 0);
	assert_true(b.id != a.id);
	for (size_t i = 0; i < m; i++)
		close(again[i]);
}

/* How many fds of the kernel's BPF statistics (BPF_ENABLE_STATS: "anon_inode:bpf-stats")
 * process pid holds. */
static int
stats_fds(pid_t pid)
{
	char dir[64], path[384], link[128];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	assert_non_null(d = opendir(dir));
	while ((e = readdir(d)) != NULL) {
		ssize_t l;

		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if ((l = readlink(path, link, sizeof(link) - 1)) < 0)
			continue;
		link[l] = '\0';
		n += strcmp(link, "anon_inode:bpf-stats") == 0;
	}
	closedir(d);
	return n;
}

/* BPF_STATS ([source.bpf] stats): the privileged process holds the kernel's BPF statistics
 * on from the first set loaded; off lets them go (its fd closed); on again takes them while a
 * set is loaded. */
static void
test_bpf_stats(void)
{
	struct nm_error err;

	assert_int_equal(stats_fds(parent_pid), 1); /* set irq is loaded */
	assert_int_equal(privsep_bpf_stats(false, &err), 0);
	assert_int_equal(stats_fds(parent_pid), 0);
	assert_int_equal(privsep_bpf_stats(false, &err), 0); /* off twice: done */
	assert_int_equal(stats_fds(parent_pid), 0);
	assert_int_equal(privsep_bpf_stats(true, &err), 0);
	assert_int_equal(stats_fds(parent_pid), 1);
	assert_int_equal(privsep_bpf_stats(true, &err), 0); /* on twice: still one */
	assert_int_equal(stats_fds(parent_pid), 1);
}

/* BPF: only the fixed sets; set irq's fds, the same set for a second request. */
static void
test_bpf(void **state)
{
	int fds[BPFSET_FDS_MAX], again[BPFSET_FDS_MAX];
	size_t n = 99, m = 0;
	struct nm_error err;
	char why[256];
	struct nm_softirq_cpu *v;

	(void)state;
	assert_int_equal(privsep_bpf(0, fds, BPFSET_FDS_MAX, &n, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(n, 0);
	assert_non_null(strstr(err.message, "no such BPF program set"));
	assert_int_equal(privsep_bpf(77, fds, BPFSET_FDS_MAX, &n, &err), -1);
	if (!bpfset_usable(why, sizeof(why)) || geteuid() != 0) {
		/* Refused with the reason (not built, or no BTF), and the process lives on. */
		assert_int_equal(privsep_bpf(BPFSET_IRQ, fds, BPFSET_FDS_MAX, &n, &err), -1);
		printf("bpf: %s\n", err.message);
		return;
	}
	assert_int_equal(privsep_bpf(BPFSET_IRQ, fds, BPFSET_FDS_MAX, &n, &err), 0);
	assert_int_equal(n, BPFSET_IRQ_MAPS + BPFSET_IRQ_PROGS);
	/* softirq_stats reads; the fd is read-only (the map is BPF_F_RDONLY). */
	v = calloc(bpfset_ncpus(), sizeof(*v));
	assert_int_equal(bpfset_read_softirqs(fds[0], v), 0);
	assert_int_equal(fcntl(fds[0], F_GETFL) & O_ACCMODE, O_RDONLY);
	free(v);
	/* Loaded once: the second request gives the same programs. */
	assert_int_equal(privsep_bpf(BPFSET_IRQ, again, BPFSET_FDS_MAX, &m, &err), 0);
	assert_int_equal(m, n);
	for (size_t i = BPFSET_IRQ_MAPS; i < n; i++) {
		struct bpfset_prog_stats a, b;
		assert_int_equal(bpfset_prog_stats(fds[i], &a), 0);
		assert_int_equal(bpfset_prog_stats(again[i], &b), 0);
		assert_int_equal(a.id, b.id);
	}
	for (size_t i = 0; i < n; i++)
		close(again[i]);
	test_bpf_stats();
	test_bpf_detach(fds, n);
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
	test_bpf_out_of_fds();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_write_refused),
	    cmocka_unit_test(test_spawn_checked),
	    cmocka_unit_test(test_spawn_peer),
	    cmocka_unit_test(test_bpf),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
