/* log.c: logging to stderr or the systemd journal, in the manner of OpenBSD's log.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "log.h"
#include "utf8.h"

/* Longer messages are truncated; a fixed buffer keeps logging free of malloc, so that
 * xmalloc() can report running out of memory. */
#define LOG_MSG_MAX 2048

/* Logging is process-wide, like stderr itself. */
static struct {
	char progname[64];
	enum log_target target;
	enum log_level level;
	int fatal_fd;    /* log_set_fatal_fd; -1: none */
	pid_t fatal_pid; /* the process that set it */
} log_state = {"netmetrics", LOG_TARGET_STDERR, LOG_LEVEL_INFO, -1, 0};

static const char *const log_level_names[] = {
    [LOG_LEVEL_ERR] = "err",
    [LOG_LEVEL_WARN] = "warn",
    [LOG_LEVEL_INFO] = "info",
    [LOG_LEVEL_DEBUG] = "debug",
};

/* Set the target, the program name that prefixes stderr lines (copied) and the level. */
void
log_init(const char *progname, enum log_target target, enum log_level level)
{
	if (progname != NULL)
		snprintf(log_state.progname, sizeof log_state.progname, "%s", progname);
	log_state.target = target;
	log_state.level = level;
}

/* Change the level: messages less important than it are dropped. */
void
log_setlevel(enum log_level level)
{
	log_state.level = level;
}

/* The current level. */
enum log_level
log_getlevel(void)
{
	return log_state.level;
}

/* Parse a level name; -1 when unknown. */
int
log_level_parse(const char *name)
{
	size_t i;

	if (name == NULL)
		return -1;
	for (i = 0; i < sizeof log_level_names / sizeof log_level_names[0]; i++) {
		if (strcmp(log_level_names[i], name) == 0)
			return (int)i;
	}
	return -1;
}

/* The name of a level; "unknown" for values outside the list. */
const char *
log_level_name(enum log_level level)
{
	if ((unsigned)level >= sizeof log_level_names / sizeof log_level_names[0])
		return "unknown";
	return log_level_names[level];
}

/* The syslog priority the journal uses for a level. */
static int
log_priority(enum log_level level)
{
	switch (level) {
	case LOG_LEVEL_ERR:
		return LOG_ERR;
	case LOG_LEVEL_WARN:
		return LOG_WARNING;
	case LOG_LEVEL_INFO:
		return LOG_INFO;
	case LOG_LEVEL_DEBUG:
		return LOG_DEBUG;
	}
	return LOG_ERR;
}

void
log_set_fatal_fd(int fd)
{
	log_state.fatal_fd = fd;
	log_state.fatal_pid = getpid();
}

/* Format and write one message, with ": errstr" appended when errstr is not NULL; a fatal
 * one (level err from fatal) also to the fatal fd. */
static void
log_vwrite_fatal(enum log_level level, const char *errstr, const char *fmt, va_list ap, bool fatal)
{
	char msg[LOG_MSG_MAX];
	const char *sep = errstr != NULL ? ": " : "";

	if (errstr == NULL)
		errstr = "";
	char raw[LOG_MSG_MAX];

	/* Messages quote clients, children and files: one line of valid UTF-8, with every
	 * control character (a newline, ESC) escaped, so none forges a line or drives a
	 * terminal. */
	vsnprintf(raw, sizeof raw, fmt, ap);
	utf8_sanitize(msg, sizeof msg, raw, strlen(raw), 0);
	if (fatal && log_state.fatal_fd >= 0 && log_state.fatal_pid == getpid()) {
		char line[LOG_MSG_MAX + 256];
		int n = snprintf(line, sizeof line, "e%s%s%s\n", msg, sep, errstr);
		if (n > 0 && write(log_state.fatal_fd, line,
		                   (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0)
			fprintf(stderr, "%s: readiness pipe: %s\n", log_state.progname,
			        strerror(errno));
	}
	/* Fall back to stderr when sending fails. (libsystemd reports success and drops the
	 * message when no journal is listening.) */
	if (log_state.target == LOG_TARGET_JOURNAL &&
	    sd_journal_print(log_priority(level), "%s%s%s", msg, sep, errstr) >= 0)
		return;
	fprintf(stderr, "%s: %s%s%s\n", log_state.progname, msg, sep, errstr);
}

/* log_vwrite_fatal for a message that is not fatal. */
static void
log_vwrite(enum log_level level, const char *errstr, const char *fmt, va_list ap)
{
	log_vwrite_fatal(level, errstr, fmt, ap, false);
}

/* Log a warning followed by ": strerror(errno)"; errno is left unchanged. */
void
log_warn(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	if (log_state.level >= LOG_LEVEL_WARN) {
		va_start(ap, fmt);
		log_vwrite(LOG_LEVEL_WARN, strerror(saved), fmt, ap);
		va_end(ap);
	}
	errno = saved;
}

/* Log a warning; errno is left unchanged. */
void
log_warnx(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	if (log_state.level >= LOG_LEVEL_WARN) {
		va_start(ap, fmt);
		log_vwrite(LOG_LEVEL_WARN, NULL, fmt, ap);
		va_end(ap);
	}
	errno = saved;
}

/* Log an informational message; errno is left unchanged. */
void
log_info(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	if (log_state.level >= LOG_LEVEL_INFO) {
		va_start(ap, fmt);
		log_vwrite(LOG_LEVEL_INFO, NULL, fmt, ap);
		va_end(ap);
	}
	errno = saved;
}

/* Log a debugging message; errno is left unchanged. */
void
log_debug(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	if (log_state.level >= LOG_LEVEL_DEBUG) {
		va_start(ap, fmt);
		log_vwrite(LOG_LEVEL_DEBUG, NULL, fmt, ap);
		va_end(ap);
	}
	errno = saved;
}

/* Log an error followed by ": strerror(errno)" at any level, then exit(1). */
void
fatal(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	log_vwrite_fatal(LOG_LEVEL_ERR, strerror(saved), fmt, ap, true);
	va_end(ap);
	exit(1);
}

/* Log an error at any level, then exit(1). */
void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite_fatal(LOG_LEVEL_ERR, NULL, fmt, ap, true);
	va_end(ap);
	exit(1);
}
