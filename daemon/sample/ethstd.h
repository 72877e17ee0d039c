/* ethstd.h: the standard ethtool statistics groups of a device, ETHTOOL_MSG_STATS_GET of the
 * ethtool generic netlink family: IEEE 802.3 eth-phy, eth-mac and eth-ctrl counters, the
 * RMON counters with their packet size histograms (rx and tx buckets, each with its range)
 * and a PHY's own counters (phydev).
 * Unlike `ethtool -S` names these mean the same on every driver that gives them.
 *
 * One request per device (a doit on the device's name, not a dump of every device): a device
 * whose driver gives no group is then not asked again by its caller. The reply is parsed in
 * place into a kept array, so a steady-state request allocates nothing. */
#ifndef NM_ETHSTD_H
#define NM_ETHSTD_H

#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nldump.h"

struct nm_error;

/* The groups asked for: eth-phy, eth-mac, eth-ctrl, rmon (ETHTOOL_STATS_ETH_PHY..RMON, the
 * ones every kernel since 5.13 knows) and phydev (ETHTOOL_STATS_PHY, the PHY's own counters,
 * 6.14). A kernel that does not know phydev refuses a request naming it (EINVAL): the socket
 * then asks for the first ETHSTD_NGROUPS_OLD only. */
#define ETHSTD_NGROUPS     5
#define ETHSTD_NGROUPS_OLD 4

enum ethstd_kind {
	ETHSTD_STAT = 0, /* a counter of the group's string set */
	ETHSTD_HIST_RX,  /* an rx packet size bucket (rmon) */
	ETHSTD_HIST_TX,  /* a tx one */
};

/* One value of a reply. */
struct ethstd_stat {
	uint8_t group;  /* ETHTOOL_STATS_*: 0 eth-phy, 1 eth-mac, 2 eth-ctrl, 3 rmon, 4 phydev */
	uint8_t kind;   /* enum ethstd_kind */
	uint32_t index; /* ETHSTD_STAT: the counter's index in its group's string set */
	uint32_t low, high; /* a bucket's frame sizes in octets, both included; high 0: no bound */
	uint64_t value;
};

/* A parsed reply; v is kept (grown, never shrunk) across replies. */
struct ethstd_reply {
	struct ethstd_stat *v;
	size_t n, cap;
	uint32_t listed; /* a bit per group the reply has a nest for (asked and known) */
	uint32_t given;  /* a bit per group with at least one value: what the driver implements */
	int ifindex;     /* the reply header's, 0 when it has none */
	uint32_t ss_id[ETHSTD_NGROUPS]; /* each group's string set (GRP_SS_ID); 0: not given */
};

/* The names of the groups' counters as the kernel gives them: ETHTOOL_MSG_STRSET_GET of the
 * string sets a reply names (ss_id), asked once per device by the ethtool source; the
 * built-in table (the kernel's stats_*_names as of 6.18) is the fallback for a group the
 * kernel gave no set for. Under a fixture root: DIR/ethtool/DEV.strset, one
 * ETHTOOL_MSG_STRSET_GET_REPLY message. */
#define ETHSTD_MAX_NAMES 256 /* per group; a larger index is not named from the kernel */
struct ethstd_names {
	char *buf; /* every name, NUL-terminated, one after another */
	size_t len, cap;
	uint32_t *off[ETHSTD_NGROUPS]; /* [index]: the name's offset in buf + 1; 0: none */
	uint32_t count[ETHSTD_NGROUPS];
	uint32_t got; /* a bit per group whose string set the kernel gave */
};

/* The kept socket on the ethtool family. */
struct ethstd_sock {
	struct nldump nl;
	int family;       /* the family's id, resolved at open */
	unsigned ngroups; /* the groups asked for: ETHSTD_NGROUPS, or _OLD on an older kernel */
	bool open;
	uint64_t requests; /* requests sent, answered or not */
};

/* Open a generic netlink socket and resolve the "ethtool" family; 0, or -1 with err
 * (unsupported when the kernel has no such family). */
int ethstd_open(struct ethstd_sock *s, struct nm_error *err);
void ethstd_close(struct ethstd_sock *s);
/* Ask for the groups of device dev and parse the answer into r. 0, or -1 with err and errno
 * (ENODEV: the device went away; EOPNOTSUPP/EINVAL: the kernel has no STATS_GET). */
int ethstd_request(struct ethstd_sock *s, const char *dev, struct ethstd_reply *r,
                   struct nm_error *err);
/* Parse one ETHTOOL_MSG_STATS_GET_REPLY message (its generic netlink header after h) into
 * r, which is emptied first. Unknown attributes are skipped; a malformed nest ends the walk
 * of that nest. Returns 0, or -1 when h is not a generic netlink message. */
int ethstd_parse(const struct nlmsghdr *h, struct ethstd_reply *r);
void ethstd_reply_free(struct ethstd_reply *r);

/* Ask for the string sets ss_id names (those not 0) on device dev's behalf and parse them
 * into names (emptied first). 0, or -1 with err and errno. */
int ethstd_request_names(struct ethstd_sock *s, const char *dev,
                         const uint32_t ss_id[ETHSTD_NGROUPS], struct ethstd_names *names,
                         struct nm_error *err);
/* Parse one ETHTOOL_MSG_STRSET_GET_REPLY (its generic netlink header after h): each string
 * set whose id is ss_id[g] gives group g's names. Adds to names. 0, or -1 when h is not a
 * generic netlink message. */
int ethstd_parse_names(const struct nlmsghdr *h, const uint32_t ss_id[ETHSTD_NGROUPS],
                       struct ethstd_names *names);
/* Counter index of group as the kernel named it, or NULL. names may be NULL. */
const char *ethstd_names_get(const struct ethstd_names *names, unsigned group, uint32_t index);
void ethstd_names_free(struct ethstd_names *names);

/* The group's name ("eth-mac", the kernel's stats_std_names), or NULL for an unknown one. */
const char *ethstd_group_name(unsigned group);
/* The last part of s's series name and its field label into name: the counter's name in its
 * string set as the kernel gave it (kn, may be NULL), else as the built-in table has it
 * ("FramesTransmittedOK"; "stat7" for one neither knows), or for a bucket "rx.LOW-HIGH"
 * ("rx.65-127", "tx.1519-max" without an upper bound) with field "LOW-HIGH". Sets *dir to
 * SERIES_DIR_RX/TX/NONE (series.h: the table's; for a name only the kernel knows, Rx/Tx,
 * Received/Transmitted or Xmit in it) and *unit. */
void ethstd_stat_name(const struct ethstd_stat *s, const struct ethstd_names *kn, char *name,
                      size_t size, const char **field, size_t *fieldlen, uint8_t *dir,
                      const char **unit);

#endif
