/* http.c: the Prometheus endpoint (see http.h). One request is answered in one callback:
 * prom_render writes the body from memory (no /proc read), it is gzipped when the scraper
 * accepts it and handed to evhttp's output buffer.
 *
 * Connections are held to the control socket's rules. Each is counted from the moment it is
 * accepted (evhttp's bufferevent callback lets us make its bufferevent; we hold a reference
 * to it, and a sweep lets go of those evhttp has released, which it does by clearing their
 * callbacks: libevent 2.1 tells evhttp's user neither of accept nor of close): at most
 * max_connections, and one more drops the one that has waited longest for its request to
 * complete (the slowest, or the oldest idle one). Each request has a whole-request deadline
 * ([prometheus] timeout, counted from accept or from the previous reply, never restarted by
 * a byte), after which the connection is shut down. A turn of the loop accepts at most half
 * of max_connections, so a burst of new connections cannot push out one whose request is
 * already waiting to be read. Out of descriptors, accepting pauses for a second or until a
 * connection closes (libevent's listener would otherwise retry accept() at once, forever),
 * and says so once a minute at most.
 *
 * With [prometheus] web_config (the exporter toolkit's YAML, webconfig.c) each connection's
 * bufferevent is an OpenSSL one (http-tls.c) and a request for /metrics must carry basic
 * auth: a check answered from the kept successes serves it at once, others wait for the
 * bcrypt worker (the request is answered from its callback, or dropped with its
 * connection), a refusal is 401 with WWW-Authenticate. */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <zlib.h>

#include "daemon.h"
#include "error.h"
#include "http-tls.h"
#include "http.h"
#include "irqtable.h"
#include "jsonutil.h"
#include "log.h"
#include "profile.h"
#include "prom.h"
#include "runner.h"
#include "sampler.h"
#include "strbuf.h"
#include "timeutil.h"
#include "webconfig.h"
#include "window.h"
#include "xmalloc.h"

#define HTTP_MAX_LISTENERS 64
/* How often the applied profile's values are compared with what it wrote (only while one
 * is applied): on a timer, never in a scrape, as it reads /proc and /sys. */
#define HTTP_DRIFT_CHECK_S 5
/* Out of descriptors: how long accepting pauses (unless a connection closes first). */
#define HTTP_ACCEPT_RETRY_MS 1000
/* At most one log line a minute about paused accepting or dropped connections. */
#define HTTP_LOG_EVERY_NS (60ull * 1000000000ull)

struct http;

/* One accepted connection, from accept to evhttp's release of its bufferevent. */
struct http_conn {
	struct http *h;
	struct bufferevent *bev; /* evhttp's, with a reference of ours */
	uint64_t since_ns;       /* accepted, or last answered: its request's deadline runs */
	struct event *deadline;
	bool dropping; /* shut down by us; gone at evhttp's next read */
};

struct http {
	struct daemon *d;
	struct evhttp *eh;
	struct evhttp_bound_socket *bound[HTTP_MAX_LISTENERS];
	size_t nbound;
	struct http *next_instance; /* in instances: a listener's error callback finds h */
	bool listening;             /* the listeners are enabled */
	bool fd_paused;             /* out of descriptors: not accepting for a while */
	unsigned accepted_turn;     /* connections accepted in this turn of the loop */
	struct event *turn_ev;      /* the next turn: accepted_turn back to 0 */
	struct event *resume_ev;    /* the end of a pause for want of descriptors */
	struct event *sweep_ev;     /* the next sweep of released connections */
	uint64_t log_last_ns;       /* of the last line about pauses or drops */
	unsigned long drops_unlogged, pauses_unlogged;
	struct prom *prom;
	struct http_tls *tls;   /* [prometheus] web_config: TLS, NULL: plain HTTP */
	struct http_auth *auth; /* basic auth, NULL: none */
	/* What the basic auth a reload replaced had counted: the counters exported never go
	 * down. */
	uint64_t auth_failures_before, auth_hits_before;
	bool web_loaded; /* by http_init: the first http_reconfigure skips it */
	struct strbuf body;
	struct http_gzip gz;
	struct http_conn **conns; /* every connection accepted and not yet released */
	size_t nconns, conncap;
	double last_scrape_s; /* < 0: none yet */
	struct event *drift_ev;
	int drift; /* of the profile drift_name: 1 drifted, 0 not, -1 unknown */
	char drift_name[128];
	/* scratch of one scrape, kept */
	struct prom_source *sources;
	size_t nsources_cap;
	struct prom_window *windows;
	struct prom_test *tests;
	size_t nwin_cap, ntest_cap;
};

/* Every live http (one per daemon; unit tests may make more): libevent hands a listener's
 * error callback the evhttp, not ours. */
static struct http *instances;

/* How many connections a turn of the loop accepts. */
static unsigned
accept_burst(const struct http *h)
{
	return h->d->config.prom_max_connections / 2 + 1;
}

/* Enable the listeners unless out of descriptors or past this turn's burst. */
static void
update_listeners(struct http *h)
{
	bool on = !h->fd_paused && h->accepted_turn < accept_burst(h);

	if (h->listening == on)
		return;
	h->listening = on;
	for (size_t i = 0; i < h->nbound; i++) {
		struct evconnlistener *l = evhttp_bound_socket_get_listener(h->bound[i]);
		if (l != NULL) {
			if (on)
				evconnlistener_enable(l);
			else
				evconnlistener_disable(l);
		}
	}
}

/* Say, at most once a minute, how many connections were dropped and pauses made. */
static void
log_limits(struct http *h)
{
	uint64_t now = time_mono_ns();

	if (h->log_last_ns != 0 && now - h->log_last_ns < HTTP_LOG_EVERY_NS)
		return;
	if (h->drops_unlogged == 0 && h->pauses_unlogged == 0)
		return;
	h->log_last_ns = now;
	log_warnx("prometheus: %lu connection%s dropped (past max_connections or the request "
	          "deadline), accepting paused %lu time%s for want of descriptors (at most one "
	          "such line a minute)",
	          h->drops_unlogged, h->drops_unlogged == 1 ? "" : "s", h->pauses_unlogged,
	          h->pauses_unlogged == 1 ? "" : "s");
	h->drops_unlogged = h->pauses_unlogged = 0;
}

/* Shut a connection down: evhttp sees the end at its next read or write and releases it. */
static void
conn_drop(struct http_conn *c, const char *why)
{
	int fd = bufferevent_getfd(c->bev);
	struct timeval soon = {0, 100000}; /* evhttp sees the end at its next read */

	if (c->dropping)
		return;
	c->dropping = true;
	if (fd >= 0)
		shutdown(fd, SHUT_RDWR);
	evtimer_add(c->h->sweep_ev, &soon);
	log_debug("prometheus: connection dropped: %s", why);
	c->h->drops_unlogged++;
	log_limits(c->h);
}

/* The request deadline passed. */
static void
conn_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	conn_drop(arg, "its request took longer than [prometheus] timeout");
}

/* (Re)start a connection's request deadline. */
static void
conn_arm(struct http_conn *c)
{
	uint64_t ms = c->h->d->config.prom_timeout_ms;
	struct timeval tv = {(time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000};

	c->since_ns = time_mono_ns();
	evtimer_add(c->deadline, &tv);
}

/* Let go of the connections evhttp has released (bufferevent_free cleared their callbacks):
 * our reference was the last, so the socket closes. While any connection is left, sweep
 * again in a second (one the scraper closed is released by evhttp without telling us). */
static void
conn_sweep(struct http *h)
{
	bool freed = false;
	struct timeval again = {1, 0};

	for (size_t i = 0; i < h->nconns;) {
		struct http_conn *c = h->conns[i];
		bufferevent_event_cb eventcb = NULL;

		bufferevent_getcb(c->bev, NULL, NULL, &eventcb, NULL);
		if (eventcb != NULL) {
			i++;
			continue;
		}
		h->conns[i] = h->conns[--h->nconns];
		event_free(c->deadline);
		bufferevent_decref(c->bev);
		free(c);
		freed = true;
	}
	if (freed && h->fd_paused) {
		/* A descriptor came free: accept again at once. */
		h->fd_paused = false;
		evtimer_del(h->resume_ev);
		update_listeners(h);
	}
	if (h->nconns > 0)
		evtimer_add(h->sweep_ev, &again);
	else
		evtimer_del(h->sweep_ev);
}

/* The sweep's timer. */
static void
sweep_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	conn_sweep(arg);
}

/* Past max_connections: drop the connections that have waited longest for their request
 * (never keep, the one just accepted) until it holds. */
static void
conn_evict(struct http *h, const struct http_conn *keep)
{
	while (true) {
		struct http_conn *victim = NULL;
		size_t live = 0;

		for (size_t i = 0; i < h->nconns; i++) {
			struct http_conn *c = h->conns[i];
			if (c->dropping)
				continue;
			live++;
			if (c != keep && (victim == NULL || c->since_ns < victim->since_ns))
				victim = c;
		}
		if (live <= h->d->config.prom_max_connections || victim == NULL)
			return;
		conn_drop(victim, "one connection more than [prometheus] max_connections");
	}
}

/* The end of a pause for want of descriptors: accept again. */
static void
resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct http *h = arg;

	(void)fd;
	(void)what;
	h->fd_paused = false;
	update_listeners(h);
}

/* A new turn of the loop: its burst of accepts starts at 0. */
static void
turn_cb(evutil_socket_t fd, short what, void *arg)
{
	struct http *h = arg;

	(void)fd;
	(void)what;
	h->accepted_turn = 0;
	update_listeners(h);
}

/* evhttp accepted a connection: its bufferevent, counted from now. */
static struct bufferevent *
conn_new(struct event_base *base, void *arg)
{
	struct http *h = arg;
	struct bufferevent *bev = h->tls != NULL
	                              ? http_tls_bev(h->tls, base)
	                              : bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	struct http_conn *c;

	if (bev == NULL)
		return NULL;
	conn_sweep(h);
	c = xcalloc(1, sizeof(*c));
	c->h = h;
	c->bev = bev;
	bufferevent_incref(bev);
	c->deadline = evtimer_new(base, conn_deadline_cb, c);
	conn_arm(c);
	if (h->nconns == h->conncap) {
		h->conncap = h->conncap ? h->conncap * 2 : 16;
		h->conns = xreallocarray(h->conns, h->conncap, sizeof(*h->conns));
	}
	h->conns[h->nconns++] = c;
	conn_evict(h, c);
	/* At most a burst a turn: the requests already here are read before more come in. */
	if (h->accepted_turn++ == 0) {
		struct timeval next = {0, 0};
		evtimer_add(h->turn_ev, &next);
	}
	update_listeners(h);
	return c->bev;
}

/* A listener's accept() failed (other than EAGAIN and the like); eh is the evhttp the
 * listener belongs to. */
static void
listener_error_cb(struct evconnlistener *l, void *eh)
{
	int e = EVUTIL_SOCKET_ERROR();
	struct http *h;

	(void)l;
	for (h = instances; h != NULL && (void *)h->eh != eh; h = h->next_instance)
		;
	if (h == NULL)
		return;
	if (e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM) {
		struct timeval tv = {HTTP_ACCEPT_RETRY_MS / 1000,
		                     (HTTP_ACCEPT_RETRY_MS % 1000) * 1000};
		h->fd_paused = true;
		h->pauses_unlogged++;
		evtimer_add(h->resume_ev, &tv);
		update_listeners(h);
		log_limits(h);
	} else {
		log_debug("prometheus: accept: %s", strerror(e));
	}
}

/* A request arrived whole on c: its deadline starts again for the next one. */
static void
conn_answered(struct http *h, struct evhttp_request *req)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct bufferevent *bev = evcon != NULL ? evhttp_connection_get_bufferevent(evcon) : NULL;

	for (size_t i = 0; bev != NULL && i < h->nconns; i++)
		if (h->conns[i]->bev == bev) {
			if (!h->conns[i]->dropping)
				conn_arm(h->conns[i]);
			return;
		}
}

/* Whether a header's comma-separated list names token (case-insensitive), not with q=0. */
static bool
header_has(const char *hdr, const char *token)
{
	size_t tl = strlen(token);

	for (const char *p = hdr; p != NULL && *p != '\0';) {
		const char *end = strchr(p, ',');
		size_t n = end != NULL ? (size_t)(end - p) : strlen(p);
		while (n > 0 && (*p == ' ' || *p == '\t')) {
			p++;
			n--;
		}
		if (n >= tl && strncasecmp(p, token, tl) == 0 &&
		    (n == tl || p[tl] == ';' || p[tl] == ' ')) {
			const char *q = memchr(p, ';', n);
			/* ";q=0", ";q=0.0", ...: refused */
			if (q == NULL || strncmp(q, ";q=0", 4) != 0 ||
			    strspn(q + 4, ".0") < (size_t)(p + n - (q + 4)))
				return true;
		}
		p = end != NULL ? end + 1 : NULL;
	}
	return false;
}

/* Grow a scratch array to hold n. */
static void *
scratch(void *v, size_t *cap, size_t n, size_t size)
{
	if (n <= *cap)
		return v;
	*cap = n;
	return xreallocarray(v, n, size);
}

/* The windows open now and the tests running now, from their lists (names point into the
 * JSON, valid while lists are held). */
static void
collect_windows_tests(struct http *h, json_object *wl, json_object *tl, struct prom_input *in)
{
	json_object *arr = json_object_object_get(wl, "windows");
	size_t n = arr != NULL ? json_object_array_length(arr) : 0;

	h->windows = scratch(h->windows, &h->nwin_cap, n ? n : 1, sizeof(*h->windows));
	in->windows = h->windows;
	for (size_t i = 0; i < n; i++) {
		json_object *w = json_object_array_get_idx(arr, i);
		if (strcmp(json_get_string(w, "state", ""), "open") != 0)
			continue;
		h->windows[in->nwindows++] = (struct prom_window){json_get_string(w, "name", ""),
		                                                  json_get_string(w, "origin", "")};
	}
	n = tl != NULL ? json_object_array_length(tl) : 0;
	h->tests = scratch(h->tests, &h->ntest_cap, n ? n : 1, sizeof(*h->tests));
	in->tests = h->tests;
	for (size_t i = 0; i < n; i++) {
		static const char *const running[] = {"starting", "warmup",    "measuring",
		                                      "cooldown", "finishing", "stopping"};
		json_object *t = json_object_array_get_idx(tl, i);
		const char *st = json_get_string(t, "state", "");
		bool run = false;
		for (size_t k = 0; k < sizeof(running) / sizeof(running[0]); k++)
			run = run || strcmp(st, running[k]) == 0;
		if (run)
			h->tests[in->ntests++] = (struct prom_test){
			    json_get_string(t, "name", ""), json_get_string(t, "driver", "")};
	}
}

void
http_prom_input(struct sampler *s, struct prom_source **sources, size_t *cap, struct prom_input *in)
{
	struct source *irqsrc = sampler_source_of(s, SAMPLER_INTERRUPTS);
	struct ring_stats st;
	size_t n = sampler_nsources(s);

	memset(in, 0, sizeof(*in));
	in->reg = sampler_registry(s);
	in->ring = sampler_ring(s);
	sampler_totals(s, &in->base, &in->epoch_ns, &in->nbase);
	in->mono_to_real_ns = sampler_mono_to_real(s);
	/* Only the interrupts source's own table: sampler_irq_table would read /proc without. */
	if (irqsrc != NULL && irqsrc->enabled && irqsrc->samples > 0) {
		const struct irq_table *t = sampler_irq_table(s, NULL);
		if (t != NULL && irqtable_has_series(t))
			in->irqtab = t;
	}
	in->napitab = sampler_napi_table(s);
	*sources = scratch(*sources, cap, n ? n : 1, sizeof(**sources));
	for (size_t i = 0; i < n; i++) {
		struct source *src = sampler_source_at(s, i);
		(*sources)[i] =
		    (struct prom_source){src->ops->name, src->index,        src->ops,
		                         src->enabled,   src->healthy,      src->samples,
		                         src->failures,  src->last_cost_ns, src->late_last_ns};
	}
	in->sources = *sources;
	in->nsources = n;
	in->profile_drift = -1;
	in->last_scrape_seconds = -1;
	ring_get_stats(in->ring, &st);
	in->ring_used = st.used;
	in->ring_capacity = st.capacity;
}

/* Fill in from the daemon's modules: memory only, apart from the applied profile's state
 * file. */
static void
collect(struct http *h, struct prom_input *in, json_object **wl, json_object **tl,
        json_object **prof)
{
	struct daemon *d = h->d;

	http_prom_input(d->sampler, &h->sources, &h->nsources_cap, in);
	*wl = d->windows != NULL ? window_list_json(d->windows) : NULL;
	*tl = d->runner != NULL ? runner_list_json(d->runner) : NULL;
	collect_windows_tests(h, *wl, *tl, in);
	*prof = profile_state_applied_brief(d->config.state_dir);
	in->profile = *prof != NULL ? json_get_string(*prof, "name", NULL) : NULL;
	if (in->profile != NULL && strcmp(in->profile, h->drift_name) == 0)
		in->profile_drift = h->drift;
	in->last_scrape_seconds = h->last_scrape_s;
	in->http_tls = h->tls != NULL;
	in->tls_failures = http_tls_failures();
	in->http_auth = h->auth != NULL;
	in->auth_failures = h->auth_failures_before + http_auth_failures(h->auth);
	in->auth_cache_hits = h->auth_hits_before + http_auth_cache_hits(h->auth);
}

/* The drift timer: compare the applied profile's values with what it wrote. */
static void
drift_cb(evutil_socket_t fd, short what, void *arg)
{
	struct http *h = arg;
	struct daemon *d = h->d;
	json_object *brief, *st;
	struct profile_host ph;
	struct nm_error err;

	(void)fd;
	(void)what;
	h->drift = -1;
	h->drift_name[0] = '\0';
	if ((brief = profile_state_applied_brief(d->config.state_dir)) == NULL)
		return;
	json_object_put(brief);
	if (profile_host_open_sampled(&ph, d->config.root, d->sampler, &err) < 0) {
		log_debug("prometheus: profile drift: %s", err.message);
		return;
	}
	st = profile_state_status(d->config.state_dir, &ph);
	profile_host_close(&ph);
	if (json_get_bool(st, "applied", false) && json_get_string(st, "profile", NULL) != NULL) {
		snprintf(h->drift_name, sizeof(h->drift_name), "%s",
		         json_get_string(st, "profile", ""));
		h->drift = json_get_bool(st, "drift", false) ? 1 : 0;
	}
	json_object_put(st);
}

int
http_gzip(struct http_gzip *g, const char *buf, size_t len)
{
	uLong bound;

	if (g->z == NULL) {
		g->z = xcalloc(1, sizeof(*g->z));
		if (deflateInit2(g->z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
			free(g->z);
			g->z = NULL;
			return -1;
		}
	} else if (deflateReset(g->z) != Z_OK)
		return -1;
	bound = deflateBound(g->z, (uLong)len);
	strbuf_reset(&g->out);
	/* With room to spare: the next body is a few digits longer. */
	if (g->out.cap < bound + 1) {
		g->out.cap = bound + bound / 8 + 4096;
		g->out.buf = xreallocarray(g->out.buf, g->out.cap, 1);
	}
	g->z->next_in = (Bytef *)buf;
	g->z->avail_in = (uInt)len;
	g->z->next_out = (Bytef *)g->out.buf;
	g->z->avail_out = (uInt)bound;
	if (deflate(g->z, Z_FINISH) != Z_STREAM_END)
		return -1;
	g->out.len = bound - g->z->avail_out;
	return 0;
}

void
http_gzip_free(struct http_gzip *g)
{
	if (g->z != NULL) {
		deflateEnd(g->z);
		free(g->z);
	}
	strbuf_free(&g->out);
	memset(g, 0, sizeof(*g));
}

/* GET /metrics. */
static void
serve_metrics(struct http *h, struct evhttp_request *req)
{
	struct evkeyvalq *in_h = evhttp_request_get_input_headers(req);
	struct evkeyvalq *out_h = evhttp_request_get_output_headers(req);
	const char *accept = evhttp_find_header(in_h, "Accept");
	const char *enc = evhttp_find_header(in_h, "Accept-Encoding");
	enum prom_format fmt = accept != NULL && header_has(accept, "application/openmetrics-text")
	                           ? PROM_OPENMETRICS
	                           : PROM_TEXT;
	json_object *wl = NULL, *tl = NULL, *prof = NULL;
	struct evbuffer *buf = evbuffer_new();
	struct prom_input in;
	struct prom_result res;
	uint64_t t0 = time_mono_ns();
	bool gz = false;

	collect(h, &in, &wl, &tl, &prof);
	prom_render(h->prom, &in, fmt, &h->body, &res);
	json_object_put(wl);
	json_object_put(tl);
	json_object_put(prof);
	if (enc != NULL && header_has(enc, "gzip") &&
	    http_gzip(&h->gz, h->body.buf, h->body.len) == 0)
		gz = true;
	evhttp_add_header(out_h, "Content-Type", prom_content_type(fmt));
	if (gz)
		evhttp_add_header(out_h, "Content-Encoding", "gzip");
	if (buf == NULL) {
		evhttp_send_error(req, HTTP_INTERNAL, NULL);
		return;
	}
	if (evhttp_request_get_command(req) != EVHTTP_REQ_HEAD)
		evbuffer_add(buf, gz ? h->gz.out.buf : h->body.buf,
		             gz ? h->gz.out.len : h->body.len);
	h->last_scrape_s = (double)(time_mono_ns() - t0) / 1e9;
	evhttp_send_reply(req, HTTP_OK, "OK", buf);
	evbuffer_free(buf);
	log_debug("prometheus: scrape: %zu series, %zu dropped, %zu bytes%s, %.3f ms", res.series,
	          res.dropped, gz ? h->gz.out.len : h->body.len, gz ? " gzipped" : "",
	          h->last_scrape_s * 1e3);
}

/* 401, asking for basic auth. */
static void
deny(struct evhttp_request *req)
{
	struct evkeyvalq *out = evhttp_request_get_output_headers(req);
	struct evbuffer *buf = evbuffer_new();

	/* Not evhttp_send_error: it clears the headers set before it. */
	evhttp_add_header(out, "WWW-Authenticate", "Basic realm=\"netmetrics\", charset=\"UTF-8\"");
	evhttp_add_header(out, "Content-Type", "text/plain; charset=utf-8");
	if (buf != NULL)
		evbuffer_add_printf(buf, "401 Unauthorized\n");
	evhttp_send_reply(req, 401, "Unauthorized", buf);
	if (buf != NULL)
		evbuffer_free(buf);
}

/* A request waiting for its bcrypt check; req NULL once its connection has closed. */
struct auth_wait {
	struct http *h;
	struct evhttp_request *req;
};

/* The connection of a waiting request closed: the request is gone with it. */
static void
auth_closed(struct evhttp_connection *evcon, void *arg)
{
	struct auth_wait *w = arg;

	(void)evcon;
	w->req = NULL;
}

/* The check of a waiting request is done: serve it or refuse it. */
static void
auth_done(void *arg, enum http_auth_result r)
{
	struct auth_wait *w = arg;

	if (w->req != NULL) {
		evhttp_connection_set_closecb(evhttp_request_get_connection(w->req), NULL, NULL);
		if (r == HTTP_AUTH_OK)
			serve_metrics(w->h, w->req);
		else if (r == HTTP_AUTH_BUSY)
			evhttp_send_error(w->req, 503, "Service Unavailable");
		else
			deny(w->req);
	}
	free(w);
}

/* Basic auth of a request for /metrics, then the scrape (now, or once bcrypt has said). */
static void
serve_authorized(struct http *h, struct evhttp_request *req)
{
	const char *hdr;
	struct auth_wait *w;

	if (h->auth == NULL) {
		serve_metrics(h, req);
		return;
	}
	hdr = evhttp_find_header(evhttp_request_get_input_headers(req), "Authorization");
	w = xcalloc(1, sizeof(*w));
	w->h = h;
	w->req = req;
	switch (http_auth_check(h->auth, hdr, auth_done, w)) {
	case HTTP_AUTH_OK:
		free(w);
		serve_metrics(h, req);
		break;
	case HTTP_AUTH_DENIED:
		free(w);
		deny(req);
		break;
	case HTTP_AUTH_BUSY:
		free(w);
		evhttp_send_error(req, 503, "Service Unavailable");
		break;
	case HTTP_AUTH_PENDING:
		evhttp_connection_set_closecb(evhttp_request_get_connection(req), auth_closed, w);
		break;
	}
}

/* Every request: /metrics by GET or HEAD; 404 elsewhere, 405 for other methods. */
static void
request_cb(struct evhttp_request *req, void *arg)
{
	struct http *h = arg;
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri != NULL ? evhttp_uri_get_path(uri) : NULL;
	enum evhttp_cmd_type m = evhttp_request_get_command(req);

	conn_answered(h, req);
	if (path == NULL || strcmp(path, "/metrics") != 0) {
		evhttp_send_error(req, HTTP_NOTFOUND, NULL);
		return;
	}
	if (m != EVHTTP_REQ_GET && m != EVHTTP_REQ_HEAD) {
		evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", "GET, HEAD");
		evhttp_send_error(req, 405, "Method Not Allowed");
		return;
	}
	serve_authorized(h, req);
}

int
http_check_web_config(const struct config *c, struct nm_error *err)
{
	struct http_tls *tls = NULL;
	struct webconfig w;
	int rc = 0;

	if (c->prom_web_config == NULL)
		return 0;
	if (webconfig_load(&w, c->prom_web_config, err) < 0)
		rc = -1;
	else if (w.tls && (tls = http_tls_new(&w, err)) == NULL)
		rc = -1;
	http_tls_free(tls);
	webconfig_free(&w);
	return rc;
}

/* Read [prometheus] web_config (when set) into a TLS context and basic auth, replacing the
 * ones in use; on failure those stay. */
static int
load_web_config(struct http *h, struct nm_error *err)
{
	const char *path = h->d->config.prom_web_config;
	struct http_tls *tls = NULL;
	struct http_auth *auth = NULL;
	struct webconfig w;

	if (path == NULL) {
		memset(&w, 0, sizeof(w));
	} else if (webconfig_load(&w, path, err) < 0) {
		webconfig_free(&w);
		return -1;
	}
	if ((w.tls && (tls = http_tls_new(&w, err)) == NULL) ||
	    (w.nusers > 0 && (auth = http_auth_new(h->d->base, &w, err)) == NULL)) {
		http_tls_free(tls);
		webconfig_free(&w);
		return -1;
	}
	if (path != NULL)
		log_info("prometheus: web_config %s: %s, %zu basic auth users", path,
		         tls != NULL ? "TLS" : "no TLS", w.nusers);
	webconfig_free(&w);
	/* Connections made with the old context keep their SSL objects, which hold a
	 * reference to it. */
	http_tls_free(h->tls);
	h->tls = tls;
	h->auth_failures_before += http_auth_failures(h->auth);
	h->auth_hits_before += http_auth_cache_hits(h->auth);
	http_auth_free(h->auth);
	h->auth = auth;
	return 0;
}

/* Split HOST:PORT ([v6]:PORT) into host (brackets removed) and port. */
static int
split_listen(const char *s, char *host, size_t size, unsigned *port)
{
	const char *colon = strrchr(s, ':');
	size_t n;

	if (colon == NULL)
		return -1;
	n = (size_t)(colon - s);
	if (s[0] == '[' && n >= 2 && s[n - 1] == ']') {
		s++;
		n -= 2;
	}
	if (n == 0 || n >= size)
		return -1;
	memcpy(host, s, n);
	host[n] = '\0';
	*port = (unsigned)strtoul(colon + 1, NULL, 10);
	return 0;
}

void
http_reconfigure(struct http *h)
{
	const struct config *c;
	struct nm_error err;

	if (h == NULL)
		return;
	c = &h->d->config;
	if (prom_configure_from(h->prom, c, &err) < 0)
		log_warnx("http: [prometheus]: %s", err.message);
	if (h->web_loaded)
		h->web_loaded = false;
	else if (load_web_config(h, &err) < 0)
		log_warnx("prometheus: %s; the previous TLS and auth settings stay", err.message);
	evhttp_set_timeout(h->eh, (int)((c->prom_timeout_ms + 999) / 1000));
	/* A lower max_connections takes effect now, slowest first. */
	conn_evict(h, NULL);
	update_listeners(h);
}

int
http_init(struct daemon *d, struct http **out, struct nm_error *err)
{
	char **listen = d->config.prom_listen;
	struct http *h;

	*out = NULL;
	if (listen == NULL || listen[0] == NULL)
		return 0;
	h = xcalloc(1, sizeof(*h));
	h->d = d;
	h->last_scrape_s = -1;
	h->prom = prom_new();
	if ((h->eh = evhttp_new(d->base)) == NULL) {
		free(h);
		return nm_error_set(err, NM_ERR_FAILED, "prometheus: evhttp_new failed");
	}
	/* Every method reaches request_cb, which answers 405 (evhttp itself would say 501). */
	evhttp_set_allowed_methods(h->eh, 0x1ff);
	evhttp_set_max_headers_size(h->eh, 16384);
	evhttp_set_max_body_size(h->eh, 4096);
	evhttp_set_gencb(h->eh, request_cb, h);
	evhttp_set_bevcb(h->eh, conn_new, h);
	h->resume_ev = evtimer_new(d->base, resume_cb, h);
	h->turn_ev = evtimer_new(d->base, turn_cb, h);
	h->sweep_ev = evtimer_new(d->base, sweep_cb, h);
	h->listening = true;
	h->next_instance = instances;
	instances = h;
	for (size_t i = 0; listen[i] != NULL && i < HTTP_MAX_LISTENERS; i++) {
		char host[256];
		unsigned port = 0;
		struct evhttp_bound_socket *b;

		errno = EINVAL; /* a listen value that is not HOST:PORT */
		if (split_listen(listen[i], host, sizeof(host), &port) < 0 ||
		    (b = evhttp_bind_socket_with_handle(h->eh, host, (ev_uint16_t)port)) == NULL) {
			int e = errno;
			nm_error_set(err, NM_ERR_FAILED, "prometheus: cannot listen on %s: %s%s",
			             listen[i], strerror(e),
			             e == EACCES && port < 1024
			                 ? " (a port below 1024 needs CAP_NET_BIND_SERVICE, in the "
			                   "unit's CapabilityBoundingSet=)"
			                 : "");
			http_free(h);
			return -1;
		}
		h->bound[h->nbound++] = b;
		evconnlistener_set_error_cb(evhttp_bound_socket_get_listener(b), listener_error_cb);
		log_info("prometheus: listening on %s", listen[i]);
	}
	h->drift = -1;
	if ((h->drift_ev = event_new(d->base, -1, EV_PERSIST, drift_cb, h)) != NULL) {
		struct timeval tv = {HTTP_DRIFT_CHECK_S, 0};
		event_add(h->drift_ev, &tv);
	}
	if (load_web_config(h, err) < 0) {
		http_free(h);
		return -1;
	}
	h->web_loaded = true;
	http_reconfigure(h);
	*out = h;
	return 0;
}

void
http_free(struct http *h)
{
	if (h == NULL)
		return;
	for (struct http **pp = &instances; *pp != NULL; pp = &(*pp)->next_instance)
		if (*pp == h) {
			*pp = h->next_instance;
			break;
		}
	h->fd_paused = false; /* the sweep below must not touch the listeners */
	if (h->drift_ev != NULL)
		event_free(h->drift_ev);
	if (h->eh != NULL)
		evhttp_free(h->eh);
	/* evhttp_free released every connection: our references are the last. */
	if (h->sweep_ev != NULL)
		conn_sweep(h);
	if (h->sweep_ev != NULL)
		event_free(h->sweep_ev);
	if (h->resume_ev != NULL)
		event_free(h->resume_ev);
	if (h->turn_ev != NULL)
		event_free(h->turn_ev);
	/* After evhttp: the requests waiting for a check went with their connections. */
	http_auth_free(h->auth);
	http_tls_free(h->tls);
	prom_free(h->prom);
	strbuf_free(&h->body);
	http_gzip_free(&h->gz);
	free(h->conns);
	free(h->sources);
	free(h->windows);
	free(h->tests);
	free(h);
}
