/* child.h: child processes the daemon starts for benchmarks: no shell, their own process
 * group, stdin from /dev/null, stdout and stderr read through non-blocking pipes on the event
 * loop. A process is finished once it has exited and both pipes reached end of file (or two
 * seconds after it exited, when something it left behind still holds them). Output is kept
 * up to a bound: the newest bytes win. */
#ifndef NM_CHILD_H
#define NM_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct event_base;
struct nm_error;
struct child;

#define CHILD_STDOUT_MAX (4u << 20)  /* bytes of stdout kept */
#define CHILD_STDERR_MAX (64u << 10) /* bytes of stderr kept */
#define CHILD_LINE_MAX   4096        /* longer lines reach on_line cut to this */

struct child_ops {
	/* A complete line of stdout (no newline, NUL-terminated; cut at CHILD_LINE_MAX). */
	void (*on_line)(struct child *sp, const char *line, size_t len, void *arg);
	/* The process finished; child_exit_* say how. The callback may free sp. */
	void (*on_done)(struct child *sp, void *arg);
};

/* Watch SIGCHLD on base for every child (call once, before child_start). 0 or -1 with err. */
int child_init(struct event_base *base, struct nm_error *err);
/* Kill and free what is left, stop watching SIGCHLD. */
void child_fini(void);

/* Find an executable: a name with '/' as it is, else the first match in PATH (or
 * /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin when PATH is unset). 0 with
 * the path in buf; -1 with err (NM_ERR_NOT_FOUND) naming what was searched. */
int child_resolve(const char *name, char *buf, size_t size, struct nm_error *err);

/* Start argv (argv[0] a path, see child_resolve). With netns, the process runs in the named
 * network namespace (through ip netns exec). Returns the process, or NULL with err when it
 * could not start (the reason is errno from exec, e.g. permission denied). */
struct child *child_start(char *const *argv, const char *netns, const struct child_ops *ops,
                          void *arg, struct nm_error *err);
/* Signal the process group (SIGTERM, SIGKILL, ...). No-op once it has been reaped. */
void child_kill(struct child *sp, int sig);
/* Stop watching and free; a process still running is killed (SIGKILL to its group) and
 * reaped. */
void child_free(struct child *sp);
/* Reap every child that has exited (child_init calls it on SIGCHLD). */
void child_reap(void);

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
