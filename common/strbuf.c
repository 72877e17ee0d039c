/* strbuf.c: a growable NUL-terminated byte buffer. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "strbuf.h"
#include "xmalloc.h"

#define STRBUF_MIN_CAP 64

/* Make room for extra more bytes plus the NUL, growing by doubling. */
static void
strbuf_reserve(struct strbuf *sb, size_t extra)
{
	size_t need, cap;

	if (__builtin_add_overflow(sb->len, extra, &need) || __builtin_add_overflow(need, 1, &need))
		fatalx("strbuf: size overflows");
	if (need <= sb->cap)
		return;
	cap = sb->cap > 0 ? sb->cap : STRBUF_MIN_CAP;
	while (cap < need)
		cap = cap <= SIZE_MAX / 2 ? cap * 2 : need;
	sb->buf = xreallocarray(sb->buf, cap, 1);
	sb->cap = cap;
}

/* Start with an empty buffer that owns no memory. */
void
strbuf_init(struct strbuf *sb)
{
	sb->buf = NULL;
	sb->len = 0;
	sb->cap = 0;
}

/* Free the memory and leave sb empty and reusable. */
void
strbuf_free(struct strbuf *sb)
{
	free(sb->buf);
	strbuf_init(sb);
}

/* Empty the buffer but keep its memory for reuse. */
void
strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf != NULL)
		sb->buf[0] = '\0';
}

/* Append len bytes, which may include NULs. */
void
strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_reserve(sb, len);
	if (len > 0)
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

/* Append a NUL-terminated string. */
void
strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

/* Append one byte. */
void
strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

/* Append printf-style formatted text, growing once if the first attempt doesn't fit. */
void
strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap, ap2;
	int n;

	strbuf_reserve(sb, 0);
	va_start(ap, fmt);
	va_copy(ap2, ap);
	n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatalx("strbuf_addf: bad format \"%s\"", fmt);
	if ((size_t)n >= sb->cap - sb->len) {
		strbuf_reserve(sb, (size_t)n);
		vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap2);
	}
	va_end(ap2);
	sb->len += (size_t)n;
}

/* Remove the first n bytes (all of them when n >= len), keeping the rest in order. */
void
strbuf_consume(struct strbuf *sb, size_t n)
{
	if (n >= sb->len) {
		strbuf_reset(sb);
		return;
	}
	memmove(sb->buf, sb->buf + n, sb->len - n + 1);
	sb->len -= n;
}

/* Give the caller the buffer (an allocated "" when empty) and its length; sb is reset. */
char *
strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *p;

	p = sb->buf != NULL ? sb->buf : xcalloc(1, 1);
	if (len != NULL)
		*len = sb->len;
	strbuf_init(sb);
	return p;
}
