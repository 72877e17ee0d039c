/* bench-util.h: what every benchmark here measures with: the process's CPU time, a pause
 * of the sampling interval between rounds (caches as cold as in service), and medians. */
#ifndef NM_BENCH_UTIL_H
#define NM_BENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CPU time of the process, ns. */
uint64_t bench_cpu_ns(void);
/* Sleep ms milliseconds (resumed after a signal). */
void bench_pause_ms(unsigned ms);
/* The median of v[0..n) (sorts v); 0 when n is 0. */
uint64_t bench_median(uint64_t *v, size_t n);

/* Whether the sources read the file rel (below a fixture root) every sample: the /proc files
 * of the sources and the `ethtool -S` text of each device. /proc/irq and /sys files are read
 * when the set of IRQs or devices changes, not per sample; /proc/sys holds no counter the
 * default configuration reads; proc/net/route and ethtool/DEV.channels and DEV.features are
 * for tuning profiles. bench-daemon and bare-read (and bench-service.py, in Python) read the
 * same set. */
bool bench_sampled_file(const char *rel);

#endif
