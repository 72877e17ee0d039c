/* basicauth.h: the credentials of an HTTP Authorization header of the Basic scheme
 * (RFC 7617), for the Prometheus endpoint's basic auth (http-tls.c). The header is a
 * scraper's bytes: untrusted, fuzzed (tests/fuzz/fuzz-auth.c). */
#ifndef NM_BASICAUTH_H
#define NM_BASICAUTH_H

#include <stddef.h>

/* Longest base64 credentials taken (3 KiB of user:password). */
#define BASICAUTH_MAX_B64 4096

/* "Basic BASE64" (scheme case-insensitive, spaces after it) decoded into a new
 * "user:password" string, NUL-terminated, with *user_len the length of user (up to the
 * first ':'). NULL when header is NULL, of another scheme, not base64 with padding (its
 * alphabet only, '=' only at the end; nothing after it), longer than BASICAUTH_MAX_B64, or when
 * what it holds has a NUL byte or no ':'. The caller wipes (explicit_bzero) and frees it. */
char *basicauth_decode(const char *header, size_t *user_len);

#endif
