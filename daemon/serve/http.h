/* http.h: the Prometheus endpoint: GET /metrics over libevent's evhttp on the daemon's base,
 * rendered by prom.c from the ring's newest sample. Off unless [prometheus] has a listen
 * line. */
#ifndef NM_HTTP_H
#define NM_HTTP_H

#include <stddef.h>

#include "strbuf.h"

struct config;
struct daemon;
struct http;
struct nm_error;
struct prom_input;
struct prom_source;
struct sampler;

/* Bind every [prometheus] listen address on d->base (at start, before the privilege drop, so
 * that a port below 1024 works). *out is NULL when none is configured. 0, or -1 with err. */
int http_init(struct daemon *d, struct http **out, struct nm_error *err);
/* Take the export lines, max_series, max_connections and timeout of d->config again (a
 * reload; the listen addresses are bound at start only). h may be NULL. */
void http_reconfigure(struct http *h);
/* Fill in what a scrape shows of the sampler: registry, ring, IRQ table (the interrupts
 * source's own, never a read), sources (into *sources, grown to *cap as needed; the caller
 * frees it) and ring sizes; no windows, tests or profile. For http.c and the benchmark. */
void http_prom_input(struct sampler *s, struct prom_source **sources, size_t *cap,
                     struct prom_input *in);
/* A kept gzip compressor (level 1) and its output: a reply compressed into out reuses both. */
struct z_stream_s;
struct http_gzip {
	struct z_stream_s *z; /* NULL until the first use */
	struct strbuf out;
};
/* Gzip buf[0..len) into g->out. 0, or -1 (send it plain). */
int http_gzip(struct http_gzip *g, const char *buf, size_t len);
void http_gzip_free(struct http_gzip *g);
/* Check c's [prometheus] web_config as a start would (the YAML, the certificate, key and
 * client CA loaded into a TLS context), for --check-config. 0 (also when none is set), or
 * -1 with err. */
int http_check_web_config(const struct config *c, struct nm_error *err);
/* Close the listeners and the connections. h may be NULL. */
void http_free(struct http *h);

#endif
