/* child.h: child processes the daemon starts (benchmarks, and the tools drivers run): no
 * shell, their own process group (and cgroup, when given), stdin from /dev/null, stdout and
 * stderr read through pipes on the event loop (the daemon's read ends are non-blocking, the
 * child's write ends are not). A child starts clean: the environment given (or PATH,
 * LANG=C and HOME only), every signal at its default and none blocked, only fds 0-2, and
 * the uid and groups given, in the daemon's working directory for children (child_configure;
 * never the daemon's own). A process is finished once it has exited and both pipes
 * reached end of file (or two seconds after it exited, when something it left behind still
 * holds them). Output is kept up to a bound: the newest bytes win. The live children are
 * one struct children per event loop (SIGCHLD is process-wide: make one). With privilege
 * separation (privsep.h) the privileged process forks and reaps them: the pipes are still
 * read here, exits arrive from it and signals go through it; the calls below are the same. */
#ifndef NM_CHILD_H
#define NM_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct event_base;
struct nm_error;
struct child;
struct children;

#define CHILD_STDOUT_MAX (4u << 20)  /* bytes of stdout kept */
#define CHILD_STDERR_MAX (64u << 10) /* bytes of stderr kept */
#define CHILD_LINE_MAX   4096        /* longer lines reach on_line cut to this */

struct child_ops {
	/* A complete line of stdout (no newline, NUL-terminated; cut at CHILD_LINE_MAX). */
	void (*on_line)(struct child *sp, const char *line, size_t len, void *arg);
	/* The process finished; child_exit_* say how. The callback may free sp. */
	void (*on_done)(struct child *sp, void *arg);
};

/* How a process starts (see child_start). Zeroed fields mean no netns, the daemon's own
 * uid and groups, the default environment; cgroup_fd must be set (-1: no cgroup). */
struct child_spawn {
	char *const *argv; /* argv[0] a path (see child_resolve) */
	const char *netns; /* run in this named network namespace; NULL or "": none */
	bool as_user;      /* run as uid, gid and groups below (else the daemon's own) */
	uid_t uid;
	gid_t gid;
	const gid_t *groups; /* supplementary groups, ngroups of them */
	size_t ngroups;
	int cgroup_fd;     /* an open cgroup.procs the child joins before exec; -1: none */
	int peer_fd;       /* the socket of the client it runs for (clientfd.h), passed to the
	                      privileged process, which checks uid against it; -1: none */
	char *const *envp; /* the environment (NULL-terminated); NULL: child_env's default */
	bool duplex; /* stdin and stdout are one socket (child_start_duplex), not /dev/null and
	                a pipe */
	unsigned nproc_max; /* as a uid other than 0: RLIMIT_NPROC, soft and hard; 0: none */
};

/* The PATH every child gets and programs are looked up in (default
 * CONFIG_DEFAULT_CHILD_PATH: never the daemon's own PATH), and the working directory every
 * child starts in (default "/"; a directory that is gone at a start: "/"). NULL or empty
 * leaves one as it is. Process-wide; the privileged process keeps what was set before it
 * was forked. */
void child_configure(const char *path, const char *dir);
const char *child_search_path(void);
const char *child_work_dir(void);

/* Watch SIGCHLD on base for the children started through the returned set (make one per
 * loop, before child_start). NULL with err. */
struct children *child_init(struct event_base *base, struct nm_error *err);
/* Kill and free what is left (the owner of each child not finished yet gets its on_done,
 * as for any end; nothing new starts then), stop watching SIGCHLD. */
void child_fini(struct children *cs);

/* The clean environment for a child: PATH (child_search_path), LANG=C,
 * HOME (of uid, "/" when unknown), then each NAME=VALUE of extra (NULL-terminated; may be
 * NULL), a later NAME replacing an earlier one. Free with child_env_free. */
char **child_env(uid_t uid, char *const *extra);
void child_env_free(char **envp);

/* Find an executable: an absolute path as it is (a relative one is refused), else the
 * first match in the children's
 * PATH (child_search_path, not the daemon's environment). 0 with
 * the path in buf; -1 with err (NM_ERR_NOT_FOUND) naming what was searched. */
int child_resolve(const char *name, char *buf, size_t size, struct nm_error *err);

/* Start how->argv. With a netns, the process runs in that network namespace: through ip
 * netns exec when it runs as root, else the child enters it (setns) before it drops to its
 * uid. Returns the process, or NULL with err when it could not start (the reason is errno
 * from the child's set-up or exec, e.g. permission denied). */
struct child *child_start(struct children *cs, const struct child_spawn *how,
                          const struct child_ops *ops, void *arg, struct nm_error *err);
/* The start itself, without the loop: how->argv with pipes for stdout and stderr. 0 with
 * their read ends (non-blocking, close-on-exec; the caller closes them) and the pid (the
 * caller reaps it); -1 with err. */
int child_spawn(const struct child_spawn *how, int *outfd, int *errfd, pid_t *pid,
                struct nm_error *err);
/* child_spawn's start on pipe ends the caller made (outw, errw; the caller closes them),
 * in this process: what the privileged process of privsep.h runs. 0 with *pid, -1 with err
 * and errno. */
int child_spawn_fds(const struct child_spawn *how, int outw, int errw, pid_t *pid,
                    struct nm_error *err);
/* child_start for a process spoken to (a peer's transport, peer.c): how->duplex set, its
 * stdin and stdout one end of a socket pair whose other end (non-blocking, close-on-exec)
 * goes to *iofd, the caller's to read, write and close; stdout is not kept nor split into
 * lines (on_line is not called), stderr is. */
struct child *child_start_duplex(struct children *cs, const struct child_spawn *how,
                                 const struct child_ops *ops, void *arg, int *iofd,
                                 struct nm_error *err);
/* Signal the process group (SIGTERM, SIGKILL, ...). No-op once it has been reaped. */
void child_kill(struct child *sp, int sig);
/* Kill the process group (SIGKILL) if the child has not finished ms from now (tools that
 * answer in milliseconds, or are stuck). */
void child_set_timeout(struct child *sp, unsigned ms);
/* SIGKILL whatever is left in the process group the child led, also after it was reaped
 * (what it left behind, when there is no cgroup to kill). */
void child_kill_group(struct child *sp);
/* Stop watching and free; a process still running is killed (SIGKILL to its group) and
 * reaped. */
void child_free(struct child *sp);
/* Reap every child of cs that has exited (child_init's SIGCHLD event calls it). */
void child_reap(struct children *cs);

/* The argument on_line and on_done get from now on (its owner moved). */
void child_set_arg(struct child *sp, void *arg);
pid_t child_pid(const struct child *sp);
bool child_running(const struct child *sp); /* not reaped yet */
bool child_done(const struct child *sp);    /* reaped and output closed */
/* After reaping: the exit status (0-255) or -1 when a signal ended it. */
int child_exit_status(const struct child *sp);
/* After reaping: the signal that ended it, or 0. */
int child_exit_signal(const struct child *sp);
/* "exited with status 1", "killed by SIGSEGV (core dumped)", "running". */
void child_describe(const struct child *sp, char *buf, size_t size);
/* The output kept (NUL-terminated); *len its length. *cut: older bytes were dropped. */
const char *child_stdout(const struct child *sp, size_t *len, bool *cut);
const char *child_stderr(const struct child *sp, size_t *len, bool *cut);
/* The last non-empty line of stderr (or stdout when stderr is empty) into buf: the usual
 * "why" of a failure. */
void child_last_words(const struct child *sp, char *buf, size_t size);

#endif
