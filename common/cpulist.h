/* cpulist.h: CPU sets, parsed from and formatted as CPU lists ("0-3,72") and kernel hex masks. */
#ifndef NM_CPULIST_H
#define NM_CPULIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPUSET_MAX_CPUS 8192

struct cpuset {
	uint64_t bits[CPUSET_MAX_CPUS / 64];
};

struct nm_error;

void cpuset_zero(struct cpuset *set);
void cpuset_add(struct cpuset *set, unsigned cpu);
void cpuset_del(struct cpuset *set, unsigned cpu);
bool cpuset_has(const struct cpuset *set, unsigned cpu);
unsigned cpuset_count(const struct cpuset *set);
bool cpuset_equal(const struct cpuset *a, const struct cpuset *b);
bool cpuset_empty(const struct cpuset *set);
/* Highest CPU in the set, or -1 when empty. */
int cpuset_last(const struct cpuset *set);
/* The n-th CPU (0-based) in ascending order, or -1 if there are not that many. */
int cpuset_nth(const struct cpuset *set, unsigned n);
/* a &= ~b etc. */
void cpuset_or(struct cpuset *dst, const struct cpuset *src);
void cpuset_and(struct cpuset *dst, const struct cpuset *src);

/* Parse a CPU list: "0-3,8,10-11", ranges with strides "0-15:2", "" is the empty set.
 * Whitespace around items and a trailing newline are accepted. 0 ok, -1 with err. */
int cpuset_parse_list(struct cpuset *set, const char *s, struct nm_error *err);
/* Parse a kernel hex mask: "f", "0000,00000000,00000001", optional "0x". 0 ok, -1 with err. */
int cpuset_parse_mask(struct cpuset *set, const char *s, struct nm_error *err);
/* Parse either form: a string containing only hex digits and commas, with a 0x prefix or
 * with comma groups of exactly 8 digits, is a mask; anything else a list. */
int cpuset_parse_any(struct cpuset *set, const char *s, struct nm_error *err);

/* Format as a canonical list ("0-3,72"); empty set gives "". Returns the length that the
 * full string needs (like snprintf); always NUL-terminates when size > 0. */
size_t cpuset_format_list(const struct cpuset *set, char *buf, size_t size);
/* Format as a kernel mask for ncpus CPUs, as the kernel's %*pb prints it: ceil(ncpus/4) hex
 * digits, a comma every 32 bits from the right, most significant first (144 CPUs:
 * "0000,00000000,00000000,00000000,00000001"; 2 CPUs: "3"). CPUs >= ncpus are left out.
 * Like snprintf. */
size_t cpuset_format_mask(const struct cpuset *set, unsigned ncpus, char *buf, size_t size);

#endif
