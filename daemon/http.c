/* http.c: the Prometheus endpoint (see http.h). One request is answered in one callback:
 * prom_render writes the body from memory (no /proc read), it is gzipped when the scraper
 * accepts it and handed to evhttp's output buffer. A slow scraper only keeps its own copy of
 * one bounded body; a connection idle longer than [prometheus] timeout is closed, and past
 * max_connections the listeners stop accepting until one closes. */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "daemon.h"
#include "error.h"
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
#include "window.h"
#include "xmalloc.h"

#define HTTP_MAX_LISTENERS 64
/* How often the applied profile's values are compared with what it wrote (only while one
 * is applied): on a timer, never in a scrape, as it reads /proc and /sys. */
#define HTTP_DRIFT_CHECK_S 5

struct http {
	struct daemon *d;
	struct evhttp *eh;
	struct evhttp_bound_socket *bound[HTTP_MAX_LISTENERS];
	size_t nbound;
	bool paused; /* the listeners are disabled: max_connections reached */
	struct prom *prom;
	struct strbuf body;
	struct http_gzip gz;
	struct evhttp_connection **conns; /* the connections that sent a request and are open */
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

/* Turn accepting on or off on every listener. */
static void
set_accepting(struct http *h, bool on)
{
	if (h->paused == !on)
		return;
	h->paused = !on;
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

/* A connection closed: forget it and accept again. */
static void
conn_closed(struct evhttp_connection *evcon, void *arg)
{
	struct http *h = arg;

	for (size_t i = 0; i < h->nconns; i++) {
		if (h->conns[i] == evcon) {
			h->conns[i] = h->conns[--h->nconns];
			break;
		}
	}
	if (h->nconns < h->d->config.prom_max_connections)
		set_accepting(h, true);
}

/* Count the connection of req. false when it is one too many (the caller refuses it). */
static bool
conn_track(struct http *h, struct evhttp_request *req)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	unsigned max = h->d->config.prom_max_connections;

	if (evcon == NULL)
		return true;
	for (size_t i = 0; i < h->nconns; i++)
		if (h->conns[i] == evcon)
			return true;
	if (h->nconns >= max)
		return false;
	if (h->nconns == h->conncap) {
		h->conncap = h->conncap ? h->conncap * 2 : 8;
		h->conns = xreallocarray(h->conns, h->conncap, sizeof(*h->conns));
	}
	h->conns[h->nconns++] = evcon;
	evhttp_connection_set_closecb(evcon, conn_closed, h);
	if (h->nconns >= max)
		set_accepting(h, false);
	return true;
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
	in->mono_to_real_ns = sampler_mono_to_real(s);
	/* Only the interrupts source's own table: sampler_irq_table would read /proc without. */
	if (irqsrc != NULL && irqsrc->enabled && irqsrc->samples > 0) {
		const struct irq_table *t = sampler_irq_table(s, NULL);
		if (t != NULL && irqtable_has_series(t))
			in->irqtab = t;
	}
	*sources = scratch(*sources, cap, n ? n : 1, sizeof(**sources));
	for (size_t i = 0; i < n; i++) {
		struct source *src = sampler_source_at(s, i);
		(*sources)[i] = (struct prom_source){
		    src->ops->name, src->index,    src->enabled,      src->healthy,
		    src->samples,   src->failures, src->last_cost_ns, src->late_last_ns};
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

/* Every request: /metrics by GET or HEAD; 404 elsewhere, 405 for other methods. */
static void
request_cb(struct evhttp_request *req, void *arg)
{
	struct http *h = arg;
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri != NULL ? evhttp_uri_get_path(uri) : NULL;
	enum evhttp_cmd_type m = evhttp_request_get_command(req);

	if (!conn_track(h, req)) {
		evhttp_add_header(evhttp_request_get_output_headers(req), "Connection", "close");
		evhttp_send_error(req, 503, "Too many connections");
		return;
	}
	if (path == NULL || strcmp(path, "/metrics") != 0) {
		evhttp_send_error(req, HTTP_NOTFOUND, NULL);
		return;
	}
	if (m != EVHTTP_REQ_GET && m != EVHTTP_REQ_HEAD) {
		evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", "GET, HEAD");
		evhttp_send_error(req, 405, "Method Not Allowed");
		return;
	}
	serve_metrics(h, req);
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
	size_t n = 0;

	if (h == NULL)
		return;
	c = &h->d->config;
	while (c->prom_export != NULL && c->prom_export[n] != NULL)
		n++;
	prom_configure(h->prom, (const char *const *)c->prom_export, n, c->prom_max_series);
	evhttp_set_timeout(h->eh, (int)((c->prom_timeout_ms + 999) / 1000));
	set_accepting(h, h->nconns < c->prom_max_connections);
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
		log_info("prometheus: listening on %s", listen[i]);
	}
	h->drift = -1;
	if ((h->drift_ev = event_new(d->base, -1, EV_PERSIST, drift_cb, h)) != NULL) {
		struct timeval tv = {HTTP_DRIFT_CHECK_S, 0};
		event_add(h->drift_ev, &tv);
	}
	http_reconfigure(h);
	*out = h;
	return 0;
}

void
http_free(struct http *h)
{
	if (h == NULL)
		return;
	/* evhttp_free closes the connections, whose close callbacks must not find h gone. */
	for (size_t i = 0; i < h->nconns; i++)
		evhttp_connection_set_closecb(h->conns[i], NULL, NULL);
	if (h->drift_ev != NULL)
		event_free(h->drift_ev);
	if (h->eh != NULL)
		evhttp_free(h->eh);
	prom_free(h->prom);
	strbuf_free(&h->body);
	http_gzip_free(&h->gz);
	free(h->conns);
	free(h->sources);
	free(h->windows);
	free(h->tests);
	free(h);
}
