/* child.c: benchmark processes and tools: fork and exec with the child's set-up done in
 * the child (process group, cgroup, netns, signals, fds, groups, uid; a failure there or in
 * exec comes back through a close-on-exec pipe, so a binary that cannot run is an error at
 * start, not a mystery exit), pipes on the loop, and the reaper. The live children are a
 * list in struct children. */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/close_range.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "error.h"
#include "log.h"
#include "child.h"
#include "privsep.h"
#include "strbuf.h"
#include "utf8.h"
#include "xmalloc.h"

#define LINGER_SEC 2 /* after exit, how long the pipes may stay open */

/* What every child gets (child_configure), process-wide like the privileged channel: the
 * children are started from deep inside driver and peer code. The privileged process has
 * the copy made before it was forked. */
static char search_path[4096] = CONFIG_DEFAULT_CHILD_PATH;
static char work_dir[4096] = "/";

void
child_configure(const char *path, const char *dir)
{
	if (path != NULL && *path)
		snprintf(search_path, sizeof(search_path), "%s", path);
	if (dir != NULL && dir[0] == '/')
		snprintf(work_dir, sizeof(work_dir), "%s", dir);
}

const char *
child_search_path(void)
{
	return search_path;
}

const char *
child_work_dir(void)
{
	return work_dir;
}

/* One output stream of a child. */
struct child_pipe {
	int fd; /* -1 once closed */
	struct event *ev;
	struct strbuf kept; /* the newest bytes, at most max */
	size_t max;
	bool cut;
	struct strbuf line; /* stdout: the unfinished line */
	bool line_cut;      /* the current line passed CHILD_LINE_MAX */
};

struct child {
	struct children *cs;
	pid_t pid;
	bool remote; /* started by the privileged process (privsep.h): reaped and signalled
	                there */
	bool reaped;
	int status; /* wait status once reaped */
	struct child_pipe out, err;
	struct event *linger;
	struct event *timeout; /* child_set_timeout */
	const struct child_ops *ops;
	void *arg;
	bool done_called;
	struct child *next;
};

/* The children of one loop. */
struct children {
	struct event_base *base;
	struct event *sigchld;
	struct child *list;
	bool closing; /* child_fini: nothing new starts */
};

static void pipe_close(struct child_pipe *p);
static void drain(struct child *sp, struct child_pipe *p);
static void maybe_done(struct child *sp);

/* Signal sp's process group: in place, or through the privileged process that started it
 * (the main process's uid may not signal a benchmark's). */
static int
group_signal(const struct child *sp, int sig)
{
	if (sp->remote) {
		privsep_kill(sp->pid, sig);
		return 0;
	}
	return kill(-sp->pid, sig);
}

/* A process the privileged process started has been reaped there. */
static void
remote_exit(pid_t pid, int status, void *arg)
{
	struct children *cs = arg;

	for (struct child *sp = cs->list; sp != NULL; sp = sp->next)
		if (sp->remote && sp->pid == pid && !sp->reaped) {
			sp->reaped = true;
			sp->status = status;
			drain(sp, &sp->out);
			drain(sp, &sp->err);
			maybe_done(sp); /* may free sp */
			return;
		}
}

/* SIGCHLD: reap on the loop. */
static void
sigchld_cb(evutil_socket_t sig, short what, void *arg)
{
	(void)sig;
	(void)what;
	child_reap(arg);
}

/* Watch SIGCHLD. */
struct children *
child_init(struct event_base *base, struct nm_error *err)
{
	struct children *cs = xcalloc(1, sizeof(*cs));

	cs->base = base;
	cs->sigchld = evsignal_new(base, SIGCHLD, sigchld_cb, cs);
	if (cs->sigchld == NULL || evsignal_add(cs->sigchld, NULL) < 0) {
		if (cs->sigchld != NULL)
			event_free(cs->sigchld);
		free(cs);
		nm_error_set(err, NM_ERR_INTERNAL, "cannot watch SIGCHLD");
		return NULL;
	}
	privsep_watch(base, remote_exit, cs);
	return cs;
}

/* Free every child left, then stop watching SIGCHLD. */
void
child_fini(struct children *cs)
{
	if (cs == NULL)
		return;
	cs->closing = true;
	while (cs->list != NULL) {
		struct child *sp = cs->list, *q;

		if (!sp->done_called) {
			/* Killed here: its owner is told, as of any end, and may free it. */
			if (!sp->reaped && sp->remote) {
				/* Reaped in the privileged process; it ends as killed. */
				group_signal(sp, SIGKILL);
				sp->status = SIGKILL;
				sp->reaped = true;
			} else if (!sp->reaped) {
				kill(-sp->pid, SIGKILL);
				while (waitpid(sp->pid, &sp->status, 0) < 0 && errno == EINTR)
					;
				sp->reaped = true;
			}
			pipe_close(&sp->out);
			pipe_close(&sp->err);
			sp->done_called = true;
			if (sp->ops->on_done != NULL)
				sp->ops->on_done(sp, sp->arg);
		}
		for (q = cs->list; q != NULL && q != sp; q = q->next)
			;
		if (q == sp)
			child_free(sp);
	}
	event_free(cs->sigchld);
	privsep_unwatch();
	free(cs);
}

/* Put NAME=VALUE into v (n entries), replacing an entry of the same NAME. */
static void
env_put(char **v, size_t *n, const char *kv)
{
	size_t klen = strcspn(kv, "=");

	if (kv[klen] != '=' || klen == 0)
		return;
	for (size_t i = 0; i < *n; i++)
		if (strncmp(v[i], kv, klen + 1) == 0) {
			free(v[i]);
			v[i] = xstrdup(kv);
			return;
		}
	v[(*n)++] = xstrdup(kv);
}

/* PATH, LANG=C, HOME, then extra. */
char **
child_env(uid_t uid, char *const *extra)
{
	struct passwd *pw = getpwuid(uid);
	size_t n = 0, cap = 4;
	char **v, buf[4200];

	for (size_t i = 0; extra != NULL && extra[i] != NULL; i++)
		cap++;
	v = xcalloc(cap, sizeof(*v));
	snprintf(buf, sizeof(buf), "PATH=%s", search_path);
	env_put(v, &n, buf);
	env_put(v, &n, "LANG=C");
	snprintf(buf, sizeof(buf), "HOME=%s",
	         pw != NULL && pw->pw_dir != NULL && pw->pw_dir[0] == '/' ? pw->pw_dir : "/");
	env_put(v, &n, buf);
	for (size_t i = 0; extra != NULL && extra[i] != NULL; i++)
		env_put(v, &n, extra[i]);
	v[n] = NULL;
	return v;
}

void
child_env_free(char **envp)
{
	if (envp == NULL)
		return;
	for (size_t i = 0; envp[i] != NULL; i++)
		free(envp[i]);
	free(envp);
}

/* Is path a regular file we may execute? */
static bool
executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Look name up in the children's PATH. */
int
child_resolve(const char *name, char *buf, size_t size, struct nm_error *err)
{
	const char *path = search_path, *p, *end;

	if (name == NULL || *name == '\0')
		return nm_error_set(err, NM_ERR_BAD_ARGS, "no program to run");
	/* Relative to what? Not the client's directory, which the daemon does not know, nor
	 * its own: its children start in the work directory. */
	if (strchr(name, '/') != NULL && name[0] != '/')
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "%s: a relative path; give the program's absolute path", name);
	if (strchr(name, '/') != NULL) {
		/* A program in a directory closed to the main process's user (a home of 0700):
		 * the privileged process looks and checks it, and the start says why not. */
		if (!executable(name) && privsep_on() && errno == EACCES) {
			snprintf(buf, size, "%s", name);
			return 0;
		}
		if (!executable(name))
			return nm_error_set(err, NM_ERR_NOT_FOUND, "%s: %s", name,
			                    access(name, F_OK) == 0 ? "not an executable file"
			                                            : "no such file");
		snprintf(buf, size, "%s", name);
		return 0;
	}
	for (p = path; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		if (end == p)
			continue;
		if ((size_t)snprintf(buf, size, "%.*s/%s", (int)(end - p), p, name) < size &&
		    executable(buf))
			return 0;
	}
	return nm_error_set(err, NM_ERR_NOT_FOUND, "%s: not found in PATH (%s)", name, path);
}

/* Keep the newest bytes of a stream: past max, drop the oldest half. */
static void
keep(struct child_pipe *p, const char *data, size_t len)
{
	if (len >= p->max) {
		data += len - p->max / 2;
		len = p->max / 2;
		strbuf_reset(&p->kept);
		p->cut = true;
	} else if (p->kept.len + len > p->max) {
		strbuf_consume(&p->kept, p->kept.len + len - p->max / 2);
		p->cut = true;
	}
	strbuf_add(&p->kept, data, len);
}

/* Split stdout into lines for on_line. */
static void
split_lines(struct child *sp, const char *data, size_t len)
{
	struct child_pipe *p = &sp->out;

	for (size_t i = 0; i < len; i++) {
		if (data[i] == '\n') {
			if (sp->ops->on_line != NULL && p->line.len > 0)
				sp->ops->on_line(sp, p->line.buf, p->line.len, sp->arg);
			strbuf_reset(&p->line);
			p->line_cut = false;
		} else if (p->line.len < CHILD_LINE_MAX)
			strbuf_addch(&p->line, data[i]);
		else
			p->line_cut = true;
	}
}

/* Close one pipe. */
static void
pipe_close(struct child_pipe *p)
{
	if (p->ev != NULL)
		event_free(p->ev);
	p->ev = NULL;
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

/* Read what a pipe has now (bounded, so a chatty child cannot hold the loop); close it at
 * end of file. */
static void
drain(struct child *sp, struct child_pipe *p)
{
	char buf[16384];
	ssize_t n;

	for (int rounds = 0; rounds < 16 && p->fd >= 0; rounds++) {
		n = read(p->fd, buf, sizeof(buf));
		if (n > 0) {
			keep(p, buf, (size_t)n);
			if (p == &sp->out)
				split_lines(sp, buf, (size_t)n);
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (p == &sp->out && p->line.len > 0 && sp->ops->on_line != NULL)
			sp->ops->on_line(sp, p->line.buf, p->line.len, sp->arg);
		strbuf_reset(&p->line);
		pipe_close(p);
	}
}

/* A pipe is readable. */
static void
pipe_cb(evutil_socket_t fd, short what, void *arg)
{
	struct child *sp = arg;

	(void)what;
	drain(sp, fd == sp->out.fd ? &sp->out : &sp->err);
	maybe_done(sp);
}

/* The pipes outlived the process by LINGER_SEC: stop waiting for them. */
static void
linger_cb(evutil_socket_t fd, short what, void *arg)
{
	struct child *sp = arg;

	(void)fd;
	(void)what;
	log_debug("child %d: output still open %ds after exit; closing it", (int)sp->pid,
	          LINGER_SEC);
	pipe_close(&sp->out);
	pipe_close(&sp->err);
	maybe_done(sp);
}

/* Call on_done once the process is reaped and its output closed. */
static void
maybe_done(struct child *sp)
{
	if (!sp->reaped || sp->done_called)
		return;
	if (sp->out.fd >= 0 || sp->err.fd >= 0) {
		if (sp->linger == NULL) {
			struct timeval tv = {LINGER_SEC, 0};
			sp->linger = evtimer_new(sp->cs->base, linger_cb, sp);
			evtimer_add(sp->linger, &tv);
		}
		return;
	}
	sp->done_called = true;
	if (sp->timeout != NULL)
		evtimer_del(sp->timeout);
	if (sp->ops->on_done != NULL)
		sp->ops->on_done(sp, sp->arg);
}

/* Reap every child that exited. on_done may free spawns, so restart the walk after each. */
void
child_reap(struct children *cs)
{
	bool again = true;

	while (again) {
		again = false;
		for (struct child *sp = cs->list; sp != NULL; sp = sp->next) {
			int st;
			pid_t r;

			if (sp->reaped || sp->remote)
				continue;
			do
				r = waitpid(sp->pid, &st, WNOHANG);
			while (r < 0 && errno == EINTR);
			if (r == 0)
				continue;
			sp->reaped = true;
			sp->status = r < 0 ? 0 : st;
			if (r < 0)
				log_warn("child %d: waitpid", (int)sp->pid);
			/* Drain what is buffered now; the rest arrives through the events. */
			drain(sp, &sp->out);
			drain(sp, &sp->err);
			maybe_done(sp); /* may free sp: walk again from the start */
			again = true;
			break;
		}
	}
}

/* Set up one pipe's read end on the loop. */
static void
pipe_watch(struct child *sp, struct child_pipe *p, int fd, size_t max)
{
	p->fd = fd;
	p->max = max;
	strbuf_init(&p->kept);
	strbuf_init(&p->line);
	p->ev = event_new(sp->cs->base, fd, EV_READ | EV_PERSIST, pipe_cb, sp);
	event_add(p->ev, NULL);
}

/* Is netns the name of a namespace in /run/netns? 0, or -1 with err. */
static int
with_netns_check(const char *netns, struct nm_error *err)
{
	char nspath[4096];

	if (strchr(netns, '/') != NULL || strcmp(netns, ".") == 0 || strcmp(netns, "..") == 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "netns \"%s\": not a namespace name",
		                    netns);
	snprintf(nspath, sizeof(nspath), "/run/netns/%s", netns);
	if (access(nspath, F_OK) != 0)
		return nm_error_set(err, NM_ERR_NOT_FOUND,
		                    "netns %s: no such network namespace (%s; see ip netns list)",
		                    netns, nspath);
	return 0;
}

/* argv with "ip netns exec NAME" in front, or argv itself. *ipv gets what to free. */
static char *const *
with_netns(char *const *argv, const char *netns, char ***ipv, struct nm_error *err)
{
	char ip[4096];
	size_t n = 0;

	*ipv = NULL;
	if (netns == NULL || *netns == '\0')
		return argv;
	if (with_netns_check(netns, err) < 0)
		return NULL;
	if (child_resolve("ip", ip, sizeof(ip), err) < 0)
		return NULL;
	while (argv[n] != NULL)
		n++;
	*ipv = xcalloc(n + 5, sizeof(char *));
	(*ipv)[0] = xstrdup(ip);
	(*ipv)[1] = xstrdup("netns");
	(*ipv)[2] = xstrdup("exec");
	(*ipv)[3] = xstrdup(netns);
	for (size_t i = 0; i < n; i++)
		(*ipv)[4 + i] = xstrdup(argv[i]);
	return *ipv;
}

/* Free a NULL-terminated vector. */
static void
strv_free(char **v)
{
	if (v == NULL)
		return;
	for (size_t i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* In the child: tell the parent why it failed (errno) and go. */
static void __attribute__((noreturn)) child_fail(int report, int e)
{
	ssize_t n;

	do
		n = write(report, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	_exit(127);
}

/* In the child after fork: the set-up, then exec. Only async-signal-safe calls. */
static void __attribute__((noreturn))
child_exec(const struct child_spawn *how, char *const *argv, char *const *envp, int outfd,
           int errfd, int nullfd, int nsfd, int report)
{
	struct sigaction dfl;
	sigset_t none;

	if (setpgid(0, 0) < 0)
		child_fail(report, errno);
	if (how->cgroup_fd >= 0 && write(how->cgroup_fd, "0", 1) != 1)
		child_fail(report, errno);
	if (nsfd >= 0 && setns(nsfd, CLONE_NEWNET) < 0)
		child_fail(report, errno);
	/* Default dispositions (an ignored signal stays ignored across exec), then unblock. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Move the pipes above 2 first: one of them may be 0-2 itself. */
	if ((outfd = fcntl(outfd, F_DUPFD_CLOEXEC, 3)) < 0 ||
	    (errfd = fcntl(errfd, F_DUPFD_CLOEXEC, 3)) < 0 ||
	    (nullfd = fcntl(nullfd, F_DUPFD_CLOEXEC, 3)) < 0 ||
	    dup2(how->duplex ? outfd : nullfd, 0) < 0 || dup2(outfd, 1) < 0 || dup2(errfd, 2) < 0)
		child_fail(report, errno);
	/* Everything else closes at exec (the report pipe too, which says exec worked). */
	if (syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC) < 0)
		child_fail(report, errno);
	/* The daemon's directory, never its own working directory ("/" when it is gone). */
	if (chdir(work_dir) < 0 && chdir("/") < 0)
		child_fail(report, errno);
	/* A user's test without a pids cgroup: its processes bounded per user (the hard limit
	 * too, so that the benchmark cannot raise it). */
	if (how->as_user && how->uid != 0 && how->nproc_max > 0) {
		struct rlimit rl = {how->nproc_max, how->nproc_max};
		if (setrlimit(RLIMIT_NPROC, &rl) < 0)
			child_fail(report, errno);
	}
	if (how->as_user && (setgroups(how->ngroups, how->groups) < 0 || setgid(how->gid) < 0 ||
	                     setuid(how->uid) < 0))
		child_fail(report, errno);
	execve(argv[0], argv, envp);
	child_fail(report, errno);
}

/* Fork and exec with the child's set-up. 0 with *pid; an errno value. */
static int
do_spawn(const struct child_spawn *how, char *const *argv, int outfd, int errfd, pid_t *pid)
{
	char **own_env = NULL;
	char *const *envp = how->envp;
	int report[2], nullfd, nsfd = -1, e = 0, st;
	sigset_t all, old;
	ssize_t n;

	if (envp == NULL)
		envp = own_env = child_env(how->as_user ? how->uid : getuid(), NULL);
	if ((nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		e = errno;
		goto out;
	}
	if (how->as_user && how->uid != 0 && how->netns != NULL && how->netns[0]) {
		char nspath[4096];
		snprintf(nspath, sizeof(nspath), "/run/netns/%s", how->netns);
		if ((nsfd = open(nspath, O_RDONLY | O_CLOEXEC)) < 0) {
			e = errno;
			goto out;
		}
	}
	if (pipe2(report, O_CLOEXEC) < 0) {
		e = errno;
		goto out;
	}
	/* No handler of the daemon's may run in the child before it resets them. */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	*pid = fork();
	if (*pid == 0)
		child_exec(how, argv, envp, outfd, errfd, nullfd, nsfd, report[1]);
	if (*pid < 0)
		e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(report[1]);
	if (*pid > 0) {
		do
			n = read(report[0], &e, sizeof(e));
		while (n < 0 && errno == EINTR);
		if (n == (ssize_t)sizeof(e)) {
			/* It failed before exec and has exited: reap it here. */
			while (waitpid(*pid, &st, 0) < 0 && errno == EINTR)
				;
		} else
			e = 0;
	}
	close(report[0]);
out:
	if (nullfd >= 0)
		close(nullfd);
	if (nsfd >= 0)
		close(nsfd);
	child_env_free(own_env);
	return e;
}

/* Start how->argv with its stdout and stderr on outw and errw (the caller closes them). */
int
child_spawn_fds(const struct child_spawn *how, int outw, int errw, pid_t *pidp,
                struct nm_error *err)
{
	char *const *run = how->argv;
	char **ipv = NULL;
	pid_t pid;
	int r;

	/* As root, ip netns exec (its view of /sys too); as a user, setns in the child. */
	if ((!how->as_user || how->uid == 0) &&
	    (run = with_netns(how->argv, how->netns, &ipv, err)) == NULL)
		return -1;
	if (how->as_user && how->uid != 0 && how->netns != NULL && how->netns[0] &&
	    with_netns_check(how->netns, err) < 0)
		return -1;
	if ((r = do_spawn(how, run, outw, errw, &pid)) != 0) {
		nm_error_set(err, NM_ERR_FAILED, "%s: cannot run: %s", run[0], strerror(r));
		strv_free(ipv);
		errno = r;
		return -1;
	}
	strv_free(ipv);
	*pidp = pid;
	return 0;
}

/* Start how->argv with pipes for its stdout and stderr. 0 with the read ends (non-blocking,
 * close-on-exec) and the pid; -1 with err. */
int
child_spawn(const struct child_spawn *how, int *outfd, int *errfd, pid_t *pidp,
            struct nm_error *err)
{
	int out[2] = {-1, -1}, errp[2] = {-1, -1}, r;
	char **own_env = NULL;
	pid_t pid;

	/* Only the daemon's read ends are non-blocking: a child writes as it would to a
	 * terminal. */
	if ((how->duplex ? socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, out)
	                 : pipe2(out, O_CLOEXEC)) < 0 ||
	    pipe2(errp, O_CLOEXEC) < 0 || fcntl(out[0], F_SETFL, O_NONBLOCK) < 0 ||
	    fcntl(errp[0], F_SETFL, O_NONBLOCK) < 0) {
		nm_error_set(err, NM_ERR_FAILED, "%s: pipe: %s", how->argv[0], strerror(errno));
		goto fail;
	}
	if (privsep_on()) {
		/* The privileged process starts it: the environment is made here. */
		struct child_spawn remote = *how;
		if (remote.envp == NULL)
			remote.envp = own_env = child_env(how->as_user ? how->uid : 0, NULL);
		r = privsep_spawn(&remote, out[1], errp[1], &pid, err);
		child_env_free(own_env);
	} else
		r = child_spawn_fds(how, out[1], errp[1], &pid, err);
	if (r < 0)
		goto fail;
	close(out[1]);
	close(errp[1]);
	*outfd = out[0];
	*errfd = errp[0];
	*pidp = pid;
	log_debug("child %d: %s", (int)pid, how->argv[0]);
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	return -1;
}

/* Start how->argv with its output on the loop; with iofd (duplex), stdout is the caller's. */
static struct child *
start(struct children *cs, const struct child_spawn *how, const struct child_ops *ops, void *arg,
      int *iofd, struct nm_error *err)
{
	struct child *sp;
	int out, errfd;
	pid_t pid;

	if (cs == NULL || cs->closing) {
		nm_error_set(err, NM_ERR_INTERNAL, "%s: not started: the daemon is stopping",
		             how->argv[0]);
		return NULL;
	}
	if (child_spawn(how, &out, &errfd, &pid, err) < 0)
		return NULL;
	sp = xcalloc(1, sizeof(*sp));
	sp->cs = cs;
	sp->pid = pid;
	sp->remote = privsep_on();
	sp->ops = ops;
	sp->arg = arg;
	if (iofd != NULL) {
		*iofd = out;
		sp->out.fd = -1;
		strbuf_init(&sp->out.kept);
		strbuf_init(&sp->out.line);
	} else
		pipe_watch(sp, &sp->out, out, CHILD_STDOUT_MAX);
	pipe_watch(sp, &sp->err, errfd, CHILD_STDERR_MAX);
	sp->next = cs->list;
	cs->list = sp;
	return sp;
}

struct child *
child_start(struct children *cs, const struct child_spawn *how, const struct child_ops *ops,
            void *arg, struct nm_error *err)
{
	struct child_spawn plain = *how;

	plain.duplex = false;
	return start(cs, &plain, ops, arg, NULL, err);
}

struct child *
child_start_duplex(struct children *cs, const struct child_spawn *how, const struct child_ops *ops,
                   void *arg, int *iofd, struct nm_error *err)
{
	struct child_spawn duplex = *how;

	duplex.duplex = true;
	return start(cs, &duplex, ops, arg, iofd, err);
}

/* Signal the process group while the process is not reaped. */
void
child_kill(struct child *sp, int sig)
{
	if (sp != NULL && !sp->reaped && group_signal(sp, sig) < 0 && errno != ESRCH)
		log_warn("child %d: kill", (int)sp->pid);
}

/* The time given to a child is over: kill its group (its end then arrives as usual). */
static void
timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	struct child *sp = arg;

	(void)fd;
	(void)what;
	log_warnx("child %d: still running after its time; killing it", (int)sp->pid);
	child_kill(sp, SIGKILL);
}

void
child_set_timeout(struct child *sp, unsigned ms)
{
	struct timeval tv = {(time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000};

	if (sp->timeout == NULL)
		sp->timeout = evtimer_new(sp->cs->base, timeout_cb, sp);
	evtimer_add(sp->timeout, &tv);
}

/* SIGKILL the process group, reaped or not. */
void
child_kill_group(struct child *sp)
{
	if (sp != NULL && group_signal(sp, SIGKILL) < 0 && errno != ESRCH)
		log_warn("child %d: kill group", (int)sp->pid);
}

/* Kill if needed, reap, close and free. */
void
child_free(struct child *sp)
{
	struct child **pp;

	if (sp == NULL)
		return;
	for (pp = &sp->cs->list; *pp != NULL; pp = &(*pp)->next)
		if (*pp == sp) {
			*pp = sp->next;
			break;
		}
	if (sp->remote)
		privsep_release(sp->pid); /* killed and reaped there when still running */
	else if (!sp->reaped) {
		kill(-sp->pid, SIGKILL);
		while (waitpid(sp->pid, &sp->status, 0) < 0 && errno == EINTR)
			;
	}
	pipe_close(&sp->out);
	pipe_close(&sp->err);
	strbuf_free(&sp->out.kept);
	strbuf_free(&sp->out.line);
	strbuf_free(&sp->err.kept);
	strbuf_free(&sp->err.line);
	if (sp->linger != NULL)
		event_free(sp->linger);
	if (sp->timeout != NULL)
		event_free(sp->timeout);
	free(sp);
}

void
child_set_arg(struct child *sp, void *arg)
{
	sp->arg = arg;
}

pid_t
child_pid(const struct child *sp)
{
	return sp->pid;
}

bool
child_running(const struct child *sp)
{
	return !sp->reaped;
}

bool
child_done(const struct child *sp)
{
	return sp->done_called;
}

int
child_exit_status(const struct child *sp)
{
	return sp->reaped && WIFEXITED(sp->status) ? WEXITSTATUS(sp->status) : -1;
}

int
child_exit_signal(const struct child *sp)
{
	return sp->reaped && WIFSIGNALED(sp->status) ? WTERMSIG(sp->status) : 0;
}

/* How the process ended, in words. */
void
child_describe(const struct child *sp, char *buf, size_t size)
{
	if (!sp->reaped)
		snprintf(buf, size, "running");
	else if (WIFEXITED(sp->status))
		snprintf(buf, size, "exited with status %d", WEXITSTATUS(sp->status));
	else if (WIFSIGNALED(sp->status))
		snprintf(buf, size, "killed by SIG%s%s", sigabbrev_np(WTERMSIG(sp->status)),
		         WCOREDUMP(sp->status) ? " (core dumped)" : "");
	else
		snprintf(buf, size, "ended (wait status %#x)", (unsigned)sp->status);
}

const char *
child_stdout(const struct child *sp, size_t *len, bool *cut)
{
	*len = sp->out.kept.len;
	*cut = sp->out.cut;
	return sp->out.kept.buf ? sp->out.kept.buf : "";
}

const char *
child_stderr(const struct child *sp, size_t *len, bool *cut)
{
	*len = sp->err.kept.len;
	*cut = sp->err.cut;
	return sp->err.kept.buf ? sp->err.kept.buf : "";
}

/* The last non-blank line of text[0..len) into buf; false when there is none. */
static bool
last_line(const char *text, size_t len, char *buf, size_t size)
{
	size_t end = len, start;

	while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == ' ' || text[end - 1] == '\r'))
		end--;
	if (end == 0)
		return false;
	start = end;
	while (start > 0 && text[start - 1] != '\n')
		start--;
	snprintf(buf, size, "%.*s", (int)(end - start), text + start);
	return true;
}

/* The last words of a failed process: stderr's last line, else stdout's, as valid UTF-8
 * with control characters escaped and cut between characters (utf8.h): they go into a
 * reason, a stored result and log lines. */
void
child_last_words(const struct child *sp, char *buf, size_t size)
{
	char raw[1024];

	if (size == 0)
		return;
	if (!last_line(sp->err.kept.buf ? sp->err.kept.buf : "", sp->err.kept.len, raw,
	               sizeof(raw)) &&
	    !last_line(sp->out.kept.buf ? sp->out.kept.buf : "", sp->out.kept.len, raw,
	               sizeof(raw)))
		raw[0] = '\0';
	utf8_sanitize(buf, size, raw, strlen(raw), 0);
}
