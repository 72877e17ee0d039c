/* basicauth.c: the Basic scheme's credentials (see basicauth.h). The base64 is OpenSSL's
 * decoder (EVP_DecodeBlock), which the endpoint links for TLS anyway; what is checked here is
 * what it does not: the alphabet, the padding it counts as data, the length, NUL bytes and
 * the ':'. */
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "basicauth.h"
#include "xmalloc.h"

char *
basicauth_decode(const char *header, size_t *user_len)
{
	size_t n, pad;
	unsigned char *out;
	const char *colon;
	int len;

	if (header == NULL || strncasecmp(header, "Basic ", 6) != 0)
		return NULL;
	header += 6;
	while (*header == ' ')
		header++;
	n = strlen(header);
	if (n == 0 || n % 4 != 0 || n > BASICAUTH_MAX_B64)
		return NULL;
	/* Base64's alphabet only, '=' only as the last one or two (EVP_DecodeBlock would also
	 * take whitespace around it and '=' inside). */
	pad = (header[n - 1] == '=') + (header[n - 1] == '=' && header[n - 2] == '=');
	for (size_t i = 0; i < n - pad; i++) {
		char c = header[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '+' || c == '/'))
			return NULL;
	}
	/* EVP_DecodeBlock decodes '=' as zero bytes and counts them: take them off again. */
	out = xmalloc(n / 4 * 3 + 1);
	len = EVP_DecodeBlock(out, (const unsigned char *)header, (int)n);
	if (len < 0 || (size_t)len < pad) {
		free(out);
		return NULL;
	}
	len -= (int)pad;
	out[len] = '\0';
	colon = memchr(out, ':', (size_t)len);
	if (memchr(out, '\0', (size_t)len) != NULL || colon == NULL) {
		explicit_bzero(out, (size_t)len);
		free(out);
		return NULL;
	}
	*user_len = (size_t)(colon - (const char *)out);
	return (char *)out;
}
