/* source-ethtool.c: every `ethtool -S` counter of the chosen devices,
 * `ethtool.<ifname>.<counter>`.
 *
 * [source.ethtool] devices = GLOB ... limits the devices (blanks or commas between globs);
 * by default every device whose driver gives statistics, except lo. Counter names keep their
 * characters except that blanks become '_' ("[0]: rx_ucast_packets" gives
 * "ethtool.eth0.[0]:_rx_ucast_packets"). A driver that repeats a name (vmxnet3 lists the same
 * names once per queue) gets "#2", "#3"... on the later ones.
 *
 * The devices and their counters come from the devlist the sampler shares with the queues
 * source (devlist.h): on the host one SIOCETHTOOL GSTATS per device into a kept buffer, names
 * read again only when the driver's count changes; under a fixture root DIR/ethtool/DEV.txt
 * in `ethtool -S` form, kept open and read with one pread. When both sources sample at the
 * same time the second one takes the first one's listing and reads.
 *
 * Only the counters whose value changed are put: a device remembers the read (the entry's
 * seq) it last took. The next read's changed list holds exactly what changed since then; the
 * same read again has nothing new; after a read it did not take (the queues source, on
 * another interval, read in between) every counter is put.
 *
 * Beside the driver's own names, the standard statistics groups (ethstd.h): one
 * ETHTOOL_MSG_STATS_GET per device per sample on a kept generic netlink socket, as
 * `ethtool.<ifname>.std.<group>.<name>` (ethtool.eth0.std.eth-mac.FramesReceivedOK, labels
 * table=eth-mac field=FramesReceivedOK) and, for the RMON packet size histograms,
 * `ethtool.<ifname>.std.rmon.rx.<low>-<high>` (table=rmon dir=rx field=65-127; "1519-max" for
 * a bucket without an upper bound). A device whose driver gives none of the groups is not
 * asked again until the list of devices changes. Under a fixture root the reply is the file
 * DIR/ethtool/DEV.std, the bytes of one ETHTOOL_MSG_STATS_GET_REPLY message as the kernel
 * sends it; a device without one gives no group. The counters' names are the kernel's: once
 * a device gives a group, one ETHTOOL_MSG_STRSET_GET for the string sets its reply names
 * (DIR/ethtool/DEV.strset under a fixture root); the built-in table (ethstd.c) names a
 * group the kernel gave no set for. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devlist.h"
#include "error.h"
#include "ethstd.h"
#include "ethtool.h"
#include "log.h"
#include "source.h"
#include "xmalloc.h"

struct eth_opts {
	struct devlist_filter filter;
};

struct eth_dev {
	char name[DEVLIST_NAME_MAX];
	struct devlist_status ds;
	unsigned ids_names; /* the devlist entry's names stamp that ids were made for; 0: none */
	series_id *ids;     /* ids[i] for the entry's ec.names[i] */
	size_t nids;
	uint64_t seq; /* the entry's read whose values were put last */
	/* standard statistics groups */
	enum {
		STD_ASK = 0,
		STD_GIVES,
		STD_NONE
	} std; /* STD_NONE: not asked until the device
	          list changes */
	bool std_answered;
	bool std_refused;   /* the last request was refused (EOPNOTSUPP, EINVAL) */
	uint32_t std_given; /* the groups of its last answer, a bit per ETHTOOL_STATS_* */
	struct std_series {
		struct ethstd_stat key; /* its value is the one put last */
		series_id id;
	} * std_v;
	size_t nstd;
	/* the groups' counter names as the kernel gives them (STRSET_GET), asked once, when
	 * the device first gives a group; the built-in table for a group without */
	struct ethstd_names names;
	bool names_asked;
};

struct eth_state {
	struct devlist *dl;  /* the sampler's, or own */
	struct devlist *own; /* made when the source has no sampler's devlist */
	struct eth_dev **devs;
	size_t ndevs, capdevs;
	size_t hint;
	unsigned gen;
	bool devs_changed; /* a device came or went: ask those that gave no group again */
	/* the standard groups: a kept socket on the host, DEV.std files under a fixture root */
	struct ethstd_sock std;
	bool std_off;      /* no ethtool netlink family (a kernel before 5.6): not asked */
	char std_why[512]; /* why off (NM_ERROR_MSG_MAX) */
	struct ethstd_reply reply;
	char *stdbuf; /* a fixture's DEV.std */
	size_t stdcap;
	uint64_t std_requests; /* replies asked for (netlink requests, or fixture files read) */
	uint32_t std_listed;   /* the groups answers had a nest for: those asked for that the
	                          kernel knows */
	/* during a sample */
	struct source *src;
	struct sink *sink;
};

/* A set of series ids, open addressing; built only when a device's names change. */
struct idset {
	uint32_t *slot; /* id + 1, 0 empty */
	size_t mask;
};

/* Make an empty set with room for n ids. */
static void
idset_init(struct idset *s, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n + 2)
		cap *= 2;
	s->slot = xcalloc(cap, sizeof(*s->slot));
	s->mask = cap - 1;
}

/* Add id; false when it was there already. */
static bool
idset_add(struct idset *s, series_id id)
{
	size_t i = (id * 2654435761u) & s->mask;

	for (; s->slot[i] != 0; i = (i + 1) & s->mask)
		if (s->slot[i] == id + 1)
			return false;
	s->slot[i] = id + 1;
	return true;
}

/* Is id in the set? */
static bool
idset_has(const struct idset *s, series_id id)
{
	size_t i = (id * 2654435761u) & s->mask;

	for (; s->slot[i] != 0; i = (i + 1) & s->mask)
		if (s->slot[i] == id + 1)
			return true;
	return false;
}

/* The series name of counter name on device dev, blanks made '_', into buf. */
static void
series_name(char *buf, size_t size, const char *dev, const char *name, unsigned dup)
{
	size_t n = (size_t)snprintf(buf, size, "ethtool.%s.", dev);

	for (; *name != '\0' && n + 1 < size; name++)
		buf[n++] = ((unsigned char)*name <= ' ' || *name == 0x7f) ? '_' : *name;
	buf[n] = '\0';
	if (dup > 1)
		snprintf(buf + n, size - n, "#%u", dup);
}

/* Make the series of e's current names for d; the sink hears of those that went away. */
static void
intern_counters(struct eth_state *st, struct eth_dev *d, const struct devlist_entry *e)
{
	const struct ethtool_counters *ec = &e->ec;
	struct source *src = st->src;
	series_id *old = d->ids, id = SERIES_NONE;
	size_t nold = d->nids;
	struct idset set;
	char name[128]; /* "ethtool." + 15 + "." + 32 + "#N" */

	struct series_labels l = source_labels(src);

	l.device = source_atom(src, d->name, strlen(d->name));
	idset_init(&set, ec->n);
	d->ids = xreallocarray(NULL, ec->n ? ec->n : 1, sizeof(*d->ids));
	for (uint32_t i = 0; i < ec->n; i++) {
		const char *f = ec->names[i];
		size_t fl = strnlen(f, sizeof(ec->names[i]));
		l.field = source_atom(src, f, fl);
		l.dir = strncmp(f, "rx", 2) == 0   ? SERIES_DIR_RX
		        : strncmp(f, "tx", 2) == 0 ? SERIES_DIR_TX
		                                   : SERIES_DIR_NONE;
		for (unsigned dup = 1; dup <= ec->n + 1; dup++) {
			series_name(name, sizeof(name), d->name, f, dup);
			id = series_intern(src->reg, name, strlen(name), SERIES_COUNTER, src->index,
			                   series_unit_guess(f, fl, false), 1.0, &l);
			if (idset_add(&set, id))
				break;
		}
		d->ids[i] = id;
	}
	d->nids = ec->n;
	d->ids_names = e->names;
	for (size_t j = 0; j < nold; j++)
		if (!idset_has(&set, old[j]))
			sink_gone(st->sink, old[j]);
	free(old);
	free(set.slot);
}

/* Tell the sink that all of d's series are gone and free d. */
static void
drop_dev(struct eth_state *st, struct eth_dev *d)
{
	if (st->sink != NULL) {
		for (size_t i = 0; i < d->nids; i++)
			sink_gone(st->sink, d->ids[i]);
		for (size_t i = 0; i < d->nstd; i++)
			sink_gone(st->sink, d->std_v[i].id);
	}
	free(d->ids);
	free(d->std_v);
	ethstd_names_free(&d->names);
	free(d);
}

/* The device named name, created if new. */
static struct eth_dev *
find_dev(struct eth_state *st, const char *name)
{
	bool created;
	struct eth_dev *d =
	    DEVLIST_FIND_DEV(st->devs, st->ndevs, st->capdevs, st->hint, name, &created);

	if (created)
		st->devs_changed = true;
	return d;
}

/* devlist_scan callback: mark a listed device that passes the filter. */
static void
on_device(const char *name, void *arg)
{
	struct eth_state *st = arg;
	struct eth_opts *o = st->src->opts;

	if (!devlist_filter_match(o ? &o->filter : NULL, name))
		return;
	find_dev(st, name)->ds.seen = st->gen;
}

/* Put every counter of e. */
static void
put_all(struct eth_state *st, struct eth_dev *d, const struct devlist_entry *e)
{
	for (uint32_t i = 0; i < e->ec.n; i++)
		sink_put(st->sink, d->ids[i], e->ec.values[i]);
}

/* Read and report one device: every counter when its names changed or when d missed a read
 * of the entry, none when d took this read already, else those whose value changed since
 * the read d took last (the sink keeps the others). */
static void
sample_dev(struct eth_state *st, struct eth_dev *d)
{
	const struct devlist_entry *e;
	uint32_t i;

	if (d->ds.nostats || (e = devlist_read_counters(st->dl, st->src, d->name, &d->ds)) == NULL)
		return;
	if (d->ids_names != e->names || d->nids != e->ec.n) {
		intern_counters(st, d, e);
		put_all(st, d, e);
	} else if (e->seq == d->seq) {
		return; /* the read put last: nothing new */
	} else if (e->seq != d->seq + 1) {
		put_all(st, d, e);
	} else {
		for (uint32_t k = 0; k < e->ec.nchanged; k++) {
			i = e->ec.changed[k];
			sink_put(st->sink, d->ids[i], e->ec.values[i]);
		}
	}
	d->seq = e->seq;
}

/* Whether two values of standard groups are the same counter. */
static bool
same_std(const struct ethstd_stat *a, const struct ethstd_stat *b)
{
	return a->group == b->group && a->kind == b->kind && a->index == b->index &&
	       a->low == b->low && a->high == b->high;
}

/* Make the series of the standard values of r for d, putting every value; the sink hears of
 * those that went away. */
static void
intern_std(struct eth_state *st, struct eth_dev *d, const struct ethstd_reply *r)
{
	struct source *src = st->src;
	struct std_series *old = d->std_v;
	size_t nold = d->nstd;
	char part[48], name[128];
	struct idset set;

	idset_init(&set, r->n);
	d->std_v = xreallocarray(NULL, r->n ? r->n : 1, sizeof(*d->std_v));
	for (size_t i = 0; i < r->n; i++) {
		const struct ethstd_stat *s = &r->v[i];
		const char *group = ethstd_group_name(s->group), *field, *unit;
		struct series_labels l = source_labels(src);
		char gbuf[16];
		size_t flen;
		int n;
		if (group == NULL) {
			snprintf(gbuf, sizeof(gbuf), "group%u", s->group);
			group = gbuf;
		}
		ethstd_stat_name(s, &d->names, part, sizeof(part), &field, &flen, &l.dir, &unit);
		l.device = source_atom(src, d->name, strlen(d->name));
		l.table = source_atom(src, group, strlen(group));
		l.field = source_atom(src, field, flen);
		n = snprintf(name, sizeof(name), "ethtool.%s.std.%s.%s", d->name, group, part);
		d->std_v[i].key = *s;
		d->std_v[i].id = series_intern(src->reg, name, (size_t)n, SERIES_COUNTER,
		                               src->index, unit, 1.0, &l);
		idset_add(&set, d->std_v[i].id);
		sink_put(st->sink, d->std_v[i].id, s->value);
	}
	d->nstd = r->n;
	for (size_t j = 0; j < nold; j++)
		if (!idset_has(&set, old[j].id))
			sink_gone(st->sink, old[j].id);
	free(old);
	free(set.slot);
}

/* Put the standard values of r for d: those that changed when the set is the one of the last
 * answer, else every one through new series. */
static void
put_std(struct eth_state *st, struct eth_dev *d, const struct ethstd_reply *r)
{
	bool same = d->nstd == r->n;

	for (size_t i = 0; same && i < r->n; i++)
		same = same_std(&d->std_v[i].key, &r->v[i]);
	if (!same) {
		intern_std(st, d, r);
		return;
	}
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].value != d->std_v[i].key.value) {
			d->std_v[i].key.value = r->v[i].value;
			sink_put(st->sink, d->std_v[i].id, r->v[i].value);
		}
}

/* Forget d's standard series, telling the sink they are gone. */
static void
drop_std(struct eth_state *st, struct eth_dev *d)
{
	for (size_t i = 0; i < d->nstd; i++)
		sink_gone(st->sink, d->std_v[i].id);
	d->nstd = 0;
	d->std_given = 0;
}

/* A fixture's reply for d: DIR/ethtool/DEV.std, one message; false when it has none (no
 * group) or it is not one whole message. */
static bool
read_std_file(struct eth_state *st, struct eth_dev *d)
{
	char path[64];
	ssize_t n;
	const struct nlmsghdr *h;

	snprintf(path, sizeof(path), "ethtool/%s.std", d->name);
	n = source_read_file(st->src, path, &st->stdbuf, &st->stdcap);
	st->std_requests++;
	if (n < (ssize_t)NLMSG_HDRLEN)
		return false;
	h = (const struct nlmsghdr *)st->stdbuf;
	if (h->nlmsg_len < NLMSG_HDRLEN || h->nlmsg_len > (size_t)n)
		return false;
	return ethstd_parse(h, &st->reply) == 0;
}

/* A fixture's string sets for d: DIR/ethtool/DEV.strset, one ETHTOOL_MSG_STRSET_GET_REPLY;
 * none (the table then) when it has no such file. */
static void
read_names_file(struct eth_state *st, struct eth_dev *d)
{
	char path[64];
	ssize_t n;
	const struct nlmsghdr *h;

	snprintf(path, sizeof(path), "ethtool/%s.strset", d->name);
	n = source_read_file(st->src, path, &st->stdbuf, &st->stdcap);
	if (n < (ssize_t)NLMSG_HDRLEN)
		return;
	h = (const struct nlmsghdr *)st->stdbuf;
	if (h->nlmsg_len >= NLMSG_HDRLEN && h->nlmsg_len <= (size_t)n)
		(void)ethstd_parse_names(h, st->reply.ss_id, &d->names);
}

/* The names of the string sets st->reply names, for d, once: from the kernel on the host
 * (a refusal leaves the table's), from DEV.strset under a fixture root. */
static void
ask_names(struct eth_state *st, struct eth_dev *d)
{
	struct nm_error e;
	uint32_t ss[ETHSTD_NGROUPS];
	bool any = false;

	if (d->names_asked)
		return;
	d->names_asked = true;
	for (unsigned g = 0; g < ETHSTD_NGROUPS; g++) {
		ss[g] = st->reply.given & (1u << g) ? st->reply.ss_id[g] : 0;
		any |= ss[g] != 0;
	}
	if (!any)
		return;
	if (!st->src->host) {
		read_names_file(st, d);
		return;
	}
	if (ethstd_request_names(&st->std, d->name, ss, &d->names, &e) < 0)
		log_debug("source ethtool: %s (the built-in names are used)", e.message);
}

/* Ask for d's standard groups and put what it gives; a device that gives none is left alone
 * from now on (STD_NONE), until the list of devices changes. */
static void
sample_std(struct eth_state *st, struct eth_dev *d)
{
	struct nm_error e;

	if (st->std_off || d->std == STD_NONE)
		return;
	if (st->src->host) {
		if (ethstd_request(&st->std, d->name, &st->reply, &e) < 0) {
			/* Refused for this device (a kernel before 5.13 refuses every one): left
			 * alone like one that gives no group, not the others. */
			if (e.code == NM_ERR_UNSUPPORTED) {
				log_info("source ethtool: %s", e.message);
				d->std = STD_NONE;
				d->std_refused = true;
				drop_std(st, d);
			} else if (errno != ENODEV) {
				log_debug("source ethtool: %s", e.message);
			}
			return;
		}
	} else if (!read_std_file(st, d)) {
		st->reply.n = 0;
		st->reply.listed = st->reply.given = 0;
	}
	d->std_answered = true;
	d->std_refused = false;
	d->std_given = st->reply.given;
	st->std_listed |= st->reply.listed;
	if (st->reply.given == 0) {
		st->reply.n = 0; /* empty groups: no series */
		d->std = STD_NONE;
	} else {
		d->std = STD_GIVES;
		ask_names(st, d);
	}
	put_std(st, d, &st->reply);
}

/* Drop the devices this sample did not list. */
static void
sweep(struct eth_state *st)
{
	size_t kept = 0;

	for (size_t i = 0; i < st->ndevs; i++) {
		if (st->devs[i]->ds.seen != st->gen) {
			drop_dev(st, st->devs[i]);
			st->devs_changed = true;
			continue;
		}
		st->devs[kept++] = st->devs[i];
	}
	st->ndevs = kept;
}

/* Take one [source.ethtool] option. */
static int
eth_configure(struct source *src, const char *key, const char *val, struct nm_error *err)
{
	struct eth_opts *o = src->opts;

	if (strcmp(key, "devices") != 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "source ethtool: unknown option %s", key);
	if (o == NULL)
		o = src->opts = xcalloc(1, sizeof(*o));
	if (devlist_filter_parse(&o->filter, val, err) < 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "source ethtool: devices = %s: bad list",
		                    val);
	return 0;
}

/* Free the state and the options. */
static void
eth_free(struct source *src)
{
	struct eth_state *st = src->priv;
	struct eth_opts *o = src->opts;

	if (st != NULL) {
		st->sink = NULL;
		for (size_t i = 0; i < st->ndevs; i++)
			drop_dev(st, st->devs[i]);
		free(st->devs);
		ethstd_close(&st->std);
		ethstd_reply_free(&st->reply);
		free(st->stdbuf);
		devlist_free(st->own);
		free(st);
		src->priv = NULL;
	}
	if (o != NULL) {
		devlist_filter_free(&o->filter);
		free(o);
		src->opts = NULL;
	}
}

/* Take the sampler's devlist, or make one, and open it. */
static int
eth_init(struct source *src, struct nm_error *err)
{
	struct eth_state *st = xcalloc(1, sizeof(*st));

	st->src = src;
	st->dl = src->devlist;
	if (st->dl == NULL)
		st->dl = st->own = devlist_new();
	if (devlist_open(st->dl, src, err) < 0) {
		devlist_free(st->own);
		free(st);
		return -1;
	}
	if (src->host && ethstd_open(&st->std, err) < 0) {
		/* Not fatal: the driver's own counters do without. */
		st->std_off = true;
		snprintf(st->std_why, sizeof(st->std_why), "%s", err->message);
		log_info("source ethtool: standard groups off: %s", err->message);
	}
	src->priv = st;
	return 0;
}

/* Read every chosen device once. */
static int
eth_sample(struct source *src, struct sink *sink, struct nm_error *err)
{
	struct eth_state *st = src->priv;

	st->src = src;
	st->sink = sink;
	st->gen++;
	st->hint = 0;
	if (devlist_scan(st->dl, src, on_device, st, err) < 0) {
		st->sink = NULL;
		return -1;
	}
	if (st->devs_changed) {
		for (size_t i = 0; i < st->ndevs; i++)
			if (st->devs[i]->std == STD_NONE)
				st->devs[i]->std = STD_ASK;
		st->devs_changed = false;
	}
	for (size_t i = 0; i < st->ndevs; i++)
		if (st->devs[i]->ds.seen == st->gen) {
			sample_dev(st, st->devs[i]);
			sample_std(st, st->devs[i]);
		}
	sweep(st);
	st->sink = NULL;
	return 0;
}

/* The names of the groups of bits, a bit per ETHTOOL_STATS_*: a new array. */
static json_object *
groups_json(uint32_t bits)
{
	json_object *g = json_object_new_array();
	char buf[16];

	for (unsigned k = 0; k < 32; k++) {
		if (!(bits & (1u << k)))
			continue;
		snprintf(buf, sizeof(buf), "group%u", k);
		json_object_array_add(
		    g, json_object_new_string(ethstd_group_name(k) ? ethstd_group_name(k) : buf));
	}
	return g;
}

/* Facts for status: the devices read and their counter counts; the standard groups each
 * device gave (std_groups, of those answered), those the kernel knows of the ones asked for
 * (std_kernel_groups), how they are read and how many requests that took. */
static json_object *
eth_describe(struct source *src)
{
	struct eth_state *st = src->priv;
	json_object *o = json_object_new_object(), *devs = json_object_new_object();

	for (size_t i = 0; st != NULL && i < st->ndevs; i++)
		if (!st->devs[i]->ds.nostats)
			json_object_object_add(devs, st->devs[i]->name,
			                       json_object_new_int64((int64_t)st->devs[i]->nids));
	json_object_object_add(o, "method",
	                       json_object_new_string(src->host ? "ioctl" : "ethtool -S text"));
	json_object_object_add(o, "devices", devs);
	/* The standard groups: where from, requests made, the groups each device gave. */
	devs = json_object_new_object();
	for (size_t i = 0; st != NULL && i < st->ndevs; i++) {
		json_object *g;
		if (!st->devs[i]->std_answered)
			continue;
		g = groups_json(st->devs[i]->std_given);
		json_object_object_add(devs, st->devs[i]->name, g);
	}
	json_object_object_add(o, "std_method",
	                       json_object_new_string(st == NULL || !src->host ? "DEV.std files"
	                                              : st->std_off
	                                                  ? "off"
	                                                  : "netlink ETHTOOL_MSG_STATS_GET"));
	if (st != NULL && st->std_off)
		json_object_object_add(o, "std_off", json_object_new_string(st->std_why));
	json_object_object_add(o, "std_requests",
	                       json_object_new_int64(st == NULL  ? 0
	                                             : src->host ? (int64_t)st->std.requests
	                                                         : (int64_t)st->std_requests));
	json_object_object_add(o, "std_groups", devs);
	devs = json_object_new_array();
	for (size_t i = 0; st != NULL && i < st->ndevs; i++)
		if (st->devs[i]->std_refused)
			json_object_array_add(devs, json_object_new_string(st->devs[i]->name));
	json_object_object_add(o, "std_refused", devs);
	json_object_object_add(o, "std_kernel_groups", groups_json(st ? st->std_listed : 0));
	/* Whose names each device's groups carry: the kernel's string sets, or the table. */
	devs = json_object_new_object();
	for (size_t i = 0; st != NULL && i < st->ndevs; i++)
		if (st->devs[i]->std == STD_GIVES)
			json_object_object_add(devs, st->devs[i]->name,
			                       groups_json(st->devs[i]->names.got));
	json_object_object_add(o, "std_kernel_names", devs);
	return o;
}

/* Its Prometheus families (serve/prom.c): the standard groups, exported (the same meaning on
 * every driver, a few dozen a device), the RMON buckets in a family of their own; the
 * driver's counters (the family is opt-in). */
static const struct source_family ethtool_families[] = {
    {SOURCE_NO_FAMILY, {.kind = SOURCE_GAUGES}, false},
    {"netmetrics_ethtool_rmon_packets", {.name = "ethtool.*.std.rmon.[rt]x.*"}, false},
    {"netmetrics_ethtool_std", {.name = "ethtool.*.std.*"}, false},
    {"netmetrics_ethtool", {.kind = SOURCE_ANY_KIND}, false},
    {NULL, {.kind = SOURCE_ANY_KIND}, false},
};

const struct source_ops source_ethtool_ops = {
    .name = "ethtool",
    .prom = ethtool_families,
    .keep = SOURCE_NOT_KEPT,
    .description = "ethtool -S counters (SIOCETHTOOL)",
    .configure = eth_configure,
    .init = eth_init,
    .sample = eth_sample,
    .describe = eth_describe,
    .free = eth_free,
};
