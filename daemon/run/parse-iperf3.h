/* parse-iperf3.h: the figures of iperf3's --json output (client side). */
#ifndef NM_PARSE_IPERF3_H
#define NM_PARSE_IPERF3_H

#include <stddef.h>

/* What the client reported. A figure it did not report is NAN. */
struct iperf3_out {
	double sent_bps, received_bps; /* end.sum_sent / sum_received bits_per_second */
	double sent_bytes, received_bytes;
	double retransmits;
	double seconds;
	double cpu_host_pct, cpu_remote_pct; /* end.cpu_utilization_percent */
	unsigned streams;
	char error[256]; /* iperf3's "error" member: the test failed */
};

/* Parse the document text[0..len). 0 ok (error may still be set: iperf3 reports failures
 * in the document); -1 when it is not iperf3 JSON (why in out->error). */
int parse_iperf3_json(const char *text, size_t len, struct iperf3_out *out);

#endif
