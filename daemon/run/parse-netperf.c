/* parse-netperf.c: netperf's key=value lines: final figures and interim results. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse-netperf.h"

/* Reset to "nothing reported". */
void
parse_netperf_init(struct netperf_out *o)
{
	memset(o, 0, sizeof(*o));
	o->throughput = o->transaction_rate = o->mean_latency_us = o->p99_latency_us = NAN;
	o->elapsed_s = o->bytes_sent = o->bytes_recvd = o->interim = NAN;
	o->send_calls = o->send_throughput = o->remote_recv_calls = o->remote_bytes_recvd = NAN;
	o->local_cpu_pct = o->remote_cpu_pct = NAN;
	o->interim_interval_s = o->interim_end_s = NAN;
}

/* Parse a whole number; false when the text is not one (a finite double, nothing after). */
static bool
number(const char *s, size_t len, double *out)
{
	char buf[64], *end;
	double v;

	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	v = strtod(buf, &end);
	/* end short of len: a NUL inside the value. */
	if (end == buf || end != buf + len || !isfinite(v))
		return false;
	*out = v;
	return true;
}

/* Copy a value into a small string field. */
static void
copy_word(char *dst, size_t size, const char *s, size_t len)
{
	snprintf(dst, size, "%.*s", (int)(len < size ? len : size - 1), s);
}

/* The numeric keys and where they go. */
static double *
numeric_slot(struct netperf_out *o, const char *key, size_t klen)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
	    {"THROUGHPUT", offsetof(struct netperf_out, throughput)},
	    {"TRANSACTION_RATE", offsetof(struct netperf_out, transaction_rate)},
	    {"MEAN_LATENCY", offsetof(struct netperf_out, mean_latency_us)},
	    {"P99_LATENCY", offsetof(struct netperf_out, p99_latency_us)},
	    {"ELAPSED_TIME", offsetof(struct netperf_out, elapsed_s)},
	    {"LOCAL_BYTES_SENT", offsetof(struct netperf_out, bytes_sent)},
	    {"LOCAL_BYTES_RECVD", offsetof(struct netperf_out, bytes_recvd)},
	    {"LOCAL_SEND_CALLS", offsetof(struct netperf_out, send_calls)},
	    {"LOCAL_SEND_THROUGHPUT", offsetof(struct netperf_out, send_throughput)},
	    {"REMOTE_RECV_CALLS", offsetof(struct netperf_out, remote_recv_calls)},
	    {"REMOTE_BYTES_RECVD", offsetof(struct netperf_out, remote_bytes_recvd)},
	    {"LOCAL_CPU_UTIL", offsetof(struct netperf_out, local_cpu_pct)},
	    {"REMOTE_CPU_UTIL", offsetof(struct netperf_out, remote_cpu_pct)},
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i].key) == klen && memcmp(keys[i].key, key, klen) == 0)
			return (double *)((char *)o + keys[i].off);
	return NULL;
}

/* Does key[0..klen) start with prefix and end in "[N]"? */
static bool
indexed(const char *key, size_t klen, const char *prefix)
{
	size_t pl = strlen(prefix);

	return klen > pl + 2 && memcmp(key, prefix, pl) == 0 && key[pl] == '[' &&
	       key[klen - 1] == ']';
}

/* One line of netperf's output. */
int
parse_netperf_line(struct netperf_out *o, const char *line, size_t len)
{
	const char *eq = memchr(line, '=', len), *val;
	size_t klen, vlen;
	double v, *slot;

	if (eq == NULL || eq == line)
		return 0;
	klen = (size_t)(eq - line);
	val = eq + 1;
	vlen = len - klen - 1;
	while (vlen > 0 && (val[vlen - 1] == '\r' || val[vlen - 1] == ' '))
		vlen--;
	for (size_t i = 0; i < klen; i++)
		if (!((line[i] >= 'A' && line[i] <= 'Z') || line[i] == '_' ||
		      (line[i] >= '0' && line[i] <= '9') || line[i] == '[' || line[i] == ']'))
			return 0;
	if (klen == 16 && memcmp(line, "THROUGHPUT_UNITS", 16) == 0) {
		copy_word(o->units, sizeof(o->units), val, vlen);
		return 1;
	}
	if (indexed(line, klen, "NETPERF_INTERIM_RESULT")) {
		if (!number(val, vlen, &v))
			return 0;
		o->interim = v;
		o->ninterim++;
		return 1;
	}
	if (indexed(line, klen, "NETPERF_UNITS")) {
		copy_word(o->interim_units, sizeof(o->interim_units), val, vlen);
		return 1;
	}
	if (indexed(line, klen, "NETPERF_INTERVAL")) {
		o->interim_interval_s = number(val, vlen, &v) && v >= 0 ? v : NAN;
		return 1;
	}
	if (indexed(line, klen, "NETPERF_ENDING")) {
		o->interim_end_s = number(val, vlen, &v) && v > 0 ? v : NAN;
		o->nended++;
		return 1;
	}
	if ((slot = numeric_slot(o, line, klen)) == NULL || !number(val, vlen, &v))
		return 0;
	if ((slot == &o->local_cpu_pct || slot == &o->remote_cpu_pct) && (v < 0 || v > 100))
		return 1; /* -1: that end was not measured; past 100: not a share of the CPUs */
	*slot = v;
	if (slot == &o->throughput)
		o->final = true;
	return 1;
}
