/* cpulist.c: CPU sets, parsed from and formatted as CPU lists ("0-3,72") and kernel hex
 * masks ("0000,00000000,00000001"), in the forms /proc/irq and /sys/class/net use. */
#include <stdio.h>
#include <string.h>

#include "cpulist.h"
#include "error.h"

#define CPUSET_WORDS      (CPUSET_MAX_CPUS / 64)
#define MASK_GROUP_DIGITS 8 /* hex digits in one 32-bit group of a kernel mask */
#define MASK_GROUP_BITS   32

/* Output that counts every byte but stores only what fits, for snprintf-like formatting. */
struct out {
	char *buf;
	size_t size;
	size_t len;
};

/* Empty the set. */
void
cpuset_zero(struct cpuset *set)
{
	memset(set, 0, sizeof *set);
}

/* Add a CPU; CPUs at or above CPUSET_MAX_CPUS are ignored. */
void
cpuset_add(struct cpuset *set, unsigned cpu)
{
	if (cpu < CPUSET_MAX_CPUS)
		set->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

/* Remove a CPU. */
void
cpuset_del(struct cpuset *set, unsigned cpu)
{
	if (cpu < CPUSET_MAX_CPUS)
		set->bits[cpu / 64] &= ~(1ULL << (cpu % 64));
}

/* Whether the set holds a CPU. */
bool
cpuset_has(const struct cpuset *set, unsigned cpu)
{
	if (cpu >= CPUSET_MAX_CPUS)
		return false;
	return (set->bits[cpu / 64] >> (cpu % 64)) & 1;
}

/* The number of CPUs in the set. */
unsigned
cpuset_count(const struct cpuset *set)
{
	unsigned i, n = 0;

	for (i = 0; i < CPUSET_WORDS; i++)
		n += (unsigned)__builtin_popcountll(set->bits[i]);
	return n;
}

/* Whether two sets hold the same CPUs. */
bool
cpuset_equal(const struct cpuset *a, const struct cpuset *b)
{
	return memcmp(a->bits, b->bits, sizeof a->bits) == 0;
}

/* Whether the set holds no CPU. */
bool
cpuset_empty(const struct cpuset *set)
{
	unsigned i;

	for (i = 0; i < CPUSET_WORDS; i++) {
		if (set->bits[i] != 0)
			return false;
	}
	return true;
}

/* The highest CPU in the set, or -1 when it is empty. */
int
cpuset_last(const struct cpuset *set)
{
	unsigned i;

	for (i = CPUSET_WORDS; i-- > 0;) {
		if (set->bits[i] != 0)
			return (int)(i * 64 + 63 - (unsigned)__builtin_clzll(set->bits[i]));
	}
	return -1;
}

/* The n-th CPU (0-based) in ascending order, or -1 when the set holds n or fewer. */
int
cpuset_nth(const struct cpuset *set, unsigned n)
{
	unsigned i, c;
	uint64_t w;

	for (i = 0; i < CPUSET_WORDS; i++) {
		w = set->bits[i];
		c = (unsigned)__builtin_popcountll(w);
		if (n >= c) {
			n -= c;
			continue;
		}
		while (n-- > 0)
			w &= w - 1; /* drop the lowest CPU */
		return (int)(i * 64 + (unsigned)__builtin_ctzll(w));
	}
	return -1;
}

/* Add every CPU of src to dst. */
void
cpuset_or(struct cpuset *dst, const struct cpuset *src)
{
	unsigned i;

	for (i = 0; i < CPUSET_WORDS; i++)
		dst->bits[i] |= src->bits[i];
}

/* Keep in dst only the CPUs that src also holds. */
void
cpuset_and(struct cpuset *dst, const struct cpuset *src)
{
	unsigned i;

	for (i = 0; i < CPUSET_WORDS; i++)
		dst->bits[i] &= src->bits[i];
}

/* The lowest CPU >= from that is in the set (want true) or not (want false); MAX if none. */
static unsigned
cpuset_next(const struct cpuset *set, unsigned from, bool want)
{
	unsigned i;
	uint64_t w;

	if (from >= CPUSET_MAX_CPUS)
		return CPUSET_MAX_CPUS;
	i = from / 64;
	w = want ? set->bits[i] : ~set->bits[i];
	w &= ~0ULL << (from % 64);
	for (;;) {
		if (w != 0)
			return i * 64 + (unsigned)__builtin_ctzll(w);
		if (++i == CPUSET_WORDS)
			return CPUSET_MAX_CPUS;
		w = want ? set->bits[i] : ~set->bits[i];
	}
}

/* Whitespace that may surround list items and whole lists or masks. */
static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The value of a hex digit, or -1. */
static int
hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Narrow [*s, *end) to exclude surrounding whitespace. */
static void
trim(const char **s, const char **end)
{
	while (*s < *end && is_space(**s))
		(*s)++;
	while (*end > *s && is_space((*end)[-1]))
		(*end)--;
}

/* Read decimal digits at *p (before end) into *val, saturating at CPUSET_MAX_CPUS so that
 * huge numbers don't overflow; false when there is no digit. */
static bool
parse_number(const char **p, const char *end, unsigned *val)
{
	const char *s = *p;
	unsigned v = 0;

	while (s < end && *s >= '0' && *s <= '9') {
		v = v * 10 + (unsigned)(*s - '0');
		if (v > CPUSET_MAX_CPUS)
			v = CPUSET_MAX_CPUS;
		s++;
	}
	if (s == *p)
		return false;
	*p = s;
	*val = v;
	return true;
}

/* Parse one list item, "N", "A-B" or "A-B:STRIDE", into set. */
static int
parse_list_item(struct cpuset *set, const char *item, const char *end, struct nm_error *err)
{
	const char *p = item;
	int n = (int)(end - item);
	unsigned first, last, stride = 1, cpu;

	if (!parse_number(&p, end, &first))
		return nm_error_set(err, NM_ERR_BAD_ARGS, "bad CPU list item \"%.*s\"", n, item);
	last = first;
	if (p < end && *p == '-') {
		p++;
		if (!parse_number(&p, end, &last))
			return nm_error_set(err, NM_ERR_BAD_ARGS, "bad CPU range \"%.*s\"", n,
			                    item);
		if (p < end && *p == ':') {
			p++;
			if (!parse_number(&p, end, &stride) || stride == 0)
				return nm_error_set(err, NM_ERR_BAD_ARGS,
				                    "bad stride in CPU range \"%.*s\"", n, item);
		}
	}
	if (p != end)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "bad CPU list item \"%.*s\"", n, item);
	if (first >= CPUSET_MAX_CPUS || last >= CPUSET_MAX_CPUS)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "CPU out of range (0-%d) in CPU list item \"%.*s\"",
		                    CPUSET_MAX_CPUS - 1, n, item);
	if (last < first)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "reversed CPU range \"%.*s\"", n, item);
	for (cpu = first; cpu <= last; cpu += stride)
		cpuset_add(set, cpu);
	return 0;
}

/* Parse a CPU list such as "0-3,8" or "0-15:2"; set is left unchanged on error. */
int
cpuset_parse_list(struct cpuset *set, const char *s, struct nm_error *err)
{
	struct cpuset tmp;
	const char *p = s, *end = s + strlen(s), *comma, *item, *item_end;

	cpuset_zero(&tmp);
	trim(&p, &end);
	while (p < end) {
		comma = memchr(p, ',', (size_t)(end - p));
		item = p;
		item_end = comma != NULL ? comma : end;
		trim(&item, &item_end);
		if (item == item_end)
			return nm_error_set(err, NM_ERR_BAD_ARGS, "empty item in CPU list \"%s\"",
			                    s);
		if (parse_list_item(&tmp, item, item_end, err) == -1)
			return -1;
		if (comma == NULL)
			break;
		p = comma + 1;
		if (p == end)
			return nm_error_set(err, NM_ERR_BAD_ARGS, "empty item in CPU list \"%s\"",
			                    s);
	}
	*set = tmp;
	return 0;
}

/* Parse one comma group of a mask, the n digits at g, whose lowest bit is CPU base. */
static int
parse_mask_group(struct cpuset *set, const char *g, size_t n, unsigned long base,
                 struct nm_error *err)
{
	unsigned long cpu;
	size_t i;
	int v, bit;

	for (i = n; i > 0; i--, base += 4) {
		v = hex_value(g[i - 1]);
		if (v < 0)
			return nm_error_set(err, NM_ERR_BAD_ARGS, "bad group \"%.*s\" in CPU mask",
			                    (int)n, g);
		for (bit = 0; bit < 4; bit++) {
			if (!(v & (1 << bit)))
				continue;
			cpu = base + (unsigned long)bit;
			if (cpu >= CPUSET_MAX_CPUS)
				return nm_error_set(
				    err, NM_ERR_BAD_ARGS,
				    "CPU mask sets a CPU above %d in group \"%.*s\"",
				    CPUSET_MAX_CPUS - 1, (int)n, g);
			cpuset_add(set, (unsigned)cpu);
		}
	}
	return 0;
}

/* Parse a kernel hex mask: comma-separated 32-bit groups, most significant first, each of
 * 1 to 8 digits (a single group may be longer), optional "0x"; set is unchanged on error. */
int
cpuset_parse_mask(struct cpuset *set, const char *s, struct nm_error *err)
{
	struct cpuset tmp;
	const char *p = s, *end = s + strlen(s), *g, *g_end;
	unsigned long base = 0;
	bool single;

	cpuset_zero(&tmp);
	trim(&p, &end);
	if (end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (p == end)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "empty CPU mask \"%s\"", s);
	single = memchr(p, ',', (size_t)(end - p)) == NULL;
	/* Walk the groups from the last (least significant) to the first. */
	g_end = end;
	for (;;) {
		for (g = g_end; g > p && g[-1] != ','; g--)
			;
		if (g == g_end)
			return nm_error_set(err, NM_ERR_BAD_ARGS, "empty group in CPU mask \"%s\"",
			                    s);
		if (!single && g_end - g > MASK_GROUP_DIGITS)
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "group \"%.*s\" in CPU mask has more than %d digits",
			                    (int)(g_end - g), g, MASK_GROUP_DIGITS);
		if (parse_mask_group(&tmp, g, (size_t)(g_end - g), base, err) == -1)
			return -1;
		if (g == p)
			break;
		g_end = g - 1;
		base += MASK_GROUP_BITS;
	}
	*set = tmp;
	return 0;
}

/* Whether s (already trimmed, n bytes, no 0x) looks like the kernel's mask output: only hex
 * digits and commas, every group after the first exactly 8 digits and the first 1 to 8,
 * and either a comma or a single group of exactly 8 digits. */
static bool
looks_like_mask(const char *s, size_t n)
{
	size_t i, group = 0, ngroups = 1;

	for (i = 0; i < n; i++) {
		if (s[i] == ',') {
			if (group == 0 || group > MASK_GROUP_DIGITS ||
			    (ngroups > 1 && group != MASK_GROUP_DIGITS))
				return false;
			ngroups++;
			group = 0;
		} else if (hex_value(s[i]) >= 0) {
			group++;
		} else {
			return false;
		}
	}
	return group == MASK_GROUP_DIGITS;
}

/* Parse a mask (with "0x", or shaped like the kernel's comma-grouped output) or a list. */
int
cpuset_parse_any(struct cpuset *set, const char *s, struct nm_error *err)
{
	const char *p = s, *end = s + strlen(s);

	trim(&p, &end);
	if (end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		return cpuset_parse_mask(set, s, err);
	if (looks_like_mask(p, (size_t)(end - p)))
		return cpuset_parse_mask(set, s, err);
	return cpuset_parse_list(set, s, err);
}

/* Append n bytes to o, storing what fits and leaving room for the NUL. */
static void
out_put(struct out *o, const char *s, size_t n)
{
	size_t room;

	if (o->len + 1 < o->size) {
		room = o->size - 1 - o->len;
		memcpy(o->buf + o->len, s, n < room ? n : room);
	}
	o->len += n;
}

/* NUL-terminate o's buffer (truncating if needed) and return the full length. */
static size_t
out_finish(struct out *o)
{
	if (o->size > 0)
		o->buf[o->len < o->size ? o->len : o->size - 1] = '\0';
	return o->len;
}

/* Format as a list of ascending CPUs and ranges ("0-3,72"), as the kernel's
 * smp_affinity_list shows it; a run of two is a range too ("4-5"). */
size_t
cpuset_format_list(const struct cpuset *set, char *buf, size_t size)
{
	struct out o = {buf, size, 0};
	char tmp[32];
	unsigned first, last;
	int n;

	for (first = cpuset_next(set, 0, true); first < CPUSET_MAX_CPUS;
	     first = cpuset_next(set, last + 1, true)) {
		last = cpuset_next(set, first, false) - 1;
		if (last == first)
			n = snprintf(tmp, sizeof tmp, "%s%u", o.len > 0 ? "," : "", first);
		else
			n = snprintf(tmp, sizeof tmp, "%s%u-%u", o.len > 0 ? "," : "", first, last);
		out_put(&o, tmp, (size_t)n);
	}
	return out_finish(&o);
}

/* The 32 bits of the set starting at CPU 32 * group; zero beyond CPUSET_MAX_CPUS. */
static uint32_t
mask_group(const struct cpuset *set, unsigned long group)
{
	unsigned long base = group * MASK_GROUP_BITS;

	if (base >= CPUSET_MAX_CPUS)
		return 0;
	return (uint32_t)(set->bits[base / 64] >> (base % 64));
}

/* Format as the kernel prints a bitmap of ncpus bits ("%*pb"): ceil(ncpus / 4) hex digits,
 * a comma every 32 bits counted from the right, so the first group holds only the digits
 * ncpus needs; CPUs at or above ncpus are left out. */
size_t
cpuset_format_mask(const struct cpuset *set, unsigned ncpus, char *buf, size_t size)
{
	struct out o = {buf, size, 0};
	unsigned long g, ngroups = ((unsigned long)ncpus + MASK_GROUP_BITS - 1) / MASK_GROUP_BITS;
	unsigned bits = ncpus % MASK_GROUP_BITS != 0 ? ncpus % MASK_GROUP_BITS : MASK_GROUP_BITS;
	uint32_t val;
	char tmp[16];
	int n;

	for (g = ngroups; g-- > 0;) {
		val = mask_group(set, g);
		if (g == ngroups - 1 && bits < MASK_GROUP_BITS)
			val &= (1U << bits) - 1;
		n = snprintf(tmp, sizeof tmp, "%s%0*x", o.len > 0 ? "," : "", (int)(bits + 3) / 4,
		             (unsigned)val);
		out_put(&o, tmp, (size_t)n);
		bits = MASK_GROUP_BITS;
	}
	return out_finish(&o);
}
