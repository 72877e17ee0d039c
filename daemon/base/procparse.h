/* procparse.h: hand-written, no-copy parsing of /proc text.
 *
 * Every helper works on a cursor into a buffer [p, end) and never reads past end. None
 * uses sscanf (glibc's measures the rest of the string on each call, so a loop over a
 * 2 MB /proc/interrupts turns quadratic) or strtoull (twice the cost of a digit loop).
 * The small helpers are inline: the sources call them once per cell.
 *
 * struct pp_row remembers where each count of a line ended, so that when the line comes
 * back with the same length but different bytes, only the cells whose bytes differ are
 * parsed again (pp_row_diff): a /proc/interrupts line of 144 cells where one queue's
 * count moved costs one cell, not 144. */
#ifndef NM_PROCPARSE_H
#define NM_PROCPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cpulist.h"

struct nm_error;

/* Whether c is a blank: a space or a tab (never a newline). */
static inline bool
pp_isblank(char c)
{
	return c == ' ' || c == '\t';
}

/* Whether c is a decimal digit. */
static inline bool
pp_isdigit(char c)
{
	return (unsigned)(unsigned char)c - '0' <= 9;
}

/* Skip blanks; returns the first non-blank at or after p, or end. */
static inline const char *
pp_skip_blanks(const char *p, const char *end)
{
	while (p < end && pp_isblank(*p))
		p++;
	return p;
}

/* The '\n' ending the line that starts at p, or NULL when the buffer ends first. */
static inline const char *
pp_eol(const char *p, const char *end)
{
	return memchr(p, '\n', (size_t)(end - p));
}

/* Parse an unsigned decimal at *pp (no sign, no blanks skipped). 0 with *out set and *pp
 * past the digits; -1 when there is no digit or the value passes 2^64-1 (*pp unchanged). */
static inline int
pp_u64(const char **pp, const char *end, uint64_t *out)
{
	const char *p = *pp, *lim;
	uint64_t v;
	unsigned d;

	if (p == end || (d = (unsigned)(unsigned char)*p - '0') > 9)
		return -1;
	v = d;
	p++;
	/* Nineteen digits cannot pass 2^64-1: no checks on the common path. */
	lim = end - p > 18 ? p + 18 : end;
	while (p < lim && (d = (unsigned)(unsigned char)*p - '0') <= 9) {
		v = v * 10 + d;
		p++;
	}
	while (p < end && (d = (unsigned)(unsigned char)*p - '0') <= 9) {
		if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, d, &v))
			return -1;
		p++;
	}
	*pp = p;
	*out = v;
	return 0;
}

/* The value of 8 bytes of digit values 0-9 loaded little-endian (a leading byte of 0 is a
 * leading zero), the first byte the most significant: pairs, then fours, then all eight, one
 * multiply each. */
static inline uint64_t
pp_dec8(uint64_t x)
{
	x = x * 10 + (x >> 8);
	x = (x & 0x00ff00ff00ff00ffull) * 6553601 >> 16;
	return (x & 0x0000ffff0000ffffull) * 42949672960001ull >> 32;
}

#if defined(__SSE2__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#include <emmintrin.h>

/* The 8 bytes at p, each digit's value in the byte's low nibble. */
static inline uint64_t
pp_nibbles8(const char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v & 0x0f0f0f0f0f0f0f0full;
}
#endif

/* pp_u64 for a cursor with at least 16 bytes readable before end: a run of 1 to 15 digits
 * is classified with one vector compare and summed a word at a time instead of a digit at a
 * time; anything else (fewer bytes left, no digit, 16 digits or more) is left to pp_u64.
 * Same results. Inline: the `ethtool -S` text calls it once a line. */
static inline int
pp_u64_wide(const char **pp, const char *end, uint64_t *out)
{
#if defined(__SSE2__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const char *p = *pp;
	__m128i t;
	unsigned dig, k;

	if (end - p < 16)
		return pp_u64(pp, end, out);
	t = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), _mm_set1_epi8('0'));
	dig = (unsigned)_mm_movemask_epi8(
	    _mm_cmpeq_epi8(_mm_max_epu8(t, _mm_set1_epi8(9)), _mm_set1_epi8(9)));
	k = (unsigned)__builtin_ctz(~dig); /* the digits that start the window */
	if (k == 0 || k >= 16)
		return pp_u64(pp, end, out);
	/* The digits right-aligned in a word (pp_dec8's most significant byte is the lowest),
	 * leading zeros shifted in. */
	if (k <= 8)
		*out = pp_dec8(k == 8 ? pp_nibbles8(p) : pp_nibbles8(p) << 8 * (8 - k));
	else
		*out = pp_dec8(pp_nibbles8(p) << 8 * (16 - k)) * 100000000 +
		       pp_dec8(pp_nibbles8(p + k - 8));
	*pp = p + k;
	return 0;
#else
	return pp_u64(pp, end, out);
#endif
}

/* Whether the n bytes at a equal those at b (n <= 32), with 32 bytes readable at each: two
 * vector compares where a call of memcmp would cost more than the compare (the names of
 * `ethtool -S`, a line each). */
static inline bool
pp_eq32(const char *a, const char *b, size_t n)
{
#if defined(__SSE2__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	__m128i lo = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)a),
	                            _mm_loadu_si128((const __m128i *)(const void *)b));
	__m128i hi = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(a + 16)),
	                            _mm_loadu_si128((const __m128i *)(const void *)(b + 16)));
	uint64_t m = (uint64_t)(uint32_t)_mm_movemask_epi8(lo) |
	             (uint64_t)(uint32_t)_mm_movemask_epi8(hi) << 16;

	return (m | ~0ull << n) == ~0ull;
#else
	return memcmp(a, b, n) == 0;
#endif
}

/* The value of a hex digit, or 16 when c is not one. */
static inline unsigned
pp_hexval(char c)
{
	unsigned d = (unsigned)(unsigned char)c;

	if (d - '0' <= 9)
		return d - '0';
	d |= 0x20; /* lower case */
	if (d - 'a' <= 5)
		return d - 'a' + 10;
	return 16;
}

/* Parse unsigned hex digits at *pp (no "0x"). Like pp_u64: -1 without a digit or past
 * 2^64-1. */
static inline int
pp_hex(const char **pp, const char *end, uint64_t *out)
{
	const char *p = *pp, *lim;
	uint64_t v;
	unsigned d;

	if (p == end || (d = pp_hexval(*p)) > 15)
		return -1;
	v = d;
	p++;
	/* Sixteen digits cannot pass 2^64-1: no checks on the common path. */
	lim = end - p > 15 ? p + 15 : end;
	while (p < lim && (d = pp_hexval(*p)) <= 15) {
		v = v << 4 | d;
		p++;
	}
	while (p < end && (d = pp_hexval(*p)) <= 15) {
		if (v >> 60)
			return -1;
		v = v << 4 | d;
		p++;
	}
	*pp = p;
	*out = v;
	return 0;
}

/* Parse a number in base 10 or 16 (see pp_u64, pp_hex). */
static inline int
pp_number(const char **pp, const char *end, int base, uint64_t *out)
{
	return base == 16 ? pp_hex(pp, end, out) : pp_u64(pp, end, out);
}

/* The next blank-separated token of a line [*pp, eol): its start and length, *pp moved past
 * it. 0, or -1 when only blanks are left. */
int pp_token(const char **pp, const char *eol, const char **tok, size_t *len);

/* A row label: blanks, then the bytes up to the first ':' ("  LOC:" gives "LOC"). 0 with
 * *pp just past the ':'; -1 when a blank or eol comes before any ':' or the label is empty. */
int pp_label(const char **pp, const char *eol, const char **label, size_t *len);

/* Parse a header of CPU columns ("   CPU0  CPU1  CPU5") from [p, eol) into cpus[]: the CPU
 * number of each column in order. Tokens that are not CPU<n> end the header. Returns the
 * number of columns (at most max), 0 when there is none. */
size_t pp_cpu_header(const char *p, const char *eol, unsigned *cpus, size_t max);

/* The CPU columns of a per-CPU table (/proc/interrupts, /proc/softirqs) as its header last
 * gave them. */
struct pp_cpu_cols {
	unsigned *cols;        /* [CPUSET_MAX_CPUS]: CPU number of each column */
	unsigned *newcols;     /* scratch for a header being parsed */
	size_t ncols;          /* columns in the header */
	unsigned ncpus;        /* highest CPU ever listed + 1: the length of per-CPU arrays */
	struct cpuset *online; /* the CPUs the header lists (out of line: 1 KiB, read only when
	                          the header changed) */
};

/* Allocate the column arrays; no columns yet. */
void pp_cpu_cols_init(struct pp_cpu_cols *c);
void pp_cpu_cols_free(struct pp_cpu_cols *c);
/* Read a header line [line, eol). 0 when it lists the same CPUs as last time; 1 when they
 * changed: cols, ncols and online are the new ones, ncpus has grown to cover them and
 * *oldncpus is what it was, so that the caller grows its per-CPU arrays from there and
 * declares gone the cells of CPUs no longer in online. -1 with err ("WHAT: no CPU header",
 * "WHAT: CPU%u out of range", c unchanged) when it lists none or a CPU past
 * CPUSET_MAX_CPUS. */
int pp_cpu_cols_read(struct pp_cpu_cols *c, const char *line, const char *eol, const char *what,
                     unsigned *oldncpus, struct nm_error *err);

/* Write v in decimal at buf (at least 20 bytes, not NUL-terminated); returns the length. */
size_t pp_utoa(uint64_t v, char *buf);

/* Whether the bytes at p are exactly old[0..len) followed by '\n': a line unchanged since
 * the last read, found without looking for its end first. */
static inline bool
pp_same_line(const char *p, const char *end, const char *old, size_t len)
{
	return (size_t)(end - p) > len && p[len] == '\n' && memcmp(p, old, len) == 0;
}

/* The first offset in [pos, len) where a and b differ, or len. Vectorised: use it to find
 * the few changed bytes of two large reads of a file. */
size_t pp_first_diff(const char *a, const char *b, size_t pos, size_t len);

/* pp_first_diff for texts that most often differ within 32 bytes of pos (the next line of
 * an `ethtool -S` text whose values mostly move): those 32 bytes are compared inline, two
 * vector compares, and only a longer equal run pays the call. */
static inline size_t
pp_first_diff_near(const char *a, const char *b, size_t pos, size_t len)
{
#if defined(__SSE2__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (int k = 0; k < 2 && pos + 16 <= len; k++, pos += 16) {
		unsigned m = (unsigned)_mm_movemask_epi8(
		    _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(a + pos)),
		                   _mm_loadu_si128((const __m128i *)(const void *)(b + pos))));
		if (m != 0xffff)
			return pos + (size_t)__builtin_ctz(~m);
	}
#endif
	return pp_first_diff(a, b, pos, len);
}

/* Where the counts of one line ended the last time it was parsed in full. */
struct pp_row {
	uint32_t *end;   /* end[c]: offset in the line just past cell c's last digit */
	uint32_t ncells; /* counts found by the last full parse */
	uint32_t cap;    /* allocated length of end[] */
	uint32_t start;  /* offset where cell 0's blanks begin (just past the label) */
	bool valid;      /* end[] describes the line last parsed */
};

/* Called with each count parsed: its column (0 = first count) and value. Return 0 to go
 * on, -1 to stop (pp_row_diff then returns -1). */
typedef int (*pp_cell_fn)(void *ctx, size_t col, uint64_t val);

/* Parse in full the counts of the line [line, eol) starting at p (just past the label):
 * blank-separated numbers in base 10 or 16, at most max of them; a token that is not a
 * number followed by a blank or eol ends the counts. Records each count's end in row
 * (allocates only when a line has more counts than ever before) and calls fn for each
 * (fn may be NULL). Returns where the rest of the line starts (the first byte after the
 * last count; p when there is none). */
const char *pp_row_parse(struct pp_row *row, const char *line, const char *p, const char *eol,
                         size_t max, int base, pp_cell_fn fn, void *ctx);

/* The line [line, line+len) was parsed in full into row when it read old[0..len) (same
 * length; the bytes may differ). Its first from bytes are not compared (0: all are): the
 * caller knows they are the same, or has no use for the cells they hold, and that they hold
 * no '\n'. Call fn (not NULL) only for the cells whose bytes differ; nothing when none do. 0 when
 * done; -1 when the difference is not a simple change of counts (a cell that is no longer blanks
 * then digits, a change in the label or in the text after the counts, or fn said stop): the caller
 * parses the line in full with pp_row_parse. Differences are met in line order, so a change in the
 * label stops it before any fn call; fn may have been called for earlier cells before other -1s. */
int pp_row_diff_from(const struct pp_row *row, const char *line, const char *old, size_t len,
                     size_t from, int base, pp_cell_fn fn, void *ctx);

/* pp_row_diff_from knowing nothing of the line. */
static inline int
pp_row_diff(const struct pp_row *row, const char *line, const char *old, size_t len, int base,
            pp_cell_fn fn, void *ctx)
{
	return pp_row_diff_from(row, line, old, len, 0, base, fn, ctx);
}

/* Free what a row holds and forget its layout. */
void pp_row_free(struct pp_row *row);

/* A table of "%08x" cells (/proc/net/softnet_stat, the rows of /proc/net/stat/ files): from
 * offset start on, lines of ncols cells, each cell 8 lower-case hex digits followed by one
 * blank, the line's last by '\n'. Every line is then 9 * ncols bytes long, and the place of
 * a byte says its line and cell. */

/* Whether buf[start, len) is such a table of ncols cells to a line (at least one line). */
bool pp_hex_grid(const char *buf, size_t start, size_t len, uint32_t ncols);

/* Called for each changed cell of a grid: its line (0 = the first from start), column and
 * value. 0 to go on, -1 to stop (pp_hex_grid_diff then returns -1). */
typedef int (*pp_grid_fn)(void *ctx, size_t line, size_t col, uint64_t val);

/* buf and old, both len bytes, where old was a grid of ncols cells from start (pp_hex_grid):
 * call fn for each cell whose bytes differ, in order, with its new value; nothing for the rest,
 * which costs a vector compare of the two. 0 when done; -1 when a difference is not inside a
 * cell's digits (a blank, a '\n', a byte before start) or a changed cell is not 8 hex digits,
 * or fn said stop: the caller reads the text its usual way (fn may have been called for cells
 * before the one that stopped it). */
int pp_hex_grid_diff(const char *buf, const char *old, size_t start, size_t len, uint32_t ncols,
                     pp_grid_fn fn, void *ctx);

#endif
