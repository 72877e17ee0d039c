/* ethtool.h: one device's `ethtool -S` counters, read through the SIOCETHTOOL ioctl on the
 * host or parsed from `ethtool -S` text under a fixture root. The counters of a device live
 * in a struct ethtool_counters that the caller keeps between samples: names are read again
 * only when the driver's set changes, so a steady-state read allocates nothing. */
#ifndef NM_ETHTOOL_H
#define NM_ETHTOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nm_error;

#define ETHTOOL_NAME_LEN 32 /* ETH_GSTRING_LEN: a name may fill it without a NUL */

typedef char ethtool_name[ETHTOOL_NAME_LEN + 1]; /* always NUL-terminated here */

/* Kernel-written scratch followed by an inaccessible guard page (see ethtool.c). */
struct ethtool_gbuf {
	void *p;
	size_t len;
};

struct ethtool_counters {
	uint32_t n;          /* counters in the set */
	uint32_t cap;        /* room in names, nlen, values and changed */
	ethtool_name *names; /* names[i] as the driver gives them ("[0]: rx_ucast_packets") */
	uint8_t *nlen;       /* bytes of names[i] as read (its strlen but for a NUL in text) */
	uint64_t *values;    /* values[i] of the last read */
	/* The indexes of the counters whose value the last read changed, in order. Meaningful
	 * only when that read kept the generation: otherwise every counter is new to callers. */
	uint32_t *changed;
	uint32_t nchanged;
	unsigned generation; /* bumped whenever the names change: callers rebuild what they
	                        derive from names (series ids, queue maps) */
	bool loaded;         /* names read at least once */
	/* Text only: where counter i's value starts (just after its ": ") and where its line
	 * ends ('\n' or the text's end) in the text parsed last, text_len bytes; text_ok when
	 * they describe that text (ethtool_parse_text_since). */
	struct ethtool_text_at {
		uint32_t val, end;
	} * text_at;
	uint64_t *text_new; /* the changed values of a compare under way, by ec->changed */
	size_t text_len, text_skipped;
	bool text_ok;
	bool text_compared; /* the last parse took the compare alone (tests, status) */
	struct ethtool_gbuf strings, stats; /* ioctl buffers, kept */
};

void ethtool_counters_init(struct ethtool_counters *ec);
void ethtool_counters_free(struct ethtool_counters *ec);

/* The socket the ioctls go through (AF_INET datagram, close-on-exec); -1 with err. */
int ethtool_socket(struct nm_error *err);
/* The driver's name ("virtio_net") into buf; -1 with errno. */
int ethtool_driver(int fd, const char *ifname, char *buf, size_t size);
/* The ntuple filter feature (ETH_FLAG_NTUPLE of ETHTOOL_GFLAGS): 0 with *on, or -1 with
 * errno. */
int ethtool_get_ntuple(int fd, const char *ifname, bool *on);
/* Can the ntuple feature change (ETHTOOL_GFEATURES)? 0 with *fixed true when "ethtool -k"
 * shows it [fixed], or -1 with errno (EOPNOTSUPP: the driver does not say). */
int ethtool_ntuple_fixed(int fd, const char *ifname, bool *fixed);
/* Turn it on or off through ETHTOOL_SFLAGS, the other flags kept. 0, or -1 with errno
 * (EOPNOTSUPP: the driver cannot change it, "ethtool -k" shows it [fixed]). */
int ethtool_set_ntuple(int fd, const char *ifname, bool on);
/* A feature of ETH_SS_FEATURES, by its kernel name ("rx-gro", "rx-gro-hw",
 * "tx-tcp-segmentation": the names "ethtool -k" shows for features without an old alias). */
struct ethtool_feature {
	bool active;     /* what the device does now */
	bool requested;  /* what was last asked for */
	bool changeable; /* available and not [fixed] */
};
/* 0 with *f, or -1 with errno (ENOENT: the device has no such feature; EOPNOTSUPP: the
 * driver names none). */
int ethtool_get_feature(int fd, const char *ifname, const char *name, struct ethtool_feature *f);
/* Ask for the feature on or off (ETHTOOL_SFEATURES with that one bit valid). 0, or -1 with
 * errno. The kernel may not do what was asked (a dependency, [fixed]): read it back. */
int ethtool_set_feature(int fd, const char *ifname, const char *name, bool on);
/* Channel counts (ETHTOOL_GCHANNELS), current and maximum. */
struct ethtool_chan {
	uint32_t rx, tx, other, combined;
	uint32_t max_rx, max_tx, max_other, max_combined;
};
/* 0 with *ch, or -1 with errno (EOPNOTSUPP when the driver does not say). */
int ethtool_get_channels(int fd, const char *ifname, struct ethtool_chan *ch);
/* Which count ethtool_set_channel sets. */
enum ethtool_chan_which {
	ETHTOOL_CHAN_RX = 0,
	ETHTOOL_CHAN_TX = 1,
	ETHTOOL_CHAN_COMBINED = 2,
};
/* Set one count (ETHTOOL_SCHANNELS), the others kept as ETHTOOL_GCHANNELS gives them. 0, or
 * -1 with errno (ERANGE: above the device's maximum; EOPNOTSUPP: the driver cannot). */
int ethtool_set_channel(int fd, const char *ifname, enum ethtool_chan_which which, uint32_t count);
/* Ring sizes (ETHTOOL_GRINGPARAM): current and maximum descriptors. */
struct ethtool_ring {
	uint32_t rx, tx, max_rx, max_tx;
};
/* 0 with *r, or -1 with errno (EOPNOTSUPP when the driver does not say). */
int ethtool_get_rings(int fd, const char *ifname, struct ethtool_ring *r);
/* Set the rx (tx false) or tx ring's size (ETHTOOL_SRINGPARAM, the other kept). 0, or -1
 * with errno (ERANGE: 0 or above the maximum). Many drivers reset the device to do it. */
int ethtool_set_ring(int fd, const char *ifname, bool tx, uint32_t size);
/* Interrupt coalescing parameters ("ethtool -C"). */
enum ethtool_coal_param {
	ETHTOOL_COAL_RX_USECS = 0,
	ETHTOOL_COAL_RX_FRAMES,
	ETHTOOL_COAL_TX_USECS,
	ETHTOOL_COAL_TX_FRAMES,
	ETHTOOL_COAL_ADAPTIVE_RX, /* 0 or 1 */
	ETHTOOL_COAL_ADAPTIVE_TX,
};
/* One parameter (ETHTOOL_GCOALESCE). 0 with *v, or -1 with errno. */
int ethtool_get_coalesce(int fd, const char *ifname, enum ethtool_coal_param p, uint32_t *v);
/* Set one (ETHTOOL_SCOALESCE, the others kept). 0, or -1 with errno (EOPNOTSUPP: the
 * driver does not take that parameter). */
int ethtool_set_coalesce(int fd, const char *ifname, enum ethtool_coal_param p, uint32_t v);
/* The interface's index (SIOCGIFINDEX) and whether it is a loopback (SIOCGIFFLAGS); -1 with
 * errno. */
int ethtool_ifindex(int fd, const char *ifname, int *ifindex, bool *loopback);
/* The name of interface ifindex into buf; -1 with errno (ENODEV: no such interface). */
int ethtool_ifname(int fd, int ifindex, char *buf, size_t size);
/* Read ifname's counters into ec: names when the set is new or changed, then the values, and
 * which of them changed (ec->changed). 0 ok (ec->n is 0 when the driver gives no statistics);
 * -1 with err (errno kept; ENODEV when the device went away). */
int ethtool_read(int fd, const char *ifname, struct ethtool_counters *ec, struct nm_error *err);
/* Parse `ethtool -S` text ("NIC statistics:" then "     name: value" lines; a name may
 * itself hold ": ", the value follows the last one) into ec, bumping its generation when the
 * names differ from the previous parse, and listing in ec->changed the values that differ.
 * Lines that are not "name: number" are skipped. Returns the number of lines skipped (0 for
 * clean input). A line that still names the counter it named last time costs a compare of
 * the name and the parse of its value. */
size_t ethtool_parse_text(const char *buf, size_t len, struct ethtool_counters *ec);
/* ethtool_parse_text given prev, the text of the parse before into ec (NULL: none), with the
 * same result. The two texts are compared (32 bytes a step where equal): a line that did not
 * change is not looked at, one whose value changed has that value parsed; a difference
 * anywhere else (a name, a header, a line added or gone) is parsed in full from that line
 * on. A fixture's 1,300-line device whose lines mostly stay the same costs the compare. */
size_t ethtool_parse_text_since(const char *buf, size_t len, const char *prev, size_t prevlen,
                                struct ethtool_counters *ec);

/* ETHTOOL_GDRVINFO: the driver, its version, the firmware and the bus address, each
 * NUL-terminated. */
struct ethtool_info {
	char driver[33], version[33], firmware[33], bus[33];
};
/* 0 with *info, or -1 with errno. */
int ethtool_get_info(int fd, const char *ifname, struct ethtool_info *info);
/* The state of the features named in names[0..n) (ETH_SS_FEATURES names, "rx-gro"):
 * state[i] is 1 active, 0 off, -1 the device has no such feature. 0, or -1 with errno. */
int ethtool_get_features(int fd, const char *ifname, const char *const *names, size_t n,
                         int *state);
/* The RSS indirection table and hash key (ETHTOOL_GRSSH, the default context): up to
 * indir_cap entries into indir and key_cap bytes into key; *nindir, *nkey the sizes the
 * device has (larger than the caps: -1, EMSGSIZE), *hfunc its hash function bits (1
 * toeplitz, 2 xor, 4 crc32; 0 unknown). 0, or -1 with errno (EOPNOTSUPP: no RSS). */
int ethtool_get_rss(int fd, const char *ifname, uint32_t *indir, uint32_t indir_cap,
                    uint32_t *nindir, uint8_t *key, uint32_t key_cap, uint32_t *nkey,
                    uint8_t *hfunc);
/* The most entries of an indirection table and bytes of a hash key netmetrics handles
 * (drivers have 128 to 2048 entries, 40 or 52 bytes). */
#define ETHTOOL_RSS_TABLE_MAX 4096u
#define ETHTOOL_RSS_KEY_MAX   256u
/* The parts of RSS a profile sets, one write each. */
enum ethtool_rss_part {
	ETHTOOL_RSS_INDIR = 0, /* the indirection table */
	ETHTOOL_RSS_KEY,       /* the hash key */
	ETHTOOL_RSS_HFUNC,     /* the hash function */
	ETHTOOL_RSS_FIELDS,    /* the hash fields of one flow type (rx-flow-hash) */
};
/* The rx rings RSS spreads over (ETHTOOL_GRXRINGS). 0 with *n, or -1 with errno. */
int ethtool_get_rxrings(int fd, const char *ifname, uint32_t *n);
/* Set the default RSS context's indirection table (nindir entries; 0: keep it), hash key
 * (nkey bytes; 0: keep it) or hash function (1 toeplitz, 2 xor, 4 crc32; 0: keep it) with
 * ETHTOOL_SRSSH. 0, or -1 with errno (EOPNOTSUPP: the driver cannot; EINVAL: a size that
 * is not the device's, a queue it does not have). */
int ethtool_set_rss(int fd, const char *ifname, const uint32_t *indir, uint32_t nindir,
                    const uint8_t *key, uint32_t nkey, uint8_t hfunc);
/* The fields a flow type's hash covers (ETHTOOL_GRXFH; flow_type TCP_V4_FLOW...; fields
 * RXH_* bits), and set them (ETHTOOL_SRXFH). 0, or -1 with errno. */
int ethtool_get_rxfh_fields(int fd, const char *ifname, uint32_t flow_type, uint64_t *fields);
int ethtool_set_rxfh_fields(int fd, const char *ifname, uint32_t flow_type, uint64_t fields);

#endif
