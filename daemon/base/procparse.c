/* procparse.c: hand-written, no-copy parsing of /proc text (see procparse.h). */
#include <stdlib.h>
#include <string.h>

#include "error.h"
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

	/* A NUL ends no label: the kernel prints none, and a label must be a C string. */
	while (e < eol && *e != ':' && *e != '\0' && !pp_isblank(*e))
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

/* Allocate the column arrays of a table's header. */
void
pp_cpu_cols_init(struct pp_cpu_cols *c)
{
	memset(c, 0, sizeof(*c));
	c->cols = xcalloc(CPUSET_MAX_CPUS, sizeof(*c->cols));
	c->newcols = xcalloc(CPUSET_MAX_CPUS, sizeof(*c->newcols));
	c->online = xcalloc(1, sizeof(*c->online));
}

void
pp_cpu_cols_free(struct pp_cpu_cols *c)
{
	free(c->cols);
	free(c->newcols);
	free(c->online);
	memset(c, 0, sizeof(*c));
}

/* Read a header; map the columns again when its CPUs changed. */
int
pp_cpu_cols_read(struct pp_cpu_cols *c, const char *line, const char *eol, const char *what,
                 unsigned *oldncpus, struct nm_error *err)
{
	size_t n = pp_cpu_header(line, eol, c->newcols, CPUSET_MAX_CPUS), i;
	unsigned maxcpu = 0;

	if (n == 0)
		return nm_error_set(err, NM_ERR_FAILED, "%s: no CPU header", what);
	if (n == c->ncols && memcmp(c->newcols, c->cols, n * sizeof(*c->cols)) == 0)
		return 0;
	for (i = 0; i < n; i++) {
		if (c->newcols[i] >= CPUSET_MAX_CPUS)
			return nm_error_set(err, NM_ERR_FAILED, "%s: CPU%u out of range", what,
			                    c->newcols[i]);
		if (c->newcols[i] > maxcpu)
			maxcpu = c->newcols[i];
	}
	cpuset_zero(c->online);
	for (i = 0; i < n; i++)
		cpuset_add(c->online, c->newcols[i]);
	memcpy(c->cols, c->newcols, n * sizeof(*c->cols));
	c->ncols = n;
	*oldncpus = c->ncpus;
	if (maxcpu + 1 > c->ncpus)
		c->ncpus = maxcpu + 1;
	return 1;
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

#ifdef __SSE2__
#include <emmintrin.h>

/* The 16 bytes at a + off compared with those at b + off: 0xff where equal. */
static inline __m128i
eq16(const char *a, const char *b, size_t off)
{
	return _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(a + off)),
	                      _mm_loadu_si128((const __m128i *)(const void *)(b + off)));
}

/* A bit per byte of the 16 at off, set where a and b are equal. */
static inline uint64_t
eq16_bits(const char *a, const char *b, size_t off)
{
	return (uint64_t)(uint32_t)_mm_movemask_epi8(eq16(a, b, off));
}

/* The first offset at or after pos where a and b differ, or len (inline for pp_row_diff,
 * which calls it for every change in a line). The byte masks of SSE2 (every x86-64 has it)
 * give the offset within a block directly, where a word-then-byte walk would take up to
 * sixteen steps to find it: most calls find a difference within a few cells. */
static inline size_t
first_diff(const char *a, const char *b, size_t pos, size_t len)
{
	uint64_t m;

	/* A row's next changed cell is often the next one: look at 16 bytes first. */
	if (pos + 16 <= len) {
		m = eq16_bits(a, b, pos);
		if (m != 0xffff)
			return pos + (size_t)__builtin_ctzll(~m);
		pos += 16;
	}
	/* 64 bytes a step while equal; the buffers compared are megabytes that differ in a
	 * few places, so this loop is what a sample costs. */
	while (pos + 64 <= len) {
		__m128i e =
		    _mm_and_si128(_mm_and_si128(eq16(a, b, pos), eq16(a, b, pos + 16)),
		                  _mm_and_si128(eq16(a, b, pos + 32), eq16(a, b, pos + 48)));
		if (_mm_movemask_epi8(e) != 0xffff) {
			m = eq16_bits(a, b, pos) | eq16_bits(a, b, pos + 16) << 16 |
			    eq16_bits(a, b, pos + 32) << 32 | eq16_bits(a, b, pos + 48) << 48;
			return pos + (size_t)__builtin_ctzll(~m);
		}
		pos += 64;
	}
	while (pos + 16 <= len) {
		m = eq16_bits(a, b, pos);
		if (m != 0xffff)
			return pos + (size_t)__builtin_ctzll(~m);
		pos += 16;
	}
	if (pos == len)
		return len;
	if (len < 16) {
		while (pos < len && a[pos] == b[pos])
			pos++;
		return pos;
	}
	/* The last 16 bytes, overlapping those compared: bit i for byte pos + i, the bits
	 * past len set. */
	m = eq16_bits(a, b, len - 16) >> (16 - (len - pos)) | ~0ull << (len - pos);
	return m == ~0ull ? len : pos + (size_t)__builtin_ctzll(~m);
}
#else
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
#endif

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
 * for AVX2 whatever the target of the rest, and called only on a CPU that has it. It clears
 * the upper halves of the vector registers before it returns: GCC 12 leaves them dirty on
 * a tail call, and the SSE code after it (the rest of the daemon's parsers) then ran 5 to 7
 * times slower on this machine's EPYC (a 20-byte compare took 142 ns instead of 8). */
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
	_mm256_zeroupper();
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

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HEX8_FAST 1
#define ONES      0x0101010101010101ull
#define HIGHS     0x8080808080808080ull

/* The 8 lower-case hex digits at p as a value: 0 with *val, -1 when a byte is not one (an
 * upper-case digit too: the caller's loop takes those). A "%08x" cell of lnstat or
 * softnet_stat in a dozen operations instead of a loop of eight: each byte is given the
 * value it would have as a digit, that value is written back as the digit it would be, and
 * the word must come out the same. */
static inline int
hex8(const char *p, uint64_t *val)
{
	uint64_t x = load8(p), n, digit;

	n = (x & ONES * 0x0f) + 9 * ((x >> 6) & ONES); /* 0..24 in each byte */
	digit = n + ONES * '0' + 39 * (((n + ONES * 6) >> 4) & ONES);
	if (((digit ^ x) | ((n + ONES * 0x70) & HIGHS)) != 0) /* not x, or n > 15 */
		return -1;
	x = __builtin_bswap64(n); /* the last digit in the lowest byte */
	x = (x | x >> 4) & 0x00ff00ff00ff00ffull;
	x = (x | x >> 8) & 0x0000ffff0000ffffull;
	*val = (x | x >> 16) & 0xffffffffull;
	return 0;
}

#ifdef __SSE2__
#define DEC16_FAST 1

/* A right-aligned decimal cell ("%10u " of /proc/interrupts and /proc/softirqs): the n bytes
 * ending at end (2 <= n <= 16, and the 16 bytes before end readable) must be blanks then 1
 * to n-1 digits. 0 with *val, -1 otherwise. One 16-byte compare classifies the bytes, and
 * the digits are summed a word at a time, in place of a loop over blanks and one over
 * digits. */
static inline int
dec16(const char *end, size_t n, uint64_t *val)
{
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(end - 16));
	__m128i t = _mm_sub_epi8(x, _mm_set1_epi8('0'));
	unsigned dig = (unsigned)_mm_movemask_epi8(
	    _mm_cmpeq_epi8(_mm_max_epu8(t, _mm_set1_epi8(9)), _mm_set1_epi8(9)));
	unsigned blank = (unsigned)_mm_movemask_epi8(_mm_or_si128(
	    _mm_cmpeq_epi8(x, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\t'))));
	unsigned span = 0xffffu << (16 - n) & 0xffffu, notdig = ~dig & 0xffffu, k, digits;
	uint64_t lo, hi;

	/* k: the digits that end the window; before them the span must be all blanks. */
	if (notdig == 0)
		return -1; /* 16 digits: no blank before them */
	k = 15 - (unsigned)(31 - __builtin_clz(notdig));
	digits = 0xffffu << (16 - k) & 0xffffu;
	if (k == 0 || k >= n || (blank & span & ~digits) != (span & ~digits))
		return -1;
	memcpy(&lo, end - 8, sizeof(lo));
	lo &= ONES * 0x0f & (k >= 8 ? ~0ull : ~0ull << 8 * (8 - k));
	if (k <= 8) {
		*val = pp_dec8(lo);
		return 0;
	}
	memcpy(&hi, end - 16, sizeof(hi));
	hi &= ONES * 0x0f & ~0ull << 8 * (16 - k);
	*val = pp_dec8(hi) * 100000000 + pp_dec8(lo);
	return 0;
}
#endif
#endif

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
#ifdef HEX8_FAST
	/* A "%08x" cell after its blanks (one, or more where the kernel aligns columns; none
	 * for cell 0 at the row's start). */
	if (base == 16 && e - s >= 8 + (c > 0) && hex8(line + e - 8, val) == 0) {
		for (q = p; q < line + e - 8 && pp_isblank(*q); q++)
			;
		if (q == line + e - 8)
			return e < len && !pp_isblank(line[e]) ? -1 : 0;
	}
#ifdef DEC16_FAST
	if (base == 10 && c > 0 && e - s <= 16 && e >= 16 && dec16(line + e, e - s, val) == 0)
		return e < len && !pp_isblank(line[e]) ? -1 : 0;
#endif
#endif
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
pp_row_diff_from(const struct pp_row *row, const char *line, const char *old, size_t len,
                 size_t from, int base, pp_cell_fn fn, void *ctx)
{
	size_t pos = from < len ? from : len, d;
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

/* The 8 hex digits at p as a value; 0, or -1 when one is not a lower-case hex digit. */
static int
grid_cell(const char *p, uint64_t *val)
{
#ifdef HEX8_FAST
	return hex8(p, val);
#else
	uint64_t v = 0;

	for (int i = 0; i < 8; i++) {
		unsigned c = (unsigned char)p[i];
		if (c >= '0' && c <= '9')
			v = v << 4 | (c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v << 4 | (c - 'a' + 10);
		else
			return -1;
	}
	*val = v;
	return 0;
#endif
}

bool
pp_hex_grid(const char *buf, size_t start, size_t len, uint32_t ncols)
{
	size_t line = (size_t)ncols * 9;
	uint64_t v;

	if (ncols == 0 || len <= start || (len - start) % line != 0)
		return false;
	for (size_t p = start; p < len; p += 9) {
		size_t col = (p - start) % line / 9;
		if (buf[p + 8] != (col + 1 == ncols ? '\n' : ' ') || grid_cell(buf + p, &v) < 0)
			return false;
	}
	return true;
}

int
pp_hex_grid_diff(const char *buf, const char *old, size_t start, size_t len, uint32_t ncols,
                 pp_grid_fn fn, void *ctx)
{
	size_t line = (size_t)ncols * 9, pos = 0, d, off, at;
	uint64_t v;

	if (ncols == 0)
		return -1;
	for (;;) {
		d = pp_first_diff_near(buf, old, pos, len);
		if (d == len)
			return 0;
		if (d < start)
			return -1;
		off = (d - start) % line;
		if (off % 9 == 8)
			return -1; /* a blank or a '\n' */
		at = d - off % 9;
		if (grid_cell(buf + at, &v) < 0 || fn(ctx, (d - start) / line, off / 9, v) < 0)
			return -1;
		pos = at + 8; /* the blank or '\n' after it is compared too */
	}
}

/* Free a row's cell ends. */
void
pp_row_free(struct pp_row *row)
{
	free(row->end);
	memset(row, 0, sizeof(*row));
}
