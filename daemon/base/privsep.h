/* privsep.h: privilege separation, as OpenBSD's daemons and OpenSSH do it. Started as root
 * with a configured user other than root, netmetricsd forks a small privileged process
 * (the "privileged parent" below, though the main process is its parent in the process
 * tree, so that systemd's MAINPID and watchdog stay with the main process) and the main
 * process drops to that user with no capabilities. The privileged process performs a fixed
 * list of operations, each checked again there (privsep-check.c):
 *
 *   WRITE   write a value to an allow-listed tuning file (IRQ affinity, XPS/RPS/RFS
 *           queue files, net.* sysctls), opened below / without following symlinks
 *   NTUPLE  set a device's ntuple feature (ETHTOOL_SFLAGS)
 *   FEATURE set one ethtool feature of a device ([offloads]: ETHTOOL_SFEATURES)
 *   CHANNELS set one channel count of a device ([channels]: ETHTOOL_SCHANNELS)
 *   NAPI    set one setting of an rx queue's NAPI ([napi_queue]: netlink napi-set)
 *   RINGS   set a device's rx or tx ring size ([rings]: ETHTOOL_SRINGPARAM)
 *   COALESCE set one interrupt coalescing parameter ([coalesce]: ETHTOOL_SCOALESCE)
 *   RSS     set a device's RSS indirection table, hash key, hash function or one flow
 *           type's hash fields ([rss]: ETHTOOL_SRSSH, ETHTOOL_SRXFH)
 *   SAVE    write a new profile file NAME.conf in the profile directory (profile save)
 *   SPAWN   start a process (benchmark or tool: ip, tc, netmetrics-pktgen) as a given uid
 *           and groups in a test cgroup, its stdout and stderr the pipe ends passed with
 *           the request (SCM_RIGHTS); the reply carries the pid. The socket of the client
 *           the process runs for comes with it: the privileged process reads SO_PEERCRED
 *           there (an accepted connection of the control socket, not one the main process
 *           made) and spawns only as that client (a root client as anyone; an admin's
 *           privileged driver as root, its tools only: privsep_check_peer)
 *   KILL    signal the process group of a process it started
 *   RELEASE forget a process it started (killed first when still running)
 *   BPF     load and attach one of the daemon's eBPF program sets (bpfset.h: a number from
 *           a fixed list, nothing else from the main process), once: the set stays
 *           attached until the privileged process ends; the reply carries the set's map and
 *           program fds (SCM_RIGHTS), the maps read-only. The kernel's BPF run-time
 *           statistics are switched on there with the first set (BPF_ENABLE_STATS, off
 *           again when the process ends)
 *
 * and reports, unasked, EXIT (pid and wait status) for each process it reaps. Messages
 * are SOCK_SEQPACKET datagrams: a fixed header and a payload of at most PRIVSEP_MSG_MAX
 * bytes. Requests that answer (WRITE, NTUPLE, SPAWN) are synchronous: the privileged
 * process does nothing but these short operations one at a time (a sysfs write takes
 * microseconds, a spawn a fork and the child's exec), and the main process waits for the
 * reply at most PRIVSEP_REPLY_MS (measured on a loaded 2-CPU VM, ASan build: a sysctl
 * write 22 us, a spawn of /bin/true 3.4 ms against 3.1 ms in place); KILL and RELEASE are
 * not answered. When the main process
 * goes, the privileged process kills what it started and the test cgroups, and exits.
 *
 * Without the split (started as a user, or user = root) privsep_on() is false and every
 * operation is done in place, as before. */
#ifndef NM_PRIVSEP_H
#define NM_PRIVSEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct child_spawn;
struct event_base;
struct nm_error;

#define PRIVSEP_MSG_MAX  (128u << 10) /* payload bytes of one message */
#define PRIVSEP_REPLY_MS 10000        /* the longest wait for a reply */
#define PRIVSEP_GROUPS   64           /* supplementary groups of a spawn */

/* What the privileged process is given at start. */
struct privsep_setup {
	uid_t uid; /* the main process's user */
	gid_t gid;
	const char *cgroup_path; /* the test groups' parent, or NULL */
	const char *socket_path; /* the control socket the daemon made (removed at the end,
	                            when it is still that file), or NULL */
	dev_t socket_dev;
	ino_t socket_ino;
	int ready_fd;             /* the detached start's readiness pipe: closed there, or -1 */
	const char *profile_dir;  /* where SAVE writes new profiles ([daemon] profile_dir) */
	const char *control_path; /* the control socket's address: a spawn's client socket
	                             must be a connection accepted there; NULL: no spawn */
	const char *admin_group;  /* may run a privileged driver's tools as root; or NULL */
	const char *config_path;  /* the configuration file (absolute), read again to check a
	                             peer transport's spawn (a spawn with no client); or NULL */
	/* What the forked privileged process runs (privsep_parent_run, privsep-parent.h): given
	 * by the caller, so that this side calls nothing of the privileged process's code. */
	void (*parent_run)(int fd, const struct privsep_setup *setup);
};

/* Fork the privileged process (it runs setup->parent_run), then drop the calling (main)
 * process to setup->uid/gid: supplementary groups cleared, capability bounding set emptied,
 * no new privileges, and checked (uid 0 cannot come back, CapEff is 0). 0, or -1 with
 * err. */
int privsep_start(const struct privsep_setup *setup, struct nm_error *err);
/* Is the split in force (in the main process)? */
bool privsep_on(void);
/* The privileged process's pid (0 without the split). */
pid_t privsep_pid(void);
/* Watch the channel on base (from privsep_start on, when called before it): EXIT reports
 * go to on_exit(pid, wait status, arg). The end of the privileged process ends the daemon
 * (fatal). */
void privsep_watch(struct event_base *base, void (*on_exit)(pid_t, int, void *), void *arg);
/* Deliver now the exit reports that arrived while a reply was awaited (the loop does it
 * otherwise). */
void privsep_deliver(void);
/* Stop watching (at exit; the channel closes when the process exits). */
void privsep_unwatch(void);

/* The operations, from the main process. 0, or -1 with errno (and err filled). */
int privsep_write(int base, const char *dev, const char *rel, const char *val,
                  struct nm_error *err);
int privsep_ntuple(const char *dev, bool on, struct nm_error *err);
/* FEATURE: ask for one ethtool feature of dev ("rx-gro", its kernel name) on or off
 * (ETHTOOL_SFEATURES). The privileged process checks the device name, the feature name's
 * syntax, that the device has the feature and that it can change ([fixed]: EOPNOTSUPP). */
int privsep_feature(const char *dev, const char *feature, bool on, struct nm_error *err);
/* CHANNELS: set one channel count of dev (which: enum ethtool_chan_which; ETHTOOL_SCHANNELS,
 * the other counts kept). The privileged process checks the device name, which, and that
 * the count is 1 to the device's maximum. */
int privsep_channels(const char *dev, int which, uint32_t count, struct nm_error *err);
/* NAPI: set one setting ("defer_hard_irqs", "gro_flush_timeout") of the NAPI rx queue
 * `queue` of dev is polled by (netdev netlink napi-set). The privileged process checks the
 * device name, the setting and the value's range, and resolves the queue's NAPI itself. */
int privsep_napi(const char *dev, unsigned queue, const char *setting, uint32_t value,
                 struct nm_error *err);
/* RINGS: set dev's rx (tx false) or tx ring size (ETHTOOL_SRINGPARAM, the other kept). The
 * privileged process checks the device name and that the size is 1 to the maximum. */
int privsep_rings(const char *dev, bool tx, uint32_t size, struct nm_error *err);
/* COALESCE: set one coalescing parameter of dev (param: enum ethtool_coal_param;
 * ETHTOOL_SCOALESCE, the others kept). The privileged process checks the device name, the
 * parameter and the value (0 to 999999999; adaptive ones 0 or 1). */
int privsep_coalesce(const char *dev, int param, uint32_t value, struct nm_error *err);
/* RSS: set one part of dev's RSS (part: enum ethtool_rss_part): the indirection table
 * (n u32 queue numbers in data), the hash key (n bytes), the hash function (b: 1 toeplitz,
 * 2 xor, 4 crc32) or a flow type's hash fields (b: the flow type, data one u32 of RXH_*
 * bits). The privileged process checks the device name and the request against the device
 * (privsep_check_rss: the table's size and queues, the key's size, one known function, a
 * known flow type and fields). */
int privsep_rss(const char *dev, int part, int32_t b, const void *data, size_t n,
                struct nm_error *err);
/* A new profile file NAME.conf in the profile directory given at start (never replacing
 * one), from text. */
int privsep_save_profile(const char *name, const char *text, struct nm_error *err);
/* Start how (envp must be set) with its stdout and stderr on outw and errw; 0 with *pid, or
 * -1 with err (the reason from the privileged process: its check or the child's errno). */
int privsep_spawn(const struct child_spawn *how, int outw, int errw, pid_t *pid,
                  struct nm_error *err);
void privsep_kill(pid_t pid, int sig);
void privsep_release(pid_t pid);
/* The fds of BPF program set `set` (bpfset.h), loaded and attached by the privileged process
 * (once; later calls give the same set again): up to max into fds, their count in *n. The
 * caller owns them. 0, or -1 with errno and err (the privileged process's reason). */
int privsep_bpf(int set, int *fds, size_t max, size_t *n, struct nm_error *err);
/* Detach and unload BPF program set `set` in the privileged process (the programs stop at
 * once; the maps go when the last fd of them closes); a set not loaded is no error. 0, or -1
 * with err. */
int privsep_bpf_detach(int set, struct nm_error *err);
/* The kernel's BPF statistics on (the privileged process holds BPF_ENABLE_STATS' fd: every
 * program's run time and count, at two clock reads a run) or off (it lets the fd go; they
 * stay on while another process holds one). On by default: the sets loaded switch them on
 * unless this said off. 0, or -1 with err. */
int privsep_bpf_stats(bool on, struct nm_error *err);
/* Say that the split is coming (main.c, before the sampler starts): privsep_expected() is
 * true from then on, so that what must be done by the privileged process waits for it
 * rather than being done in place, as root, before the drop. */
void privsep_expect(void);
bool privsep_expected(void);
/* Remove the control socket the daemon made (and had at the split) through the privileged
 * process: its directory may be root's. 0, or -1 with errno and err. */
int privsep_unlink_socket(struct nm_error *err);
/* Say the main process stops in order (the privileged process then removes the socket
 * the daemon made once the main process has gone). */
void privsep_bye(void);
/* The last step of a stop, off the loop: close the channel and wait (at most 3 s) for the
 * privileged process to finish (test processes killed, the socket removed), so that the
 * daemon has stopped when the main process exits. */
void privsep_wait(void);

/* Use fd as the channel to a privileged process pid without forking or dropping (for the
 * test that drives privsep_parent_run over a socket pair). */
void privsep_attach(int fd, pid_t pid);

#endif
