/* utf8.c: UTF-8 validation and sanitising (see utf8.h). */
#include <stdio.h>
#include <string.h>

#include "utf8.h"
#include "xmalloc.h"

/* The longest text one input byte becomes: "\xNN" (a C1 control, two bytes, becomes six). */
#define UTF8_ESCAPE_MAX 4

/* The length of the valid sequence at s, or 0. */
size_t
utf8_seqlen(const char *buf, size_t len)
{
	const unsigned char *s = (const unsigned char *)buf;
	unsigned char c, lo = 0x80, hi = 0xbf;
	size_t need;

	if (len == 0)
		return 0;
	c = s[0];
	if (c < 0x80)
		return 1;
	/* The second byte's range excludes overlongs (E0, F0), surrogates (ED) and code
	 * points above U+10FFFF (F4); C0, C1 and F5..FF never start a sequence. */
	if (c >= 0xc2 && c <= 0xdf) {
		need = 1;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 2;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 3;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	if (len - 1 < need || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t k = 2; k <= need; k++)
		if ((s[k] & 0xc0) != 0x80)
			return 0;
	return need + 1;
}

/* Is s[0..len) valid UTF-8? */
bool
utf8_valid(const char *s, size_t len)
{
	size_t i = 0, n;

	while (i < len) {
		if ((n = utf8_seqlen(s + i, len - i)) == 0)
			return false;
		i += n;
	}
	return true;
}

/* The escape of the unit of n bytes at s into out (at least 7 bytes), or "" when it stays
 * as it is; n is 0 for a byte outside any valid sequence. */
static size_t
escape_of(const unsigned char *s, size_t n, unsigned flags, char *out)
{
	if (n == 0)
		return (size_t)snprintf(out, 7, "\\x%02X", s[0]);
	if (n == 1 && (s[0] < 0x20 || s[0] == 0x7f)) {
		if ((flags & UTF8_KEEP_NEWLINE) && (s[0] == '\n' || s[0] == '\t'))
			return 0;
		return (size_t)snprintf(out, 7, "\\x%02X", s[0]);
	}
	if (n == 2 && s[0] == 0xc2 && s[1] < 0xa0)
		return (size_t)snprintf(out, 7, "\\u%04X", s[1]);
	return 0;
}

/* Sanitise into a buffer, cutting between characters. */
size_t
utf8_sanitize(char *dst, size_t size, const char *src, size_t len, unsigned flags)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t i = 0, out = 0;

	if (size == 0)
		return 0;
	while (i < len) {
		size_t n = utf8_seqlen(src + i, len - i), take;
		char esc[8];
		size_t elen = escape_of(s + i, n, flags, esc);

		take = elen > 0 ? elen : n;
		if (take > size - 1 - out)
			break;
		memcpy(dst + out, elen > 0 ? esc : src + i, take);
		out += take;
		i += n > 0 ? n : 1;
	}
	dst[out] = '\0';
	return out;
}

/* Sanitise into a new string. */
char *
utf8_sanitize_dup(const char *src, size_t len, unsigned flags)
{
	size_t size = len * UTF8_ESCAPE_MAX + 1;
	char *dst = xmalloc(size);

	utf8_sanitize(dst, size, src, len, flags);
	return dst;
}

/* Would sanitising change s? */
bool
utf8_needs_sanitize(const char *src, size_t len, unsigned flags)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t i = 0;

	while (i < len) {
		size_t n = utf8_seqlen(src + i, len - i);
		char esc[8];

		if (n == 0 || escape_of(s + i, n, flags, esc) > 0)
			return true;
		i += n;
	}
	return false;
}
