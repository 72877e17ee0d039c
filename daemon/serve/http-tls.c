/* http-tls.c: TLS contexts and basic authentication of the Prometheus endpoint (see
 * http-tls.h). */
#include <crypt.h>
#include <errno.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "basicauth.h"
#include "error.h"
#include "http-tls.h"
#include "log.h"
#include "webconfig.h"
#include "xmalloc.h"

/* ---- TLS ---- */

struct http_tls {
	SSL_CTX *ctx;
};

/* Handshakes the server ended with a fatal alert, over every context this process made: a
 * connection keeps the context it was accepted with past a reload that frees ours, so the
 * count cannot live in one. The loop's thread only. */
static uint64_t handshake_failures;

/* Count the handshakes the server ends with a fatal alert. */
static void
info_cb(const SSL *ssl, int where, int ret)
{
	(void)ssl;
	if ((where & SSL_CB_ALERT) && (where & SSL_CB_WRITE) &&
	    strcmp(SSL_alert_type_string(ret), "F") == 0)
		handshake_failures++;
}

/* Accept any certificate (RequestClientCert, RequireAnyClientCert: asked for, not
 * verified). */
static int
verify_any(int ok, X509_STORE_CTX *ctx)
{
	(void)ok;
	(void)ctx;
	return 1;
}

/* The last OpenSSL error as text. */
static const char *
ssl_error(void)
{
	static char buf[256];

	ERR_error_string_n(ERR_get_error(), buf, sizeof(buf));
	return buf;
}

struct http_tls *
http_tls_new(const struct webconfig *w, struct nm_error *err)
{
	struct http_tls *t = xcalloc(1, sizeof(*t));
	int mode = SSL_VERIFY_NONE;

	t->ctx = SSL_CTX_new(TLS_server_method());
	if (t->ctx == NULL) {
		nm_error_set(err, NM_ERR_FAILED, "tls: %s", ssl_error());
		goto fail;
	}
	SSL_CTX_set_min_proto_version(t->ctx, w->min_version);
	SSL_CTX_set_info_callback(t->ctx, info_cb);
	if (SSL_CTX_use_certificate_chain_file(t->ctx, w->cert_file) != 1) {
		nm_error_set(err, NM_ERR_FAILED, "tls: cert_file %s: %s", w->cert_file,
		             ssl_error());
		goto fail;
	}
	if (SSL_CTX_use_PrivateKey_file(t->ctx, w->key_file, SSL_FILETYPE_PEM) != 1 ||
	    SSL_CTX_check_private_key(t->ctx) != 1) {
		nm_error_set(err, NM_ERR_FAILED, "tls: key_file %s: %s", w->key_file, ssl_error());
		goto fail;
	}
	if (w->client_ca_file != NULL) {
		STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(w->client_ca_file);
		if (names == NULL ||
		    SSL_CTX_load_verify_locations(t->ctx, w->client_ca_file, NULL) != 1) {
			if (names != NULL)
				sk_X509_NAME_pop_free(names, X509_NAME_free);
			nm_error_set(err, NM_ERR_FAILED, "tls: client_ca_file %s: %s",
			             w->client_ca_file, ssl_error());
			goto fail;
		}
		SSL_CTX_set_client_CA_list(t->ctx, names);
	}
	switch (w->client_auth) {
	case WEBCONFIG_NO_CLIENT_CERT:
		break;
	case WEBCONFIG_REQUEST_CLIENT_CERT:
		SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, verify_any);
		break;
	case WEBCONFIG_REQUIRE_ANY_CLIENT_CERT:
		SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT,
		                   verify_any);
		break;
	case WEBCONFIG_VERIFY_CLIENT_CERT_IF_GIVEN:
		mode = SSL_VERIFY_PEER;
		SSL_CTX_set_verify(t->ctx, mode, NULL);
		break;
	case WEBCONFIG_REQUIRE_AND_VERIFY_CLIENT_CERT:
		mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
		SSL_CTX_set_verify(t->ctx, mode, NULL);
		break;
	}
	/* No session resumption across contexts: a reload makes a new context. */
	SSL_CTX_set_session_id_context(t->ctx, (const unsigned char *)"netmetricsd", 11);
	return t;
fail:
	http_tls_free(t);
	return NULL;
}

void
http_tls_free(struct http_tls *t)
{
	if (t == NULL)
		return;
	SSL_CTX_free(t->ctx);
	free(t);
}

struct bufferevent *
http_tls_bev(struct http_tls *t, struct event_base *base)
{
	SSL *ssl = SSL_new(t->ctx);

	if (ssl == NULL)
		return NULL;
	return bufferevent_openssl_socket_new(base, -1, ssl, BUFFEREVENT_SSL_ACCEPTING,
	                                      BEV_OPT_CLOSE_ON_FREE);
}

uint64_t
http_tls_failures(void)
{
	return handshake_failures;
}

/* ---- basic auth ---- */

/* A check on its way: the worker fills ok. */
struct auth_job {
	struct auth_job *next;
	char *user_pass; /* "user:password", wiped when done */
	size_t ulen;     /* of the user part */
	char *hash;      /* the user's (a copy: the job may outlive its http_auth), or NULL */
	unsigned char digest[32];
	bool known, ok;
	void (*done)(void *arg, enum http_auth_result r);
	void *arg;
};

/* What the loop and the worker share, under lock. The worker frees it as it exits: freeing
 * the http_auth only tells it to stop, and never waits for a bcrypt in progress (a cost 14
 * hash takes a second; a reload must not stall the loop that long). */
struct auth_queue {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct auth_job *waiting, *done;
	struct auth_job *running; /* the one being checked, answered by the loop on a stop */
	bool stop;
	int notify; /* the pipe's write end: a byte per job done */
};

struct http_auth {
	struct webconfig_user *users;
	size_t nusers;
	unsigned char cache[HTTP_AUTH_CACHE][32];
	size_t ncache, cache_next;
	uint64_t failures, hits;
	size_t pending;
	struct auth_queue *q;
	int pipe_in; /* the pipe's read end */
	struct event *ev;
};

/* A bcrypt hash no password matches, checked for unknown users (cost 10, as the toolkit's
 * examples). */
static const char dummy_hash[] = "$2b$10$netmetricsdummysaltAbeAHp5siENMn2JTG/lwpCYOehDUILMe2K";

/* Free a job, its password wiped. */
static void
job_free(struct auth_job *j)
{
	explicit_bzero(j->user_pass, strlen(j->user_pass));
	free(j->user_pass);
	free(j->hash);
	free(j);
}

static void
queue_free(struct auth_queue *q)
{
	if (q->notify >= 0)
		close(q->notify);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->cond);
	free(q);
}

/* Check every job handed over until told to stop; then free the queue. */
static void *
worker(void *arg)
{
	struct auth_queue *q = arg;
	struct crypt_data *cd = xcalloc(1, sizeof(*cd));

	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct auth_job *j;
		const char *out, *hash;
		while (q->waiting == NULL && !q->stop)
			pthread_cond_wait(&q->cond, &q->lock);
		if (q->stop)
			break;
		j = q->waiting;
		q->waiting = j->next;
		q->running = j;
		pthread_mutex_unlock(&q->lock);
		/* crypt_rn, not crypt_r: same function, but gcc 12's AddressSanitizer intercepts
		 * crypt_r and calls a null pointer for it (libxcrypt's is not found), so the
		 * sanitizer build crashed here. */
		hash = j->hash != NULL ? j->hash : dummy_hash;
		out = crypt_rn(j->user_pass + j->ulen + 1, hash, cd, (int)sizeof(*cd));
		j->ok = j->known && out != NULL && out[0] != '*' && strcmp(out, hash) == 0;
		pthread_mutex_lock(&q->lock);
		q->running = NULL;
		if (q->stop) {
			/* Answered by the loop already. */
			job_free(j);
			break;
		}
		j->next = q->done;
		q->done = j;
		if (write(q->notify, "x", 1) < 0 && errno != EAGAIN)
			log_warn("http: auth worker");
	}
	pthread_mutex_unlock(&q->lock);
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	queue_free(q);
	return NULL;
}

/* Remember a successful check. */
static void
cache_add(struct http_auth *a, const unsigned char d[32])
{
	memcpy(a->cache[a->cache_next], d, 32);
	a->cache_next = (a->cache_next + 1) % HTTP_AUTH_CACHE;
	if (a->ncache < HTTP_AUTH_CACHE)
		a->ncache++;
}

/* The loop's side: answer the jobs the worker has done. */
static void
done_cb(evutil_socket_t fd, short what, void *arg)
{
	struct http_auth *a = arg;
	struct auth_job *list, *next;
	char buf[64];

	(void)what;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	pthread_mutex_lock(&a->q->lock);
	list = a->q->done;
	a->q->done = NULL;
	pthread_mutex_unlock(&a->q->lock);
	for (; list != NULL; list = next) {
		next = list->next;
		a->pending--;
		if (list->ok)
			cache_add(a, list->digest);
		else
			a->failures++;
		list->done(list->arg, list->ok ? HTTP_AUTH_OK : HTTP_AUTH_DENIED);
		job_free(list);
	}
}

struct http_auth *
http_auth_new(struct event_base *base, const struct webconfig *w, struct nm_error *err)
{
	struct http_auth *a = xcalloc(1, sizeof(*a));
	struct auth_queue *q = xcalloc(1, sizeof(*q));
	pthread_t thread;
	int fds[2];

	a->users = xcalloc(w->nusers ? w->nusers : 1, sizeof(*a->users));
	for (size_t i = 0; i < w->nusers; i++) {
		a->users[i].name = xstrdup(w->users[i].name);
		a->users[i].hash = xstrdup(w->users[i].hash);
	}
	a->nusers = w->nusers;
	a->pipe_in = -1;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cond, NULL);
	q->notify = -1;
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0) {
		nm_error_set(err, NM_ERR_FAILED, "http: auth: pipe: %s", strerror(errno));
		queue_free(q);
		http_auth_free(a);
		return NULL;
	}
	a->pipe_in = fds[0];
	q->notify = fds[1];
	if (pthread_create(&thread, NULL, worker, q) != 0) {
		nm_error_set(err, NM_ERR_FAILED, "http: auth: cannot start its thread");
		queue_free(q);
		http_auth_free(a);
		return NULL;
	}
	pthread_detach(thread);
	a->q = q;
	a->ev = event_new(base, a->pipe_in, EV_READ | EV_PERSIST, done_cb, a);
	event_add(a->ev, NULL);
	return a;
}

void
http_auth_free(struct http_auth *a)
{
	struct auth_job *waiting = NULL, *done = NULL, *running = NULL, *j, *next;

	if (a == NULL)
		return;
	if (a->q != NULL) {
		/* The worker frees the queue, the jobs left in it answered here. */
		pthread_mutex_lock(&a->q->lock);
		a->q->stop = true;
		waiting = a->q->waiting;
		done = a->q->done;
		running = a->q->running;
		a->q->waiting = a->q->done = NULL;
		pthread_cond_signal(&a->q->cond);
		pthread_mutex_unlock(&a->q->lock);
	}
	/* Jobs not answered: not checked, so BUSY (503), not refused. The running one is the
	 * worker's to free. */
	for (int list = 0; list < 2; list++)
		for (j = list ? done : waiting; j != NULL; j = next) {
			next = j->next;
			j->done(j->arg, HTTP_AUTH_BUSY);
			job_free(j);
		}
	if (running != NULL)
		running->done(running->arg, HTTP_AUTH_BUSY);
	if (a->ev != NULL)
		event_free(a->ev);
	if (a->pipe_in >= 0)
		close(a->pipe_in);
	for (size_t i = 0; i < a->nusers; i++) {
		free(a->users[i].name);
		free(a->users[i].hash);
	}
	free(a->users);
	free(a);
}

enum http_auth_result
http_auth_check(struct http_auth *a, const char *header,
                void (*done)(void *arg, enum http_auth_result r), void *arg)
{
	size_t ulen = 0;
	char *up = basicauth_decode(header, &ulen);
	const char *hash = NULL;
	struct auth_job *j;
	unsigned char d[32];
	unsigned int dlen = 0;
	EVP_MD_CTX *md;

	if (up == NULL) {
		a->failures++;
		return HTTP_AUTH_DENIED;
	}
	for (size_t i = 0; i < a->nusers; i++)
		if (strlen(a->users[i].name) == ulen && memcmp(a->users[i].name, up, ulen) == 0)
			hash = a->users[i].hash;
	md = EVP_MD_CTX_new();
	EVP_DigestInit_ex(md, EVP_sha256(), NULL);
	EVP_DigestUpdate(md, up, strlen(up) + 1);
	if (hash != NULL)
		EVP_DigestUpdate(md, hash, strlen(hash));
	EVP_DigestFinal_ex(md, d, &dlen);
	EVP_MD_CTX_free(md);
	for (size_t i = 0; hash != NULL && i < a->ncache; i++)
		if (CRYPTO_memcmp(a->cache[i], d, 32) == 0) {
			a->hits++;
			explicit_bzero(up, strlen(up));
			free(up);
			return HTTP_AUTH_OK;
		}
	if (a->pending >= HTTP_AUTH_QUEUE) {
		explicit_bzero(up, strlen(up));
		free(up);
		return HTTP_AUTH_BUSY;
	}
	j = xcalloc(1, sizeof(*j));
	j->user_pass = up;
	j->ulen = ulen;
	j->known = hash != NULL;
	j->hash = hash != NULL ? xstrdup(hash) : NULL;
	memcpy(j->digest, d, 32);
	j->done = done;
	j->arg = arg;
	a->pending++;
	pthread_mutex_lock(&a->q->lock);
	j->next = NULL;
	if (a->q->waiting == NULL)
		a->q->waiting = j;
	else {
		struct auth_job *t = a->q->waiting;
		while (t->next != NULL)
			t = t->next;
		t->next = j;
	}
	pthread_cond_signal(&a->q->cond);
	pthread_mutex_unlock(&a->q->lock);
	return HTTP_AUTH_PENDING;
}

uint64_t
http_auth_failures(const struct http_auth *a)
{
	return a != NULL ? a->failures : 0;
}

uint64_t
http_auth_cache_hits(const struct http_auth *a)
{
	return a != NULL ? a->hits : 0;
}
