/* fuzz-auth.c: basicauth_decode (daemon/serve/basicauth.c) on a scraper's Authorization header of
 * at most 8 KiB, copied into a buffer of exactly its length plus the NUL evhttp gives it.
 *
 * Invariants: NULL, or a string whose length is what the base64 holds (no NUL inside), with
 * a ':' at *user_len and none before it; a header taken is "Basic " (any case), spaces,
 * then base64 of a length that is a multiple of 4 and at most BASICAUTH_MAX_B64, of its
 * alphabet with '=' only at the end; the bytes taken are all it holds (3 per 4 characters
 * less the padding), and encoding them again gives it back but for the unused bits of its
 * last character. */
#include <openssl/evp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "basicauth.h"
#include "fuzz.h"

#define FUZZ_MAX_INPUT 8192

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *hdr, *up;
	size_t ulen = 0;

	if (size > FUZZ_MAX_INPUT)
		return 0;
	hdr = malloc(size + 1);
	fuzz_check(hdr != NULL);
	memcpy(hdr, data, size);
	hdr[size] = '\0';
	up = basicauth_decode(hdr, &ulen);
	if (up != NULL) {
		const char *b64 = hdr + 6;
		size_t len = strlen(up), n, pad;
		unsigned char *again;

		fuzz_check(strncasecmp(hdr, "Basic ", 6) == 0);
		while (*b64 == ' ')
			b64++;
		n = strlen(b64);
		fuzz_check(n > 0 && n % 4 == 0 && n <= BASICAUTH_MAX_B64);
		fuzz_check(ulen < len && up[ulen] == ':' && memchr(up, ':', ulen) == NULL);
		pad = (b64[n - 1] == '=') + (b64[n - 2] == '=');
		fuzz_check(strspn(b64, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		                       "0123456789+/") == n - pad);
		fuzz_check(len == n / 4 * 3 - pad);
		again = malloc(n + 1);
		fuzz_check(again != NULL);
		fuzz_check(EVP_EncodeBlock(again, (const unsigned char *)up, (int)len) == (int)n);
		/* All but the last character before the padding, whose low bits are unused. */
		fuzz_check(memcmp(again, b64, n - pad - 1) == 0 &&
		           memcmp(again + n - pad, b64 + n - pad, pad) == 0);
		free(again);
		free(up);
	}
	free(hdr);
	return 0;
}
