/* child.c: benchmark processes: posix_spawn (exec failures come back as the return value,
 * so a binary that cannot run is an error at start, not a mystery exit), pipes on the loop,
 * and the reaper. SIGCHLD is process-wide, so the live children are one list in this file. */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "log.h"
#include "child.h"
#include "strbuf.h"
#include "utf8.h"
#include "xmalloc.h"

extern char **environ;

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define LINGER_SEC   2 /* after exit, how long the pipes may stay open */

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
	pid_t pid;
	bool reaped;
	int status; /* wait status once reaped */
	struct child_pipe out, err;
	struct event *linger;
	const struct child_ops *ops;
	void *arg;
	bool done_called;
	struct child *next;
};

static struct event_base *child_base;
static struct event *child_sigchld;
static struct child *child_list;

/* SIGCHLD: reap on the loop. */
static void
sigchld_cb(evutil_socket_t sig, short what, void *arg)
{
	(void)sig;
	(void)what;
	(void)arg;
	child_reap();
}

/* Watch SIGCHLD. */
int
child_init(struct event_base *base, struct nm_error *err)
{
	child_base = base;
	child_sigchld = evsignal_new(base, SIGCHLD, sigchld_cb, NULL);
	if (child_sigchld == NULL || evsignal_add(child_sigchld, NULL) < 0)
		return nm_error_set(err, NM_ERR_INTERNAL, "cannot watch SIGCHLD");
	return 0;
}

/* Free every child left, then stop watching SIGCHLD. */
void
child_fini(void)
{
	while (child_list != NULL)
		child_free(child_list);
	if (child_sigchld != NULL)
		event_free(child_sigchld);
	child_sigchld = NULL;
	child_base = NULL;
}

/* Is path a regular file we may execute? */
static bool
executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Look name up in PATH. */
int
child_resolve(const char *name, char *buf, size_t size, struct nm_error *err)
{
	const char *path = getenv("PATH"), *p, *end;

	if (name == NULL || *name == '\0')
		return nm_error_set(err, NM_ERR_BAD_ARGS, "no program to run");
	if (strchr(name, '/') != NULL) {
		if (!executable(name))
			return nm_error_set(err, NM_ERR_NOT_FOUND, "%s: %s", name,
			                    access(name, F_OK) == 0 ? "not an executable file"
			                                            : "no such file");
		snprintf(buf, size, "%s", name);
		return 0;
	}
	if (path == NULL || *path == '\0')
		path = DEFAULT_PATH;
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

static void maybe_done(struct child *sp);

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
			sp->linger = evtimer_new(child_base, linger_cb, sp);
			evtimer_add(sp->linger, &tv);
		}
		return;
	}
	sp->done_called = true;
	if (sp->ops->on_done != NULL)
		sp->ops->on_done(sp, sp->arg);
}

/* Reap every child that exited. on_done may free spawns, so restart the walk after each. */
void
child_reap(void)
{
	bool again = true;

	while (again) {
		again = false;
		for (struct child *sp = child_list; sp != NULL; sp = sp->next) {
			int st;
			pid_t r;

			if (sp->reaped)
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
	p->ev = event_new(child_base, fd, EV_READ | EV_PERSIST, pipe_cb, sp);
	event_add(p->ev, NULL);
}

/* argv with "ip netns exec NAME" in front, or argv itself. *ipv gets what to free. */
static char *const *
with_netns(char *const *argv, const char *netns, char ***ipv, struct nm_error *err)
{
	char ip[4096], nspath[4096];
	size_t n = 0;

	*ipv = NULL;
	if (netns == NULL || *netns == '\0')
		return argv;
	if (strchr(netns, '/') != NULL || strcmp(netns, ".") == 0 || strcmp(netns, "..") == 0) {
		nm_error_set(err, NM_ERR_BAD_ARGS, "netns \"%s\": not a namespace name", netns);
		return NULL;
	}
	snprintf(nspath, sizeof(nspath), "/run/netns/%s", netns);
	if (access(nspath, F_OK) != 0) {
		nm_error_set(err, NM_ERR_NOT_FOUND,
		             "netns %s: no such network namespace (%s; see ip netns list)", netns,
		             nspath);
		return NULL;
	}
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

/* posix_spawn with the child's fds and signals set up. 0 with *pid; an errno value. */
static int
do_spawn(char *const *argv, int outfd, int errfd, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dflt;
	int r;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, outfd, 1);
	posix_spawn_file_actions_adddup2(&fa, errfd, 2);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	/* The daemon ignores SIGPIPE and handles these; the child starts with defaults. */
	sigemptyset(&dflt);
	sigaddset(&dflt, SIGPIPE);
	sigaddset(&dflt, SIGTERM);
	sigaddset(&dflt, SIGINT);
	sigaddset(&dflt, SIGHUP);
	sigaddset(&dflt, SIGCHLD);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dflt);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
	                                  POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_USEVFORK);
	r = posix_spawn(pid, argv[0], &fa, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return r;
}

/* Start argv with its output on the loop. */
struct child *
child_start(char *const *argv, const char *netns, const struct child_ops *ops, void *arg,
            struct nm_error *err)
{
	int out[2] = {-1, -1}, errp[2] = {-1, -1}, r;
	char *const *run;
	char **ipv;
	struct child *sp;
	pid_t pid;

	if (child_base == NULL) {
		nm_error_set(err, NM_ERR_INTERNAL, "child_init was not called");
		return NULL;
	}
	if ((run = with_netns(argv, netns, &ipv, err)) == NULL)
		return NULL;
	if (pipe2(out, O_CLOEXEC | O_NONBLOCK) < 0 || pipe2(errp, O_CLOEXEC | O_NONBLOCK) < 0) {
		nm_error_set(err, NM_ERR_FAILED, "%s: pipe: %s", argv[0], strerror(errno));
		goto fail;
	}
	if ((r = do_spawn(run, out[1], errp[1], &pid)) != 0) {
		nm_error_set(err, NM_ERR_FAILED, "%s: cannot run: %s", run[0], strerror(r));
		goto fail;
	}
	close(out[1]);
	close(errp[1]);
	strv_free(ipv);
	sp = xcalloc(1, sizeof(*sp));
	sp->pid = pid;
	sp->ops = ops;
	sp->arg = arg;
	pipe_watch(sp, &sp->out, out[0], CHILD_STDOUT_MAX);
	pipe_watch(sp, &sp->err, errp[0], CHILD_STDERR_MAX);
	sp->next = child_list;
	child_list = sp;
	log_debug("child %d: %s", (int)pid, argv[0]);
	return sp;
fail:
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	strv_free(ipv);
	return NULL;
}

/* Signal the process group while the process is not reaped. */
void
child_kill(struct child *sp, int sig)
{
	if (sp != NULL && !sp->reaped && kill(-sp->pid, sig) < 0 && errno != ESRCH)
		log_warn("child %d: kill", (int)sp->pid);
}

/* Kill if needed, reap, close and free. */
void
child_free(struct child *sp)
{
	struct child **pp;

	if (sp == NULL)
		return;
	for (pp = &child_list; *pp != NULL; pp = &(*pp)->next)
		if (*pp == sp) {
			*pp = sp->next;
			break;
		}
	if (!sp->reaped) {
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
	free(sp);
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
