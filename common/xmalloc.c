/* xmalloc.c: allocation that ends the program with a message when memory runs out. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "xmalloc.h"

/* Allocate size bytes; a zero size gets one byte so that NULL always means failure. */
void *
xmalloc(size_t size)
{
	void *p;

	if (size == 0)
		size = 1;
	p = malloc(size);
	if (p == NULL)
		fatalx("xmalloc: out of memory allocating %zu bytes", size);
	return p;
}

/* Allocate a zeroed array of nmemb elements of size bytes. */
void *
xcalloc(size_t nmemb, size_t size)
{
	void *p;

	if (nmemb == 0 || size == 0)
		nmemb = size = 1;
	p = calloc(nmemb, size);
	if (p == NULL)
		fatalx("xcalloc: out of memory allocating %zu x %zu bytes", nmemb, size);
	return p;
}

/* Resize ptr to nmemb elements of size bytes, checking the multiplication for overflow. */
void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	size_t total;
	void *p;

	if (__builtin_mul_overflow(nmemb, size, &total))
		fatalx("xreallocarray: %zu x %zu bytes overflows", nmemb, size);
	/* realloc(ptr, 0) may free ptr and return NULL; keep one byte instead. */
	if (total == 0)
		total = 1;
	p = realloc(ptr, total);
	if (p == NULL)
		fatalx("xreallocarray: out of memory allocating %zu bytes", total);
	return p;
}

/* Copy a NUL-terminated string. */
char *
xstrdup(const char *s)
{
	char *p;

	p = strdup(s);
	if (p == NULL)
		fatalx("xstrdup: out of memory");
	return p;
}

/* Copy at most n bytes of s and NUL-terminate the copy. */
char *
xstrndup(const char *s, size_t n)
{
	char *p;

	p = strndup(s, n);
	if (p == NULL)
		fatalx("xstrndup: out of memory");
	return p;
}

/* Format into a newly allocated string. */
char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatalx("xasprintf: out of memory");
	return p;
}

/* Copy exactly n bytes and terminate them. */
char *
xmemdupz(const void *p, size_t n)
{
	char *s = xmalloc(n + 1);

	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}
