/* ethstd.c: ETHTOOL_MSG_STATS_GET, one device per request, parsed in place (ethstd.h).
 *
 * The reply (the kernel's net/ethtool/stats.c): ETHTOOL_A_STATS_HEADER, then for each group
 * asked for and known to the kernel one ETHTOOL_A_STATS_GRP nest holding GRP_ID and
 * GRP_SS_ID (u32), one GRP_STAT nest per counter the driver set (inside it a single u64
 * whose attribute type is the counter's index in the group's string set, from 0), and for
 * rmon one GRP_HIST_RX / GRP_HIST_TX nest per bucket (BKT_LOW, BKT_HI u32, VAL u64). A
 * group the driver does not implement is an empty nest (ID and SS_ID only). */
#include <ctype.h>
#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/msg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "error.h"
#include "ethstd.h"
#include "series.h"
#include "xmalloc.h"

/* The groups' names: the kernel's stats_std_names (net/ethtool/common.c). */
static const char *const group_names[ETHSTD_NGROUPS] = {"eth-phy", "eth-mac", "eth-ctrl", "rmon",
                                                        "phydev"};

/* A counter of a string set: its name (the kernel's stats_*_names) and direction. */
struct std_name {
	const char *name;
	uint8_t dir;
};
#define RX SERIES_DIR_RX
#define TX SERIES_DIR_TX
#define NO SERIES_DIR_NONE

static const struct std_name phy_names[] = {
    [ETHTOOL_A_STATS_ETH_PHY_5_SYM_ERR] = {"SymbolErrorDuringCarrier", RX},
};
static const struct std_name mac_names[] = {
    [ETHTOOL_A_STATS_ETH_MAC_2_TX_PKT] = {"FramesTransmittedOK", TX},
    [ETHTOOL_A_STATS_ETH_MAC_3_SINGLE_COL] = {"SingleCollisionFrames", TX},
    [ETHTOOL_A_STATS_ETH_MAC_4_MULTI_COL] = {"MultipleCollisionFrames", TX},
    [ETHTOOL_A_STATS_ETH_MAC_5_RX_PKT] = {"FramesReceivedOK", RX},
    [ETHTOOL_A_STATS_ETH_MAC_6_FCS_ERR] = {"FrameCheckSequenceErrors", RX},
    [ETHTOOL_A_STATS_ETH_MAC_7_ALIGN_ERR] = {"AlignmentErrors", RX},
    [ETHTOOL_A_STATS_ETH_MAC_8_TX_BYTES] = {"OctetsTransmittedOK", TX},
    [ETHTOOL_A_STATS_ETH_MAC_9_TX_DEFER] = {"FramesWithDeferredXmissions", TX},
    [ETHTOOL_A_STATS_ETH_MAC_10_LATE_COL] = {"LateCollisions", TX},
    [ETHTOOL_A_STATS_ETH_MAC_11_XS_COL] = {"FramesAbortedDueToXSColls", TX},
    [ETHTOOL_A_STATS_ETH_MAC_12_TX_INT_ERR] = {"FramesLostDueToIntMACXmitError", TX},
    [ETHTOOL_A_STATS_ETH_MAC_13_CS_ERR] = {"CarrierSenseErrors", TX},
    [ETHTOOL_A_STATS_ETH_MAC_14_RX_BYTES] = {"OctetsReceivedOK", RX},
    [ETHTOOL_A_STATS_ETH_MAC_15_RX_INT_ERR] = {"FramesLostDueToIntMACRcvError", RX},
    [ETHTOOL_A_STATS_ETH_MAC_18_TX_MCAST] = {"MulticastFramesXmittedOK", TX},
    [ETHTOOL_A_STATS_ETH_MAC_19_TX_BCAST] = {"BroadcastFramesXmittedOK", TX},
    [ETHTOOL_A_STATS_ETH_MAC_20_XS_DEFER] = {"FramesWithExcessiveDeferral", TX},
    [ETHTOOL_A_STATS_ETH_MAC_21_RX_MCAST] = {"MulticastFramesReceivedOK", RX},
    [ETHTOOL_A_STATS_ETH_MAC_22_RX_BCAST] = {"BroadcastFramesReceivedOK", RX},
    [ETHTOOL_A_STATS_ETH_MAC_23_IR_LEN_ERR] = {"InRangeLengthErrors", RX},
    [ETHTOOL_A_STATS_ETH_MAC_24_OOR_LEN] = {"OutOfRangeLengthField", RX},
    [ETHTOOL_A_STATS_ETH_MAC_25_TOO_LONG_ERR] = {"FrameTooLongErrors", RX},
};
static const struct std_name ctrl_names[] = {
    [ETHTOOL_A_STATS_ETH_CTRL_3_TX] = {"MACControlFramesTransmitted", TX},
    [ETHTOOL_A_STATS_ETH_CTRL_4_RX] = {"MACControlFramesReceived", RX},
    [ETHTOOL_A_STATS_ETH_CTRL_5_RX_UNSUP] = {"UnsupportedOpcodesReceived", RX},
};
static const struct std_name rmon_names[] = {
    [ETHTOOL_A_STATS_RMON_UNDERSIZE] = {"etherStatsUndersizePkts", RX},
    [ETHTOOL_A_STATS_RMON_OVERSIZE] = {"etherStatsOversizePkts", RX},
    [ETHTOOL_A_STATS_RMON_FRAG] = {"etherStatsFragments", RX},
    [ETHTOOL_A_STATS_RMON_JABBER] = {"etherStatsJabbers", RX},
};

/* ETHTOOL_A_STATS_PHY_* (6.14), not in older uapi headers: by number. */
static const struct std_name phydev_names[] = {
    {"RxFrames", RX}, {"RxOctets", RX}, {"RxErrors", RX},
    {"TxFrames", TX}, {"TxOctets", TX}, {"TxErrors", TX},
};

static const struct {
	const struct std_name *v;
	size_t n;
} string_sets[ETHSTD_NGROUPS] = {
    {phy_names, sizeof(phy_names) / sizeof(phy_names[0])},
    {mac_names, sizeof(mac_names) / sizeof(mac_names[0])},
    {ctrl_names, sizeof(ctrl_names) / sizeof(ctrl_names[0])},
    {rmon_names, sizeof(rmon_names) / sizeof(rmon_names[0])},
    {phydev_names, sizeof(phydev_names) / sizeof(phydev_names[0])},
};

const char *
ethstd_group_name(unsigned group)
{
	return group < ETHSTD_NGROUPS ? group_names[group] : NULL;
}

/* The direction a name only the kernel knows says: rx, tx or none. */
static uint8_t
dir_of_name(const char *name)
{
	if (strncmp(name, "Rx", 2) == 0 || strstr(name, "Received") != NULL ||
	    strstr(name, "Rcv") != NULL)
		return SERIES_DIR_RX;
	if (strncmp(name, "Tx", 2) == 0 || strstr(name, "Transmitted") != NULL ||
	    strstr(name, "Xmit") != NULL)
		return SERIES_DIR_TX;
	return SERIES_DIR_NONE;
}

void
ethstd_stat_name(const struct ethstd_stat *s, const struct ethstd_names *kn, char *name,
                 size_t size, const char **field, size_t *fieldlen, uint8_t *dir, const char **unit)
{
	const struct std_name *sn = NULL;
	const char *kname;
	int n;

	if (s->kind != ETHSTD_STAT) {
		*dir = s->kind == ETHSTD_HIST_RX ? SERIES_DIR_RX : SERIES_DIR_TX;
		if (s->high != 0)
			n = snprintf(name, size, "%s.%u-%u",
			             s->kind == ETHSTD_HIST_RX ? "rx" : "tx", s->low, s->high);
		else
			n = snprintf(name, size, "%s.%u-max",
			             s->kind == ETHSTD_HIST_RX ? "rx" : "tx", s->low);
		*field = name + 3;
		*fieldlen = n > 3 ? strnlen(name + 3, size - 3) : 0;
		*unit = "packets";
		return;
	}
	if (s->group < ETHSTD_NGROUPS && s->index < string_sets[s->group].n &&
	    string_sets[s->group].v[s->index].name != NULL)
		sn = &string_sets[s->group].v[s->index];
	kname = ethstd_names_get(kn, s->group, s->index);
	if (kname != NULL) {
		snprintf(name, size, "%s", kname);
		*dir = sn != NULL ? sn->dir : dir_of_name(kname);
	} else if (sn != NULL) {
		snprintf(name, size, "%s", sn->name);
		*dir = sn->dir;
	} else {
		snprintf(name, size, "stat%u", s->index);
		*dir = SERIES_DIR_NONE;
	}
	*field = name;
	*fieldlen = strnlen(name, size);
	*unit = strstr(name, "Octets") != NULL ? "bytes" : "packets";
}

/* The u32 or u64 value of a; false when it is neither. */
static bool
attr_u(const struct nlattr *a, uint64_t *v)
{
	uint32_t v32;

	if (nla_len(a) == 4) {
		memcpy(&v32, nla_data(a), 4);
		*v = v32;
		return true;
	}
	if (nla_len(a) == 8) {
		memcpy(v, nla_data(a), 8);
		return true;
	}
	return false;
}

/* Room for one more value in r. */
static struct ethstd_stat *
add_stat(struct ethstd_reply *r)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 32;
		r->v = xreallocarray(r->v, r->cap, sizeof(*r->v));
	}
	memset(&r->v[r->n], 0, sizeof(r->v[0]));
	return &r->v[r->n++];
}

/* One GRP_HIST_RX/TX nest: a bucket. */
static void
parse_bucket(const struct nlattr *nest, uint8_t group, uint8_t kind, struct ethstd_reply *r)
{
	const struct nlattr *a;
	uint64_t low = 0, high = 0, val = 0;
	bool have_val = false;
	int rem;

	nla_for_each_nested(a, nest, rem)
	{
		if (nla_type(a) == ETHTOOL_A_STATS_GRP_HIST_BKT_LOW)
			attr_u(a, &low);
		else if (nla_type(a) == ETHTOOL_A_STATS_GRP_HIST_BKT_HI)
			attr_u(a, &high);
		else if (nla_type(a) == ETHTOOL_A_STATS_GRP_HIST_VAL)
			have_val = attr_u(a, &val);
	}
	if (!have_val || low > UINT32_MAX || high > UINT32_MAX)
		return;
	struct ethstd_stat *s = add_stat(r);
	s->group = group;
	s->kind = kind;
	s->low = (uint32_t)low;
	s->high = (uint32_t)high;
	s->value = val;
}

/* One ETHTOOL_A_STATS_GRP nest. */
static void
parse_group(const struct nlattr *nest, struct ethstd_reply *r)
{
	const struct nlattr *a, *b;
	uint64_t id = UINT64_MAX, v;
	size_t first = r->n;
	int rem, rem2;

	/* The id comes first in the kernel's replies, but do not count on it. */
	uint64_t ss = 0;

	nla_for_each_nested(a, nest, rem)
	{
		if (nla_type(a) == ETHTOOL_A_STATS_GRP_ID)
			attr_u(a, &id);
		else if (nla_type(a) == ETHTOOL_A_STATS_GRP_SS_ID)
			attr_u(a, &ss);
	}
	if (id >= 32)
		return;
	r->listed |= 1u << id;
	if (id < ETHSTD_NGROUPS && ss <= UINT32_MAX)
		r->ss_id[id] = (uint32_t)ss;
	nla_for_each_nested(a, nest, rem)
	{
		switch (nla_type(a)) {
		case ETHTOOL_A_STATS_GRP_STAT:
			nla_for_each_nested(b, a, rem2)
			{
				if (!attr_u(b, &v))
					continue;
				struct ethstd_stat *s = add_stat(r);
				s->group = (uint8_t)id;
				s->kind = ETHSTD_STAT;
				s->index = (uint32_t)nla_type(b);
				s->value = v;
			}
			break;
		case ETHTOOL_A_STATS_GRP_HIST_RX:
			parse_bucket(a, (uint8_t)id, ETHSTD_HIST_RX, r);
			break;
		case ETHTOOL_A_STATS_GRP_HIST_TX:
			parse_bucket(a, (uint8_t)id, ETHSTD_HIST_TX, r);
			break;
		default:
			break;
		}
	}
	if (r->n > first)
		r->given |= 1u << id;
}

int
ethstd_parse(const struct nlmsghdr *h, struct ethstd_reply *r)
{
	const struct nlattr *a, *b;
	uint64_t v;
	int rem, rem2;

	r->n = 0;
	r->listed = r->given = 0;
	r->ifindex = 0;
	memset(r->ss_id, 0, sizeof(r->ss_id));
	if (h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return -1;
	nla_for_each_attr(a, nlmsg_attrdata(h, GENL_HDRLEN), nlmsg_attrlen(h, GENL_HDRLEN), rem)
	{
		if (nla_type(a) == ETHTOOL_A_STATS_HEADER) {
			nla_for_each_nested(b, a, rem2)
			{
				if (nla_type(b) == ETHTOOL_A_HEADER_DEV_INDEX && attr_u(b, &v) &&
				    v <= INT32_MAX)
					r->ifindex = (int)v;
			}
		} else if (nla_type(a) == ETHTOOL_A_STATS_GRP) {
			parse_group(a, r);
		}
	}
	return 0;
}

void
ethstd_reply_free(struct ethstd_reply *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

int
ethstd_open(struct ethstd_sock *s, struct nm_error *err)
{
	struct nm_error e;
	int family;

	memset(s, 0, sizeof(*s));
	if (nldump_open(&s->nl, NETLINK_GENERIC, &e) < 0)
		return nm_error_set(err, e.code, "ethtool netlink: %s", e.message);
	family = genl_ctrl_resolve(s->nl.sk, "ethtool");
	if (family < 0) {
		nldump_close(&s->nl);
		return nm_error_set(err, NM_ERR_UNSUPPORTED, "no ethtool netlink family here");
	}
	s->family = family;
	s->ngroups = ETHSTD_NGROUPS;
	s->open = true;
	return 0;
}

void
ethstd_close(struct ethstd_sock *s)
{
	if (s->open)
		nldump_close(&s->nl);
	s->open = false;
}

/* Append attribute type with len bytes of data at *p (room checked by the caller). */
static char *
put_attr(char *p, uint16_t type, const void *data, size_t len)
{
	struct nlattr a = {.nla_len = (uint16_t)(NLA_HDRLEN + len), .nla_type = type};

	memcpy(p, &a, sizeof(a));
	if (len > 0)
		memcpy(p + NLA_HDRLEN, data, len);
	memset(p + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	return p + NLA_HDRLEN + NLA_ALIGN(len);
}

/* Close the nest opened at start, now that p is its end. */
static void
end_nest(char *start, char *p)
{
	struct nlattr a;

	memcpy(&a, start, sizeof(a));
	a.nla_len = (uint16_t)(p - start);
	memcpy(start, &a, sizeof(a));
}

/* Build the request for dev into buf: the header nest with the device's name, the groups as
 * a compact bit set without a mask (bits 0..s->ngroups-1). Returns its length. */
static size_t
build_request(struct ethstd_sock *s, const char *dev, char *buf, size_t size)
{
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct genlmsghdr g = {.cmd = ETHTOOL_MSG_STATS_GET, .version = 1};
	uint32_t nbits = s->ngroups, bits = (1u << s->ngroups) - 1;
	char *p = buf + NLMSG_HDRLEN, *nest;

	(void)size; /* 128 bytes hold it: 16 + 4 + 4+4+16 + 4+4+8+8 */
	memset(buf, 0, NLMSG_HDRLEN);
	memcpy(p, &g, sizeof(g));
	p += GENL_HDRLEN;
	nest = p;
	p = put_attr(p, NLA_F_NESTED | ETHTOOL_A_STATS_HEADER, NULL, 0);
	p = put_attr(p, ETHTOOL_A_HEADER_DEV_NAME, dev, strlen(dev) + 1);
	end_nest(nest, p);
	nest = p;
	p = put_attr(p, NLA_F_NESTED | ETHTOOL_A_STATS_GROUPS, NULL, 0);
	p = put_attr(p, ETHTOOL_A_BITSET_NOMASK, NULL, 0);
	p = put_attr(p, ETHTOOL_A_BITSET_SIZE, &nbits, sizeof(nbits));
	p = put_attr(p, ETHTOOL_A_BITSET_VALUE, &bits, sizeof(bits));
	end_nest(nest, p);
	h->nlmsg_len = (uint32_t)(p - buf);
	h->nlmsg_type = (uint16_t)s->family;
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	h->nlmsg_seq = ++s->nl.seq;
	h->nlmsg_pid = 0;
	return h->nlmsg_len;
}

/* Walk one datagram of our request: parse the reply, stop at the acknowledgement. 1 done,
 * 0 read on, -1 with errno on an error answer. */
static int
walk_reply(struct ethstd_sock *s, int len, struct ethstd_reply *r)
{
	const struct nlmsghdr *h = (const struct nlmsghdr *)s->nl.buf;
	int rem = len;

	for (; nlmsg_ok(h, rem); h = nlmsg_next((struct nlmsghdr *)h, &rem)) {
		if (h->nlmsg_seq != s->nl.seq || h->nlmsg_pid != s->nl.port)
			continue; /* an older request's */
		if (h->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = nlmsg_data(h);
			if (h->nlmsg_len < NLMSG_HDRLEN + sizeof(*e)) {
				errno = EPROTO;
				return -1;
			}
			if (e->error == 0)
				return 1;
			errno = -e->error;
			return -1;
		}
		if (h->nlmsg_type == s->family)
			(void)ethstd_parse(h, r);
	}
	return 0;
}

/* One request for dev with the groups of s; 0, or -1 with errno. */
static int
request_once(struct ethstd_sock *s, const char *dev, struct ethstd_reply *r)
{
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	char req[128];
	size_t len;
	ssize_t n;
	int rc;

	r->n = 0;
	r->listed = r->given = 0;
	len = build_request(s, dev, req, sizeof(req));
	s->requests++;
	do {
		n = sendto(s->nl.fd, req, len, 0, (struct sockaddr *)&kernel, sizeof(kernel));
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	for (;;) {
		n = recv(s->nl.fd, s->nl.buf, s->nl.cap, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		rc = walk_reply(s, (int)n, r);
		if (rc > 0)
			return 0;
		if (rc < 0)
			return -1;
	}
}

int
ethstd_request(struct ethstd_sock *s, const char *dev, struct ethstd_reply *r, struct nm_error *err)
{
	int rc;

	if (strlen(dev) >= 16) {
		errno = EINVAL;
		return nm_error_set(err, NM_ERR_BAD_ARGS, "%s: name too long", dev);
	}
	if (request_once(s, dev, r) == 0)
		return 0;
	/* A kernel before 6.14 refuses the phydev bit: ask for the others from now on. */
	if (errno == EINVAL && s->ngroups > ETHSTD_NGROUPS_OLD) {
		s->ngroups = ETHSTD_NGROUPS_OLD;
		if (request_once(s, dev, r) == 0)
			return 0;
		s->ngroups = ETHSTD_NGROUPS; /* refused for another reason */
	}
	rc = errno;
	nm_error_set(err, rc == EOPNOTSUPP || rc == EINVAL ? NM_ERR_UNSUPPORTED : NM_ERR_FAILED,
	             "%s: stats-get: %s", dev, strerror(rc));
	errno = rc;
	return -1;
}

/* ---- the groups' names: ETHTOOL_MSG_STRSET_GET ---- */

const char *
ethstd_names_get(const struct ethstd_names *names, unsigned group, uint32_t index)
{
	if (names == NULL || group >= ETHSTD_NGROUPS || index >= names->count[group] ||
	    names->off[group] == NULL || names->off[group][index] == 0)
		return NULL;
	return names->buf + names->off[group][index] - 1;
}

void
ethstd_names_free(struct ethstd_names *names)
{
	free(names->buf);
	for (unsigned g = 0; g < ETHSTD_NGROUPS; g++)
		free(names->off[g]);
	memset(names, 0, sizeof(*names));
}

/* Empty names, keeping its buffer. */
static void
names_clear(struct ethstd_names *names)
{
	names->len = 0;
	names->got = 0;
	for (unsigned g = 0; g < ETHSTD_NGROUPS; g++) {
		free(names->off[g]);
		names->off[g] = NULL;
		names->count[g] = 0;
	}
}

/* Keep name v (of at most len bytes, NUL-terminated or not) as index of group g. */
static void
names_put(struct ethstd_names *names, unsigned g, uint32_t index, const char *v, size_t len)
{
	size_t n = strnlen(v, len);

	if (index >= ETHSTD_MAX_NAMES || n == 0 || n > 63)
		return;
	/* It becomes the last part of a series name: letters, digits, '_' and '-' only. */
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)v[i]) && v[i] != '_' && v[i] != '-')
			return;
	if (index >= names->count[g]) {
		names->off[g] = xreallocarray(names->off[g], index + 1, sizeof(uint32_t));
		memset(names->off[g] + names->count[g], 0,
		       (index + 1 - names->count[g]) * sizeof(uint32_t));
		names->count[g] = index + 1;
	}
	if (names->len + n + 1 > names->cap) {
		names->cap = (names->len + n + 1) * 2;
		names->buf = xreallocarray(names->buf, names->cap, 1);
	}
	memcpy(names->buf + names->len, v, n);
	names->buf[names->len + n] = '\0';
	names->off[g][index] = (uint32_t)names->len + 1;
	names->len += n + 1;
}

/* One ETHTOOL_A_STRINGSETS_STRINGSET nest: its id's group's names. */
static void
parse_stringset(const struct nlattr *nest, const uint32_t ss_id[ETHSTD_NGROUPS],
                struct ethstd_names *names)
{
	const struct nlattr *a, *b, *c;
	uint64_t id = UINT64_MAX, index = 0;
	unsigned g = ETHSTD_NGROUPS;
	int rem, rem2, rem3;

	nla_for_each_nested(a, nest, rem)
	{
		if (nla_type(a) == ETHTOOL_A_STRINGSET_ID)
			attr_u(a, &id);
	}
	for (unsigned k = 0; k < ETHSTD_NGROUPS && g == ETHSTD_NGROUPS; k++)
		if (ss_id[k] != 0 && ss_id[k] == id)
			g = k;
	if (g == ETHSTD_NGROUPS)
		return;
	names->got |= 1u << g;
	nla_for_each_nested(a, nest, rem)
	{
		if (nla_type(a) != ETHTOOL_A_STRINGSET_STRINGS)
			continue;
		nla_for_each_nested(b, a, rem2)
		{
			const struct nlattr *value = NULL;
			bool have_index = false;
			if (nla_type(b) != ETHTOOL_A_STRINGS_STRING)
				continue;
			nla_for_each_nested(c, b, rem3)
			{
				if (nla_type(c) == ETHTOOL_A_STRING_INDEX)
					have_index = attr_u(c, &index);
				else if (nla_type(c) == ETHTOOL_A_STRING_VALUE)
					value = c;
			}
			if (have_index && value != NULL && index < ETHSTD_MAX_NAMES)
				names_put(names, g, (uint32_t)index, nla_data(value),
				          (size_t)nla_len(value));
		}
	}
}

int
ethstd_parse_names(const struct nlmsghdr *h, const uint32_t ss_id[ETHSTD_NGROUPS],
                   struct ethstd_names *names)
{
	const struct nlattr *a, *b;
	int rem, rem2;

	if (h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return -1;
	nla_for_each_attr(a, nlmsg_attrdata(h, GENL_HDRLEN), nlmsg_attrlen(h, GENL_HDRLEN), rem)
	{
		if (nla_type(a) != ETHTOOL_A_STRSET_STRINGSETS)
			continue;
		nla_for_each_nested(b, a, rem2)
		{
			if (nla_type(b) == ETHTOOL_A_STRINGSETS_STRINGSET)
				parse_stringset(b, ss_id, names);
		}
	}
	return 0;
}

/* Build the STRSET_GET request for dev and the string sets of ss_id into buf (room checked
 * by the caller: 16 + 4 + 4+4+16 + 4 + 5 * 12 bytes). Returns its length. */
static size_t
build_names_request(struct ethstd_sock *s, const char *dev, const uint32_t ss_id[ETHSTD_NGROUPS],
                    char *buf)
{
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct genlmsghdr g = {.cmd = ETHTOOL_MSG_STRSET_GET, .version = 1};
	char *p = buf + NLMSG_HDRLEN, *nest, *set;

	memset(buf, 0, NLMSG_HDRLEN);
	memcpy(p, &g, sizeof(g));
	p += GENL_HDRLEN;
	nest = p;
	p = put_attr(p, NLA_F_NESTED | ETHTOOL_A_STRSET_HEADER, NULL, 0);
	p = put_attr(p, ETHTOOL_A_HEADER_DEV_NAME, dev, strlen(dev) + 1);
	end_nest(nest, p);
	nest = p;
	p = put_attr(p, NLA_F_NESTED | ETHTOOL_A_STRSET_STRINGSETS, NULL, 0);
	for (unsigned k = 0; k < ETHSTD_NGROUPS; k++) {
		if (ss_id[k] == 0)
			continue;
		set = p;
		p = put_attr(p, NLA_F_NESTED | ETHTOOL_A_STRINGSETS_STRINGSET, NULL, 0);
		p = put_attr(p, ETHTOOL_A_STRINGSET_ID, &ss_id[k], sizeof(ss_id[k]));
		end_nest(set, p);
	}
	end_nest(nest, p);
	h->nlmsg_len = (uint32_t)(p - buf);
	h->nlmsg_type = (uint16_t)s->family;
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	h->nlmsg_seq = ++s->nl.seq;
	h->nlmsg_pid = 0;
	return h->nlmsg_len;
}

int
ethstd_request_names(struct ethstd_sock *s, const char *dev, const uint32_t ss_id[ETHSTD_NGROUPS],
                     struct ethstd_names *names, struct nm_error *err)
{
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	char req[160];
	size_t len;
	ssize_t n;
	int rc = 0;

	names_clear(names);
	if (strlen(dev) >= 16) {
		errno = EINVAL;
		return nm_error_set(err, NM_ERR_BAD_ARGS, "%s: name too long", dev);
	}
	len = build_names_request(s, dev, ss_id, req);
	s->requests++;
	do {
		n = sendto(s->nl.fd, req, len, 0, (struct sockaddr *)&kernel, sizeof(kernel));
	} while (n < 0 && errno == EINTR);
	while (n >= 0 && rc == 0) {
		const struct nlmsghdr *h;
		int rem;
		n = recv(s->nl.fd, s->nl.buf, s->nl.cap, 0);
		if (n < 0 && errno == EINTR) {
			n = 0;
			continue;
		}
		if (n < 0)
			break;
		rem = (int)n;
		for (h = (const struct nlmsghdr *)s->nl.buf; rc == 0 && nlmsg_ok(h, rem);
		     h = nlmsg_next((struct nlmsghdr *)h, &rem)) {
			if (h->nlmsg_seq != s->nl.seq || h->nlmsg_pid != s->nl.port)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = nlmsg_data(h);
				rc = h->nlmsg_len < NLMSG_HDRLEN + sizeof(*e) ? -EPROTO
				     : e->error == 0                          ? 1
				                                              : e->error;
			} else if (h->nlmsg_type == s->family)
				(void)ethstd_parse_names(h, ss_id, names);
		}
	}
	if (rc == 1)
		return 0;
	if (n >= 0)
		errno = -rc;
	rc = errno;
	names_clear(names);
	nm_error_set(err, NM_ERR_FAILED, "%s: strset-get: %s", dev, strerror(rc));
	errno = rc;
	return -1;
}
