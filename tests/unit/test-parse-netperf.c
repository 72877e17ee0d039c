/* test-parse-netperf.c: netperf's "-P 0 -D 1 -- -k SELECTORS" key=value lines, on output
 * captured from netperf 2.7.0 on loopback (tests/fixtures/netperf/) and on odd input.
 *
 * The fixtures:
 *   stream.out        netperf -H 127.0.0.1 -l 2 -t TCP_STREAM -P 0 -D 1 -- -k SELECTORS
 *                     -m 16384
 *   rr.out            the same with -t TCP_RR -- -k SELECTORS -r 1,1
 *   udp-stream.out    netperf 2.7.0 between two namespaces over a veth: -l 3 -t UDP_STREAM
 *                     -P 0 -D 1 -- -k SELECTORS -m 1024 -S ,4096 (the receiver's buffer
 *                     small, so that it drops: 241,070 datagrams sent, 109,280 received)
 *   stream-cpu.out    netperf 2.7.0 between two namespaces over a veth with netperf's CPU
 *                     figures: -l 2 -t TCP_STREAM -P 0 -D 1 -c -C -- -k SELECTORS,CPU
 *                     -m 16384 (both ends on this machine's 2 busy CPUs: 100 % each)
 *   rr-cpu.out        the same with -t TCP_RR -- -k SELECTORS,CPU -r 1,1
 *   stream-no-cpu.out the same without -c -C, with test-specific options passed through:
 *                     -- -k SELECTORS,CPU -m 64k -s 1M -S 1M,1M -D (CPU figures -1)
 *   no-netserver.out  what netperf 2.7.0 prints (on stdout, exit 255) when no netserver
 *                     listens on the port
 * where SELECTORS is NETPERF_SELECTORS and CPU NETPERF_SELECTORS_CPU. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parse-netperf.h"
#include "xmalloc.h"

/* Read a fixture into a NUL-terminated buffer the caller frees. */
static char *
slurp(const char *name, size_t *len)
{
	char path[1024];
	FILE *fp;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/netperf/%s", FIXTURE_DIR, name);
	if ((fp = fopen(path, "rb")) == NULL)
		fail_msg("cannot open %s", path);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	buf = xmalloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	buf[n] = '\0';
	fclose(fp);
	*len = (size_t)n;
	return buf;
}

/* Feed text[0..len) line by line, as the runner does, without the '\n'. Returns how many
 * lines the parser took; *nlines (when given) gets how many lines there were. */
static unsigned
feed(struct netperf_out *o, const char *text, size_t len, unsigned *nlines)
{
	const char *p = text, *end = text + len, *nl;
	unsigned took = 0, n = 0;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		took += (unsigned)parse_netperf_line(o, p, (size_t)(nl - p));
		n++;
		p = nl + 1;
	}
	if (nlines != NULL)
		*nlines = n;
	return took;
}

/* One NUL-terminated line. */
static int
line(struct netperf_out *o, const char *s)
{
	return parse_netperf_line(o, s, strlen(s));
}

/* Exact comparison of doubles: the parser must give what strtod gives for the text. */
#define assert_double_equal(a, b)                                                                  \
	do {                                                                                       \
		double a_ = (a), b_ = (b);                                                         \
		if (!(a_ == b_))                                                                   \
			fail_msg("%s == %.17g, want %.17g", #a, a_, b_);                           \
	} while (0)
#define assert_nan(a)                                                                              \
	do {                                                                                       \
		double a_ = (a);                                                                   \
		if (!isnan(a_))                                                                    \
			fail_msg("%s == %.17g, want NAN", #a, a_);                                 \
	} while (0)

/* Nothing reported: what parse_netperf_init leaves. */
static void
assert_nothing(const struct netperf_out *o)
{
	assert_nan(o->throughput);
	assert_string_equal(o->units, "");
	assert_nan(o->transaction_rate);
	assert_nan(o->mean_latency_us);
	assert_nan(o->p99_latency_us);
	assert_nan(o->elapsed_s);
	assert_nan(o->bytes_sent);
	assert_nan(o->bytes_recvd);
	assert_nan(o->send_calls);
	assert_nan(o->send_throughput);
	assert_nan(o->remote_recv_calls);
	assert_nan(o->remote_bytes_recvd);
	assert_nan(o->local_cpu_pct);
	assert_nan(o->remote_cpu_pct);
	assert_nan(o->interim);
	assert_string_equal(o->interim_units, "");
	assert_int_equal(o->ninterim, 0);
	assert_false(o->final);
}

/* The figures of rr.out. */
static void
assert_rr(const struct netperf_out *o)
{
	assert_double_equal(o->throughput, 14090.64);
	assert_string_equal(o->units, "Trans/s");
	assert_double_equal(o->transaction_rate, 14090.635);
	assert_double_equal(o->mean_latency_us, 70.73);
	assert_double_equal(o->p99_latency_us, 2107);
	assert_double_equal(o->elapsed_s, 2.00);
	assert_double_equal(o->bytes_sent, 28239);
	assert_double_equal(o->bytes_recvd, 28239);
	assert_int_equal(o->ninterim, 2);
	assert_double_equal(o->interim, 11758.36);
	assert_string_equal(o->interim_units, "Trans/s");
	assert_true(o->final);
}

/* init: every figure NAN, no units, no interims, not final, whatever was there. */
static void
test_init(void **state)
{
	struct netperf_out o;

	(void)state;
	memset(&o, 0x5a, sizeof(o));
	parse_netperf_init(&o);
	assert_nothing(&o);
}

/* A TCP_STREAM run: one interim result, then the final block. */
static void
test_stream(void **state)
{
	struct netperf_out o;
	unsigned n;
	size_t len;
	char *text = slurp("stream.out", &len);

	(void)state;
	parse_netperf_init(&o);
	assert_int_equal(feed(&o, text, len, &n), 12);
	assert_int_equal(n, 12);
	assert_double_equal(o.throughput, 3354.82);
	assert_string_equal(o.units, "10^6bits/s");
	assert_double_equal(o.transaction_rate, 1.0);
	assert_double_equal(o.mean_latency_us, 38.88);
	assert_double_equal(o.p99_latency_us, 82);
	assert_double_equal(o.elapsed_s, 2.01);
	assert_double_equal(o.bytes_sent, 844627968);
	assert_double_equal(o.bytes_recvd, 0);
	assert_int_equal(o.ninterim, 1);
	assert_double_equal(o.interim, 3363.98);
	assert_string_equal(o.interim_units, "10^6bits/s");
	/* The interim's span: 2.009 s ending at that epoch second. */
	assert_double_equal(o.interim_interval_s, 2.009);
	assert_double_equal(o.interim_end_s, 1796006910.219);
	assert_int_equal(o.nended, 1);
	assert_true(o.final);
	free(text);
}

/* A UDP_STREAM run: the sender's interim rates, then the final block with both ends'
 * datagrams: THROUGHPUT is the receiver's rate, LOCAL_SEND_THROUGHPUT the sender's. */
static void
test_udp_stream(void **state)
{
	struct netperf_out o;
	unsigned n;
	size_t len;
	char *text = slurp("udp-stream.out", &len);

	(void)state;
	parse_netperf_init(&o);
	assert_int_equal(feed(&o, text, len, &n), 24);
	assert_int_equal(n, 24);
	assert_double_equal(o.throughput, 298.38);
	assert_string_equal(o.units, "10^6bits/s");
	assert_double_equal(o.send_throughput, 658.22);
	assert_double_equal(o.send_calls, 241070);
	assert_double_equal(o.remote_recv_calls, 109280);
	assert_double_equal(o.remote_bytes_recvd, 111902720);
	assert_double_equal(o.bytes_sent, 246855680);
	assert_double_equal(o.elapsed_s, 3.00);
	assert_int_equal(o.ninterim, 3);
	assert_double_equal(o.interim, 669.38);
	assert_true(o.final);
	free(text);
}

/* A TCP_RR run: two interim results, the last one kept, then the final block. */
static void
test_rr(void **state)
{
	struct netperf_out o;
	unsigned n;
	size_t len;
	char *text = slurp("rr.out", &len);

	(void)state;
	parse_netperf_init(&o);
	assert_int_equal(feed(&o, text, len, &n), 16);
	assert_int_equal(n, 16);
	assert_rr(&o);
	free(text);
}

/* netperf -c -C: both ends' CPU use, from real runs (a stream and an RR test). */
static void
test_cpu_util(void **state)
{
	static const struct {
		const char *file;
		unsigned lines;
		double tput;
	} runs[] = {{"stream-cpu.out", 22, 1487.49}, {"rr-cpu.out", 18, 7136.31}};
	struct netperf_out o;
	unsigned n;
	size_t len;

	(void)state;
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		char *text = slurp(runs[i].file, &len);
		parse_netperf_init(&o);
		assert_int_equal(feed(&o, text, len, &n), runs[i].lines);
		assert_int_equal(n, runs[i].lines);
		assert_double_equal(o.throughput, runs[i].tput);
		assert_double_equal(o.local_cpu_pct, 100.0);
		assert_double_equal(o.remote_cpu_pct, 100.0);
		assert_true(o.final);
		free(text);
	}
	/* Without -c -C netperf prints -1 for each end: not measured, no figure. */
	{
		char *text = slurp("stream-no-cpu.out", &len);
		parse_netperf_init(&o);
		assert_int_equal(feed(&o, text, len, &n), 18);
		assert_double_equal(o.throughput, 1859.54);
		/* -m 64k: netperf reads k as 1000 */
		assert_double_equal(o.bytes_sent, 7351.0 * 64000);
		assert_nan(o.local_cpu_pct);
		assert_nan(o.remote_cpu_pct);
		free(text);
	}
	/* Each end's own figure; a value past 100 % is not one. */
	parse_netperf_init(&o);
	assert_int_equal(line(&o, "LOCAL_CPU_UTIL=12.34"), 1);
	assert_int_equal(line(&o, "REMOTE_CPU_UTIL=0.00"), 1);
	assert_int_equal(line(&o, "REMOTE_CPU_UTIL=250"), 1);
	assert_double_equal(o.local_cpu_pct, 12.34);
	assert_double_equal(o.remote_cpu_pct, 0.0);
}

/* The first interim block alone (netperf still running, or killed): no final figures. */
static void
test_rr_interim_only(void **state)
{
	struct netperf_out o;
	size_t len, cut;
	char *text = slurp("rr.out", &len);
	const char *p = text;

	(void)state;
	for (int i = 0; i < 4; i++)
		p = strchr(p, '\n') + 1;
	cut = (size_t)(p - text);
	parse_netperf_init(&o);
	assert_int_equal(feed(&o, text, cut, NULL), 4);
	assert_int_equal(o.ninterim, 1);
	assert_double_equal(o.interim, 14527.65);
	assert_string_equal(o.interim_units, "Trans/s");
	assert_nan(o.throughput);
	assert_string_equal(o.units, "");
	assert_nan(o.elapsed_s);
	assert_false(o.final);
	free(text);
}

/* No netserver: netperf's two lines of complaint are not key=value output. */
static void
test_no_netserver(void **state)
{
	struct netperf_out o;
	unsigned n;
	size_t len;
	char *text = slurp("no-netserver.out", &len);

	(void)state;
	parse_netperf_init(&o);
	assert_int_equal(feed(&o, text, len, &n), 0);
	assert_int_equal(n, 2);
	assert_nothing(&o);
	free(text);
}

/* rr.out with "\r\n" line ends parses to the same figures, units without the '\r'. */
static void
test_crlf(void **state)
{
	struct netperf_out o;
	size_t len, j = 0;
	char *text = slurp("rr.out", &len), *crlf = xmalloc(2 * len + 1);

	(void)state;
	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\n')
			crlf[j++] = '\r';
		crlf[j++] = text[i];
	}
	parse_netperf_init(&o);
	assert_int_equal(feed(&o, crlf, j, NULL), 16);
	assert_rr(&o);
	free(crlf);
	free(text);
}

/* Spaces and '\r' after a value are dropped, in any mix. */
static void
test_trailing_space(void **state)
{
	struct netperf_out o;

	(void)state;
	parse_netperf_init(&o);
	assert_int_equal(line(&o, "THROUGHPUT=12.5   "), 1);
	assert_int_equal(line(&o, "THROUGHPUT_UNITS=Trans/s \r \r"), 1);
	assert_int_equal(line(&o, "ELAPSED_TIME=2.00 \r"), 1);
	assert_int_equal(line(&o, "NETPERF_INTERIM_RESULT[0]=7 "), 1);
	assert_int_equal(line(&o, "NETPERF_UNITS[0]=10^6bits/s  "), 1);
	assert_double_equal(o.throughput, 12.5);
	assert_string_equal(o.units, "Trans/s");
	assert_double_equal(o.elapsed_s, 2.0);
	assert_double_equal(o.interim, 7);
	assert_int_equal(o.ninterim, 1);
	assert_string_equal(o.interim_units, "10^6bits/s");
	assert_true(o.final);
}

/* A known key whose value is not a finite number is refused and changes nothing. */
static void
test_not_a_number(void **state)
{
	static const char *const bad[] = {
	    "THROUGHPUT=abc",
	    "THROUGHPUT=",
	    "THROUGHPUT= ",
	    "THROUGHPUT=\r",
	    "THROUGHPUT=12abc",
	    "THROUGHPUT=12 13",
	    "THROUGHPUT=nan",
	    "THROUGHPUT=inf",
	    "THROUGHPUT=-inf",
	    "ELAPSED_TIME=1e999",
	    "MEAN_LATENCY=1.2.3",
	    "P99_LATENCY=--1",
	    "LOCAL_BYTES_SENT=0,5",
	    "TRANSACTION_RATE=\t",
	    "NETPERF_INTERIM_RESULT[0]=x",
	    "NETPERF_INTERIM_RESULT[1]=",
	};
	struct netperf_out o;

	(void)state;
	parse_netperf_init(&o);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (line(&o, bad[i]) != 0)
			fail_msg("\"%s\" was taken", bad[i]);
		assert_nothing(&o);
	}
	/* Nor does a bad value overwrite a good one. */
	assert_int_equal(line(&o, "THROUGHPUT=5"), 1);
	assert_int_equal(line(&o, "NETPERF_INTERIM_RESULT[0]=6"), 1);
	assert_int_equal(line(&o, "THROUGHPUT=oops"), 0);
	assert_int_equal(line(&o, "NETPERF_INTERIM_RESULT[1]=oops"), 0);
	assert_double_equal(o.throughput, 5);
	assert_double_equal(o.interim, 6);
	assert_int_equal(o.ninterim, 1);
}

/* Keys the parser does not know (other selectors, lower case, near misses) are refused and
 * change nothing; the interim bookkeeping keys are taken and change nothing. */
static void
test_unknown_keys(void **state)
{
	static const char *const unknown[] = {
	    "LOCAL_CPU_UTILX=3.21",
	    "LOCAL_CPU_UTIL[0]=3.21",
	    "FOO=1",
	    "throughput=1",
	    "Throughput=1",
	    "THROUGHPUTX=1",
	    "XTHROUGHPUT=1",
	    "THROUGHPUT_UNIT=Trans/s",
	    "THROUGHPUT =1",
	    " THROUGHPUT=1",
	    "THROUGHPUT[0]=1",
	    "NETPERF_INTERIM_RESULT=1",
	    "NETPERF_INTERIM_RESULT[]=1",
	    "NETPERF_INTERIM_RESULT[0=1",
	    "NETPERF_INTERIM_RESULT[x]=1",
	    "NETPERF_INTERIM_RESULT(0)=1",
	};
	struct netperf_out o;

	(void)state;
	parse_netperf_init(&o);
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		if (line(&o, unknown[i]) != 0)
			fail_msg("\"%s\" was taken", unknown[i]);
		assert_nothing(&o);
	}
	assert_int_equal(line(&o, "NETPERF_INTERVAL[0]=1.702"), 1);
	assert_int_equal(line(&o, "NETPERF_ENDING[0]=1796006912.014"), 1);
	assert_int_equal(line(&o, "NETPERF_ENDING[12]=anything"), 1);
	assert_nothing(&o);
}

/* Empty lines, lines without '=' and lines starting with '=' are not output. */
static void
test_not_key_value(void **state)
{
	static const char *const other[] = {
	    "",
	    "\r",
	    "   ",
	    "THROUGHPUT",
	    "THROUGHPUT 3354.82",
	    "=",
	    "=5",
	    "==5",
	    "MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 127.0.0.1",
	    "netperf: send_omni: send_data failed: Connection reset by peer",
	};
	struct netperf_out o;

	(void)state;
	parse_netperf_init(&o);
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		if (line(&o, other[i]) != 0)
			fail_msg("\"%s\" was taken", other[i]);
		assert_nothing(&o);
	}
}

/* Write prefix and then nfill bytes of fill to buf (no NUL); returns the length. */
static size_t
long_line(char *buf, const char *prefix, char fill, size_t nfill)
{
	size_t n = strlen(prefix);

	memset(buf, fill, n + nfill);
	memcpy(buf, prefix, n);
	return n + nfill;
}

/* Very long lines: a huge number, a huge key, a huge unit (cut to fit, NUL-terminated). */
static void
test_long_lines(void **state)
{
	const size_t big = 1u << 20;
	char *buf = xmalloc(big + 64);
	struct netperf_out o;
	size_t n;

	(void)state;
	parse_netperf_init(&o);

	n = long_line(buf, "THROUGHPUT=", '1', big);
	assert_int_equal(parse_netperf_line(&o, buf, n), 0);
	assert_nothing(&o);

	memset(buf, 'A', big);
	memcpy(buf + big, "=1", 2);
	assert_int_equal(parse_netperf_line(&o, buf, big + 2), 0);
	memcpy(buf, "NETPERF_INTERIM_RESULT[", 23);
	memcpy(buf + big - 1, "]=1", 3);
	assert_int_equal(parse_netperf_line(&o, buf, big + 2), 1);
	assert_int_equal(o.ninterim, 1);
	assert_double_equal(o.interim, 1);

	n = long_line(buf, "THROUGHPUT_UNITS=", 'u', big);
	assert_int_equal(parse_netperf_line(&o, buf, n), 1);
	assert_int_equal(strlen(o.units), sizeof(o.units) - 1);
	assert_int_equal(strspn(o.units, "u"), sizeof(o.units) - 1);
	n = long_line(buf, "NETPERF_UNITS[3]=", 'v', big);
	assert_int_equal(parse_netperf_line(&o, buf, n), 1);
	assert_int_equal(strlen(o.interim_units), sizeof(o.interim_units) - 1);
	free(buf);
}

/* The line is buf[0..len): bytes past len are not read as part of it. */
static void
test_not_terminated(void **state)
{
	static const char buf[] = "THROUGHPUT=1234";
	struct netperf_out o;

	(void)state;
	parse_netperf_init(&o);
	assert_int_equal(parse_netperf_line(&o, buf, 13), 1);
	assert_double_equal(o.throughput, 12);
	assert_int_equal(parse_netperf_line(&o, buf, 11), 0); /* "THROUGHPUT=" */
	assert_int_equal(parse_netperf_line(&o, buf, 10), 0); /* "THROUGHPUT" */
	assert_int_equal(parse_netperf_line(&o, buf, 0), 0);
	assert_double_equal(o.throughput, 12);
	assert_int_equal(parse_netperf_line(&o, "THROUGHPUT_UNITS=Trans/s", 20), 1);
	assert_string_equal(o.units, "Tra");
}

/* NUL bytes inside the line: in a key the line is refused; a unit stops at the NUL. */
static void
test_nul_bytes(void **state)
{
	static const char key[] = "THROUGH\0PUT=1", units[] = "THROUGHPUT_UNITS=Tr\0ans/s",
	                  lead[] = "\0THROUGHPUT=1", only[] = "\0\0\0";
	struct netperf_out o;

	(void)state;
	parse_netperf_init(&o);
	assert_int_equal(parse_netperf_line(&o, key, sizeof(key) - 1), 0);
	assert_int_equal(parse_netperf_line(&o, lead, sizeof(lead) - 1), 0);
	assert_int_equal(parse_netperf_line(&o, only, sizeof(only) - 1), 0);
	assert_nothing(&o);
	assert_int_equal(parse_netperf_line(&o, units, sizeof(units) - 1), 1);
	assert_string_equal(o.units, "Tr");
}

/* A NUL inside a number makes it not a number, as any other byte would. */
static void
test_nul_in_number(void **state)
{
	static const char val[] = "THROUGHPUT=12\0x", tail[] = "ELAPSED_TIME=2.0\0";
	struct netperf_out o;
	int rc;

	(void)state;
	parse_netperf_init(&o);
	rc = parse_netperf_line(&o, val, sizeof(val) - 1);
	assert_int_equal(rc, 0);
	assert_int_equal(parse_netperf_line(&o, tail, sizeof(tail) - 1), 0);
	assert_nothing(&o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_init),
	    cmocka_unit_test(test_stream),
	    cmocka_unit_test(test_rr),
	    cmocka_unit_test(test_cpu_util),
	    cmocka_unit_test(test_udp_stream),
	    cmocka_unit_test(test_rr_interim_only),
	    cmocka_unit_test(test_no_netserver),
	    cmocka_unit_test(test_crlf),
	    cmocka_unit_test(test_trailing_space),
	    cmocka_unit_test(test_not_a_number),
	    cmocka_unit_test(test_unknown_keys),
	    cmocka_unit_test(test_not_key_value),
	    cmocka_unit_test(test_long_lines),
	    cmocka_unit_test(test_not_terminated),
	    cmocka_unit_test(test_nul_bytes),
	    cmocka_unit_test(test_nul_in_number),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
