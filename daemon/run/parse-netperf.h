/* parse-netperf.h: netperf's output as the test runner asks for it: "-P 0" (no banner),
 * "-D 1" (interim results) and omni key=value output ("-- -k THROUGHPUT,..."), one line at a
 * time as it arrives. */
#ifndef NM_PARSE_NETPERF_H
#define NM_PARSE_NETPERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The output selectors the runner asks for, in the order netperf prints them. */
#define NETPERF_SELECTORS                                                                          \
	"THROUGHPUT,THROUGHPUT_UNITS,TRANSACTION_RATE,MEAN_LATENCY,P99_LATENCY,ELAPSED_TIME,"      \
	"LOCAL_BYTES_SENT,LOCAL_BYTES_RECVD,LOCAL_SEND_CALLS,LOCAL_SEND_THROUGHPUT,"               \
	"REMOTE_RECV_CALLS,REMOTE_BYTES_RECVD"
/* Added when the test asks for netperf's CPU figures (global -c -C): each end's CPU use in %
 * (netperf prints -1 for an end it did not measure). */
#define NETPERF_SELECTORS_CPU ",LOCAL_CPU_UTIL,REMOTE_CPU_UTIL"

/* What one netperf process reported. A figure it did not report is NAN. */
struct netperf_out {
	double throughput;       /* in units */
	char units[24];          /* "10^6bits/s", "Trans/s" */
	double transaction_rate; /* per second (RR tests; 1 for streams) */
	double mean_latency_us;
	double p99_latency_us;
	double elapsed_s;
	double bytes_sent, bytes_recvd;
	/* UDP_STREAM: the sender's datagrams (send calls, one datagram each) and its rate, in
	 * units; the receiver's datagrams (recv calls) and bytes. THROUGHPUT is the receiver's
	 * rate there: sent - received datagrams were lost on the way. */
	double send_calls, send_throughput;
	double remote_recv_calls, remote_bytes_recvd;
	/* -c -C: this end's and the far end's CPU use over the test, in % of all CPUs
	 * (LOCAL_CPU_UTIL, REMOTE_CPU_UTIL); NAN when not reported or not measured (-1). */
	double local_cpu_pct, remote_cpu_pct;
	double interim;         /* the newest interim result, in interim_units */
	char interim_units[24]; /* "10^6bits/s", "Trans/s" */
	unsigned ninterim;
	/* The newest interim's span: its length (NETPERF_INTERVAL, s) and the epoch second it
	 * ended (NETPERF_ENDING); NAN until said. nended counts NETPERF_ENDING lines: an
	 * interim result is whole once its ending is read (netperf prints RESULT, UNITS,
	 * INTERVAL, ENDING in that order). */
	double interim_interval_s, interim_end_s;
	unsigned nended;
	bool final; /* THROUGHPUT was seen: the test ended normally */
};

void parse_netperf_init(struct netperf_out *o);
/* Take one line (no newline; need not be NUL-terminated). Returns 1 when it was a line
 * netperf's key=value output, 0 otherwise (an error message, say). */
int parse_netperf_line(struct netperf_out *o, const char *line, size_t len);

#endif
