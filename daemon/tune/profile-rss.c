/* profile-rss.c: the [rss] section: receive side scaling ("ethtool -X", "ethtool -N
 * rx-flow-hash"): which rx queue each entry of the device's indirection table sends to,
 * the hash function, its key, and the header fields each flow type's hash covers.
 *
 *   equal = 4              spread the table evenly over queues 0-3 (entry i -> i % 4)
 *   weights = 1,1,2,2      or: queue i gets a share of the entries proportional to its weight
 *   table = 0 1 2 3 ...    or: the whole table, as many queues as the device has entries
 *   hfunc = toeplitz       the hash function (toeplitz, xor, crc32)
 *   hkey = 6d:5a:...       the hash key, as many bytes as the device's
 *   fields.tcp4 = sdfn     what a tcp4 flow's hash covers (ethtool's letters: m v t s d f n
 *                          r; flow types tcp4 udp4 sctp4 ip4 tcp6 udp6 sctp6 ip6)
 *
 * Each part is one entry ("ethtool eth0 rss indir", "... rss hfunc", "... rss hkey", "...
 * rss fields.tcp4"), written after [coalesce] and [offloads], before the queue sections
 * (plan_order 5), by the privileged process (PS_RSS: ETHTOOL_SRSSH with the other parts
 * marked unchanged, ETHTOOL_SRXFH for the fields; the request is checked there against the
 * device's table size, rx rings and key size), and read back (ETHTOOL_GRSSH, ETHTOOL_GRXFH):
 * a driver that keeps another value is a failure naming both, rolled back. A device
 * without RSS (veth; virtio_net without the RSS feature, as here) skips the section, or
 * refuses it under strict = yes. Under a fixture root the state is ROOT/ethtool/DEV.rss,
 * `ethtool -x` text with "rx-flow-hash FLOW: FIELDS" lines; "# ignores hfunc" (or indir,
 * hkey) makes its writes of that part take and keep the old value, as a driver that
 * ignores it. */
#include <errno.h>
#include <linux/ethtool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "ethtool.h"
#include "knob.h"
#include "privsep.h"
#include "profile.h"
#include "strbuf.h"
#include "xmalloc.h"

#define RSS_TEXT_MAX 65536

/* The flow types of fields.FLOW keys, in profile_rss.fields order. */
static const char *const flow_names[PROFILE_RSS_FLOWS] = {"tcp4", "udp4", "sctp4", "ip4",
                                                          "tcp6", "udp6", "sctp6", "ip6"};
static const uint32_t flow_types[PROFILE_RSS_FLOWS] = {TCP_V4_FLOW,  UDP_V4_FLOW, SCTP_V4_FLOW,
                                                       IPV4_FLOW,    TCP_V6_FLOW, UDP_V6_FLOW,
                                                       SCTP_V6_FLOW, IPV6_FLOW};
/* ethtool's letters for the hash fields, in the order it prints them. */
static const char field_letters[] = "mvtsdfnr";
static const uint32_t field_bits[] = {RXH_L2DA,   RXH_VLAN,     RXH_L3_PROTO, RXH_IP_SRC,
                                      RXH_IP_DST, RXH_L4_B_0_1, RXH_L4_B_2_3, RXH_DISCARD};
static const char *const hfunc_names[] = {"toeplitz", "xor", "crc32"}; /* bits 1, 2, 4 */

/* The device's RSS as read. */
struct rss_dev {
	uint32_t nrings, nindir, nkey;
	uint32_t indir[ETHTOOL_RSS_TABLE_MAX];
	uint8_t key[ETHTOOL_RSS_KEY_MAX];
	uint8_t hfunc;
	bool has_fields[PROFILE_RSS_FLOWS];
	uint32_t fields[PROFILE_RSS_FLOWS];
};

static int
flow_of(const char *name)
{
	for (int i = 0; i < PROFILE_RSS_FLOWS; i++)
		if (strcmp(name, flow_names[i]) == 0)
			return i;
	return -1;
}

/* "sdfn" -> RXH bits ("none": 0); -1 when not fields. */
static int
fields_parse(const char *s, uint32_t *out)
{
	const char *l;

	*out = 0;
	if (strcmp(s, "none") == 0)
		return 0;
	if (*s == '\0')
		return -1;
	for (; *s; s++) {
		if ((l = strchr(field_letters, *s)) == NULL || *s == '\0')
			return -1;
		*out |= field_bits[l - field_letters];
	}
	return 0;
}

static void
fields_format(uint32_t v, char *buf, size_t size)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(field_bits) / sizeof(field_bits[0]) && n + 1 < size; i++)
		if (v & field_bits[i])
			buf[n++] = field_letters[i];
	buf[n] = '\0';
	if (n == 0)
		snprintf(buf, size, "none");
}

static int
hfunc_parse(const char *s, uint8_t *out)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(s, hfunc_names[i]) == 0)
			return *out = (uint8_t)(1u << i), 0;
	return -1;
}

static void
hfunc_format(uint8_t v, char *buf, size_t size)
{
	for (int i = 0; i < 3; i++)
		if (v == (1u << i)) {
			snprintf(buf, size, "%s", hfunc_names[i]);
			return;
		}
	snprintf(buf, size, "0x%02x", v);
}

/* "6d:5a:..." -> bytes; -1 when not that. */
static int
key_parse(const char *s, uint8_t *key, size_t cap, size_t *n)
{
	*n = 0;
	while (*s) {
		unsigned v;
		int used;
		if (*n >= cap || sscanf(s, "%2x%n", &v, &used) != 1 || used != 2)
			return -1;
		key[(*n)++] = (uint8_t)v;
		s += 2;
		if (*s == ':' && s[1] != '\0')
			s++;
		else if (*s != '\0')
			return -1;
	}
	return *n > 0 ? 0 : -1;
}

static char *
key_format(const uint8_t *key, size_t n)
{
	char *s = xmalloc(n * 3 + 1);

	s[0] = '\0';
	for (size_t i = 0; i < n; i++)
		sprintf(s + (i ? i * 3 - 1 : 0), i ? ":%02x" : "%02x", key[i]);
	return s;
}

/* "0 1 2 3" (spaces, commas or both) -> numbers; -1 when not that or more than cap. */
static int
list_parse(const char *s, uint32_t *out, size_t cap, size_t *n)
{
	*n = 0;
	for (;;) {
		unsigned long long v = 0;
		const char *d;
		s += strspn(s, " \t,");
		if (*s == '\0')
			break;
		for (d = s; *s >= '0' && *s <= '9'; s++)
			if ((v = v * 10 + (unsigned)(*s - '0')) > ETHTOOL_RSS_TABLE_MAX)
				return -1;
		if (s == d || *n >= cap || (*s != '\0' && strchr(" \t,", *s) == NULL))
			return -1;
		out[(*n)++] = (uint32_t)v;
	}
	return *n > 0 ? 0 : -1;
}

static char *
list_format(const uint32_t *v, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, i ? " %u" : "%u", v[i]);
	return strbuf_detach(&sb, NULL);
}

/* The N of a table that is entry i -> i % N, or 0. */
static uint32_t
table_equal(const uint32_t *t, size_t n)
{
	uint32_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (t[i] + 1 > m)
			m = t[i] + 1;
	for (size_t i = 0; i < n; i++)
		if (t[i] != i % m)
			return 0;
	return m;
}

/* Fill a table of n entries from weights as ethtool -X weight does. */
static void
table_weights(uint32_t *t, size_t n, const uint32_t *w, size_t nw)
{
	unsigned long long sum = 0, partial = 0;
	long j = -1;

	for (size_t i = 0; i < nw; i++)
		sum += w[i];
	for (size_t i = 0; i < n; i++) {
		while (j + 1 < (long)nw && i >= n * partial / sum)
			partial += w[++j];
		t[i] = (uint32_t)j;
	}
}

/* Take a key of [rss]. */
static int
rss_key(struct profile *p, const char *key, const char *val, struct nm_error *err)
{
	struct profile_rss *r = &p->rss;
	uint32_t *buf;
	size_t n;
	int f;

	if (strcmp(key, "equal") == 0)
		return profile_parse_u32("rss", key, val, ETHTOOL_RSS_TABLE_MAX, &r->equal, err) <
		                   0 ||
		               r->equal == 0
		           ? nm_error_set(
		                 err, NM_ERR_BAD_ARGS,
		                 "[rss] equal: \"%s\" is not a number of queues from 1 to %u", val,
		                 ETHTOOL_RSS_TABLE_MAX)
		           : 0;
	if (strcmp(key, "weights") == 0 || strcmp(key, "table") == 0) {
		bool w = key[0] == 'w';
		buf = xcalloc(ETHTOOL_RSS_TABLE_MAX, sizeof(uint32_t));
		if (list_parse(val, buf, ETHTOOL_RSS_TABLE_MAX, &n) < 0) {
			free(buf);
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "[rss] %s: not a list of up to %u numbers from 0 to %u",
			                    key, ETHTOOL_RSS_TABLE_MAX, ETHTOOL_RSS_TABLE_MAX);
		}
		free(w ? r->weights : r->table);
		if (w)
			r->weights = buf, r->nweights = n;
		else
			r->table = buf, r->ntable = n;
		return 0;
	}
	if (strcmp(key, "hfunc") == 0) {
		if (hfunc_parse(val, &r->hfunc) < 0)
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "[rss] hfunc: \"%s\" is not toeplitz, xor or crc32",
			                    val);
		return 0;
	}
	if (strcmp(key, "hkey") == 0) {
		if (key_parse(val, r->key, sizeof(r->key), &n) < 0)
			return nm_error_set(
			    err, NM_ERR_BAD_ARGS,
			    "[rss] hkey: not hex bytes separated by ':' (at most %zu)",
			    sizeof(r->key));
		r->nkey = n;
		return 0;
	}
	if (strncmp(key, "fields.", 7) == 0 && (f = flow_of(key + 7)) >= 0) {
		if (fields_parse(val, &r->fields[f]) < 0)
			return nm_error_set(
			    err, NM_ERR_BAD_ARGS,
			    "[rss] %s: \"%s\" is not fields (letters of mvtsdfnr, or "
			    "none)",
			    key, val);
		r->has_fields[f] = true;
		return 0;
	}
	return nm_error_set(err, NM_ERR_BAD_ARGS,
	                    "[rss]: unknown key \"%s\" (equal, weights, table, hfunc, hkey, "
	                    "fields.FLOW with FLOW tcp4, udp4, sctp4, ip4, tcp6, udp6, sctp6, ip6)",
	                    key);
}

static int
rss_check(const struct profile *p, struct nm_error *err)
{
	const struct profile_rss *r = &p->rss;
	unsigned long long sum = 0;

	if ((r->equal > 0) + (r->weights != NULL) + (r->table != NULL) > 1)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "[rss]: equal, weights and table each give the whole "
		                    "indirection table: give one");
	for (size_t i = 0; i < r->nweights; i++)
		sum += r->weights[i];
	if (r->weights != NULL && sum == 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "[rss] weights: all 0");
	return 0;
}

static bool
rss_present(const struct profile *p)
{
	const struct profile_rss *r = &p->rss;

	for (int i = 0; i < PROFILE_RSS_FLOWS; i++)
		if (r->has_fields[i])
			return true;
	return r->equal > 0 || r->weights != NULL || r->table != NULL || r->hfunc != 0 ||
	       r->nkey > 0;
}

static void
rss_release(struct profile *p)
{
	free(p->rss.weights);
	free(p->rss.table);
	p->rss.weights = p->rss.table = NULL;
	p->rss.nweights = p->rss.ntable = 0;
}

/* Does the profile set the indirection table (which hangs on the rx queue count)? */
bool
profile_rss_sets_table(const struct profile *p)
{
	return p->rss.equal > 0 || p->rss.weights != NULL || p->rss.table != NULL;
}

/* ---- the device's state: ioctls, or the fixture's `ethtool -x` text ---- */

/* Parse `ethtool -x` text (and rx-flow-hash lines) into d. -1 when it has no table. */
static int
fixture_parse(const char *text, struct rss_dev *d)
{
	const char *p = strstr(text, " with "), *q, *end;

	memset(d, 0, sizeof(*d));
	if (p == NULL || sscanf(p, " with %u RX ring", &d->nrings) != 1)
		return -1;
	p = strchr(p, '\n');
	while (p != NULL && *++p != '\0' && strncmp(p, "RSS hash key:", 13) != 0) {
		end = strchr(p, '\n');
		q = strchr(p, ':');
		if (q == NULL || (end != NULL && q > end))
			return -1;
		for (q++; q < (end ? end : q + strlen(q));) {
			char *e;
			unsigned long v;
			q += strspn(q, " \t");
			if (q >= (end ? end : q + strlen(q)) || *q < '0' || *q > '9')
				break;
			v = strtoul(q, &e, 10);
			if (d->nindir >= ETHTOOL_RSS_TABLE_MAX)
				return -1;
			d->indir[d->nindir++] = (uint32_t)v;
			q = e;
		}
		p = end;
	}
	if (p != NULL && *p != '\0') {
		size_t n = 0;
		char line[1024];
		p = strchr(p, '\n');
		if (p != NULL && sscanf(p + 1, "%1023s", line) == 1 &&
		    key_parse(line, d->key, sizeof(d->key), &n) == 0)
			d->nkey = (uint32_t)n;
	}
	if ((p = strstr(text, "RSS hash function:")) != NULL)
		for (int i = 0; i < 3; i++) {
			char k[32];
			snprintf(k, sizeof(k), "    %s: on", hfunc_names[i]);
			if ((q = strstr(p, k)) != NULL &&
			    (q[strlen(k)] == '\n' || q[strlen(k)] == '\0'))
				d->hfunc = (uint8_t)(1u << i);
		}
	for (int f = 0; f < PROFILE_RSS_FLOWS; f++) {
		char k[40], v[16];
		snprintf(k, sizeof(k), "\nrx-flow-hash %s: ", flow_names[f]);
		if ((q = strstr(text, k)) != NULL && sscanf(q + strlen(k), "%15s", v) == 1 &&
		    fields_parse(v, &d->fields[f]) == 0)
			d->has_fields[f] = true;
	}
	return 0;
}

/* d as `ethtool -x` text, then the fixture's rx-flow-hash and '#' lines. */
static char *
fixture_format(const char *dev, const struct rss_dev *d, const char *old)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p;

	strbuf_addf(&sb, "RX flow hash indirection table for %s with %u RX ring(s):\n", dev,
	            d->nrings);
	for (uint32_t i = 0; i < d->nindir; i++) {
		if (i % 8 == 0)
			strbuf_addf(&sb, "%s%5u: ", i ? "\n" : "", i);
		strbuf_addf(&sb, " %5u", d->indir[i]);
	}
	if (d->nindir > 0)
		strbuf_addf(&sb, "\n");
	strbuf_addf(&sb, "RSS hash key:\n");
	if (d->nkey > 0) {
		char *k = key_format(d->key, d->nkey);
		strbuf_addf(&sb, "%s\n", k);
		free(k);
	} else
		strbuf_addf(&sb, "Operation not supported\n");
	strbuf_addf(&sb, "RSS hash function:\n");
	for (int i = 0; i < 3; i++)
		strbuf_addf(&sb, "    %s: %s\n", hfunc_names[i],
		            d->hfunc == (1u << i) ? "on" : "off");
	for (int f = 0; f < PROFILE_RSS_FLOWS; f++) {
		char v[16];
		if (!d->has_fields[f])
			continue;
		fields_format(d->fields[f], v, sizeof(v));
		strbuf_addf(&sb, "rx-flow-hash %s: %s\n", flow_names[f], v);
	}
	for (p = old; p != NULL && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (*p == '#')
			strbuf_addf(&sb, "%.*s\n", (int)strcspn(p, "\n"), p);
	return strbuf_detach(&sb, NULL);
}

/* The fixture's text, or NULL with errno. */
static char *
fixture_read(struct profile_host *h, const char *dev)
{
	char rel[64], *text = xmalloc(RSS_TEXT_MAX);

	snprintf(rel, sizeof(rel), "ethtool/%s.rss", dev);
	if (profile_host_read(h, PROFILE_BASE_ROOT, NULL, rel, text, RSS_TEXT_MAX) < 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* dev's RSS now (a new struct the caller frees), or NULL with err (NM_ERR_UNSUPPORTED:
 * the device has none). */
static struct rss_dev *
rss_get(struct profile_host *h, const char *dev, struct nm_error *err)
{
	struct rss_dev *d = xcalloc(1, sizeof(*d));
	char *text;
	int fd, r;

	if (!h->real) {
		if ((text = fixture_read(h, dev)) == NULL) {
			nm_error_set(err, NM_ERR_UNSUPPORTED,
			             "%s: RSS unknown (no ethtool/%s.rss under the root)", dev,
			             dev);
			goto fail;
		}
		r = fixture_parse(text, d);
		free(text);
		if (r < 0) {
			nm_error_set(err, NM_ERR_UNSUPPORTED,
			             "%s: ethtool/%s.rss is not \"ethtool -x\" text", dev, dev);
			goto fail;
		}
	} else {
		uint64_t v;
		if ((fd = profile_host_ethfd(h, err)) < 0)
			goto fail;
		if (ethtool_get_rss(fd, dev, d->indir, ETHTOOL_RSS_TABLE_MAX, &d->nindir, d->key,
		                    ETHTOOL_RSS_KEY_MAX, &d->nkey, &d->hfunc) < 0) {
			nm_error_set(err,
			             errno == EOPNOTSUPP || errno == EMSGSIZE ? NM_ERR_UNSUPPORTED
			                                                      : NM_ERR_FAILED,
			             "ethtool %s rss: %s", dev,
			             errno == EOPNOTSUPP
			                 ? "not supported by the driver (\"ethtool -x\")"
			                 : strerror(errno));
			goto fail;
		}
		if (d->nindir > 0 && ethtool_get_rxrings(fd, dev, &d->nrings) < 0)
			d->nrings = 0;
		for (int f = 0; f < PROFILE_RSS_FLOWS; f++)
			if (ethtool_get_rxfh_fields(fd, dev, flow_types[f], &v) == 0) {
				d->has_fields[f] = true;
				d->fields[f] = (uint32_t)v;
			}
	}
	if (d->nindir == 0 && d->nkey == 0) {
		nm_error_set(
		    err, NM_ERR_UNSUPPORTED,
		    "ethtool %s rss: not supported by the driver (no indirection table and no "
		    "hash key: \"ethtool -x %s\")",
		    dev, dev);
		goto fail;
	}
	return d;
fail:
	free(d);
	return NULL;
}

/* ---- plan, show, save ---- */

/* The table the profile asks for on d, into t (d->nindir entries); -1 with err. */
static int
plan_table(const struct profile_rss *r, const struct rss_dev *d, uint32_t *t, const char *dev,
           struct nm_error *err)
{
	uint32_t need = r->equal;

	if (r->table != NULL && r->ntable != d->nindir)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "[rss] table: %zu entries, %s's indirection table has %u",
		                    r->ntable, dev, d->nindir);
	if (r->weights != NULL)
		need = (uint32_t)r->nweights;
	for (size_t i = 0; r->table != NULL && i < r->ntable; i++)
		if (r->table[i] + 1 > need)
			need = r->table[i] + 1;
	if (need > d->nrings)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "[rss] %s: needs %u rx queues, %s has %u (\"ethtool -x %s\")",
		                    r->equal     ? "equal"
		                    : r->weights ? "weights"
		                                 : "table",
		                    need, dev, d->nrings, dev);
	for (uint32_t i = 0; i < d->nindir; i++)
		t[i] = r->table ? r->table[i] : r->equal ? i % r->equal : 0;
	if (r->weights != NULL)
		table_weights(t, d->nindir, r->weights, r->nweights);
	return 0;
}

/* Plan the parts the profile gives: hfunc, hkey, indir, fields, in that order. */
static int
rss_plan(const struct profile *p, struct profile_host *h, struct plan *pl, struct nm_error *err)
{
	const struct profile_rss *r = &p->rss;
	struct nm_error e;
	struct rss_dev *d;
	char buf[32], *v;
	int rc = -1;

	if (!rss_present(p))
		return 0;
	d = rss_get(h, h->dev, &e);
	if (d == NULL)
		return plan_cannot(pl, p, "rss", err, "%s", e.message);
	if (r->hfunc != 0) {
		hfunc_format(r->hfunc, buf, sizeof(buf));
		if (plan_add(pl, h, PLAN_RSS, h->dev, -1, "hfunc", buf, err) == NULL)
			goto out;
	}
	if (r->nkey > 0) {
		if (r->nkey != d->nkey) {
			nm_error_set(err, NM_ERR_BAD_ARGS,
			             "[rss] hkey: %zu bytes, %s's key has %u (\"ethtool -x %s\")",
			             r->nkey, h->dev, d->nkey, h->dev);
			goto out;
		}
		v = key_format(r->key, r->nkey);
		if (plan_add(pl, h, PLAN_RSS, h->dev, -1, "hkey", v, err) == NULL) {
			free(v);
			goto out;
		}
		free(v);
	}
	if (profile_rss_sets_table(p)) {
		uint32_t *t = xcalloc(d->nindir + 1, sizeof(uint32_t));
		if (d->nindir == 0 || plan_table(r, d, t, h->dev, err) < 0) {
			if (d->nindir == 0)
				nm_error_set(err, NM_ERR_BAD_ARGS,
				             "[rss]: %s has no indirection table to set", h->dev);
			free(t);
			goto out;
		}
		v = list_format(t, d->nindir);
		free(t);
		if (plan_add(pl, h, PLAN_RSS, h->dev, -1, "indir", v, err) == NULL) {
			free(v);
			goto out;
		}
		free(v);
	}
	for (int f = 0; f < PROFILE_RSS_FLOWS; f++) {
		char name[32];
		if (!r->has_fields[f])
			continue;
		if (!d->has_fields[f]) {
			nm_error_set(err, NM_ERR_BAD_ARGS,
			             "[rss] fields.%s: %s does not say what its %s hash covers "
			             "(\"ethtool -n %s rx-flow-hash %s\")",
			             flow_names[f], h->dev, flow_names[f], h->dev, flow_names[f]);
			goto out;
		}
		fields_format(r->fields[f], buf, sizeof(buf));
		snprintf(name, sizeof(name), "fields.%s", flow_names[f]);
		if (plan_add(pl, h, PLAN_RSS, h->dev, -1, name, buf, err) == NULL)
			goto out;
	}
	rc = 0;
out:
	free(d);
	return rc;
}

/* The RSS of h's device for profile show and the tuning record: {"rings", "entries",
 * "queues": [entries per queue], "equal": N or null, "hfunc", "hkey", "fields": {...}}
 * (new reference), or NULL when it has none. */
json_object *
profile_rss_json(struct profile_host *h)
{
	struct rss_dev *d = rss_get(h, h->dev, NULL);
	json_object *o, *q, *f;
	char buf[32], *k;
	uint32_t eq;

	if (d == NULL)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "rings", json_object_new_int64(d->nrings));
	json_object_object_add(o, "entries", json_object_new_int64(d->nindir));
	q = json_object_new_array();
	for (uint32_t n = 0; n < d->nrings && n < ETHTOOL_RSS_TABLE_MAX; n++) {
		uint32_t c = 0;
		for (uint32_t i = 0; i < d->nindir; i++)
			c += d->indir[i] == n;
		json_object_array_add(q, json_object_new_int64(c));
	}
	json_object_object_add(o, "queues", q);
	eq = table_equal(d->indir, d->nindir);
	json_object_object_add(o, "equal", eq ? json_object_new_int64(eq) : NULL);
	hfunc_format(d->hfunc, buf, sizeof(buf));
	json_object_object_add(o, "hfunc", json_object_new_string(buf));
	k = key_format(d->key, d->nkey);
	json_object_object_add(o, "hkey", d->nkey ? json_object_new_string(k) : NULL);
	free(k);
	f = json_object_new_object();
	for (int i = 0; i < PROFILE_RSS_FLOWS; i++)
		if (d->has_fields[i]) {
			fields_format(d->fields[i], buf, sizeof(buf));
			json_object_object_add(f, flow_names[i], json_object_new_string(buf));
		}
	json_object_object_add(o, "fields", f);
	free(d);
	return o;
}

/* [rss] as saved: the table (equal = N when it is one), the hash function, key and fields. */
static void
rss_save(struct profile_host *h, struct strbuf *sb)
{
	struct rss_dev *d = rss_get(h, h->dev, NULL);
	char buf[32], *v;
	uint32_t eq;

	if (d == NULL)
		return;
	strbuf_addf(sb, "\n[rss]\n");
	if (d->nindir > 0) {
		if ((eq = table_equal(d->indir, d->nindir)) > 0)
			strbuf_addf(sb, "equal = %u\n", eq);
		else {
			v = list_format(d->indir, d->nindir);
			strbuf_addf(sb, "table = %s\n", v);
			free(v);
		}
	}
	if (d->hfunc == 1 || d->hfunc == 2 || d->hfunc == 4) {
		hfunc_format(d->hfunc, buf, sizeof(buf));
		strbuf_addf(sb, "hfunc = %s\n", buf);
	}
	if (d->nkey > 0) {
		v = key_format(d->key, d->nkey);
		strbuf_addf(sb, "hkey = %s\n", v);
		free(v);
	}
	for (int f = 0; f < PROFILE_RSS_FLOWS; f++)
		if (d->has_fields[f]) {
			fields_format(d->fields[f], buf, sizeof(buf));
			strbuf_addf(sb, "fields.%s = %s\n", flow_names[f], buf);
		}
	free(d);
}

/* "rss=4": equal = 4; "rss=1,1,2,2": weights. */
static void
rss_setting_ini(struct strbuf *sb, const char *v)
{
	strbuf_addf(sb, "[rss]\n%s = %s\n", strchr(v, ',') ? "weights" : "equal", v);
}

/* ---- the plan entries: read, write ---- */

static int
rss_file(const struct plan_entry *e, enum profile_base *base, char *rel, size_t size)
{
	(void)e;
	(void)base;
	(void)rel;
	(void)size;
	return -1;
}

static void
rss_path(struct plan_entry *e)
{
	snprintf(e->path, sizeof(e->path), "ethtool %s rss %s", e->dev, e->name);
}

/* The part an entry names: enum ethtool_rss_part, *flow for fields; -1 when none. */
static int
part_of(const char *name, int *flow)
{
	*flow = -1;
	if (strcmp(name, "indir") == 0)
		return ETHTOOL_RSS_INDIR;
	if (strcmp(name, "hkey") == 0)
		return ETHTOOL_RSS_KEY;
	if (strcmp(name, "hfunc") == 0)
		return ETHTOOL_RSS_HFUNC;
	if (strncmp(name, "fields.", 7) == 0 && (*flow = flow_of(name + 7)) >= 0)
		return ETHTOOL_RSS_FIELDS;
	return -1;
}

static char *
rss_read(struct profile_host *h, const struct plan_entry *e, struct nm_error *err)
{
	int flow, part = part_of(e->name, &flow);
	struct rss_dev *d;
	char buf[32], *v = NULL;

	if (part < 0) {
		nm_error_set(err, NM_ERR_BAD_ARGS, "%s: not a part of RSS", e->path);
		return NULL;
	}
	if ((d = rss_get(h, e->dev, err)) == NULL)
		return NULL;
	switch (part) {
	case ETHTOOL_RSS_INDIR:
		v = list_format(d->indir, d->nindir);
		break;
	case ETHTOOL_RSS_KEY:
		v = key_format(d->key, d->nkey);
		break;
	case ETHTOOL_RSS_HFUNC:
		hfunc_format(d->hfunc, buf, sizeof(buf));
		v = xstrdup(buf);
		break;
	default:
		if (!d->has_fields[flow]) {
			nm_error_set(err, NM_ERR_UNSUPPORTED, "%s: the device does not say",
			             e->path);
			break;
		}
		fields_format(d->fields[flow], buf, sizeof(buf));
		v = xstrdup(buf);
		break;
	}
	free(d);
	return v;
}

/* Set a part in the fixture's text (a "# ignores PART" line: kept as it was). */
static int
fixture_set(struct profile_host *h, const struct plan_entry *e, int part, int flow,
            const uint32_t *t, size_t n, const uint8_t *key, size_t nkey, uint8_t hfunc,
            uint32_t fields, struct nm_error *err)
{
	char rel[64], ign[160], *text = fixture_read(h, e->dev), *out;
	struct rss_dev *d;
	int r;

	if (text == NULL)
		return nm_error_set(err, NM_ERR_FAILED, "write %s: no ethtool/%s.rss", e->path,
		                    e->dev);
	d = xcalloc(1, sizeof(*d));
	fixture_parse(text, d);
	snprintf(ign, sizeof(ign), "\n# ignores %s",
	         part == ETHTOOL_RSS_FIELDS ? "fields" : e->name);
	if (strstr(text, ign) == NULL) {
		if (part == ETHTOOL_RSS_INDIR) {
			if (n != d->nindir) {
				free(d), free(text);
				return nm_error_set(err, NM_ERR_FAILED, "write %s: %s", e->path,
				                    strerror(EINVAL));
			}
			memcpy(d->indir, t, n * sizeof(uint32_t));
		} else if (part == ETHTOOL_RSS_KEY) {
			if (nkey != d->nkey) {
				free(d), free(text);
				return nm_error_set(err, NM_ERR_FAILED, "write %s: %s", e->path,
				                    strerror(EINVAL));
			}
			memcpy(d->key, key, nkey);
		} else if (part == ETHTOOL_RSS_HFUNC)
			d->hfunc = hfunc;
		else
			d->fields[flow] = fields;
	}
	out = fixture_format(e->dev, d, text);
	out[strcspn(out, "") - 1] = '\0'; /* profile_host_write adds the last newline */
	snprintf(rel, sizeof(rel), "ethtool/%s.rss", e->dev);
	r = profile_host_write(h, PROFILE_BASE_ROOT, NULL, rel, out);
	free(out);
	free(d);
	free(text);
	if (r < 0)
		return nm_error_set(err, NM_ERR_FAILED, "write %s: %s", e->path, strerror(errno));
	return 0;
}

/* ETHTOOL_SRSSH / ETHTOOL_SRXFH (PS_RSS under privilege separation). */
static int
rss_write(struct profile_host *h, const struct plan_entry *e, const char *val, struct nm_error *err)
{
	int flow, part = part_of(e->name, &flow), fd, r = -1;
	uint32_t *t = NULL, fields = 0;
	uint8_t key[ETHTOOL_RSS_KEY_MAX], hfunc = 0;
	size_t n = 0, nkey = 0;
	int32_t b = 0;
	const void *data = NULL;
	bool ok;

	switch (part) {
	case ETHTOOL_RSS_INDIR:
		t = xcalloc(ETHTOOL_RSS_TABLE_MAX, sizeof(uint32_t));
		ok = list_parse(val, t, ETHTOOL_RSS_TABLE_MAX, &n) == 0;
		data = t;
		break;
	case ETHTOOL_RSS_KEY:
		ok = key_parse(val, key, sizeof(key), &nkey) == 0;
		data = key;
		n = nkey;
		break;
	case ETHTOOL_RSS_HFUNC:
		ok = hfunc_parse(val, &hfunc) == 0;
		b = hfunc;
		break;
	case ETHTOOL_RSS_FIELDS:
		ok = fields_parse(val, &fields) == 0;
		b = (int32_t)flow_types[flow];
		data = &fields;
		n = 1;
		break;
	default:
		ok = false;
	}
	if (!ok) {
		free(t);
		return nm_error_set(err, NM_ERR_BAD_ARGS, "%s: \"%.64s\" is not a value", e->path,
		                    val);
	}
	if (!h->real)
		r = fixture_set(h, e, part, flow, t, n, key, nkey, hfunc, fields, err);
	else if (privsep_on()) {
		struct nm_error pe;
		if ((r = privsep_rss(e->dev, part, b, data, n, &pe)) < 0)
			nm_error_set(err, NM_ERR_FAILED, "write %s: %s", e->path, pe.message);
	} else if ((fd = profile_host_ethfd(h, err)) >= 0) {
		if (part == ETHTOOL_RSS_FIELDS)
			r = ethtool_set_rxfh_fields(fd, e->dev, flow_types[flow], fields);
		else
			r = ethtool_set_rss(fd, e->dev, t,
			                    (uint32_t)(part == ETHTOOL_RSS_INDIR ? n : 0), key,
			                    (uint32_t)nkey, hfunc);
		if (r < 0)
			nm_error_set(err, NM_ERR_FAILED, "write %s: %s", e->path,
			             errno == EOPNOTSUPP ? "not supported by the driver"
			                                 : strerror(errno));
	}
	free(t);
	return r;
}

/* An indirection table as people read it: "equal 4 (128 entries)" when it is one. */
static void
rss_display(const char *val, char *buf, size_t size)
{
	uint32_t *t = xcalloc(ETHTOOL_RSS_TABLE_MAX, sizeof(uint32_t)), eq;
	size_t n;

	if (strchr(val, ' ') != NULL && list_parse(val, t, ETHTOOL_RSS_TABLE_MAX, &n) == 0 &&
	    (eq = table_equal(t, n)) > 0)
		snprintf(buf, size, "equal %u (%zu entries)", eq, n);
	else
		snprintf(buf, size, "%s", val);
	free(t);
}

const struct knob_ops knob_rss = {
    .section = "rss",
    .key = rss_key,
    .check = rss_check,
    .present = rss_present,
    .release = rss_release,
    .setting = "rss",
    .setting_ini = rss_setting_ini,
    .plan = rss_plan,
    .plan_order = 5,
    .save = rss_save,
    .kind = PLAN_RSS,
    .kind_name = "rss",
    .index = KNOB_INDEX_NONE,
    .on_device = true,
    .priv = KNOB_PRIV_RSS,
    .file = rss_file,
    .path = rss_path,
    .read = rss_read,
    .write = rss_write,
    .same = knob_same_words,
    .display = rss_display,
    .value_on = knob_always_on,
    .write_hint = knob_hint_default,
    .readback_hint = " (the driver keeps another value: \"ethtool -x\")",
};
