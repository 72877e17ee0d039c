/* bench-util.h: what every benchmark here measures with: the process's CPU time, a pause
 * of the sampling interval between rounds (caches as cold as in service), and medians. */
#ifndef NM_BENCH_UTIL_H
#define NM_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* CPU time of the process, ns. */
uint64_t bench_cpu_ns(void);
/* Sleep ms milliseconds (resumed after a signal). */
void bench_pause_ms(unsigned ms);
/* The median of v[0..n) (sorts v); 0 when n is 0. */
uint64_t bench_median(uint64_t *v, size_t n);

#endif
