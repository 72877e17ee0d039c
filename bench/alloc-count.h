/* alloc-count.h: count the allocations a stretch of a benchmark makes. alloc-count.c
 * interposes malloc, calloc and realloc for the whole program; they count only between
 * alloc_count_start() and alloc_count_stop(). Needs glibc (__libc_malloc and friends) and
 * no sanitizer, which interposes them too. */
#ifndef NM_ALLOC_COUNT_H
#define NM_ALLOC_COUNT_H

/* Start counting from zero. */
void alloc_count_start(void);
/* Stop counting; returns the allocations since alloc_count_start() (0 when not started). */
unsigned long alloc_count_stop(void);

#endif
