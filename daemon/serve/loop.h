/* loop.h: the event base, signals and the systemd notifications. */
#ifndef NM_LOOP_H
#define NM_LOOP_H

struct daemon;
struct loop;

/* Create the base (into d->base), signal handlers and the watchdog timer; SIGHUP calls
 * reload. */
struct loop *loop_init(struct daemon *d, int (*reload)(struct daemon *d));
/* Tell systemd we are ready (no-op without NOTIFY_SOCKET). */
void loop_ready(struct loop *lp);
/* Set the STATUS= line systemd shows. */
void loop_status(struct loop *lp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Run until SIGTERM/SIGINT; returns the signal's name for the shutdown notice. */
const char *loop_run(struct loop *lp);
void loop_free(struct loop *lp);

#endif
