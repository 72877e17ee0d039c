/* strbuf.h: a growable NUL-terminated byte buffer. */
#ifndef NM_STRBUF_H
#define NM_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *buf; /* always NUL-terminated once anything was added; owned */
	size_t len;
	size_t cap;
};

#define STRBUF_INIT                                                                                \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}

void strbuf_init(struct strbuf *sb);
void strbuf_free(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb); /* len = 0, keeps the memory */
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Remove the first n bytes. */
void strbuf_consume(struct strbuf *sb, size_t n);
/* Hand the buffer to the caller (who frees it) and reset sb. Never NULL. */
char *strbuf_detach(struct strbuf *sb, size_t *len);

#endif
