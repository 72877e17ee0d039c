/* bench-util.c: the benchmarks' clock, pause and median (bench-util.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench-util.h"

uint64_t
bench_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void
bench_pause_ms(unsigned ms)
{
	struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* qsort order of two uint64_t. */
static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t
bench_median(uint64_t *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

bool
bench_sampled_file(const char *rel)
{
	size_t len = strlen(rel);

	if (strncmp(rel, "ethtool/", 8) == 0)
		return len > 4 && strcmp(rel + len - 4, ".txt") == 0;
	return strncmp(rel, "proc/", 5) == 0 && strncmp(rel, "proc/irq/", 9) != 0 &&
	       strncmp(rel, "proc/sys/", 9) != 0 && strcmp(rel, "proc/net/route") != 0;
}
