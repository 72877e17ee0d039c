/* log.h: logging to stderr or the systemd journal, in the manner of OpenBSD's log.c. */
#ifndef NM_LOG_H
#define NM_LOG_H

#include <stdarg.h>

enum log_level { LOG_LEVEL_ERR = 0, LOG_LEVEL_WARN, LOG_LEVEL_INFO, LOG_LEVEL_DEBUG };

enum log_target { LOG_TARGET_STDERR = 0, LOG_TARGET_JOURNAL };

/* Set where messages go, the program name that prefixes them and the level. */
void log_init(const char *progname, enum log_target target, enum log_level level);
void log_setlevel(enum log_level level);
enum log_level log_getlevel(void);
/* Parse "err", "warn", "info", "debug"; -1 when unknown. */
int log_level_parse(const char *name);
const char *log_level_name(enum log_level level);

/* log_warn() appends ": strerror(errno)"; log_warnx() does not. */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* For our own bugs and startup failures only: log and exit(1). */
/* While fd >= 0, fatal() and fatalx() in this process (not in a child forked since) also
 * write 'e', the message and a newline to fd: the readiness pipe of a detached start, so
 * that the waiting parent prints why the start failed. -1: no longer. */
void log_set_fatal_fd(int fd);
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
