/* http-tls.h: TLS and basic authentication of the Prometheus endpoint, configured by the
 * exporter toolkit's web configuration (webconfig.h).
 *
 * TLS: an OpenSSL context from the certificate, key and client CAs; each accepted
 * connection gets an OpenSSL bufferevent in accepting state (libevent_openssl), which evhttp
 * uses as any other. A handshake the server ends with a fatal alert (no certificate where
 * one is required, one that does not verify, no common protocol) is counted.
 *
 * Basic auth: the Authorization header's user and password are checked against the user's
 * bcrypt hash with libcrypt's crypt_r on a worker thread, never on the event loop: a bcrypt
 * check costs tens of milliseconds by design. A successful check is kept (a SHA-256 of the
 * user, password and hash, at most HTTP_AUTH_CACHE of them) so that repeated scrapes pay
 * bcrypt once; a failed one is not, so every wrong password costs its sender a check. An
 * unknown user is checked against a dummy hash, so that the time does not tell which users
 * exist. At most HTTP_AUTH_QUEUE checks wait at once; past that a request gets 503. */
#ifndef NM_HTTP_TLS_H
#define NM_HTTP_TLS_H

#include <stdbool.h>
#include <stdint.h>

struct bufferevent;
struct event_base;
struct nm_error;
struct webconfig;

#define HTTP_AUTH_CACHE 64
#define HTTP_AUTH_QUEUE 32

struct http_tls;

/* A TLS context from w (w->tls set); NULL with err when a file cannot be read or the key
 * does not match the certificate. */
struct http_tls *http_tls_new(const struct webconfig *w, struct nm_error *err);
void http_tls_free(struct http_tls *t);
/* A bufferevent for a connection to be accepted (fd set later by evhttp), TLS accepting. */
struct bufferevent *http_tls_bev(struct http_tls *t, struct event_base *base);
/* Handshakes the server ended with a fatal alert since the process started, over every
 * context (a reload makes a new one; a counter must not go down). */
uint64_t http_tls_failures(void);

struct http_auth;

enum http_auth_result {
	HTTP_AUTH_OK,      /* let the request in now */
	HTTP_AUTH_DENIED,  /* 401 now: no or malformed credentials */
	HTTP_AUTH_PENDING, /* done(arg, ok) is called later, from the loop */
	HTTP_AUTH_BUSY,    /* too many checks waiting: 503 */
};

/* Basic auth for the users of w (copied), the worker started; NULL with err when the
 * thread cannot be started. */
struct http_auth *http_auth_new(struct event_base *base, const struct webconfig *w,
                                struct nm_error *err);
/* Checks not answered yet are answered BUSY now; a bcrypt in progress is not waited for
 * (the worker finishes it and goes). */
void http_auth_free(struct http_auth *a);
/* Check an Authorization header value (NULL: none). On PENDING done is called once, from
 * the loop, with OK, DENIED (a failure counted already) or BUSY (not checked: the auth was
 * freed first). */
enum http_auth_result http_auth_check(struct http_auth *a, const char *header,
                                      void (*done)(void *arg, enum http_auth_result r), void *arg);
/* Requests refused for their credentials (missing, malformed, unknown user, wrong
 * password), and checks answered from the kept successes. */
uint64_t http_auth_failures(const struct http_auth *a);
uint64_t http_auth_cache_hits(const struct http_auth *a);

#endif
