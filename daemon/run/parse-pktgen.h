/* parse-pktgen.h: the packet generator's pure parts. What the kernel's pktgen is told
 * (/proc/net/pktgen, Documentation/networking/pktgen.rst) and what it reports (the
 * "Result:" of a device file); the trafgen configuration that stands in for it where the
 * kernel has no pktgen, and trafgen's summary; the device, route and neighbour that
 * ip -j reports. Nothing here touches the system, so a unit test links this file alone. */
#ifndef NM_PARSE_PKTGEN_H
#define NM_PARSE_PKTGEN_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;

#define PKTGEN_FCS           4     /* size counts the frame check sequence the NIC adds */
#define PKTGEN_MIN_SIZE      64    /* Ethernet's minimum, FCS included */
#define PKTGEN_HEADERS       42    /* Ethernet 14 + IPv4 20 + UDP 8 */
#define PKTGEN_THREADS_MAX   256   /* pktgen threads (one per CPU) or trafgen workers */
#define PKTGEN_TEMPLATES_MAX 16384 /* trafgen packet templates (flows x flowlen) */
#define PKTGEN_PORT          9     /* UDP source and destination port (discard), as pktgen */
#define PKTGEN_TTL           64    /* trafgen's default TTL is 0, which a router drops */
#define PKTGEN_DIR           "/proc/net/pktgen"

/* What to send: checked and completed by the driver. Addresses in host byte order. */
struct pktgen_opts {
	char dev[16];
	uint32_t dst_min, dst_max, src;
	uint8_t dst_mac[6], src_mac[6];
	unsigned size; /* bytes per frame on the wire, FCS included */
	unsigned flows, flowlen, clone_skb, threads;
	uint64_t delay_ns; /* gap per thread (pktgen's delay); 0: none */
	double rate_pps;   /* packets/s in total; 0: unpaced (delay_ns may pace) */
	uint64_t count;    /* packets in total; 0: until stopped */
};

/* One write to a file below /proc/net/pktgen. */
struct pktgen_write {
	char file[40]; /* "kpktgend_0", "vA@0", "pgctrl" */
	char cmd[64];  /* "add_device vA@0", "count 1000" */
};

/* The writes that set pktgen up, in order: for each thread i (CPU i) rem_device_all and
 * add_device DEV@i to kpktgend_i, then DEV@i's settings (the count shared out, clone_skb,
 * pkt_size = size - FCS, delay or ratep, dst_min, dst_max, flag IPDST_RND, flows,
 * flowlen, dst_mac, src_min, flag UDPCSUM, and QUEUE_MAP_CPU with more than one thread).
 * Fills up to max entries; returns how many there are. */
size_t pktgen_commands(const struct pktgen_opts *o, struct pktgen_write *w, size_t max);
/* The writes that take the devices off the threads again (rem_device_all each). */
size_t pktgen_cleanup(const struct pktgen_opts *o, struct pktgen_write *w, size_t max);
/* The argv of netmetrics-pktgen (program first): "-w FILE CMD" for each setup write, "-s"
 * (start, blocking until done or stopped), "-p DEV@i" for each thread's report, then the
 * clean-up writes. NULL-terminated; the caller frees each string and the array. */
char **pktgen_helper_argv(const struct pktgen_opts *o, const char *program);

/* What one pktgen device reported. */
struct pktgen_result {
	char name[40];    /* "vA@0" */
	bool ok;          /* a "Result: OK: ... pps" line was read */
	uint64_t packets; /* sent (pkts-sofar when there is no result) */
	uint64_t errors;
	double elapsed_s; /* from the result's usec */
	double pps, bps;  /* pktgen's own */
	char result[128]; /* the Result line when it is not OK ("Idle", an error) */
};

/* Parse a device file's text (Params, Current, Result). 0 when its Result is a finished
 * run; -1 otherwise (r->result says what it says; r->packets from pkts-sofar). */
int parse_pktgen_result(const char *text, struct pktgen_result *r);
/* Parse netmetrics-pktgen's output: a "== DEV@i" line before each device file. Fills up
 * to max results; returns how many devices were found. */
size_t parse_pktgen_output(const char *text, struct pktgen_result *r, size_t max);

/* trafgen's configuration for o: 60-byte (size - FCS) UDP frames to dst_mac, TTL 64,
 * checksums computed by trafgen. flowlen 1: one template, every packet to a random
 * destination in [dst_min, dst_max] (drnd over the 32-bit address). flowlen > 1:
 * flows x flowlen templates, template (k, f) being packet k of flow f, sent k-major; flow
 * f walks its own slice of the range one address per round (dinc with step 1: trafgen
 * cannot hold a random value for several packets), so the flows never share a
 * destination and together cover the whole range. */
void pktgen_trafgen_config(const struct pktgen_opts *o, struct strbuf *sb);

/* What trafgen printed at exit. */
struct trafgen_out {
	bool found;       /* the "packets outgoing" line was there */
	uint64_t packets; /* in total */
	uint64_t bytes;
	unsigned workers; /* "... on CPUn (N packets)" lines */
	double elapsed_s; /* the longest worker's wall time */
	uint64_t worker_packets[PKTGEN_THREADS_MAX];
	double worker_s[PKTGEN_THREADS_MAX];
	int worker_cpu[PKTGEN_THREADS_MAX];
};

/* Parse trafgen's stdout (carriage returns and all). 0, or -1 when it holds no summary. */
int parse_trafgen_summary(const char *text, size_t len, struct trafgen_out *out);

/* ---- ip -j ---- */

/* "10.0.0.1" into host byte order. 0 or -1. */
int pktgen_parse_ipv4(const char *s, uint32_t *ip);
/* "aa:bb:cc:dd:ee:ff" (hex, any case). 0 or -1. */
int pktgen_parse_mac(const char *s, uint8_t mac[6]);
void pktgen_format_ipv4(uint32_t ip, char *buf, size_t size);
void pktgen_format_mac(const uint8_t mac[6], char *buf, size_t size);

/* A device as ip -j addr show dev DEV lists it. */
struct pktgen_link {
	uint8_t mac[6];
	unsigned mtu;
	bool has_ipv4;
	uint32_t ipv4; /* its first IPv4 address */
};

/* The device from ip -j addr show's array. 0, or -1 with why. */
int pktgen_ip_link(json_object *a, struct pktgen_link *l, char *why, size_t size);
/* The next hop toward a destination from ip -j route get's array: the gateway, or the
 * destination itself when it is on the link; *dev the device it leaves by. 0, or -1 with
 * why. */
int pktgen_ip_nexthop(json_object *a, uint32_t *nexthop, char *dev, size_t devsize, char *why,
                      size_t size);
/* The MAC of nexthop from ip -j neigh show's array (an entry with an lladdr, not FAILED or
 * INCOMPLETE). 0, or -1 with why. */
int pktgen_ip_neigh(json_object *a, uint32_t nexthop, uint8_t mac[6], char *why, size_t size);
/* Is the root qdisc in tc -j qdisc show's array the kernel's default (handle 0:)? *kind
 * gets its kind. */
bool pktgen_tc_root_default(json_object *a, char *kind, size_t size);

#endif
