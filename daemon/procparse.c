/* procparse.c: hand-written, no-copy parsing of /proc text (see procparse.h). */
#include <stdlib.h>
#include <string.h>

#include "procparse.h"
#include "xmalloc.h"

/* The next blank-separated token of a line (see procparse.h). */
int
pp_token(const char **pp, const char *eol, const char **tok, size_t *len)
{
	const char *s = pp_skip_blanks(*pp, eol), *e = s;

	while (e < eol && !pp_isblank(*e))
		e++;
	*pp = e;
	*tok = s;
	*len = (size_t)(e - s);
	return e > s ? 0 : -1;
}

/* A row label up to its ':' (see procparse.h). */
int
pp_label(const char **pp, const char *eol, const char **label, size_t *len)
{
	const char *s = pp_skip_blanks(*pp, eol), *e = s;

	while (e < eol && *e != ':' && !pp_isblank(*e))
		e++;
	if (e == eol || *e != ':' || e == s)
		return -1;
	*label = s;
	*len = (size_t)(e - s);
	*pp = e + 1;
	return 0;
}

/* The CPU numbers of a "CPU0 CPU1 ..." header, in column order. */
size_t
pp_cpu_header(const char *p, const char *eol, unsigned *cpus, size_t max)
{
	const char *tok, *q;
	size_t len, n = 0;
	uint64_t cpu;

	while (n < max && pp_token(&p, eol, &tok, &len) == 0) {
		q = tok + 3;
		if (len < 4 || memcmp(tok, "CPU", 3) != 0 || pp_u64(&q, tok + len, &cpu) < 0 ||
		    q != tok + len || cpu > UINT32_MAX)
			break;
		cpus[n++] = (unsigned)cpu;
	}
	return n;
}

/* Decimal digits of v at buf, without a NUL. */
size_t
pp_utoa(uint64_t v, char *buf)
{
	char tmp[20];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

/* Load 8 bytes from any address. */
static inline uint64_t
load8(const char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The index of the first byte that differs in two words loaded by load8. */
static inline size_t
first_byte(uint64_t x)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (size_t)__builtin_ctzll(x) / 8;
#else
	return (size_t)__builtin_clzll(x) / 8;
#endif
}

/* 16 bytes as a vector (GCC and clang vector extensions: SSE2 on x86-64, NEON on arm64). */
typedef uint64_t pp_v16 __attribute__((vector_size(16)));

/* Load 16 bytes from any address. */
static inline pp_v16
load16(const char *p)
{
	pp_v16 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The first offset at or after pos where a and b differ, or len (inline for pp_row_diff,
 * which calls it for every change in a line). */
static inline size_t
first_diff(const char *a, const char *b, size_t pos, size_t len)
{
	pp_v16 x;
	uint64_t w;

	/* 64 bytes a step while equal; the buffers compared are megabytes that differ in a
	 * few places, so this loop is what a sample costs. */
	while (pos + 64 <= len) {
		x = (load16(a + pos) ^ load16(b + pos)) |
		    (load16(a + pos + 16) ^ load16(b + pos + 16)) |
		    (load16(a + pos + 32) ^ load16(b + pos + 32)) |
		    (load16(a + pos + 48) ^ load16(b + pos + 48));
		if ((x[0] | x[1]) != 0)
			break;
		pos += 64;
	}
	while (pos + 8 <= len) {
		w = load8(a + pos) ^ load8(b + pos);
		if (w != 0)
			return pos + first_byte(w);
		pos += 8;
	}
	while (pos < len && a[pos] == b[pos])
		pos++;
	return pos;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* The bytes of 32 at a + off that differ from those at b + off, as set bits. */
__attribute__((target("avx2"))) static inline __m256i
xor32(const char *a, const char *b, size_t off)
{
	return _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(a + off)),
	                        _mm256_loadu_si256((const __m256i *)(const void *)(b + off)));
}

/* first_diff with 32-byte AVX2 loads, 128 bytes a step while equal: on the 2 MB of a 144-CPU
 * /proc/interrupts it takes about 15% less than the 16-byte loop (bench/bench-daemon). Built
 * for AVX2 whatever the target of the rest, and called only on a CPU that has it. */
__attribute__((target("avx2"))) static size_t
first_diff_avx2(const char *a, const char *b, size_t pos, size_t len)
{
	__m256i x;

	while (pos + 128 <= len) {
		x = _mm256_or_si256(_mm256_or_si256(xor32(a, b, pos), xor32(a, b, pos + 32)),
		                    _mm256_or_si256(xor32(a, b, pos + 64), xor32(a, b, pos + 96)));
		if (!_mm256_testz_si256(x, x))
			break;
		pos += 128;
	}
	return first_diff(a, b, pos, len);
}
#endif

/* The first offset at or after pos where a and b differ, or len. */
size_t
pp_first_diff(const char *a, const char *b, size_t pos, size_t len)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("avx2"))
		return first_diff_avx2(a, b, pos, len);
#endif
	return first_diff(a, b, pos, len);
}

/* Make room for n cell ends in row. */
static void
row_reserve(struct pp_row *row, size_t n)
{
	size_t cap = row->cap ? row->cap : 16;

	if (n <= row->cap)
		return;
	while (cap < n)
		cap *= 2;
	row->end = xreallocarray(row->end, cap, sizeof(*row->end));
	row->cap = (uint32_t)cap;
}

/* Parse the counts of a line in full, remembering where each ended. */
const char *
pp_row_parse(struct pp_row *row, const char *line, const char *p, const char *eol, size_t max,
             int base, pp_cell_fn fn, void *ctx)
{
	const char *tail = p, *q;
	uint64_t v;

	row->start = (uint32_t)(p - line);
	row->ncells = 0;
	row->valid = eol - line <= (ptrdiff_t)UINT32_MAX;
	while (row->ncells < max) {
		q = pp_skip_blanks(p, eol);
		/* A count is separated from what comes before it, except at the row start. */
		if (q == p && row->ncells > 0)
			break;
		if (pp_number(&q, eol, base, &v) < 0 || (q < eol && !pp_isblank(*q)))
			break;
		row_reserve(row, (size_t)row->ncells + 1);
		row->end[row->ncells] = (uint32_t)(q - line);
		if (fn != NULL)
			fn(ctx, row->ncells, v);
		row->ncells++;
		p = tail = q;
	}
	return tail;
}

/* Parse again cell c of a line whose bytes in that cell changed: the span from the end of
 * the cell before it must still be blanks then digits ending exactly where they ended. */
static int
reparse_cell(const struct pp_row *row, const char *line, size_t len, uint32_t c, int base,
             uint64_t *val)
{
	size_t s = c > 0 ? row->end[c - 1] : row->start, e = row->end[c];
	const char *p = line + s, *q;

	if (c > 0 && !pp_isblank(*p))
		return -1;
	p = pp_skip_blanks(p, line + e);
	q = p;
	if (pp_number(&q, line + e, base, val) < 0 || q != line + e)
		return -1;
	if (e < len && !pp_isblank(line[e]))
		return -1;
	return 0;
}

/* The first cell from c on that ends after offset d, or ncells. A /proc/interrupts line has
 * 144 cells and often one changed far in: search rather than walk. */
static inline uint32_t
first_cell_after(const struct pp_row *row, uint32_t c, size_t d)
{
	uint32_t hi = row->ncells, mid;

	while (hi - c > 8) {
		mid = c + (hi - c) / 2;
		if (row->end[mid] <= d)
			c = mid + 1;
		else
			hi = mid;
	}
	while (c < hi && row->end[c] <= d)
		c++;
	return c;
}

/* Whether bytes [s, e) of a and b differ; spans are a cell's blanks and digits. */
static inline bool
span_differs(const char *a, const char *b, size_t s, size_t e)
{
	if (e - s >= 8 && e - s <= 16)
		return ((load8(a + s) ^ load8(b + s)) | (load8(a + e - 8) ^ load8(b + e - 8))) != 0;
	return memcmp(a + s, b + s, e - s) != 0;
}

/* Parse only the cells of a same-length line whose bytes changed. */
int
pp_row_diff(const struct pp_row *row, const char *line, const char *old, size_t len, int base,
            pp_cell_fn fn, void *ctx)
{
	size_t pos = 0, d;
	uint32_t c = 0;
	uint64_t v;

	if (!row->valid || (row->ncells > 0 && row->end[row->ncells - 1] > len))
		return -1;
	for (;;) {
		d = first_diff(line, old, pos, len);
		if (d == len)
			return 0;
		if (d < row->start)
			return -1; /* the label moved */
		c = first_cell_after(row, c, d);
		if (c == row->ncells)
			return -1; /* the text after the counts changed */
		/* Parse this cell, and while the next one differs too, that one directly:
		 * on a busy row most cells change and a jump per cell would cost more. */
		do {
			if (reparse_cell(row, line, len, c, base, &v) < 0 || fn(ctx, c, v) < 0)
				return -1;
			pos = row->end[c++];
		} while (c < row->ncells && span_differs(line, old, pos, row->end[c]));
	}
}

/* Free a row's cell ends. */
void
pp_row_free(struct pp_row *row)
{
	free(row->end);
	memset(row, 0, sizeof(*row));
}
