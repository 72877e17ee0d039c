/* fuzz-bench.c: the benchmark output parsers (parse-netperf.c, parse-iperf3.c, and the
 * generators' in parse-pktgen.c) on arbitrary child output of at most 1 MiB.
 *
 * Every input goes to both parsers, as the drivers would hand it over, so that the
 * captured outputs of tests/fixtures/ serve as seeds unchanged:
 *   - split on '\n' into lines for parse_netperf_line, all into one struct netperf_out as
 *     driver-netperf.c does. Each line is copied into a buffer of exactly its length, with
 *     no terminator, so that a read past len is caught.
 *   - whole, copied likewise, for parse_iperf3_json.
 *
 * netperf: a line returns 0 or 1; a line refused (0) changes nothing; a line adds at most
 * one interim result; the unit strings stay NUL-terminated; every figure is NAN or finite;
 * final is set exactly when THROUGHPUT is.
 * iperf3: 0 or -1; the error is NUL-terminated; -1 leaves no figures and says why after
 * its "not JSON" prefix; 0 without an error has figures; every figure is NAN or finite (the
 * drivers print figures with json_double, which writes inf as a bare word, not JSON). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "parse-iperf3.h"
#include "parse-netperf.h"
#include "parse-pktgen.h"

#define FUZZ_MAX_INPUT (1u << 20)
#define NOT_JSON       "iperf3 output is not JSON: "

/* A copy of data[0..size) in a buffer of exactly that size (at least one byte, so that
 * an empty input is a valid pointer too); the caller frees it. */
static char *
exact_copy(const uint8_t *data, size_t size)
{
	char *buf = malloc(size > 0 ? size : 1);

	fuzz_check(buf != NULL);
	if (size > 0)
		memcpy(buf, data, size);
	return buf;
}

/* NAN or a finite number. */
static bool
figure_ok(double v)
{
	return isnan(v) || isfinite(v);
}

/* The invariants of a netperf_out after any number of lines. */
static void
check_netperf(const struct netperf_out *o)
{
	fuzz_check(memchr(o->units, '\0', sizeof(o->units)) != NULL);
	fuzz_check(memchr(o->interim_units, '\0', sizeof(o->interim_units)) != NULL);
	fuzz_check(figure_ok(o->throughput) && figure_ok(o->transaction_rate));
	fuzz_check(figure_ok(o->mean_latency_us) && figure_ok(o->p99_latency_us));
	fuzz_check(figure_ok(o->elapsed_s) && figure_ok(o->interim));
	fuzz_check(figure_ok(o->bytes_sent) && figure_ok(o->bytes_recvd));
	fuzz_check(o->final == !isnan(o->throughput));
	fuzz_check((o->ninterim == 0) == isnan(o->interim));
}

/* One line into o, checked against what o was before. */
static void
netperf_line(struct netperf_out *o, const uint8_t *line, size_t len)
{
	struct netperf_out before;
	char *buf = exact_copy(line, len);
	int rc;

	memcpy(&before, o, sizeof(before)); /* padding too, for the memcmp below */
	rc = parse_netperf_line(o, buf, len);
	free(buf);
	fuzz_check(rc == 0 || rc == 1);
	if (rc == 0)
		fuzz_check(memcmp(&before, o, sizeof(*o)) == 0);
	fuzz_check(o->ninterim == before.ninterim || o->ninterim == before.ninterim + 1);
	check_netperf(o);
}

/* The whole input as netperf's output, line by line. */
static void
fuzz_netperf(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size, *nl;
	struct netperf_out o;

	parse_netperf_init(&o);
	check_netperf(&o);
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		netperf_line(&o, p, (size_t)(nl - p));
		p = nl + 1;
	}
}

/* The whole input as iperf3's --json document. */
static void
fuzz_iperf3(const uint8_t *data, size_t size)
{
	char *buf = exact_copy(data, size);
	struct iperf3_out o;
	int rc;

	rc = parse_iperf3_json(buf, size, &o);
	free(buf);
	fuzz_check(rc == 0 || rc == -1);
	fuzz_check(memchr(o.error, '\0', sizeof(o.error)) != NULL);
	fuzz_check(figure_ok(o.sent_bps) && figure_ok(o.received_bps));
	fuzz_check(figure_ok(o.sent_bytes) && figure_ok(o.received_bytes));
	fuzz_check(figure_ok(o.retransmits) && figure_ok(o.seconds));
	fuzz_check(figure_ok(o.cpu_host_pct) && figure_ok(o.cpu_remote_pct));
	if (rc < 0) {
		fuzz_check(isnan(o.sent_bps) && isnan(o.received_bps) && o.streams == 0);
		fuzz_check(strncmp(o.error, NOT_JSON, strlen(NOT_JSON)) == 0);
		fuzz_check(strlen(o.error) > strlen(NOT_JSON));
	} else if (o.error[0] == '\0') {
		fuzz_check(!isnan(o.sent_bps));
	}
}

/* The generator outputs: trafgen's summary (bytes and a length), netmetrics-pktgen's
 * device files (a C string). The counts stay within their arrays; times are finite. */
static void
fuzz_generators(const uint8_t *data, size_t size)
{
	struct pktgen_result r[PKTGEN_THREADS_MAX];
	struct trafgen_out t;
	char *buf = exact_copy(data, size), *str;
	size_t n;

	if (parse_trafgen_summary(buf, size, &t) == 0) {
		fuzz_check(t.found);
		fuzz_check(t.workers <= PKTGEN_THREADS_MAX);
		fuzz_check(figure_ok(t.elapsed_s));
	}
	free(buf);
	str = malloc(size + 1);
	fuzz_check(str != NULL);
	memcpy(str, data, size);
	str[size] = '\0';
	n = parse_pktgen_output(str, r, PKTGEN_THREADS_MAX);
	for (size_t i = 0; i < n && i < PKTGEN_THREADS_MAX; i++) {
		fuzz_check(memchr(r[i].result, '\0', sizeof(r[i].result)) != NULL);
		fuzz_check(figure_ok(r[i].elapsed_s) && figure_ok(r[i].pps));
	}
	free(str);
}

/* libFuzzer's entry point: the input as netperf's output, iperf3's, and the generators'. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > FUZZ_MAX_INPUT)
		return 0;
	fuzz_netperf(data, size);
	fuzz_iperf3(data, size);
	fuzz_generators(data, size);
	return 0;
}
