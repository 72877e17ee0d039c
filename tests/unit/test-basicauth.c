/* test-basicauth.c: the Basic scheme's credentials (basicauth.c) on known headers: RFC
 * 7617's example, the scheme in any case and spaces after it, an empty user or password, a
 * password with ':' in it; and what is refused: another scheme, no ':', a NUL byte inside,
 * bytes outside base64's alphabet, '=' inside, whitespace after it, a length not a multiple
 * of 4, and more than BASICAUTH_MAX_B64 characters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "basicauth.h"

/* header decodes to want, the user being its first ulen bytes. */
static void
taken(const char *header, const char *want, size_t ulen)
{
	size_t got_ulen = 99;
	char *up = basicauth_decode(header, &got_ulen);

	assert_non_null(up);
	assert_string_equal(up, want);
	assert_int_equal(got_ulen, ulen);
	free(up);
}

/* header is refused. */
static void
refused(const char *header)
{
	size_t ulen = 99;

	assert_null(basicauth_decode(header, &ulen));
	assert_int_equal(ulen, 99);
}

static void
test_taken(void **state)
{
	(void)state;
	taken("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", "Aladdin:open sesame", 7);
	taken("bAsIc   dXNlcjpwYXNz", "user:pass", 4);
	taken("Basic Og==", ":", 0);
	taken("Basic dTo=", "u:", 1);
	taken("Basic dTpwOnc=", "u:p:w", 1); /* the password may hold ':' */
}

static void
test_refused(void **state)
{
	char *big;

	(void)state;
	refused(NULL);
	refused("Bearer dXNlcjpwYXNz");
	refused("Basic");
	refused("Basic ");
	refused("BasicdXNlcjpwYXNz");
	refused("Basic dXNlcnBhc3M=");     /* "userpass": no ':' */
	refused("Basic dXNlcgBwYXNzOng="); /* "user\0pass:x" */
	refused("Basic dXNlcjpwYXN");      /* 15 characters */
	refused("Basic dXNl cjpwYXNz");    /* a space inside */
	refused("Basic dXNlcjpwYXNz    "); /* spaces after */
	refused("Basic dXNl*jpwYXNz");
	refused("Basic dQ==dXNlcjpw"); /* '=' inside */
	refused("Basic ====");
	refused("Basic =dTo");
	/* 4,100 characters of base64: "OkFB" (":AA") then "QUFB" ("AAA") x 1,024. */
	big = malloc(6 + 4100 + 1);
	assert_non_null(big);
	memcpy(big, "Basic OkFB", 10);
	for (size_t i = 10; i < 6 + 4100; i += 4)
		memcpy(big + i, "QUFB", 4);
	big[6 + 4100] = '\0';
	refused(big);
	big[6 + 4096] = '\0'; /* 4,096: the longest taken */
	{
		size_t ulen;
		char *up = basicauth_decode(big, &ulen);
		assert_non_null(up);
		assert_int_equal(ulen, 0);
		assert_int_equal(strlen(up), 3072);
		free(up);
	}
	free(big);
}

/* Run every test in this file. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_taken),
	    cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
