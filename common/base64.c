/* base64.c: RFC 4648 base64 encoding. */
#include "base64.h"
#include "xmalloc.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *
base64_encode(const uint8_t *buf, size_t len)
{
	char *out = xmalloc((len + 2) / 3 * 4 + 1), *p = out;

	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)buf[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)buf[i + 1] << 8;
		if (i + 2 < len)
			v |= buf[i + 2];
		*p++ = alphabet[(v >> 18) & 63];
		*p++ = alphabet[(v >> 12) & 63];
		*p++ = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
		*p++ = i + 2 < len ? alphabet[v & 63] : '=';
	}
	*p = '\0';
	return out;
}
