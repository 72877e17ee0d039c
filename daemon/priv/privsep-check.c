/* privsep-check.c: the privileged process's allow-list, on the request's text alone. */
#include <arpa/inet.h>
#include <ctype.h>
#include <linux/ethtool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "driver-pktgen.h"
#include "ethtool.h"
#include "knob.h"
#include "privsep-check.h"
#include "profile.h"

int
privsep_check_dev(const char *dev, char *why, size_t size)
{
	size_t n = strlen(dev);

	if (n == 0 || n >= PROFILE_DEV_MAX || strcmp(dev, ".") == 0 || strcmp(dev, "..") == 0)
		goto bad;
	for (const char *s = dev; *s; s++)
		if (*s == '/' || *s == ':' || isspace((unsigned char)*s) ||
		    (unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			goto bad;
	return 0;
bad:
	snprintf(why, size, "not a network device name");
	return -1;
}

/* A write the knob of rel allows (knob_ops.allow: the allow-list of each knob sits in its
 * file, next to what it writes); refused with the base's reason when no knob has rel. */
int
privsep_check_write(int base, const char *dev, const char *rel, const char *val, char *why,
                    size_t size)
{
	if (base == PROFILE_BASE_NETDEV && (dev == NULL || privsep_check_dev(dev, why, size) < 0))
		return -1;
	for (size_t i = 0; i < knobs_n; i++) {
		const struct knob_ops *k = knobs[i];
		int r;
		if (k->priv != KNOB_PRIV_WRITE || (int)k->base != base)
			continue;
		if ((r = k->allow(rel, val, why, size)) != 0)
			return r < 0 ? -1 : 0;
	}
	switch (base) {
	case PROFILE_BASE_NETDEV:
		snprintf(why, size, "%s: not an allowed queue file", rel);
		break;
	case PROFILE_BASE_IRQ:
		snprintf(why, size, "%s: not an allowed IRQ file", rel);
		break;
	case PROFILE_BASE_SYSCTL:
		snprintf(why, size, "sysctl %.128s: not a net.* sysctl name", rel);
		break;
	default:
		snprintf(why, size, "not a tuning file");
		break;
	}
	return -1;
}

int
privsep_check_exec(const char *path, const struct stat *st, uid_t uid, char *why, size_t size)
{
	if (path[0] != '/') {
		snprintf(why, size, "%s: not an absolute path", path);
		return -1;
	}
	if (!S_ISREG(st->st_mode) || (st->st_mode & 0111) == 0) {
		snprintf(why, size, "%s: not an executable file", path);
		return -1;
	}
	if (st->st_uid != 0 && (uid == 0 || st->st_uid != uid)) {
		snprintf(why, size, "%s: owned by uid %u, not by root%s", path,
		         (unsigned)st->st_uid, uid == 0 ? "" : " or the user it runs as");
		return -1;
	}
	if (st->st_mode & 022) {
		snprintf(why, size, "%s: writable by its group or others", path);
		return -1;
	}
	return 0;
}

int
privsep_check_dir(const char *path, const struct stat *st, uid_t uid, char *why, size_t size)
{
	if (!S_ISDIR(st->st_mode) || (st->st_uid != 0 && (uid == 0 || st->st_uid != uid)) ||
	    ((st->st_mode & 022) && !(st->st_mode & S_ISVTX))) {
		snprintf(why, size,
		         "%s: a directory others than root%s may change (owner %u, mode %04o)",
		         path, uid == 0 ? "" : " or the user", (unsigned)st->st_uid,
		         (unsigned)(st->st_mode & 07777));
		return -1;
	}
	return 0;
}

/* Is g one of allowed? */
static bool
has_group(gid_t g, const gid_t *allowed, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (allowed[i] == g)
			return true;
	return false;
}

int
privsep_check_groups(uid_t uid, gid_t gid, const gid_t *groups, size_t n, const gid_t *allowed,
                     size_t nallowed, char *why, size_t size)
{
	if (uid == 0)
		return 0;
	if (n > PRIVSEP_GROUPS) {
		snprintf(why, size, "more than %d groups", PRIVSEP_GROUPS);
		return -1;
	}
	if (!has_group(gid, allowed, nallowed)) {
		snprintf(why, size, "gid %u is not a group of uid %u", (unsigned)gid,
		         (unsigned)uid);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (!has_group(groups[i], allowed, nallowed)) {
			snprintf(why, size, "group %u is not a group of uid %u",
			         (unsigned)groups[i], (unsigned)uid);
			return -1;
		}
	return 0;
}

/* ---- what an admin's privileged driver runs as root ---- */

/* A namespace name (ip netns): 1..63 bytes, no '/', blank or control byte, no leading
 * '-' (an option to ip), not "." or "..". */
static bool
ns_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 63 || s[0] == '-' || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return false;
	for (; *s; s++)
		if (*s == '/' || (unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

/* A device in an argv slot: a device name (privsep_check_dev), no leading '-' (an
 * option), and nothing trafgen's -o takes for a file (".pcap", ".cfg": it writes them). */
static bool
dev_ok(const char *s)
{
	char why[64];

	return privsep_check_dev(s, why, sizeof(why)) == 0 && s[0] != '-' &&
	       strstr(s, ".pcap") == NULL && strstr(s, ".cfg") == NULL;
}

/* A decimal of 1..20 digits without leading zeros (but "0"). */
static bool
num_ok(const char *s)
{
	size_t n = strspn(s, "0123456789");

	return n > 0 && n <= 20 && s[n] == '\0' && (n == 1 || s[0] != '0');
}

/* A dotted IPv4 address as inet_pton takes it (no leading zeros, four parts). */
static bool
ipv4_ok(const char *s)
{
	unsigned char a[4];

	return strlen(s) <= 15 && strspn(s, "0123456789.") == strlen(s) &&
	       inet_pton(AF_INET, s, a) == 1;
}

/* A MAC address as pktgen_format_mac writes it: aa:bb:cc:dd:ee:ff, lower case. */
static bool
mac_ok(const char *s)
{
	if (strlen(s) != 17)
		return false;
	for (int i = 0; i < 17; i++)
		if (i % 3 == 2 ? s[i] != ':' : strchr("0123456789abcdef", s[i]) == NULL || !s[i])
			return false;
	return true;
}

/* trafgen's configuration as the driver writes it: /DIR/netmetrics-pktgen.XXXXXX/
 * trafgen.cfg (mkdtemp), DIR absolute without "." or ".." parts, empty parts or blanks. */
static bool
cfg_ok(const char *s)
{
	static const char tail[] = "/" PKTGEN_CFG_FILE;
	size_t n = strlen(s), t = sizeof(tail) - 1, d = sizeof(PKTGEN_CFG_DIR) - 1;
	const char *dir;

	if (s[0] != '/' || n > 300 || n < t + d + 8 || strcmp(s + n - t, tail) != 0)
		return false;
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f)
			return false;
	/* The mkdtemp directory: its name, its six characters. */
	dir = s + n - t - 6 - d;
	if (dir[-1] != '/' || strncmp(dir, PKTGEN_CFG_DIR, d) != 0)
		return false;
	for (size_t i = 0; i < 6; i++)
		if (!isalnum((unsigned char)dir[d + i]))
			return false;
	/* Every part of the path, the file's too: not empty, not "." or "..". */
	for (const char *p = s + 1; *p;) {
		size_t k = strcspn(p, "/");
		if (k == 0 || (k == 1 && p[0] == '.') || (k == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += k + (p[k] == '/');
	}
	return true;
}

/* One word of argv against one word of a shape: a literal, or a slot. */
static bool
word_ok(const char *pat, const char *w)
{
	size_t n;

	if (strcmp(pat, "<dev>") == 0)
		return dev_ok(w);
	if (strcmp(pat, "<ns>") == 0)
		return ns_ok(w);
	if (strcmp(pat, "<num>") == 0)
		return num_ok(w);
	if (strcmp(pat, "<ipv4>") == 0)
		return ipv4_ok(w);
	if (strcmp(pat, "<cfg>") == 0)
		return cfg_ok(w);
	if (strcmp(pat, "<bits>") == 0) { /* tc's rate: a number of bits per second */
		n = strspn(w, "0123456789");
		return n > 0 && n <= 20 && strcmp(w + n, "bit") == 0 && (n == 1 || w[0] != '0');
	}
	return strcmp(pat, w) == 0;
}

/* The command lines the pktgen driver builds (driver-pktgen.h: pktgen_step_argv and
 * pktgen_generator_argv), after the program: literal words, slots in <>, optional words
 * in [ ]. netmetrics-pktgen's script is matched by helper_ok. */
static const struct {
	const char *program;
	const char *words[20];
} shapes[] = {
    {"ip", {"[", "-n", "<ns>", "]", "-j", "addr", "show", "dev", "<dev>"}},
    {"ip", {"[", "-n", "<ns>", "]", "-j", "-4", "route", "get", "<ipv4>"}},
    {"ip", {"[", "-n", "<ns>", "]", "-j", "-4", "neigh", "show", "to", "<ipv4>", "dev", "<dev>"}},
    {"tc", {"[", "-n", "<ns>", "]", "-j", "qdisc", "show", "dev", "<dev>"}},
    {"tc",
     {"[", "-n", "<ns>", "]", "qdisc", "add", "dev", "<dev>", "root", "tbf", "rate", "<bits>",
      "burst", "<num>", "limit", "<num>"}},
    {"tc", {"[", "-n", "<ns>", "]", "qdisc", "del", "dev", "<dev>", "root"}},
    {"trafgen",
     {"--no-sock-mem", "-Q", "-q", "-o", "<dev>", "-i", "<cfg>", "-P", "<num>", "[", "-n", "<num>",
      "]", "[", "-t", "0", "]"}},
};

/* Does argv from i match the shape's words from pat (NULL-ended)? *far: the furthest word
 * of argv a match reached (for the reason). Optional groups do not nest. */
static bool
match(const char *const *pat, char *const *argv, size_t i, size_t *far)
{
	if (i > *far)
		*far = i;
	if (*pat == NULL)
		return argv[i] == NULL;
	if (strcmp(*pat, "]") == 0)
		return match(pat + 1, argv, i, far);
	if (strcmp(*pat, "[") == 0) {
		const char *const *end = pat;
		while (strcmp(*end, "]") != 0)
			end++;
		return match(pat + 1, argv, i, far) || match(end + 1, argv, i, far);
	}
	if (argv[i] == NULL || !word_ok(*pat, argv[i]))
		return false;
	return match(pat + 1, argv, i + 1, far);
}

/* DEV@N: a device of pktgen's and the thread it sends on. */
static bool
devq_ok(const char *s)
{
	const char *at = strrchr(s, '@');
	char dev[64];

	if (at == NULL || (size_t)(at - s) >= sizeof(dev) || !num_ok(at + 1))
		return false;
	memcpy(dev, s, (size_t)(at - s));
	dev[at - s] = '\0';
	return dev_ok(dev);
}

/* One write of netmetrics-pktgen's script (parse-pktgen.c: pktgen_commands and
 * pktgen_cleanup): a thread's rem_device_all or add_device DEV@N, or a device's setting. */
static bool
pktgen_write_ok(const char *file, const char *cmd)
{
	static const char *const nums[] = {"count", "clone_skb", "pkt_size", "ratep",
	                                   "delay", "flows",     "flowlen"};
	static const char *const addrs[] = {"dst_min", "dst_max", "src_min"};
	static const char *const flags[] = {"flag IPDST_RND", "flag UDPCSUM", "flag QUEUE_MAP_CPU"};
	const char *sp = strchr(cmd, ' ');
	size_t k = sp != NULL ? (size_t)(sp - cmd) : strlen(cmd);

	if (strncmp(file, "kpktgend_", 9) == 0 && num_ok(file + 9))
		return strcmp(cmd, "rem_device_all") == 0 ||
		       (sp != NULL && k == 10 && strncmp(cmd, "add_device", 10) == 0 &&
		        devq_ok(sp + 1));
	if (!devq_ok(file))
		return false;
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (strcmp(cmd, flags[i]) == 0)
			return true;
	if (sp == NULL)
		return false;
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		if (strlen(nums[i]) == k && strncmp(cmd, nums[i], k) == 0)
			return num_ok(sp + 1);
	for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++)
		if (strlen(addrs[i]) == k && strncmp(cmd, addrs[i], k) == 0)
			return ipv4_ok(sp + 1);
	return k == 7 && strncmp(cmd, "dst_mac", 7) == 0 && mac_ok(sp + 1);
}

/* netmetrics-pktgen's script as pktgen_helper_argv writes it: writes, one -s, the devices'
 * -p, then the threads' clean-up writes (no -r: /proc/net/pktgen only). *far as match's. */
static bool
helper_ok(char *const *argv, size_t *far)
{
	int phase = 0; /* 0 before -s, 1 after it (-p), 2 the clean-up */
	size_t i = 1;

	for (;;) {
		*far = i;
		if (argv[i] == NULL)
			return phase > 0;
		if (strcmp(argv[i], "-w") == 0 && argv[i + 1] != NULL && argv[i + 2] != NULL &&
		    pktgen_write_ok(argv[i + 1], argv[i + 2]) &&
		    (phase == 0 || strcmp(argv[i + 2], "rem_device_all") == 0)) {
			phase = phase ? 2 : 0;
			i += 3;
		} else if (strcmp(argv[i], "-s") == 0 && phase == 0) {
			phase = 1;
			i++;
		} else if (strcmp(argv[i], "-p") == 0 && phase == 1 && argv[i + 1] != NULL &&
		           devq_ok(argv[i + 1]))
			i += 2;
		else
			return false;
	}
}

int
privsep_check_root_argv(char *const *argv, const char *netns, char *why, size_t size)
{
	const char *base;
	size_t far = 0, argc = 0;
	bool known = false;

	if (argv == NULL || argv[0] == NULL) {
		snprintf(why, size, "nothing to run");
		return -1;
	}
	if (netns != NULL && netns[0] && !ns_ok(netns)) {
		snprintf(why, size, "netns \"%.64s\": not a namespace name", netns);
		return -1;
	}
	while (argv[argc] != NULL)
		argc++;
	base = strrchr(argv[0], '/');
	base = base != NULL ? base + 1 : argv[0];
	if (strcmp(base, "netmetrics-pktgen") == 0) {
		known = true;
		if (helper_ok(argv, &far))
			return 0;
	}
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		size_t f = 1;
		if (strcmp(base, shapes[i].program) != 0)
			continue;
		known = true;
		if (match(shapes[i].words, argv, 1, &f))
			return 0;
		if (f > far)
			far = f;
	}
	if (!known)
		snprintf(why, size, "%.100s is not a program the pktgen driver runs", base);
	else if (far < argc)
		snprintf(why, size,
		         "%s: word %zu (\"%.60s\") is not what the pktgen driver's %s command "
		         "lines take there",
		         base, far, argv[far], base);
	else
		snprintf(why, size,
		         "%s: %zu words, fewer than the pktgen driver's %s command lines", base,
		         argc, base);
	return -1;
}

int
privsep_check_peer(uid_t puid, gid_t pgid, bool admin, bool as_user, uid_t uid, gid_t gid,
                   char *const *argv, const char *netns, char *why, size_t size)
{
	char reason[400];

	if (puid == 0)
		return 0;
	if (as_user && uid != 0) {
		if (uid == puid && gid == pgid)
			return 0;
		snprintf(why, size,
		         "privsep: a spawn as uid %u gid %u for a client of uid %u gid %u",
		         (unsigned)uid, (unsigned)gid, (unsigned)puid, (unsigned)pgid);
		return -1;
	}
	if (!admin) {
		snprintf(why, size,
		         "privsep: a spawn of %.200s as root for a client of uid %u (not "
		         "an admin)",
		         argv != NULL && argv[0] != NULL ? argv[0] : "(nothing)", (unsigned)puid);
		return -1;
	}
	if (privsep_check_root_argv(argv, netns, reason, sizeof(reason)) == 0)
		return 0;
	snprintf(why, size,
	         "privsep: a spawn of %.200s as root for a client of uid %u (an admin: only the "
	         "command lines a privileged driver builds): %s",
	         argv != NULL && argv[0] != NULL ? argv[0] : "(nothing)", (unsigned)puid, reason);
	return -1;
}

int
privsep_check_strv(char *const *v, size_t max, bool env, char *why, size_t size)
{
	size_t i;

	if (v == NULL || (!env && v[0] == NULL)) {
		snprintf(why, size, "empty %s", env ? "environment" : "argument vector");
		return -1;
	}
	for (i = 0; v[i] != NULL; i++) {
		if (i >= max) {
			snprintf(why, size, "more than %zu %s", max,
			         env ? "variables" : "arguments");
			return -1;
		}
		if (env && (v[i][0] == '=' || strchr(v[i], '=') == NULL)) {
			snprintf(why, size, "environment entry %zu is not NAME=VALUE", i);
			return -1;
		}
		/* The dynamic loader's (LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT...) and glibc's
		 * module path: code of the main process's choosing in a process of another. */
		if (env &&
		    (strncmp(v[i], "LD_", 3) == 0 || strncmp(v[i], "GCONV_PATH=", 11) == 0)) {
			snprintf(why, size, "environment entry %.*s is not passed to a benchmark",
			         (int)strcspn(v[i], "="), v[i]);
			return -1;
		}
	}
	return 0;
}

/* An ethtool feature name (ETH_SS_FEATURES spells them in lowercase, digits and '-'). */
int
privsep_check_feature(const char *name, char *why, size_t size)
{
	size_t n = strlen(name);

	if (n == 0 || n > 31 || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != n ||
	    name[0] == '-') {
		snprintf(why, size, "not an ethtool feature name");
		return -1;
	}
	return 0;
}

/* The flow types and hash fields [rss] sets (ethtool's rx-flow-hash names). */
#define RSS_FLOW_TYPES_OK(t)                                                                       \
	((t) == TCP_V4_FLOW || (t) == UDP_V4_FLOW || (t) == SCTP_V4_FLOW || (t) == TCP_V6_FLOW ||  \
	 (t) == UDP_V6_FLOW || (t) == SCTP_V6_FLOW || (t) == IPV4_FLOW || (t) == IPV6_FLOW)
#define RSS_FIELDS_ALL                                                                             \
	(RXH_L2DA | RXH_VLAN | RXH_L3_PROTO | RXH_IP_SRC | RXH_IP_DST | RXH_L4_B_0_1 |             \
	 RXH_L4_B_2_3 | RXH_DISCARD)

/* An RSS request against the device's sizes. */
int
privsep_check_rss(int part, int32_t b, const void *data, size_t len, uint32_t nindir,
                  uint32_t nrings, uint32_t nkey, char *why, size_t size)
{
	uint32_t v;

	switch (part) {
	case ETHTOOL_RSS_INDIR:
		if (nindir == 0 || len != (size_t)nindir * 4)
			return snprintf(why, size,
			                "the indirection table has %u entries, the request %zu",
			                nindir, len / 4),
			       -1;
		for (uint32_t i = 0; i < nindir; i++) {
			memcpy(&v, (const char *)data + (size_t)i * 4, 4);
			if (v >= nrings)
				return snprintf(why, size,
				                "entry %u is queue %u: the device has %u rx rings",
				                i, v, nrings),
				       -1;
		}
		return 0;
	case ETHTOOL_RSS_KEY:
		if (nkey == 0 || len != nkey)
			return snprintf(why, size, "the hash key has %u bytes, the request %zu",
			                nkey, len),
			       -1;
		return 0;
	case ETHTOOL_RSS_HFUNC:
		if (len != 0 || (b != 1 && b != 2 && b != 4))
			return snprintf(why, size, "not a hash function (toeplitz, xor, crc32)"),
			       -1;
		return 0;
	case ETHTOOL_RSS_FIELDS:
		if (len != 4 || !RSS_FLOW_TYPES_OK((uint32_t)b))
			return snprintf(why, size, "not a flow type and its fields"), -1;
		memcpy(&v, data, 4);
		if ((v & ~(uint32_t)RSS_FIELDS_ALL) != 0)
			return snprintf(why, size, "not hash fields (mvtsdfnr)"), -1;
		return 0;
	}
	return snprintf(why, size, "not a part of RSS"), -1;
}
