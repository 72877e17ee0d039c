/* source-link.c: every interface's link statistics, `link.<ifname>.<stat>`.
 *
 * On the host the counters come from an RTM_GETLINK dump (IFLA_STATS64). libnl-route's link
 * cache was measured first: nl_cache_refill allocates about 11 blocks per interface per
 * sample (2,235 for 201 interfaces), against the rule that sampling allocates nothing; so the
 * dump is read into a kept buffer (nldump.c, on a libnl socket) and parsed in place with
 * libnl's attribute helpers.
 *
 * Under a fixture root DIR/proc/net/dev is read instead. Its 16 columns give 16 of the 24
 * statistics; the kernel prints sums in three of them, which keep the name of their first
 * term: "drop" is rx_dropped + rx_missed_errors, "frame" is rx_length_errors +
 * rx_over_errors + rx_crc_errors + rx_frame_errors, "carrier" is tx_carrier_errors +
 * tx_aborted_errors + tx_window_errors + tx_heartbeat_errors. */
#include <errno.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "log.h"
#include "nldump.h"
#include "source.h"
#include "xmalloc.h"

#define LINK_NSTATS 24

/* The statistics in the order of struct rtnl_link_stats64 (and of the 32-bit
 * struct rtnl_link_stats): stat i is the i-th field of both. */
static const struct link_stat {
	const char *name;
	const char *unit;
	int col; /* column in /proc/net/dev, -1 when it has none */
} link_stats[LINK_NSTATS] = {
    {"rx_packets", "packets", 1},
    {"tx_packets", "packets", 9},
    {"rx_bytes", "bytes", 0},
    {"tx_bytes", "bytes", 8},
    {"rx_errors", "errors", 2},
    {"tx_errors", "errors", 10},
    {"rx_dropped", "drops", 3},
    {"tx_dropped", "drops", 11},
    {"multicast", "packets", 7},
    {"collisions", "collisions", 13},
    {"rx_length_errors", "errors", -1},
    {"rx_over_errors", "errors", -1},
    {"rx_crc_errors", "errors", -1},
    {"rx_frame_errors", "errors", 5},
    {"rx_fifo_errors", "errors", 4},
    {"rx_missed_errors", "errors", -1},
    {"tx_aborted_errors", "errors", -1},
    {"tx_carrier_errors", "errors", 14},
    {"tx_fifo_errors", "errors", 12},
    {"tx_heartbeat_errors", "errors", -1},
    {"tx_window_errors", "errors", -1},
    {"rx_compressed", "packets", 6},
    {"tx_compressed", "packets", 15},
    {"rx_nohandler", "drops", -1},
};

#define PROCNET_COLS 16

struct link_dev {
	int ifindex; /* 0 under a fixture root: devices are known by name */
	char name[IFNAMSIZ];
	unsigned seen; /* sample generation that last reported it */
	series_id id[LINK_NSTATS];
};

struct link_state {
	struct nldump nl;
	int procfd;     /* DIR/proc/net/dev under a fixture root, else -1 */
	bool procsized; /* see source_fd_sized */
	char *buf;
	size_t cap;
	struct link_dev *devs; /* in the order the kernel lists them */
	size_t ndevs, capdevs;
	size_t hint; /* where the next device of a sample is expected */
	unsigned gen;
	/* Devices renamed or gone in this sample: their series go away at its end unless
	 * another device took the name (a veth deleted and created again). */
	struct link_dev *pend;
	size_t npend, cappend;
	/* during a sample */
	struct source *src;
	struct sink *sink;
};

/* Create the series of d (the 16 /proc/net/dev ones under a fixture root). */
static void
intern_dev(struct link_state *ls, struct link_dev *d)
{
	struct source *src = ls->src;
	struct series_labels l = source_labels(src);

	l.device = source_atom(src, d->name, strlen(d->name));
	for (int i = 0; i < LINK_NSTATS; i++) {
		d->id[i] = SERIES_NONE;
		if (!src->host && link_stats[i].col < 0)
			continue;
		l.field = source_atom(src, link_stats[i].name, strlen(link_stats[i].name));
		l.dir = strncmp(link_stats[i].name, "rx_", 3) == 0     ? SERIES_DIR_RX
		        : strncmp(link_stats[i].name, "tx_", 3) == 0   ? SERIES_DIR_TX
		        : strcmp(link_stats[i].name, "multicast") == 0 ? SERIES_DIR_RX
		                                                       : SERIES_DIR_NONE;
		d->id[i] = series_internf(src->reg, SERIES_COUNTER, src->index, link_stats[i].unit,
		                          1.0, &l, "link.%s.%s", d->name, link_stats[i].name);
	}
}

/* Remember d's series as possibly gone (decided in sweep()). */
static void
pend_dev(struct link_state *ls, const struct link_dev *d)
{
	if (ls->npend == ls->cappend) {
		ls->cappend = ls->cappend ? ls->cappend * 2 : 8;
		ls->pend = xreallocarray(ls->pend, ls->cappend, sizeof(*ls->pend));
	}
	ls->pend[ls->npend++] = *d;
}

/* The device with this ifindex (or, when ifindex is 0, this name), created if new and
 * renamed if its name changed. */
static struct link_dev *
find_dev(struct link_state *ls, int ifindex, const char *name)
{
	struct link_dev *d = NULL;
	size_t i = 0;

	/* The kernel lists devices in the same order every time: try where the last one
	 * left off before searching. */
	for (size_t k = 0; k < ls->ndevs; k++) {
		i = (ls->hint + k) % ls->ndevs;
		if (ifindex ? ls->devs[i].ifindex == ifindex
		            : strcmp(ls->devs[i].name, name) == 0) {
			d = &ls->devs[i];
			break;
		}
	}
	if (d != NULL) {
		ls->hint = i + 1;
		if (strcmp(d->name, name) != 0) {
			pend_dev(ls, d);
			snprintf(d->name, sizeof(d->name), "%s", name);
			intern_dev(ls, d);
		}
		return d;
	}
	if (ls->ndevs == ls->capdevs) {
		ls->capdevs = ls->capdevs ? ls->capdevs * 2 : 16;
		ls->devs = xreallocarray(ls->devs, ls->capdevs, sizeof(*ls->devs));
	}
	d = &ls->devs[ls->ndevs++];
	memset(d, 0, sizeof(*d));
	d->ifindex = ifindex;
	snprintf(d->name, sizeof(d->name), "%s", name);
	intern_dev(ls, d);
	ls->hint = ls->ndevs;
	return d;
}

/* Report the values of d for this sample. */
static void
put_dev(struct link_state *ls, struct link_dev *d, const uint64_t *v)
{
	d->seen = ls->gen;
	for (int i = 0; i < LINK_NSTATS; i++)
		if (d->id[i] != SERIES_NONE)
			sink_put(ls->sink, d->id[i], v[i]);
}

/* Is name the name of a device this sample reported? */
static bool
name_in_use(const struct link_state *ls, const char *name)
{
	for (size_t i = 0; i < ls->ndevs; i++)
		if (strcmp(ls->devs[i].name, name) == 0)
			return true;
	return false;
}

/* Drop the devices this sample did not report; tell the sink of the names no device has
 * any more. */
static void
sweep(struct link_state *ls)
{
	size_t kept = 0;

	for (size_t i = 0; i < ls->ndevs; i++) {
		if (ls->devs[i].seen != ls->gen) {
			pend_dev(ls, &ls->devs[i]);
			continue;
		}
		ls->devs[kept++] = ls->devs[i];
	}
	ls->ndevs = kept;
	for (size_t i = 0; i < ls->npend; i++) {
		if (name_in_use(ls, ls->pend[i].name))
			continue; /* same series, new device: the sampler sees a counter reset */
		for (int k = 0; k < LINK_NSTATS; k++)
			if (ls->pend[i].id[k] != SERIES_NONE)
				sink_gone(ls->sink, ls->pend[i].id[k]);
	}
	ls->npend = 0;
}

/* One RTM_NEWLINK reply of the dump. */
static void
on_link(const struct nlmsghdr *h, void *arg)
{
	struct link_state *ls = arg;
	const struct ifinfomsg *ifi;
	const struct nlattr *a, *name = NULL, *st64 = NULL, *st32 = NULL;
	uint64_t v[LINK_NSTATS];
	char ifname[IFNAMSIZ];
	int rem;

	if (h->nlmsg_type != RTM_NEWLINK || h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return;
	ifi = nlmsg_data(h);
	nla_for_each_attr(a, nlmsg_attrdata(h, sizeof(*ifi)), nlmsg_attrlen(h, sizeof(*ifi)), rem)
	{
		switch (nla_type(a)) {
		case IFLA_IFNAME:
			name = a;
			break;
		case IFLA_STATS64:
			st64 = a;
			break;
		case IFLA_STATS:
			st32 = a;
			break;
		}
	}
	if (name == NULL || nla_len(name) < 2 || (st64 == NULL && st32 == NULL))
		return;
	snprintf(ifname, sizeof(ifname), "%.*s", nla_len(name), (const char *)nla_data(name));
	memset(v, 0, sizeof(v));
	if (st64 != NULL) {
		/* Newer kernels append fields: take what we know; older ones send fewer. */
		size_t len = (size_t)nla_len(st64);
		memcpy(v, nla_data(st64), len < sizeof(v) ? len : sizeof(v));
	} else {
		uint32_t v32[LINK_NSTATS] = {0};
		size_t len = (size_t)nla_len(st32);
		memcpy(v32, nla_data(st32), len < sizeof(v32) ? len : sizeof(v32));
		for (int i = 0; i < LINK_NSTATS; i++)
			v[i] = v32[i];
	}
	put_dev(ls, find_dev(ls, ifi->ifi_index, ifname), v);
}

/* Sample through rtnetlink; 0 or -1 with err. */
static int
sample_netlink(struct link_state *ls, struct nm_error *err)
{
	struct {
		struct nlmsghdr h;
		struct ifinfomsg ifi;
	} req;
	struct nm_error e;

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifi));
	req.h.nlmsg_type = RTM_GETLINK;
	req.ifi.ifi_family = AF_UNSPEC;
	if (nldump_run(&ls->nl, &req.h, on_link, ls, &e) < 0)
		return nm_error_set(err, e.code, "source link: %s", e.message);
	return 0;
}

/* Parse the numbers after "name:" in s[0..len) into col; the count found. */
static int
parse_cols(const char *s, const char *end, uint64_t *col)
{
	int n = 0;

	while (n < PROCNET_COLS) {
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		if (s == end || *s < '0' || *s > '9')
			break;
		col[n] = 0;
		for (; s < end && *s >= '0' && *s <= '9'; s++)
			col[n] = col[n] * 10 + (uint64_t)(*s - '0');
		n++;
	}
	return n;
}

/* Sample DIR/proc/net/dev; 0 or -1 with err. */
static int
sample_procnet(struct link_state *ls, struct nm_error *err)
{
	const char *p, *end, *nl, *colon, *name;
	uint64_t col[PROCNET_COLS], v[LINK_NSTATS];
	char ifname[IFNAMSIZ];
	ssize_t len;

	len = source_pread_fd(ls->procfd, ls->procsized, &ls->buf, &ls->cap);
	if (len < 0)
		return nm_error_set(err, NM_ERR_FAILED, "source link: %s/proc/net/dev: %s",
		                    ls->src->root, strerror(errno));
	end = ls->buf + len;
	for (p = ls->buf; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		colon = memchr(p, ':', (size_t)(nl - p));
		if (colon == NULL)
			continue; /* the two header lines */
		for (name = p; name < colon && *name == ' '; name++)
			;
		if (colon - name == 0 || colon - name >= IFNAMSIZ ||
		    parse_cols(colon + 1, nl, col) != PROCNET_COLS)
			continue;
		memcpy(ifname, name, (size_t)(colon - name));
		ifname[colon - name] = '\0';
		memset(v, 0, sizeof(v));
		for (int i = 0; i < LINK_NSTATS; i++)
			if (link_stats[i].col >= 0)
				v[i] = col[link_stats[i].col];
		put_dev(ls, find_dev(ls, 0, ifname), v);
	}
	return 0;
}

/* Free the source's state. */
static void
link_free(struct source *src)
{
	struct link_state *ls = src->priv;

	if (ls == NULL)
		return;
	if (ls->nl.sk != NULL)
		nldump_close(&ls->nl);
	if (ls->procfd >= 0)
		close(ls->procfd);
	free(ls->buf);
	free(ls->devs);
	free(ls->pend);
	free(ls);
	src->priv = NULL;
}

/* Open the netlink socket (host) or proc/net/dev (fixture root). */
static int
link_init(struct source *src, struct nm_error *err)
{
	struct link_state *ls = xcalloc(1, sizeof(*ls));

	ls->procfd = -1;
	ls->src = src;
	src->priv = ls;
	if (src->host) {
		if (nldump_open(&ls->nl, NETLINK_ROUTE, err) < 0)
			goto fail;
	} else {
		ls->procfd = source_open(src, "proc/net/dev");
		if (ls->procfd < 0) {
			nm_error_set(err, NM_ERR_FAILED, "source link: %s/proc/net/dev: %s",
			             src->root, strerror(errno));
			goto fail;
		}
		ls->procsized = source_fd_sized(ls->procfd);
	}
	return 0;
fail:
	link_free(src);
	return -1;
}

/* Read every device's statistics once. */
static int
link_sample(struct source *src, struct sink *sink, struct nm_error *err)
{
	struct link_state *ls = src->priv;
	int rc;

	ls->src = src;
	ls->sink = sink;
	ls->gen++;
	ls->hint = 0;
	rc = src->host ? sample_netlink(ls, err) : sample_procnet(ls, err);
	if (rc == 0)
		sweep(ls); /* only a complete listing tells which devices went away */
	ls->sink = NULL;
	return rc;
}

/* Facts for status. */
static json_object *
link_describe(struct source *src)
{
	struct link_state *ls = src->priv;
	json_object *o = json_object_new_object();

	json_object_object_add(o, "method",
	                       json_object_new_string(src->host ? "rtnetlink" : "proc/net/dev"));
	json_object_object_add(o, "devices", json_object_new_int64(ls ? (int64_t)ls->ndevs : 0));
	return o;
}

/* Its Prometheus families (serve/prom.c): bytes, packets, drops, errors and the rest. */
static const struct source_family link_families[] = {
    {SOURCE_NO_FAMILY, {.kind = SOURCE_GAUGES}, false},
    {"netmetrics_link_bytes",
     {.field = (const char *const[]){"rx_bytes", "tx_bytes", NULL}},
     false},
    {"netmetrics_link_packets",
     {.field = (const char *const[]){"rx_packets", "tx_packets", NULL}},
     false},
    {"netmetrics_link_drops",
     {.field = (const char *const[]){"rx_dropped", "tx_dropped", NULL}},
     false},
    {"netmetrics_link_errors", {.unit = "errors"}, false},
    {"netmetrics_link_events", {.kind = SOURCE_ANY_KIND}, false},
    {NULL, {.kind = SOURCE_ANY_KIND}, false},
};

const struct source_ops source_link_ops = {
    .name = "link",
    .prom = link_families,
    .keep = SOURCE_KEPT,
    .description = "interface statistics (rtnetlink IFLA_STATS64)",
    .configure = NULL,
    .init = link_init,
    .sample = link_sample,
    .describe = link_describe,
    .free = link_free,
};
