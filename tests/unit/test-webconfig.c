/* test-webconfig.c: the exporter toolkit's web configuration (webconfig.c) and the
 * endpoint's basic auth (http-tls.c): the keys read, paths made absolute, what is refused;
 * a right password let in after bcrypt on the worker and then from the kept check, a wrong
 * one and an unknown user refused each time, malformed headers refused at once. */
#include <event2/event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "error.h"
#include "http-tls.h"
#include "webconfig.h"

/* bcrypt of "s3cret" (cost 4: quick). */
#define HASH "$2b$04$CCCCCCCCCCCCCCCCCCCCC.M/0YOTQsEsxvSuaLRQqYfWOtZrTO/D2"

/* A web configuration file with text; its path (static). */
static const char *
write_web(const char *text)
{
	static char path[] = "/tmp/nm-test-web-XXXXXX";
	int fd;

	strcpy(path, "/tmp/nm-test-web-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* The keys: relative paths against the file's directory, client_auth_type, min_version,
 * users. */
static void
test_load(void **state)
{
	struct webconfig w;
	struct nm_error err;
	const char *p = write_web("tls_server_config:\n  cert_file: s.crt\n  key_file: /k/s.key\n"
	                          "  client_ca_file: ca.crt\n"
	                          "  client_auth_type: RequireAndVerifyClientCert\n"
	                          "  min_version: TLS13\n"
	                          "basic_auth_users:\n  alice: '" HASH "'\n  bob: " HASH "\n");

	(void)state;
	assert_int_equal(webconfig_load(&w, p, &err), 0);
	assert_true(w.tls);
	assert_string_equal(w.cert_file, "/tmp/s.crt");
	assert_string_equal(w.key_file, "/k/s.key");
	assert_string_equal(w.client_ca_file, "/tmp/ca.crt");
	assert_int_equal(w.client_auth, WEBCONFIG_REQUIRE_AND_VERIFY_CLIENT_CERT);
	assert_int_equal(w.min_version, 0x0304);
	assert_int_equal(w.nusers, 2);
	assert_string_equal(webconfig_user_hash(&w, "bob"), HASH);
	assert_null(webconfig_user_hash(&w, "carol"));
	webconfig_free(&w);
	unlink(p);
}

/* What is refused: unknown keys, a hash that is not bcrypt, TLS without a key, a verifying
 * client_auth_type without client_ca_file, an unknown client_auth_type, bad YAML. */
static void
test_refused(void **state)
{
	static const char *const bad[] = {
	    "http_server_config:\n  http2: false\n",
	    "tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suites: [x]\n",
	    "basic_auth_users:\n  alice: $1$abc$def\n",
	    "tls_server_config:\n  cert_file: a\n",
	    "tls_server_config:\n  cert_file: a\n  key_file: b\n"
	    "  client_auth_type: VerifyClientCertIfGiven\n",
	    "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: Maybe\n",
	    "basic_auth_users: [alice]\n",
	    "tls_server_config: {cert_file: a, key_file: [b\n",
	};
	struct webconfig w;
	struct nm_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *p = write_web(bad[i]);
		if (webconfig_load(&w, p, &err) == 0)
			fail_msg("accepted: %s", bad[i]);
		webconfig_free(&w);
		unlink(p);
	}
	assert_int_equal(webconfig_load(&w, "/nonexistent/web.yml", &err), -1);
	webconfig_free(&w);
}

struct answer {
	int n;
	bool ok;
	enum http_auth_result r;
	struct event_base *base;
};

static void
done(void *arg, enum http_auth_result r)
{
	struct answer *a = arg;

	a->n++;
	a->ok = r == HTTP_AUTH_OK;
	a->r = r;
	if (a->base != NULL)
		event_base_loopbreak(a->base);
}

/* Check header and wait for the worker's answer (or take the immediate one). */
static enum http_auth_result
check(struct http_auth *auth, struct event_base *base, const char *header, struct answer *a)
{
	enum http_auth_result r;

	a->n = 0;
	a->base = base;
	r = http_auth_check(auth, header, done, a);
	if (r == HTTP_AUTH_PENDING) {
		event_base_dispatch(base);
		assert_int_equal(a->n, 1);
	}
	return r;
}

/* alice:s3cret is "YWxpY2U6czNjcmV0"; alice:wrong "YWxpY2U6d3Jvbmc="; carol:s3cret
 * "Y2Fyb2w6czNjcmV0". */
static void
test_basic_auth(void **state)
{
	struct event_base *base = event_base_new();
	const char *p = write_web("basic_auth_users:\n  alice: '" HASH "'\n");
	struct http_auth *auth;
	struct webconfig w;
	struct nm_error err;
	struct answer a;

	(void)state;
	assert_int_equal(webconfig_load(&w, p, &err), 0);
	auth = http_auth_new(base, &w, &err);
	assert_non_null(auth);
	webconfig_free(&w);
	unlink(p);
	assert_int_equal(check(auth, base, "Basic YWxpY2U6czNjcmV0", &a), HTTP_AUTH_PENDING);
	assert_true(a.ok);
	/* Kept: no bcrypt the second time. */
	assert_int_equal(check(auth, base, "Basic YWxpY2U6czNjcmV0", &a), HTTP_AUTH_OK);
	assert_int_equal(http_auth_cache_hits(auth), 1);
	assert_int_equal(check(auth, base, "Basic YWxpY2U6d3Jvbmc=", &a), HTTP_AUTH_PENDING);
	assert_false(a.ok);
	assert_int_equal(check(auth, base, "Basic YWxpY2U6d3Jvbmc=", &a), HTTP_AUTH_PENDING);
	assert_false(a.ok);
	assert_int_equal(check(auth, base, "Basic Y2Fyb2w6czNjcmV0", &a), HTTP_AUTH_PENDING);
	assert_false(a.ok);
	assert_int_equal(check(auth, base, NULL, &a), HTTP_AUTH_DENIED);
	assert_int_equal(check(auth, base, "Bearer abc", &a), HTTP_AUTH_DENIED);
	assert_int_equal(check(auth, base, "Basic !!!!", &a), HTTP_AUTH_DENIED);
	assert_int_equal(check(auth, base, "Basic YWxpY2U=", &a), HTTP_AUTH_DENIED); /* no ':' */
	assert_int_equal(http_auth_failures(auth), 7);
	http_auth_free(auth);
	event_base_free(base);
}

/* Threads of this process. */
static int
threads(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	int n = -1;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* Freeing the auth (a reload) while bcrypt runs answers the check BUSY at once and leaves
 * the worker to finish on its own: it used to join the worker, and the loop stood still
 * for the whole hash (a second at cost 14; this one is cost 16). */
static void
test_free_during_a_check(void **state)
{
	struct event_base *base = event_base_new();
	const char *p =
	    write_web("basic_auth_users:\n  alice: "
	              "'$2b$16$CCCCCCCCCCCCCCCCCCCCC.M/0YOTQsEsxvSuaLRQqYfWOtZrTO/D2'\n");
	struct http_auth *auth;
	struct webconfig w;
	struct nm_error err;
	struct answer a = {0};
	int before;

	(void)state;
	/* The workers of earlier tests end on their own, soon after their free. */
	for (int i = 0; i < 500 && threads() > 1; i++)
		usleep(10 * 1000);
	before = threads();
	assert_int_equal(webconfig_load(&w, p, &err), 0);
	auth = http_auth_new(base, &w, &err);
	assert_non_null(auth);
	webconfig_free(&w);
	unlink(p);
	assert_int_equal(threads(), before + 1);
	assert_int_equal(http_auth_check(auth, "Basic YWxpY2U6czNjcmV0", done, &a),
	                 HTTP_AUTH_PENDING);
	usleep(100 * 1000); /* the worker takes the job: seconds of bcrypt from here */
	http_auth_free(auth);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.r, HTTP_AUTH_BUSY);
	/* Not joined: the worker is still hashing (it frees what it holds as it ends). */
	assert_int_equal(threads(), before + 1);
	event_base_free(base);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_load),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_basic_auth),
	    cmocka_unit_test(test_free_during_a_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
