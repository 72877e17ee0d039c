/* parse-pktgen.c: pktgen's commands and results, trafgen's configuration and summary, and
 * the device, route and neighbour ip -j reports: text in, text out. */
#include <arpa/inet.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonutil.h"
#include "parse-pktgen.h"
#include "strbuf.h"
#include "xmalloc.h"

/* ---- addresses ---- */

int
pktgen_parse_ipv4(const char *s, uint32_t *ip)
{
	struct in_addr a;

	if (s == NULL || inet_pton(AF_INET, s, &a) != 1)
		return -1;
	*ip = ntohl(a.s_addr);
	return 0;
}

int
pktgen_parse_mac(const char *s, uint8_t mac[6])
{
	static const char hex[] = "0123456789abcdef";

	if (s == NULL || strlen(s) != 17)
		return -1;
	for (int i = 0; i < 6; i++) {
		const char *hi = strchr(hex, tolower((unsigned char)s[i * 3]));
		const char *lo = strchr(hex, tolower((unsigned char)s[i * 3 + 1]));

		if (hi == NULL || lo == NULL || *hi == '\0' || *lo == '\0' ||
		    (i < 5 && s[i * 3 + 2] != ':'))
			return -1;
		mac[i] = (uint8_t)((hi - hex) * 16 + (lo - hex));
	}
	return 0;
}

void
pktgen_format_ipv4(uint32_t ip, char *buf, size_t size)
{
	snprintf(buf, size, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
}

void
pktgen_format_mac(const uint8_t mac[6], char *buf, size_t size)
{
	snprintf(buf, size, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
	         mac[5]);
}

/* ---- pktgen ---- */

/* Append one write when there is room; count it either way. */
static void put(struct pktgen_write *w, size_t max, size_t *n, const char *file, const char *fmt,
                ...) __attribute__((format(printf, 5, 6)));

static void
put(struct pktgen_write *w, size_t max, size_t *n, const char *file, const char *fmt, ...)
{
	va_list ap;

	if (*n < max) {
		snprintf(w[*n].file, sizeof(w[*n].file), "%s", file);
		va_start(ap, fmt);
		vsnprintf(w[*n].cmd, sizeof(w[*n].cmd), fmt, ap);
		va_end(ap);
	}
	(*n)++;
}

/* The setup writes. */
size_t
pktgen_commands(const struct pktgen_opts *o, struct pktgen_write *w, size_t max)
{
	char thr[40], dev[40], ip[16], mac[18];
	size_t n = 0;

	for (unsigned i = 0; i < o->threads; i++) {
		snprintf(thr, sizeof(thr), "kpktgend_%u", i);
		put(w, max, &n, thr, "rem_device_all");
		put(w, max, &n, thr, "add_device %s@%u", o->dev, i);
	}
	for (unsigned i = 0; i < o->threads; i++) {
		/* count is per device: share it out, the first ones taking the remainder. */
		uint64_t count = o->count / o->threads + (i < o->count % o->threads);

		snprintf(dev, sizeof(dev), "%s@%u", o->dev, i);
		put(w, max, &n, dev, "count %" PRIu64, count);
		put(w, max, &n, dev, "clone_skb %u", o->clone_skb);
		put(w, max, &n, dev, "pkt_size %u", o->size - PKTGEN_FCS);
		if (o->rate_pps > 0)
			put(w, max, &n, dev, "ratep %.0f", o->rate_pps / o->threads);
		else
			put(w, max, &n, dev, "delay %" PRIu64, o->delay_ns);
		pktgen_format_ipv4(o->dst_min, ip, sizeof(ip));
		put(w, max, &n, dev, "dst_min %s", ip);
		pktgen_format_ipv4(o->dst_max, ip, sizeof(ip));
		put(w, max, &n, dev, "dst_max %s", ip);
		put(w, max, &n, dev, "flag IPDST_RND");
		put(w, max, &n, dev, "flows %u", o->flows);
		put(w, max, &n, dev, "flowlen %u", o->flowlen);
		pktgen_format_mac(o->dst_mac, mac, sizeof(mac));
		put(w, max, &n, dev, "dst_mac %s", mac);
		pktgen_format_ipv4(o->src, ip, sizeof(ip));
		put(w, max, &n, dev, "src_min %s", ip);
		put(w, max, &n, dev, "flag UDPCSUM");
		if (o->threads > 1)
			put(w, max, &n, dev, "flag QUEUE_MAP_CPU");
	}
	return n;
}

/* The clean-up writes. */
size_t
pktgen_cleanup(const struct pktgen_opts *o, struct pktgen_write *w, size_t max)
{
	char thr[40];
	size_t n = 0;

	for (unsigned i = 0; i < o->threads; i++) {
		snprintf(thr, sizeof(thr), "kpktgend_%u", i);
		put(w, max, &n, thr, "rem_device_all");
	}
	return n;
}

/* Words of a writes list into v from *n. */
static void
add_writes(char **v, size_t *n, const struct pktgen_write *w, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		v[(*n)++] = xstrdup("-w");
		v[(*n)++] = xstrdup(w[i].file);
		v[(*n)++] = xstrdup(w[i].cmd);
	}
}

/* The helper's argv. */
char **
pktgen_helper_argv(const struct pktgen_opts *o, const char *program)
{
	size_t nset = pktgen_commands(o, NULL, 0), nclean = pktgen_cleanup(o, NULL, 0), n = 0;
	struct pktgen_write *set = xcalloc(nset, sizeof(*set));
	struct pktgen_write *clean = xcalloc(nclean, sizeof(*clean));
	char **v = xcalloc(2 + 3 * (nset + nclean) + 2 * o->threads + 1, sizeof(*v));

	pktgen_commands(o, set, nset);
	pktgen_cleanup(o, clean, nclean);
	v[n++] = xstrdup(program);
	add_writes(v, &n, set, nset);
	v[n++] = xstrdup("-s");
	for (unsigned i = 0; i < o->threads; i++) {
		v[n++] = xstrdup("-p");
		v[n++] = xasprintf("%s@%u", o->dev, i);
	}
	add_writes(v, &n, clean, nclean);
	free(set);
	free(clean);
	return v;
}

/* The value after key in text as an unsigned number; -1 when absent. */
static int
field_u64(const char *text, const char *key, uint64_t *v)
{
	const char *p = strstr(text, key);
	char *end;

	if (p == NULL)
		return -1;
	p += strlen(key);
	while (*p == ' ')
		p++;
	*v = strtoull(p, &end, 10);
	return end == p ? -1 : 0;
}

/* Parse a device file. */
int
parse_pktgen_result(const char *text, struct pktgen_result *r)
{
	unsigned long long usec, c, d, pkts, pps, mbps, bps, errors;
	unsigned size;
	int frags, used = 0;
	const char *res = strstr(text, "Result: ");
	uint64_t v;

	r->ok = false;
	r->packets = r->errors = 0;
	r->elapsed_s = r->pps = r->bps = 0;
	r->result[0] = '\0';
	if (field_u64(text, "pkts-sofar:", &v) == 0)
		r->packets = v;
	if (field_u64(text, "errors:", &v) == 0)
		r->errors = v;
	if (res == NULL) {
		snprintf(r->result, sizeof(r->result), "no Result line");
		return -1;
	}
	res += strlen("Result: ");
	/* "OK: 15430(c15405+d25) usec, 100000 (60byte,0frags)\n  6480562pps 3110Mb/sec
	 * (3110669760bps) errors: 0" */
	if (sscanf(res, "OK: %llu(c%llu+d%llu) usec, %llu (%ubyte,%dfrags)%n", &usec, &c, &d, &pkts,
	           &size, &frags, &used) != 6 ||
	    sscanf(res + used, " %llupps %lluMb/sec (%llubps) errors: %llu", &pps, &mbps, &bps,
	           &errors) != 4) {
		snprintf(r->result, sizeof(r->result), "%.*s", (int)strcspn(res, "\n"), res);
		return -1;
	}
	r->ok = true;
	r->packets = pkts;
	r->errors = errors;
	r->elapsed_s = (double)usec / 1e6;
	r->pps = (double)pps;
	r->bps = (double)bps;
	return 0;
}

/* Parse the helper's output. */
size_t
parse_pktgen_output(const char *text, struct pktgen_result *r, size_t max)
{
	const char *p = text;
	size_t n = 0;

	while ((p = strstr(p, "== ")) != NULL) {
		const char *name = p + 3, *eol = name + strcspn(name, "\n");
		const char *next = strstr(eol, "\n== ");
		size_t len = next ? (size_t)(next - eol) : strlen(eol);
		char *body;

		if (p != text && p[-1] != '\n') {
			p = eol;
			continue;
		}
		if (n < max) {
			body = xmemdupz(eol, len);
			parse_pktgen_result(body, &r[n]);
			snprintf(r[n].name, sizeof(r[n].name), "%.*s", (int)(eol - name), name);
			free(body);
		}
		n++;
		p = eol + len;
	}
	return n < max ? n : max;
}

/* ---- trafgen ---- */

/* One template: destination da (an address, or a function over the 32-bit field). */
static void
add_template(const struct pktgen_opts *o, struct strbuf *sb, const char *da)
{
	char dmac[18], smac[18], src[16];

	pktgen_format_mac(o->dst_mac, dmac, sizeof(dmac));
	pktgen_format_mac(o->src_mac, smac, sizeof(smac));
	pktgen_format_ipv4(o->src, src, sizeof(src));
	strbuf_addf(sb,
	            "{ eth(da=%s, sa=%s), ipv4(sa=%s, da=%s, ttl=%d), udp(sp=%d, dp=%d), "
	            "fill(0, %u) }\n",
	            dmac, smac, src, da, PKTGEN_TTL, PKTGEN_PORT, PKTGEN_PORT,
	            o->size - PKTGEN_FCS - PKTGEN_HEADERS);
}

/* trafgen's configuration. */
void
pktgen_trafgen_config(const struct pktgen_opts *o, struct strbuf *sb)
{
	uint64_t n = (uint64_t)o->dst_max - o->dst_min + 1;
	char a[16], b[16], da[64];

	pktgen_format_ipv4(o->dst_min, a, sizeof(a));
	pktgen_format_ipv4(o->dst_max, b, sizeof(b));
	strbuf_addf(sb,
	            "/* netmetrics pktgen driver: %u-byte frames (%u with the FCS), UDP %d -> %d, "
	            "TTL %d, to %s-%s */\n",
	            o->size - PKTGEN_FCS, o->size, PKTGEN_PORT, PKTGEN_PORT, PKTGEN_TTL, a, b);
	if (o->flowlen <= 1 || n == 1) {
		strbuf_addf(sb, "/* every packet to a random destination */\n");
		if (n == 1)
			snprintf(da, sizeof(da), "%s", a);
		else
			snprintf(da, sizeof(da), "drnd(%" PRIu32 ", %" PRIu32 ")", o->dst_min,
			         o->dst_max);
		add_template(o, sb, da);
		return;
	}
	strbuf_addf(sb,
	            "/* %u flows of %u packets: template (k, f) is packet k of flow f; flow f "
	            "walks its own slice of the range, one address per round */\n",
	            o->flows, o->flowlen);
	for (unsigned k = 0; k < o->flowlen; k++)
		for (unsigned f = 0; f < o->flows; f++) {
			uint32_t lo = o->dst_min + (uint32_t)(n * f / o->flows);
			uint32_t hi = o->dst_min + (uint32_t)(n * (f + 1) / o->flows - 1);

			if (lo == hi)
				pktgen_format_ipv4(lo, da, sizeof(da));
			else
				snprintf(da, sizeof(da), "dinc(%" PRIu32 ", %" PRIu32 ", 1)", lo,
				         hi);
			add_template(o, sb, da);
		}
}

/* Parse trafgen's summary. */
int
parse_trafgen_summary(const char *text, size_t len, struct trafgen_out *out)
{
	char *copy = xmemdupz(text, len), *save = NULL, *line;

	memset(out, 0, sizeof(*out));
	for (char *c = copy; *c; c++)
		if (*c == '\r')
			*c = '\n';
	for (line = strtok_r(copy, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long v, w;
		unsigned long sec, usec;
		int cpu;
		char word[16];

		if (sscanf(line, " %llu packets outgoing", &v) == 1 &&
		    strstr(line, "packets outgoing") != NULL) {
			out->found = true;
			out->packets = v;
			out->workers = 0; /* the worker lines follow the totals */
			out->elapsed_s = 0;
		} else if (sscanf(line, " %llu bytes outgoing", &v) == 1 &&
		           strstr(line, "bytes outgoing") != NULL)
			out->bytes = v;
		else if (sscanf(line, " %lu sec, %lu usec on CPU%d (%llu %15[a-z])", &sec, &usec,
		                &cpu, &w, word) == 5 &&
		         out->found) {
			double s = (double)sec + (double)usec / 1e6;

			if (out->workers < PKTGEN_THREADS_MAX) {
				out->worker_packets[out->workers] = w;
				out->worker_s[out->workers] = s;
				out->worker_cpu[out->workers] = cpu;
				out->workers++;
			}
			if (s > out->elapsed_s)
				out->elapsed_s = s;
		}
	}
	free(copy);
	return out->found ? 0 : -1;
}

/* ---- ip -j and tc -j ---- */

/* The first element of an array of objects, or NULL. */
static json_object *
first(json_object *a)
{
	json_object *o;

	if (a == NULL || !json_object_is_type(a, json_type_array) ||
	    json_object_array_length(a) == 0)
		return NULL;
	o = json_object_array_get_idx(a, 0);
	return json_object_is_type(o, json_type_object) ? o : NULL;
}

/* The device. */
int
pktgen_ip_link(json_object *a, struct pktgen_link *l, char *why, size_t size)
{
	json_object *o = first(a), *info;

	memset(l, 0, sizeof(*l));
	if (o == NULL)
		return snprintf(why, size, "ip lists no such device"), -1;
	if (pktgen_parse_mac(json_get_string(o, "address", ""), l->mac) < 0)
		return snprintf(why, size, "not an Ethernet device (address \"%s\")",
		                json_get_string(o, "address", "")),
		       -1;
	l->mtu = (unsigned)json_get_int(o, "mtu", 0);
	if (json_object_object_get_ex(o, "addr_info", &info) &&
	    json_object_is_type(info, json_type_array))
		for (size_t i = 0; i < json_object_array_length(info); i++) {
			json_object *ai = json_object_array_get_idx(info, i);

			if (strcmp(json_get_string(ai, "family", ""), "inet") == 0 &&
			    pktgen_parse_ipv4(json_get_string(ai, "local", ""), &l->ipv4) == 0) {
				l->has_ipv4 = true;
				break;
			}
		}
	return 0;
}

/* The next hop. */
int
pktgen_ip_nexthop(json_object *a, uint32_t *nexthop, char *dev, size_t devsize, char *why,
                  size_t size)
{
	json_object *o = first(a);
	const char *gw, *dst;

	if (o == NULL)
		return snprintf(why, size, "no route"), -1;
	gw = json_get_string(o, "gateway", NULL);
	dst = json_get_string(o, "dst", NULL);
	if (pktgen_parse_ipv4(gw ? gw : dst, nexthop) < 0)
		return snprintf(why, size, "no IPv4 next hop in the route"), -1;
	snprintf(dev, devsize, "%s", json_get_string(o, "dev", ""));
	return 0;
}

/* The neighbour's MAC. */
int
pktgen_ip_neigh(json_object *a, uint32_t nexthop, uint8_t mac[6], char *why, size_t size)
{
	char nh[16];

	pktgen_format_ipv4(nexthop, nh, sizeof(nh));
	for (size_t i = 0; a != NULL && json_object_is_type(a, json_type_array) &&
	                   i < json_object_array_length(a);
	     i++) {
		json_object *o = json_object_array_get_idx(a, i), *st;
		bool bad = false;
		uint32_t ip;

		if (pktgen_parse_ipv4(json_get_string(o, "dst", ""), &ip) < 0 || ip != nexthop)
			continue;
		if (json_object_object_get_ex(o, "state", &st) &&
		    json_object_is_type(st, json_type_array))
			for (size_t j = 0; j < json_object_array_length(st); j++) {
				const char *s =
				    json_object_get_string(json_object_array_get_idx(st, j));
				bad |= strcmp(s, "FAILED") == 0 || strcmp(s, "INCOMPLETE") == 0;
			}
		if (!bad && pktgen_parse_mac(json_get_string(o, "lladdr", ""), mac) == 0)
			return 0;
		return snprintf(why, size, "the neighbour entry of %s has no usable address", nh),
		       -1;
	}
	return snprintf(why, size, "no neighbour entry for %s", nh), -1;
}

/* Is the root qdisc the default one? */
bool
pktgen_tc_root_default(json_object *a, char *kind, size_t size)
{
	for (size_t i = 0; a != NULL && json_object_is_type(a, json_type_array) &&
	                   i < json_object_array_length(a);
	     i++) {
		json_object *o = json_object_array_get_idx(a, i);

		if (!json_get_bool(o, "root", false))
			continue;
		snprintf(kind, size, "%s", json_get_string(o, "kind", "?"));
		return strcmp(json_get_string(o, "handle", ""), "0:") == 0;
	}
	snprintf(kind, size, "none");
	return true;
}
