/* cpuutil.c: CPU readings into increments by mpstat's rules, seconds per mode into
 * utilisation. */
#include <string.h>

#include "cpuutil.h"
#include "jsonutil.h"

const char *const cpuutil_modes[CPUUTIL_NMODES] = {
    "user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest", "guest_nice"};

/* Linear search: ten names. */
int
cpuutil_mode_index(const char *mode)
{
	for (int m = 0; m < CPUUTIL_NMODES; m++)
		if (strcmp(cpuutil_modes[m], mode) == 0)
			return m;
	return -1;
}

/* b - a, or 0 when the field fell. */
static uint64_t
rise(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

/* A previous value this close to 2^64 that is passed by a small one wrapped (mpstat's
 * ULLONG_MAX - 0x7ffff): not a CPU back online. */
#define NEAR_WRAP (UINT64_MAX - 0x7ffff)

/* The smaller of a and b. */
static uint64_t
least(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

void
cpuutil_step(uint64_t p[CPUUTIL_NMODES], const uint64_t c[CPUUTIL_NMODES],
             uint64_t d[CPUUTIL_NMODES])
{
	uint64_t g, gn;

	for (int m = 0; m < CPUUTIL_NMODES; m++)
		d[m] = rise(p[m], c[m]);
	/* Guest time is in user (guest_nice in nice): guest counts as far as user grew, user
	 * what it grew beyond; guest the kernel showed before user is counted later, when user
	 * has caught up (kept in p below), never twice. */
	g = least(d[CPUUTIL_GUEST], d[CPUUTIL_USER]);
	gn = least(d[CPUUTIL_GUEST_NICE], d[CPUUTIL_NICE]);
	d[CPUUTIL_USER] -= g;
	d[CPUUTIL_NICE] -= gn;
	if (c[CPUUTIL_IOWAIT] < p[CPUUTIL_IOWAIT]) {
		if (p[CPUUTIL_IOWAIT] >= NEAR_WRAP)
			d[CPUUTIL_IOWAIT] = c[CPUUTIL_IOWAIT] - p[CPUUTIL_IOWAIT];
		else if (c[CPUUTIL_IDLE] > p[CPUUTIL_IDLE] || p[CPUUTIL_IDLE] >= NEAR_WRAP)
			d[CPUUTIL_IOWAIT] = 0; /* iowait tracking moved time to idle */
		else
			d[CPUUTIL_IOWAIT] = c[CPUUTIL_IOWAIT]; /* back online: restarted from 0 */
	}
	if (c[CPUUTIL_IDLE] < p[CPUUTIL_IDLE])
		d[CPUUTIL_IDLE] = p[CPUUTIL_IDLE] >= NEAR_WRAP ? c[CPUUTIL_IDLE] - p[CPUUTIL_IDLE]
		                                               : c[CPUUTIL_IDLE];
	/* The reading to step from next: cur, less the guest time not counted yet. */
	for (int m = 0; m < CPUUTIL_NMODES; m++)
		if (m != CPUUTIL_GUEST && m != CPUUTIL_GUEST_NICE)
			p[m] = c[m];
	p[CPUUTIL_GUEST] = c[CPUUTIL_GUEST] - (d[CPUUTIL_GUEST] - g);
	p[CPUUTIL_GUEST_NICE] = c[CPUUTIL_GUEST_NICE] - (d[CPUUTIL_GUEST_NICE] - gn);
	d[CPUUTIL_GUEST] = g;
	d[CPUUTIL_GUEST_NICE] = gn;
}

void
cpuutil_base(const uint64_t c[CPUUTIL_NMODES], uint64_t base[CPUUTIL_NMODES],
             uint64_t kept[CPUUTIL_NMODES])
{
	memcpy(base, c, CPUUTIL_NMODES * sizeof(*base));
	base[CPUUTIL_GUEST] = least(c[CPUUTIL_GUEST], c[CPUUTIL_USER]);
	base[CPUUTIL_GUEST_NICE] = least(c[CPUUTIL_GUEST_NICE], c[CPUUTIL_NICE]);
	base[CPUUTIL_USER] -= base[CPUUTIL_GUEST];
	base[CPUUTIL_NICE] -= base[CPUUTIL_GUEST_NICE];
	memcpy(kept, c, CPUUTIL_NMODES * sizeof(*kept));
	kept[CPUUTIL_GUEST] = base[CPUUTIL_GUEST];
	kept[CPUUTIL_GUEST_NICE] = base[CPUUTIL_GUEST_NICE];
}

double
cpuutil_total(const double secs[CPUUTIL_NMODES])
{
	double total = 0;

	for (int m = 0; m < CPUUTIL_NMODES; m++)
		total += secs[m] > 0 ? secs[m] : 0;
	return total;
}

double
cpuutil_busy(const double secs[CPUUTIL_NMODES])
{
	double busy = cpuutil_total(secs);

	for (int m = CPUUTIL_IDLE; m <= CPUUTIL_IOWAIT; m++)
		busy -= secs[m] > 0 ? secs[m] : 0;
	return busy > 0 ? busy : 0;
}

/* Busy CPUs over span: busy seconds per second, but never more than the busy share of the
 * time counted on ncpus CPUs (when ncpus is known). The two agree where the span is long
 * against the counters' 1/USER_HZ step; over a shorter one (a window that closed a
 * millisecond after it opened) a single step of one CPU divided by the span would give more
 * CPUs busy than there are. */
static double
busy_cpus(double busy, double total, double span, unsigned ncpus)
{
	double per_s = span > 0 ? busy / span : 0, share;

	if (ncpus == 0 || total <= 0)
		return per_s;
	share = busy / total * ncpus;
	return per_s < share ? per_s : share;
}

/* Percentages of the covered time, and busy CPUs over the span. */
json_object *
cpuutil_json(const double secs[CPUUTIL_NMODES], double span, unsigned ncpus)
{
	json_object *o = json_object_new_object();
	double total = cpuutil_total(secs), busy = cpuutil_busy(secs), pc;

	for (int m = 0; m < CPUUTIL_NMODES; m++) {
		if (total > 0)
			pc = secs[m] > 0 ? 100.0 * secs[m] / total : 0;
		else
			pc = m == CPUUTIL_IDLE ? 100 : 0; /* online, no tick: idle (NO_HZ) */
		json_add_double(o, cpuutil_modes[m], pc > 100 ? 100 : pc);
	}
	json_add_double(o, "busy", total > 0 ? 100.0 * busy / total : 0);
	json_add_double(o, "busy_cpus", busy_cpus(busy, total, span, ncpus));
	return o;
}
