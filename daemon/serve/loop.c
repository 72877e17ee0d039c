/* loop.c: the one libevent base, SIGTERM/SIGINT/SIGHUP, and sd_notify READY/STATUS/WATCHDOG. */
#include <event2/event.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <systemd/sd-daemon.h>

#include "daemon.h"
#include "log.h"
#include "loop.h"
#include "xmalloc.h"

struct loop {
	struct daemon *d;
	int (*reload)(struct daemon *d); /* SIGHUP */
	struct event *ev_term, *ev_int, *ev_hup;
	struct event *ev_watchdog;
	const char *stop_reason;
};

/* SIGTERM or SIGINT: leave the loop. */
static void
stop_cb(evutil_socket_t sig, short what, void *arg)
{
	struct loop *lp = arg;

	(void)what;
	lp->stop_reason = sig == SIGTERM ? "SIGTERM" : "SIGINT";
	log_info("%s: shutting down", lp->stop_reason);
	sd_notify(0, "STOPPING=1");
	event_base_loopbreak(lp->d->base);
}

/* SIGHUP: reload the configuration. */
static void
hup_cb(evutil_socket_t sig, short what, void *arg)
{
	struct loop *lp = arg;

	(void)sig;
	(void)what;
	sd_notify(0, "RELOADING=1");
	lp->reload(lp->d);
	sd_notify(0, "READY=1");
}

/* Tell systemd's watchdog we are alive; runs from the loop, so a stuck loop is caught. */
static void
watchdog_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	sd_notify(0, "WATCHDOG=1");
}

struct loop *
loop_init(struct daemon *d, int (*reload)(struct daemon *d))
{
	struct loop *lp = xcalloc(1, sizeof(*lp));
	uint64_t usec;

	lp->d = d;
	lp->reload = reload;
	if ((d->base = event_base_new()) == NULL)
		fatalx("event_base_new failed");
	signal(SIGPIPE, SIG_IGN);
	lp->ev_term = evsignal_new(d->base, SIGTERM, stop_cb, lp);
	lp->ev_int = evsignal_new(d->base, SIGINT, stop_cb, lp);
	lp->ev_hup = evsignal_new(d->base, SIGHUP, hup_cb, lp);
	evsignal_add(lp->ev_term, NULL);
	evsignal_add(lp->ev_int, NULL);
	evsignal_add(lp->ev_hup, NULL);
	if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
		struct timeval tv = {(time_t)(usec / 2 / 1000000),
		                     (suseconds_t)(usec / 2 % 1000000)};
		lp->ev_watchdog = event_new(d->base, -1, EV_PERSIST, watchdog_cb, lp);
		event_add(lp->ev_watchdog, &tv);
		log_debug("watchdog every %llu us", (unsigned long long)usec / 2);
	}
	return lp;
}

void
loop_ready(struct loop *lp)
{
	(void)lp;
	sd_notify(0, "READY=1");
}

void
loop_status(struct loop *lp, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	(void)lp;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	sd_notifyf(0, "STATUS=%s", buf);
}

const char *
loop_run(struct loop *lp)
{
	lp->stop_reason = "exit";
	event_base_dispatch(lp->d->base);
	return lp->stop_reason;
}

void
loop_free(struct loop *lp)
{
	if (lp == NULL)
		return;
	event_free(lp->ev_term);
	event_free(lp->ev_int);
	event_free(lp->ev_hup);
	if (lp->ev_watchdog)
		event_free(lp->ev_watchdog);
	event_base_free(lp->d->base);
	lp->d->base = NULL;
	free(lp);
}
