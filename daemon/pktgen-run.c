/* pktgen-run.c: netmetrics-pktgen, the hands of the pktgen driver on the kernel's pktgen.
 * The daemon cannot write /proc/net/pktgen itself: /proc/net is the writer's network
 * namespace, and the generator's device may live in another one; and writing "start" to
 * pgctrl blocks until the run is over. So the runner starts this program (in the
 * generator's namespace, through ip netns exec) with a script of words, done in order:
 *
 *   -w FILE CMD   write CMD to DIR/FILE; a write pktgen refuses ends the run, with the
 *                 file's "Result:" line on stderr
 *   -s            write "start" to DIR/pgctrl, which returns once every thread has sent
 *                 its count; SIGTERM or SIGINT writes "stop" instead of waiting (the
 *                 threads stop, their results stay in the device files)
 *   -p FILE       print "== FILE" and the file's text (the results)
 *   -r DIR        DIR instead of /proc/net/pktgen (tests: plain files, one per name)
 *
 * A stop that arrives before -s skips it; the writes and prints after it still run, so
 * the results are printed and the devices taken off the threads. Exit status 0 when
 * every write was taken, 1 when one was not, 2 for a usage error. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FILE_MAX (64 * 1024) /* bytes of a device file read */

static const char *dir = "/proc/net/pktgen";
static bool stopped; /* SIGTERM or SIGINT has arrived */

/* The path of a file below dir; names with '/' are refused. */
static int
path_of(const char *file, char *buf, size_t size)
{
	if (strchr(file, '/') != NULL || strcmp(file, "..") == 0 || strcmp(file, ".") == 0 ||
	    (size_t)snprintf(buf, size, "%s/%s", dir, file) >= size) {
		fprintf(stderr, "netmetrics-pktgen: %s: not a pktgen file name\n", file);
		return -1;
	}
	return 0;
}

/* Read a file (bounded) into buf, NUL-terminated. Bytes read, or -1. */
static ssize_t
slurp(const char *file, char *buf, size_t size)
{
	char path[4096];
	size_t len = 0;
	ssize_t n;
	int fd;

	if (path_of(file, path, sizeof(path)) < 0 || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return -1;
		}
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

/* The "Result:" line of a file, into buf ("" when it has none). */
static void
result_of(const char *file, char *buf, size_t size)
{
	static char text[FILE_MAX];
	const char *r;

	buf[0] = '\0';
	if (slurp(file, text, sizeof(text)) < 0 || (r = strstr(text, "Result: ")) == NULL)
		return;
	snprintf(buf, size, "%.*s", (int)strcspn(r, "\n"), r);
}

/* Write cmd and a newline to file. 0, or -1 with the reason on stderr. */
static int
put(const char *file, const char *cmd, int flags)
{
	char path[4096], line[4096], res[512];
	int fd, len;
	ssize_t n;

	if (path_of(file, path, sizeof(path)) < 0)
		return -1;
	len = snprintf(line, sizeof(line), "%s\n", cmd);
	if (len < 0 || (size_t)len >= sizeof(line)) {
		fprintf(stderr, "netmetrics-pktgen: %s: command too long\n", file);
		return -1;
	}
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | flags)) < 0) {
		fprintf(stderr, "netmetrics-pktgen: %s: %s\n", path, strerror(errno));
		return -1;
	}
	do
		n = write(fd, line, (size_t)len);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n != len) {
		int e = errno;
		result_of(file, res, sizeof(res));
		fprintf(stderr, "netmetrics-pktgen: %s: \"%s\": %s%s%s\n", path, cmd,
		        n < 0 ? strerror(e) : "short write", res[0] ? ": " : "", res);
		return -1;
	}
	/* pktgen takes some bad values without an error and says so in its Result. */
	if (strcmp(file, "pgctrl") != 0) {
		result_of(file, res, sizeof(res));
		if (res[0] && strncmp(res, "Result: OK", 10) != 0) {
			fprintf(stderr, "netmetrics-pktgen: %s: \"%s\": %s\n", path, cmd, res);
			return -1;
		}
	}
	return 0;
}

/* Has a stop arrived (without waiting)? */
static void
poll_stop(const sigset_t *stops)
{
	struct timespec zero = {0, 0};

	while (sigtimedwait(stops, NULL, &zero) > 0)
		stopped = true;
}

/* Write "start" to pgctrl in a child and wait for it, or for a stop: then write "stop".
 * 0, or -1 when the start was refused. */
static int
run(const sigset_t *waitset, const sigset_t *none)
{
	pid_t pid;
	int st, sig;

	if ((pid = fork()) < 0) {
		fprintf(stderr, "netmetrics-pktgen: fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		/* The runner's SIGTERM reaches this process too (its group) and ends it: the
		 * kernel then stops the threads as well. */
		sigprocmask(SIG_SETMASK, none, NULL);
		_exit(put("pgctrl", "start", 0) == 0 ? 0 : 1);
	}
	for (;;) {
		if (sigwait(waitset, &sig) != 0)
			continue;
		if (sig == SIGCHLD) {
			pid_t r = waitpid(pid, &st, WNOHANG);
			if (r == pid)
				break;
			continue;
		}
		if (!stopped) {
			stopped = true;
			/* Non-blocking: a test's FIFO in place of pgctrl has no reader here. */
			put("pgctrl", "stop", O_NONBLOCK);
		}
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
		return -1;
	return 0;
}

/* Print a file after a "== FILE" line. */
static int
show(const char *file)
{
	static char text[FILE_MAX];
	ssize_t n = slurp(file, text, sizeof(text));

	if (n < 0) {
		fprintf(stderr, "netmetrics-pktgen: %s/%s: %s\n", dir, file, strerror(errno));
		return -1;
	}
	printf("== %s\n%s%s", file, text, n > 0 && text[n - 1] == '\n' ? "" : "\n");
	fflush(stdout);
	return 0;
}

static void
usage(void)
{
	fprintf(stderr, "usage: netmetrics-pktgen [-r DIR] [-w FILE CMD | -s | -p FILE]...\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	sigset_t stops, waitset, none;
	int rc = 0;

	sigemptyset(&none);
	sigemptyset(&stops);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGINT);
	waitset = stops;
	sigaddset(&waitset, SIGCHLD);
	sigprocmask(SIG_BLOCK, &waitset, NULL);
	for (int i = 1; i < argc; i++) {
		poll_stop(&stops);
		if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			dir = argv[++i];
		else if (strcmp(argv[i], "-w") == 0 && i + 2 < argc) {
			if (put(argv[i + 1], argv[i + 2], 0) < 0)
				return 1;
			i += 2;
		} else if (strcmp(argv[i], "-s") == 0) {
			if (!stopped && run(&waitset, &none) < 0)
				return 1;
		} else if (strcmp(argv[i], "-p") == 0 && i + 1 < argc) {
			if (show(argv[++i]) < 0)
				rc = 1;
		} else
			usage();
	}
	return rc;
}
