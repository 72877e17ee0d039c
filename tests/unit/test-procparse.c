/* test-procparse.c: the number helpers; the per-CPU header parser the interrupts and
 * softirqs sources share; pp_row_diff, which every table source uses to parse only the
 * cells of a line whose bytes changed: fixed cases, then 200,000 random rows checked against
 * a model written here the plain way: which cells it must report, with which values, and
 * where it must give up (-1) so that the caller parses the line in full. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "error.h"
#include "procparse.h"

#define MAX_CELLS 64

/* The cells a pp_row_diff call reported. */
struct calls {
	size_t n;
	size_t col[MAX_CELLS];
	uint64_t val[MAX_CELLS];
};

static int
record(void *ctx, size_t col, uint64_t val)
{
	struct calls *c = ctx;

	assert_true(c->n < MAX_CELLS);
	c->col[c->n] = col;
	c->val[c->n++] = val;
	return 0;
}

/* Parse old in full, then diff new (same length) against it; buffers are copied so that
 * nothing lies before the line but what the test puts there. */
static int
diff_rows(const char *prefix, const char *old, const char *new, int base, struct calls *out)
{
	size_t plen = strlen(prefix), len = strlen(old);
	char *a = malloc(plen + len + 1), *b = malloc(plen + len + 1);
	struct pp_row row = {0};
	const char *p;
	int r;

	assert_int_equal(strlen(new), len);
	memcpy(a, prefix, plen);
	memcpy(a + plen, old, len + 1);
	memcpy(b, prefix, plen);
	memcpy(b + plen, new, len + 1);
	p = a + plen;
	assert_int_equal(pp_label(&p, a + plen + len, &(const char *){NULL}, &(size_t){0}), 0);
	pp_row_parse(&row, a + plen, p, a + plen + len, MAX_CELLS, base, NULL, NULL);
	memset(out, 0, sizeof(*out));
	r = pp_row_diff(&row, b + plen, a + plen, len, base, record, out);
	/* Told that some bytes up to the first difference are the same, it says the same. */
	{
		struct calls again = {0};
		size_t same = 0;

		while (same < len && a[plen + same] == b[plen + same])
			same++;
		same = (same + 1) * (size_t)rand() / ((size_t)RAND_MAX + 1);
		assert_int_equal(
		    pp_row_diff_from(&row, b + plen, a + plen, len, same, base, record, &again), r);
		assert_int_equal(again.n, out->n);
		for (size_t i = 0; i < out->n; i++) {
			assert_int_equal(again.col[i], out->col[i]);
			assert_int_equal(again.val[i], out->val[i]);
		}
	}
	pp_row_free(&row);
	free(a);
	free(b);
	return r;
}

static void
test_row_diff_fixed(void **state)
{
	struct calls c;

	(void)state;
	/* /proc/interrupts cells: 11 bytes each, one changed far in. */
	assert_int_equal(diff_rows("header\n",
	                           "  25:          0        123    4294967295 x-edge eth0",
	                           "  25:          0        124    4294967296 x-edge eth0", 10, &c),
	                 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.col[0], 1);
	assert_int_equal(c.val[0], 124);
	assert_int_equal(c.col[1], 2);
	assert_int_equal(c.val[1], 4294967296ull);
	/* lnstat hex cells. */
	assert_int_equal(diff_rows("entries in_hit\n", "x: 000003e8 0000ffff 00000000",
	                           "x: 000003e8 0001000a 0000abCd", 16, &c),
	                 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.val[0], 0x1000a);
	assert_int_equal(c.val[1], 0xabcd);
	/* A count grew into the blank before it: no separator left. */
	assert_int_equal(diff_rows("0123456789abcdef", "cpu:   99999 1", "cpu:  999999 1", 10, &c),
	                 0);
	assert_int_equal(c.val[0], 999999);
	assert_int_equal(diff_rows("0123456789abcdef", "cpu: 1 99999 1", "cpu: 1199999 1", 10, &c),
	                 -1);
	/* A letter in a decimal cell, a blank inside a cell's digits, a hex digit past 9. */
	assert_int_equal(diff_rows("0123456789abcdef", "cpu: 1 12345 1", "cpu: 1 12a45 1", 10, &c),
	                 -1);
	assert_int_equal(diff_rows("0123456789abcdef", "cpu: 1 12345 1", "cpu: 1 12 45 1", 10, &c),
	                 -1);
	/* 15 and 16 digits (one word is not enough), 20 (the most a u64 takes) and one past. */
	assert_int_equal(diff_rows("0123456789abcdef", "cpu: 1 100000000000000 1",
	                           "cpu: 1 999999999999999 1", 10, &c),
	                 0);
	assert_int_equal(c.val[0], 999999999999999ull);
	assert_int_equal(diff_rows("0123456789abcdef", "cpu: 1 1000000000000000 1",
	                           "cpu: 1 9999999999999999 1", 10, &c),
	                 0);
	assert_int_equal(c.val[0], 9999999999999999ull);
	assert_int_equal(diff_rows("0123456789abcdef", "cpu: 1 10000000000000000000 1",
	                           "cpu: 1 18446744073709551615 1", 10, &c),
	                 0);
	assert_int_equal(c.val[0], UINT64_MAX);
	assert_int_equal(diff_rows("0123456789abcdef", "cpu: 1 10000000000000000000 1",
	                           "cpu: 1 18446744073709551616 1", 10, &c),
	                 -1);
	/* A row at the very start of its buffer. */
	assert_int_equal(diff_rows("", "c: 5 6", "c: 7 6", 10, &c), 0);
	assert_int_equal(c.val[0], 7);
}

/* ---- random rows against a byte-at-a-time model ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static unsigned
rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static int
digit_value(char ch, int base)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (base == 16 && ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (base == 16 && ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* The model of one changed cell [s, e): blanks (one at least unless first), then digits to
 * e, then a blank or the line's end; the value must fit in 64 bits. */
static int
model_cell(const char *line, size_t len, size_t s, size_t e, bool first, int base, uint64_t *v)
{
	size_t i = s;
	int d;

	if (e < len && line[e] != ' ' && line[e] != '\t')
		return -1;
	if (!first && line[s] != ' ' && line[s] != '\t')
		return -1;
	while (i < e && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i == e)
		return -1;
	*v = 0;
	for (; i < e; i++) {
		if ((d = digit_value(line[i], base)) < 0)
			return -1;
		if (__builtin_mul_overflow(*v, (uint64_t)base, v) ||
		    __builtin_add_overflow(*v, (uint64_t)d, v))
			return -1;
	}
	return 0;
}

/* Write a random count of base into [p, p + w), right-aligned; returns its digits. */
static size_t
random_count(char *p, size_t w, int base)
{
	static const char hex[] = "0123456789abcdefABCDEF";
	size_t nd = 1 + rnd((unsigned)(w < 20 ? w : 20));

	memset(p, ' ', w);
	for (size_t i = w - nd; i < w; i++)
		p[i] = base == 16 ? hex[rnd(22)] : (char)('0' + rnd(10));
	if (rnd(4) == 0)
		p[rnd((unsigned)(w - nd + 1))] = '\t';
	return nd;
}

static void
test_row_diff_random(void **state)
{
	static const char noise[] = "0123456789  \tafAFxz:-go\x80\x19";
	char old[1024], new[1024];

	(void)state;
	for (int iter = 0; iter < 200000; iter++) {
		int base = rnd(2) ? 16 : 10;
		size_t ncells = 1 + rnd(12), len, ends[MAX_CELLS], starts[MAX_CELLS], pos;
		size_t lead =
		    rnd(24); /* bytes before the label: 0 puts the row at the buffer start */
		char prefix[32];
		struct calls got, want = {0};
		int r, want_r = 0;

		memset(prefix, 'p', lead);
		prefix[lead] = '\0';
		memcpy(old, "lbl:", 4);
		pos = 4;
		for (size_t c = 0; c < ncells; c++) {
			size_t w = 2 + rnd(22);
			starts[c] = pos;
			random_count(old + pos, w, base);
			old[pos] = ' '; /* every cell starts with a separator */
			pos += w;
			ends[c] = pos;
		}
		memcpy(old + pos, " tail", 6);
		len = pos + 5;
		/* The full parse must find the cells as built; otherwise skip (a count that
		 * overflows, say). */
		{
			struct pp_row row = {0};
			const char *p = old + 4;
			pp_row_parse(&row, old, p, old + len, MAX_CELLS, base, NULL, NULL);
			bool same = row.ncells == ncells;
			for (size_t c = 0; same && c < ncells; c++)
				same = row.end[c] == ends[c];
			pp_row_free(&row);
			if (!same)
				continue;
		}
		memcpy(new, old, len + 1);
		/* Change a few cells: a new count, or noise. */
		for (unsigned k = rnd(4); k-- > 0;) {
			size_t c = rnd((unsigned)ncells), w = ends[c] - starts[c];
			if (rnd(3) == 0)
				for (size_t i = starts[c]; i < ends[c]; i++)
					new[i] = noise[rnd(sizeof(noise) - 1)];
			else
				random_count(new + starts[c] + 1, w - 1, base);
		}
		/* The model: changed cells in order until one is not a count. */
		for (size_t c = 0; c < ncells; c++) {
			uint64_t v;
			if (memcmp(old + starts[c], new + starts[c], ends[c] - starts[c]) == 0)
				continue;
			if (model_cell(new, len, starts[c], ends[c], c == 0, base, &v) < 0) {
				want_r = -1;
				break;
			}
			want.col[want.n] = c;
			want.val[want.n++] = v;
		}
		r = diff_rows(prefix, old, new, base, &got);
		if (r != want_r || got.n != want.n) {
			print_message("row  %s\nnew  %s\nbase %d lead %zu: r %d want %d, %zu calls "
			              "want %zu\n",
			              old, new, base, lead, r, want_r, got.n, want.n);
			fail();
		}
		for (size_t i = 0; i < want.n; i++) {
			if (got.col[i] != want.col[i] || got.val[i] != want.val[i]) {
				print_message(
				    "row  %s\nnew  %s\ncall %zu: col %zu val %llu, want col "
				    "%zu val %llu\n",
				    old, new, i, got.col[i], (unsigned long long)got.val[i],
				    want.col[i], (unsigned long long)want.val[i]);
				fail();
			}
		}
	}
}

/* pp_first_diff against a byte-at-a-time walk: every start and length up to 300 bytes (the
 * 128-byte loop, the first 16-byte look, the 64- and 16-byte steps and the overlapping last
 * block), with no difference, one, or a few, anywhere, and every byte of 32 different. */
static void
test_first_diff(void **state)
{
	char a[320], b[320];

	(void)state;
	for (int round = 0; round < 3000; round++) {
		size_t len = rnd(301), pos, want, got;
		unsigned ndiff = rnd(4);

		for (size_t i = 0; i < len; i++)
			a[i] = b[i] = (char)('0' + rnd(10));
		if (round % 100 == 0)
			for (size_t i = 0; i < len && i < 32; i++)
				b[i] = (char)(a[i] + 1);
		for (unsigned k = 0; k < ndiff && len > 0; k++) {
			size_t at = rnd((unsigned)len);
			b[at] = (char)(a[at] ^ (1 << rnd(8)));
		}
		for (pos = 0; pos <= len; pos++) {
			for (want = pos; want < len && a[want] == b[want]; want++)
				;
			got = pp_first_diff(a, b, pos, len);
			if (got != want)
				fail_msg("len %zu pos %zu: %zu, expected %zu", len, pos, got, want);
		}
	}
}

/* The parsing helpers on their own. */
static void
test_procparse(void **state)
{
	const char *s = "18446744073709551615 18446744073709551616 ff 0x1 12ab", *p = s;
	struct pp_row row = {0};
	const char *line, *old;
	uint64_t v;
	char buf[24];

	(void)state;
	assert_int_equal(pp_u64(&p, s + strlen(s), &v), 0);
	assert_true(v == UINT64_MAX);
	p = pp_skip_blanks(p, s + strlen(s));
	assert_int_equal(pp_u64(&p, s + strlen(s), &v), -1); /* 2^64 */
	p = strchr(p, ' ') + 1;
	assert_int_equal(pp_hex(&p, s + strlen(s), &v), 0);
	assert_int_equal(v, 255);
	p++;
	assert_int_equal(pp_hex(&p, s + strlen(s), &v), 0); /* "0" of "0x1" */
	assert_int_equal(v, 0);
	assert_int_equal(pp_utoa(0, buf), 1);
	assert_int_equal(pp_utoa(UINT64_MAX, buf), 20);
	assert_memory_equal(buf, "18446744073709551615", 20);

	/* A count split in two in place is a layout change, not a new value. */
	old = "  1:      12345     7  x";
	line = "  1:      12 45     7  x";
	pp_row_parse(&row, old, old + 4, old + strlen(old), 8, 10, NULL, NULL);
	assert_int_equal(row.ncells, 2);
	assert_int_equal(pp_row_diff(&row, line, old, strlen(line), 10, NULL, NULL), -1);
	/* A change in the text after the counts too. */
	line = "  1:      12345     7  y";
	assert_int_equal(pp_row_diff(&row, line, old, strlen(line), 10, NULL, NULL), -1);
	pp_row_free(&row);
}

/* The CPU columns of a header: read, the same again, changed (an offline CPU, one higher
 * than ever), refused (none, out of range) without touching what was read before. */
static void
test_cpu_cols(void **state)
{
	const char *h1 = "           CPU0       CPU1       CPU2       CPU3",
	           *h2 = "  CPU0 CPU2 CPU9 x";
	struct pp_cpu_cols c;
	struct nm_error err;
	unsigned old = 99;

	(void)state;
	pp_cpu_cols_init(&c);
	assert_int_equal(pp_cpu_cols_read(&c, h1, h1 + strlen(h1), "t", &old, &err), 1);
	assert_int_equal(old, 0);
	assert_int_equal(c.ncols, 4);
	assert_int_equal(c.ncpus, 4);
	assert_int_equal(c.cols[3], 3);
	assert_int_equal(cpuset_count(c.online), 4);
	old = 99;
	assert_int_equal(pp_cpu_cols_read(&c, h1, h1 + strlen(h1), "t", &old, &err), 0);
	assert_int_equal(old, 99);
	assert_int_equal(pp_cpu_cols_read(&c, h2, h2 + strlen(h2), "t", &old, &err), 1);
	assert_int_equal(old, 4);
	assert_int_equal(c.ncols, 3);
	assert_int_equal(c.ncpus, 10);
	assert_int_equal(c.cols[1], 2);
	assert_int_equal(c.cols[2], 9);
	assert_true(cpuset_has(c.online, 9) && !cpuset_has(c.online, 1));
	/* Fewer CPUs: ncpus never shrinks. */
	assert_int_equal(pp_cpu_cols_read(&c, h1, h1 + strlen(h1), "t", &old, &err), 1);
	assert_int_equal(old, 10);
	assert_int_equal(c.ncpus, 10);
	assert_int_equal(c.ncols, 4);
	assert_int_equal(pp_cpu_cols_read(&c, "  x CPU1", "  x CPU1" + 8, "src: f", &old, &err),
	                 -1);
	assert_string_equal(err.message, "src: f: no CPU header");
	assert_int_equal(
	    pp_cpu_cols_read(&c, "CPU1 CPU8192", "CPU1 CPU8192" + 12, "src: f", &old, &err), -1);
	assert_string_equal(err.message, "src: f: CPU8192 out of range");
	assert_int_equal(c.ncols, 4);
	assert_int_equal(c.cols[3], 3);
	assert_int_equal(cpuset_count(c.online), 4);
	pp_cpu_cols_free(&c);
}

/* pp_label: a label is the bytes before ':', never empty, and never holds a NUL (the
 * interrupts source keeps labels as C strings: fuzz-proc found "\0:" giving ""). */
static void
test_label(void **state)
{
	static const char ok[] = "  LOC:  1 2", nul[] = " \0:  1 2", none[] = "  :  1",
	                  blank[] = "  LO C: 1";
	const char *p, *label;
	size_t len;

	(void)state;
	p = ok;
	assert_int_equal(pp_label(&p, ok + sizeof(ok) - 1, &label, &len), 0);
	assert_int_equal(len, 3);
	assert_memory_equal(label, "LOC", 3);
	assert_ptr_equal(p, ok + 6);
	p = nul;
	assert_int_equal(pp_label(&p, nul + sizeof(nul) - 1, &label, &len), -1);
	p = none;
	assert_int_equal(pp_label(&p, none + sizeof(none) - 1, &label, &len), -1);
	p = blank;
	assert_int_equal(pp_label(&p, blank + sizeof(blank) - 1, &label, &len), -1);
}

/* pp_u64_wide against pp_u64 (the plain loop): runs of 0 to 20 digits with every byte
 * that may follow, at every offset of a buffer, and fewer than 16 bytes before the end; and
 * pp_eq32 against memcmp for every length, with one byte changed inside and outside it. */
static void
test_wide(void **state)
{
	char buf[64];
	const char *p, *q;
	uint64_t a, b;
	int ra, rb;
	const char follow[] = {'\n', ' ', ':', 'a', '\0', '/', (char)0xff};

	(void)state;
	srand(7);
	for (int iter = 0; iter < 200000; iter++) {
		size_t off = (size_t)rand() % 8, nd = (size_t)rand() % 21, avail, i;

		for (i = 0; i < sizeof(buf); i++)
			buf[i] = (char)('0' + rand() % 10);
		for (i = 0; i < nd && off + i < sizeof(buf); i++)
			buf[off + i] = (char)('0' + (rand() % 4 == 0 ? 0 : rand() % 10));
		if (off + nd < sizeof(buf))
			buf[off + nd] = follow[(size_t)rand() % sizeof(follow)];
		avail = off + nd + 1 + (size_t)rand() % 24;
		if (avail > sizeof(buf))
			avail = sizeof(buf);
		p = q = buf + off;
		ra = pp_u64(&p, buf + avail, &a);
		rb = pp_u64_wide(&q, buf + avail, &b);
		assert_int_equal(ra, rb);
		assert_ptr_equal(p, q);
		if (ra == 0)
			assert_true(a == b);
	}
	p = "123456789012345\n                ";
	assert_int_equal(pp_u64_wide(&p, p + 32, &a), 0);
	assert_true(a == 123456789012345ull);
	p = "12345678\n                      ";
	assert_int_equal(pp_u64_wide(&p, p + 32, &a), 0);
	assert_true(a == 12345678ull);
	p = "18446744073709551616            "; /* 2^64: pp_u64 refuses it */
	assert_int_equal(pp_u64_wide(&p, p + 32, &a), -1);

	{
		char x[32], y[32];

		for (size_t n = 0; n <= 32; n++) {
			for (size_t k = 0; k < 32; k++) {
				for (size_t i = 0; i < 32; i++)
					x[i] = y[i] = (char)('a' + i);
				y[k] = 'Z';
				assert_int_equal(pp_eq32(x, y, n), memcmp(x, y, n) == 0);
				assert_int_equal(pp_eq32(x, y, n), k >= n);
			}
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_procparse),
	    cmocka_unit_test(test_label),
	    cmocka_unit_test(test_cpu_cols),
	    cmocka_unit_test(test_row_diff_fixed),
	    cmocka_unit_test(test_row_diff_random),
	    cmocka_unit_test(test_first_diff),
	    cmocka_unit_test(test_wide),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
