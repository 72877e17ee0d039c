/* timeutil.c: clocks and time formatting. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "timeutil.h"

#define NS_PER_US  UINT64_C(1000)
#define NS_PER_MS  UINT64_C(1000000)
#define NS_PER_SEC UINT64_C(1000000000)

/* Read a clock in nanoseconds; the clocks used here can't fail on Linux. */
static uint64_t
time_read(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t
time_mono_ns(void)
{
	return time_read(CLOCK_MONOTONIC);
}

/* CLOCK_REALTIME in nanoseconds since the epoch. */
uint64_t
time_real_ns(void)
{
	return time_read(CLOCK_REALTIME);
}

/* Format a realtime value as RFC 3339 UTC with milliseconds, "2026-11-29T23:52:40.123Z". */
void
time_format_rfc3339(uint64_t real_ns, char *buf, size_t size)
{
	time_t secs = (time_t)(real_ns / NS_PER_SEC);
	unsigned ms = (unsigned)(real_ns % NS_PER_SEC / NS_PER_MS);
	struct tm tm;

	if (gmtime_r(&secs, &tm) == NULL) {
		snprintf(buf, size, "invalid");
		return;
	}
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ", tm.tm_year + 1900, tm.tm_mon + 1,
	         tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

/* Format a duration for people: "1h02m03s", "2m05s", "4.25s", "12ms", "7us", "5ns".
 * Smaller units are truncated, not rounded, so a value never shows as the next unit up. */
void
time_format_duration(uint64_t ns, char *buf, size_t size)
{
	uint64_t secs = ns / NS_PER_SEC;
	unsigned centis = (unsigned)(ns % NS_PER_SEC / (10 * NS_PER_MS));

	if (secs >= 3600)
		snprintf(buf, size, "%" PRIu64 "h%02um%02us", secs / 3600,
		         (unsigned)(secs % 3600 / 60), (unsigned)(secs % 60));
	else if (secs >= 60)
		snprintf(buf, size, "%" PRIu64 "m%02us", secs / 60, (unsigned)(secs % 60));
	else if (secs >= 1 && centis == 0)
		snprintf(buf, size, "%" PRIu64 "s", secs);
	else if (secs >= 1 && centis % 10 == 0)
		snprintf(buf, size, "%" PRIu64 ".%us", secs, centis / 10);
	else if (secs >= 1)
		snprintf(buf, size, "%" PRIu64 ".%02us", secs, centis);
	else if (ns >= NS_PER_MS)
		snprintf(buf, size, "%" PRIu64 "ms", ns / NS_PER_MS);
	else if (ns >= NS_PER_US)
		snprintf(buf, size, "%" PRIu64 "us", ns / NS_PER_US);
	else
		snprintf(buf, size, "%" PRIu64 "ns", ns);
}

/* The units of a duration's parts, longest spelling first where one starts another. */
static const struct {
	const char *name;
	double ns;
} duration_units[] = {
    {"ns", 1},  {"us", 1e3}, {"ms", 1e6},   {"min", 60e9},
    {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}, {"d", 86400e9},
};

#define DURATION_MAX_NS 4e18 /* about 126 years: epoch seconds up to 2096 fit */

int
time_parse_duration(const char *s, uint64_t bare_ns, int negative_ok, int64_t *out_ns)
{
	double total = 0;
	int neg = 0;
	unsigned parts = 0;

	if (s == NULL)
		return -1;
	if (*s == '-' && negative_ok) {
		neg = 1;
		s++;
	}
	if (*s == '\0')
		return -1;
	while (*s != '\0') {
		double v = 0, scale = 1;
		unsigned digits = 0;
		size_t u, n = sizeof(duration_units) / sizeof(duration_units[0]);

		for (; *s >= '0' && *s <= '9' && digits < 20; s++, digits++)
			v = v * 10 + (*s - '0');
		if (*s == '.')
			for (s++; *s >= '0' && *s <= '9' && digits < 20; s++, digits++)
				v += (*s - '0') * (scale /= 10);
		if (digits == 0 || (*s >= '0' && *s <= '9'))
			return -1; /* no number, or more than 20 digits */
		if (*s == '\0') {
			if (parts != 0)
				return -1; /* "1m30": a number without a unit after a part */
			total = v * (double)bare_ns;
			break;
		}
		for (u = 0; u < n; u++) {
			size_t l = strlen(duration_units[u].name);
			if (strncmp(s, duration_units[u].name, l) == 0 &&
			    !(s[l] >= 'a' && s[l] <= 'z')) {
				s += l;
				break;
			}
		}
		if (u == n)
			return -1;
		total += v * duration_units[u].ns;
		parts++;
		if (total > DURATION_MAX_NS)
			return -1;
	}
	if (total > DURATION_MAX_NS)
		return -1;
	*out_ns = (int64_t)(total + 0.5) * (neg ? -1 : 1);
	return 0;
}
