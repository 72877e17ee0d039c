/* xmalloc.h: allocation that aborts when memory runs out. */
#ifndef NM_XMALLOC_H
#define NM_XMALLOC_H

#include <stddef.h>

/* All return memory the caller frees with free(); none returns NULL. */
void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Exactly n bytes of p and a NUL, even when p holds NUL bytes (text read from a file: a
 * later reader may rely on n bytes being there). */
char *xmemdupz(const void *p, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
