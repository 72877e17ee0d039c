/* alloc-count.c: allocation counting for the benchmarks. Every malloc, calloc and realloc of
 * the process goes through these (glibc lets a program interpose them and offers the real
 * ones as __libc_*). */
#include <stddef.h>

#include "alloc-count.h"

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t nmemb, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);

static int counting;
static unsigned long allocations;

/* Count, then allocate. */
void *
malloc(size_t size)
{
	allocations += counting;
	return __libc_malloc(size);
}

/* Count, then allocate zeroed. */
void *
calloc(size_t nmemb, size_t size)
{
	allocations += counting;
	return __libc_calloc(nmemb, size);
}

/* Count, then resize. */
void *
realloc(void *ptr, size_t size)
{
	allocations += counting;
	return __libc_realloc(ptr, size);
}

/* Start counting from zero. */
void
alloc_count_start(void)
{
	allocations = 0;
	counting = 1;
}

/* Stop counting and say how many there were. */
unsigned long
alloc_count_stop(void)
{
	unsigned long n = allocations;

	counting = 0;
	allocations = 0;
	return n;
}
