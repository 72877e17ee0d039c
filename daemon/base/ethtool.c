/* ethtool.c: `ethtool -S` counters through SIOCETHTOOL, and the same counters parsed from
 * `ethtool -S` text for fixture roots.
 *
 * The kernel's ETHTOOL_GSTRINGS and ETHTOOL_GSTATS ignore the count userspace passes in: they
 * write as many entries as the driver has now. A driver's count changes when its channels
 * are reconfigured (ethtool -L), which can happen between our ETHTOOL_GSSET_INFO and the read.
 * So the buffers the kernel writes into are mmap'ed with an inaccessible page after them:
 * a longer answer stops at the guard with EFAULT instead of overwriting the heap, and we read
 * the names again and retry. That also lets a sample skip GSSET_INFO: one ioctl per device,
 * whose returned n_stats says whether the set changed. */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "error.h"
#include "ethtool.h"
#include "procparse.h"
#include "xmalloc.h"

#define ETHTOOL_MAX_COUNTERS (1u << 20) /* a driver claiming more is not believed */

/* Release a guarded buffer. */
static void
gbuf_free(struct ethtool_gbuf *g)
{
	if (g->p != NULL)
		munmap(g->p, g->len + (size_t)sysconf(_SC_PAGESIZE));
	g->p = NULL;
	g->len = 0;
}

/* Make g hold at least need writable bytes followed by a PROT_NONE page; 0 or -1. */
static int
gbuf_reserve(struct ethtool_gbuf *g, size_t need)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (need + pg - 1) / pg * pg;
	void *p;

	if (g->p != NULL && need <= g->len)
		return 0;
	p = mmap(NULL, len + pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	if (mprotect((char *)p + len, pg, PROT_NONE) < 0) {
		munmap(p, len + pg);
		return -1;
	}
	gbuf_free(g);
	g->p = p;
	g->len = len;
	return 0;
}

/* Start with an empty counter set. */
void
ethtool_counters_init(struct ethtool_counters *ec)
{
	memset(ec, 0, sizeof(*ec));
}

/* Release the names, values and ioctl buffers. */
void
ethtool_counters_free(struct ethtool_counters *ec)
{
	free(ec->names);
	free(ec->nlen);
	free(ec->values);
	free(ec->changed);
	free(ec->text_at);
	free(ec->text_new);
	gbuf_free(&ec->strings);
	gbuf_free(&ec->stats);
	memset(ec, 0, sizeof(*ec));
}

/* Make room for n counters in names, nlen, values and changed. */
static void
reserve_counters(struct ethtool_counters *ec, uint32_t n)
{
	uint32_t cap = ec->cap ? ec->cap : 64;

	if (n <= ec->cap)
		return;
	while (cap < n)
		cap *= 2;
	ec->names = xreallocarray(ec->names, cap, sizeof(*ec->names));
	ec->nlen = xreallocarray(ec->nlen, cap, sizeof(*ec->nlen));
	ec->values = xreallocarray(ec->values, cap, sizeof(*ec->values));
	ec->changed = xreallocarray(ec->changed, cap, sizeof(*ec->changed));
	ec->text_at = xreallocarray(ec->text_at, cap, sizeof(*ec->text_at));
	ec->text_new = xreallocarray(ec->text_new, cap, sizeof(*ec->text_new));
	ec->cap = cap;
}

/* Take the values of a read: list those that changed when the names are the ones of the read
 * before (same generation), else just copy them. */
static void
take_values(struct ethtool_counters *ec, const uint64_t *v, bool same_names)
{
	ec->nchanged = 0;
	if (!same_names) {
		memcpy(ec->values, v, (size_t)ec->n * sizeof(*v));
		return;
	}
	for (uint32_t i = 0; i < ec->n; i++) {
		if (v[i] != ec->values[i]) {
			ec->values[i] = v[i];
			ec->changed[ec->nchanged++] = i;
		}
	}
}

/* Open the datagram socket SIOCETHTOOL goes through. */
int
ethtool_socket(struct nm_error *err)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return nm_error_set(err, NM_ERR_FAILED, "ethtool socket: %s", strerror(errno));
	return fd;
}

/* Issue one SIOCETHTOOL command for ifname with data; -1 with errno. */
static int
ethtool_ioctl(int fd, const char *ifname, void *data)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	if (strlen(ifname) >= sizeof(ifr.ifr_name)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(ifr.ifr_name, ifname);
	ifr.ifr_data = data;
	return ioctl(fd, SIOCETHTOOL, &ifr);
}

/* The driver's name, by ETHTOOL_GDRVINFO. */
int
ethtool_driver(int fd, const char *ifname, char *buf, size_t size)
{
	struct ethtool_drvinfo info;

	memset(&info, 0, sizeof(info));
	info.cmd = ETHTOOL_GDRVINFO;
	if (ethtool_ioctl(fd, ifname, &info) < 0)
		return -1;
	snprintf(buf, size, "%.*s", (int)sizeof(info.driver), info.driver);
	return 0;
}

/* The ntuple feature, from ETHTOOL_GFLAGS. */
int
ethtool_get_ntuple(int fd, const char *ifname, bool *on)
{
	struct ethtool_value v = {.cmd = ETHTOOL_GFLAGS};

	if (ethtool_ioctl(fd, ifname, &v) < 0)
		return -1;
	*on = (v.data & ETH_FLAG_NTUPLE) != 0;
	return 0;
}

/* The ETH_SS_FEATURES names of ifname (a new array of *n names, ETH_GSTRING_LEN bytes each;
 * caller frees), or NULL with errno (EOPNOTSUPP: the driver gives none). */
static struct ethtool_gstrings *
feature_names(int fd, const char *ifname, uint32_t *n)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t len;
	} si = {.hdr = {.cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ull << ETH_SS_FEATURES}};
	struct ethtool_gstrings *gs;

	if (ethtool_ioctl(fd, ifname, &si) < 0)
		return NULL;
	if (!(si.hdr.sset_mask & (1ull << ETH_SS_FEATURES)) || si.len == 0 || si.len > 1024) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	gs = xcalloc(1, sizeof(*gs) + (size_t)si.len * ETH_GSTRING_LEN);
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_FEATURES;
	gs->len = si.len;
	if (ethtool_ioctl(fd, ifname, gs) < 0) {
		free(gs);
		return NULL;
	}
	*n = si.len;
	return gs;
}

/* The bit of feature name among n names, or n. */
static uint32_t
feature_bit(const struct ethtool_gstrings *gs, uint32_t n, const char *name)
{
	uint32_t bit;

	for (bit = 0; bit < n; bit++)
		if (strncmp((const char *)gs->data + (size_t)bit * ETH_GSTRING_LEN, name,
		            ETH_GSTRING_LEN) == 0)
			break;
	return bit;
}

/* A feature by its kernel name: active, requested, changeable (ETHTOOL_GFEATURES). */
int
ethtool_get_feature(int fd, const char *ifname, const char *name, struct ethtool_feature *f)
{
	struct ethtool_gstrings *gs;
	struct ethtool_gfeatures *gf = NULL;
	uint32_t n, bit, blocks, m;
	int r = -1;

	if ((gs = feature_names(fd, ifname, &n)) == NULL)
		return -1;
	if ((bit = feature_bit(gs, n, name)) == n) {
		errno = ENOENT;
		goto out;
	}
	blocks = (n + 31) / 32;
	gf = xcalloc(1, sizeof(*gf) + blocks * sizeof(gf->features[0]));
	gf->cmd = ETHTOOL_GFEATURES;
	gf->size = blocks;
	if (ethtool_ioctl(fd, ifname, gf) < 0)
		goto out;
	m = 1u << (bit % 32);
	f->active = (gf->features[bit / 32].active & m) != 0;
	f->requested = (gf->features[bit / 32].requested & m) != 0;
	f->changeable = (gf->features[bit / 32].available & m) != 0 &&
	                !(gf->features[bit / 32].never_changed & m);
	r = 0;
out:
	free(gs);
	free(gf);
	return r;
}

/* Can the ntuple feature change? Fixed as ethtool says it: not available, or marked never
 * to change (ethtool_get_feature's changeable); a driver without the feature says
 * EOPNOTSUPP. */
int
ethtool_ntuple_fixed(int fd, const char *ifname, bool *fixed)
{
	struct ethtool_feature f;

	if (ethtool_get_feature(fd, ifname, "rx-ntuple-filter", &f) < 0) {
		if (errno == ENOENT)
			errno = EOPNOTSUPP;
		return -1;
	}
	*fixed = !f.changeable;
	return 0;
}

/* Request a feature on or off (ETHTOOL_SFEATURES, that bit alone). */
int
ethtool_set_feature(int fd, const char *ifname, const char *name, bool on)
{
	struct ethtool_gstrings *gs;
	struct ethtool_sfeatures *sf = NULL;
	uint32_t n, bit, blocks, m;
	int r = -1;

	if ((gs = feature_names(fd, ifname, &n)) == NULL)
		return -1;
	if ((bit = feature_bit(gs, n, name)) == n) {
		errno = ENOENT;
		goto out;
	}
	blocks = (n + 31) / 32;
	sf = xcalloc(1, sizeof(*sf) + blocks * sizeof(sf->features[0]));
	sf->cmd = ETHTOOL_SFEATURES;
	sf->size = blocks;
	m = 1u << (bit % 32);
	sf->features[bit / 32].valid = m;
	sf->features[bit / 32].requested = on ? m : 0;
	if (ethtool_ioctl(fd, ifname, sf) < 0)
		goto out;
	r = 0;
out:
	free(gs);
	free(sf);
	return r;
}

/* Set the ntuple feature through ETHTOOL_SFLAGS, keeping the other flags. */
int
ethtool_set_ntuple(int fd, const char *ifname, bool on)
{
	struct ethtool_value v = {.cmd = ETHTOOL_GFLAGS};

	/* SFLAGS sets every flag at once: keep the others as they are. */
	if (ethtool_ioctl(fd, ifname, &v) < 0)
		return -1;
	v.cmd = ETHTOOL_SFLAGS;
	v.data = on ? (v.data | ETH_FLAG_NTUPLE) : (v.data & ~(uint32_t)ETH_FLAG_NTUPLE);
	return ethtool_ioctl(fd, ifname, &v) < 0 ? -1 : 0;
}

/* Channel counts from ETHTOOL_GCHANNELS. */
int
ethtool_get_channels(int fd, const char *ifname, struct ethtool_chan *ch)
{
	struct ethtool_channels c = {.cmd = ETHTOOL_GCHANNELS};

	if (ethtool_ioctl(fd, ifname, &c) < 0)
		return -1;
	*ch = (struct ethtool_chan){c.rx_count, c.tx_count, c.other_count, c.combined_count,
	                            c.max_rx,   c.max_tx,   c.max_other,   c.max_combined};
	return 0;
}

/* Set one channel count, the others as the device has them (GCHANNELS then SCHANNELS). */
int
ethtool_set_channel(int fd, const char *ifname, enum ethtool_chan_which which, uint32_t count)
{
	struct ethtool_channels c = {.cmd = ETHTOOL_GCHANNELS};
	uint32_t *cur, max;

	if (ethtool_ioctl(fd, ifname, &c) < 0)
		return -1;
	switch (which) {
	case ETHTOOL_CHAN_RX:
		cur = &c.rx_count, max = c.max_rx;
		break;
	case ETHTOOL_CHAN_TX:
		cur = &c.tx_count, max = c.max_tx;
		break;
	case ETHTOOL_CHAN_COMBINED:
		cur = &c.combined_count, max = c.max_combined;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	if (count > max) {
		errno = ERANGE;
		return -1;
	}
	*cur = count;
	c.cmd = ETHTOOL_SCHANNELS;
	return ethtool_ioctl(fd, ifname, &c) < 0 ? -1 : 0;
}

/* Ring sizes (ETHTOOL_GRINGPARAM). */
int
ethtool_get_rings(int fd, const char *ifname, struct ethtool_ring *r)
{
	struct ethtool_ringparam g = {.cmd = ETHTOOL_GRINGPARAM};

	if (ethtool_ioctl(fd, ifname, &g) < 0)
		return -1;
	*r = (struct ethtool_ring){g.rx_pending, g.tx_pending, g.rx_max_pending, g.tx_max_pending};
	return 0;
}

/* Set one ring size, the others as the device has them (GRINGPARAM then SRINGPARAM). */
int
ethtool_set_ring(int fd, const char *ifname, bool tx, uint32_t size)
{
	struct ethtool_ringparam g = {.cmd = ETHTOOL_GRINGPARAM};

	if (ethtool_ioctl(fd, ifname, &g) < 0)
		return -1;
	if (size == 0 || size > (tx ? g.tx_max_pending : g.rx_max_pending)) {
		errno = ERANGE;
		return -1;
	}
	*(tx ? &g.tx_pending : &g.rx_pending) = size;
	g.cmd = ETHTOOL_SRINGPARAM;
	return ethtool_ioctl(fd, ifname, &g) < 0 ? -1 : 0;
}

/* The field of struct ethtool_coalesce a parameter is. */
static uint32_t *
coalesce_field(struct ethtool_coalesce *c, enum ethtool_coal_param p)
{
	switch (p) {
	case ETHTOOL_COAL_RX_USECS:
		return &c->rx_coalesce_usecs;
	case ETHTOOL_COAL_RX_FRAMES:
		return &c->rx_max_coalesced_frames;
	case ETHTOOL_COAL_TX_USECS:
		return &c->tx_coalesce_usecs;
	case ETHTOOL_COAL_TX_FRAMES:
		return &c->tx_max_coalesced_frames;
	case ETHTOOL_COAL_ADAPTIVE_RX:
		return &c->use_adaptive_rx_coalesce;
	case ETHTOOL_COAL_ADAPTIVE_TX:
		return &c->use_adaptive_tx_coalesce;
	}
	return NULL;
}

/* One coalescing parameter (ETHTOOL_GCOALESCE). */
int
ethtool_get_coalesce(int fd, const char *ifname, enum ethtool_coal_param p, uint32_t *v)
{
	struct ethtool_coalesce c = {.cmd = ETHTOOL_GCOALESCE};
	uint32_t *f = coalesce_field(&c, p);

	if (f == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (ethtool_ioctl(fd, ifname, &c) < 0)
		return -1;
	*v = *f;
	return 0;
}

/* Set one coalescing parameter, the others as the device has them. */
int
ethtool_set_coalesce(int fd, const char *ifname, enum ethtool_coal_param p, uint32_t v)
{
	struct ethtool_coalesce c = {.cmd = ETHTOOL_GCOALESCE};
	uint32_t *f = coalesce_field(&c, p);

	if (f == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (ethtool_ioctl(fd, ifname, &c) < 0)
		return -1;
	*f = v;
	c.cmd = ETHTOOL_SCOALESCE;
	return ethtool_ioctl(fd, ifname, &c) < 0 ? -1 : 0;
}

/* The interface index and loopback flag, by SIOCGIFINDEX and SIOCGIFFLAGS. */
int
ethtool_ifindex(int fd, const char *ifname, int *ifindex, bool *loopback)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	if (strlen(ifname) >= sizeof(ifr.ifr_name)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(ifr.ifr_name, ifname);
	if (ioctl(fd, SIOCGIFINDEX, &ifr) < 0)
		return -1;
	*ifindex = ifr.ifr_ifindex;
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		return -1;
	*loopback = (ifr.ifr_flags & IFF_LOOPBACK) != 0;
	return 0;
}

/* The name of interface ifindex, by SIOCGIFNAME. */
int
ethtool_ifname(int fd, int ifindex, char *buf, size_t size)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_ifindex = ifindex;
	if (ioctl(fd, SIOCGIFNAME, &ifr) < 0)
		return -1;
	snprintf(buf, size, "%.*s", (int)sizeof(ifr.ifr_name), ifr.ifr_name);
	return 0;
}

/* How many ETH_SS_STATS counters the driver has now: 0 when it gives none; -1 with errno. */
static int
stats_count(int fd, const char *ifname, uint32_t *n)
{
	/* struct ethtool_sset_info ends in a flexible array: room for one u32 after it. */
	uint64_t raw[(sizeof(struct ethtool_sset_info) + sizeof(uint32_t) + 7) / 8];
	struct ethtool_sset_info *info = (struct ethtool_sset_info *)raw;

	memset(raw, 0, sizeof(raw));
	info->cmd = ETHTOOL_GSSET_INFO;
	info->sset_mask = 1ull << ETH_SS_STATS;
	if (ethtool_ioctl(fd, ifname, info) < 0) {
		if (errno == EOPNOTSUPP) {
			*n = 0;
			return 0;
		}
		return -1;
	}
	*n = (info->sset_mask & (1ull << ETH_SS_STATS)) ? info->data[0] : 0;
	return 0;
}

/* Read the driver's counter names into ec; 0, or -1 with errno. */
static int
load_names(int fd, const char *ifname, struct ethtool_counters *ec)
{
	struct ethtool_gstrings *gs;
	uint32_t n;

	for (int attempt = 0; attempt < 3; attempt++) {
		if (stats_count(fd, ifname, &n) < 0)
			return -1;
		if (n > ETHTOOL_MAX_COUNTERS) {
			errno = E2BIG;
			return -1;
		}
		if (n == 0)
			goto done;
		if (gbuf_reserve(&ec->strings, sizeof(*gs) + (size_t)n * ETH_GSTRING_LEN) < 0)
			return -1;
		gs = ec->strings.p;
		memset(gs, 0, sizeof(*gs));
		gs->cmd = ETHTOOL_GSTRINGS;
		gs->string_set = ETH_SS_STATS;
		gs->len = n;
		if (ethtool_ioctl(fd, ifname, gs) < 0) {
			if (errno == EFAULT)
				continue; /* grew past the guard: count again */
			return -1;
		}
		n = gs->len;
		if (sizeof(*gs) + (size_t)n * ETH_GSTRING_LEN > ec->strings.len)
			continue;
		if (gbuf_reserve(&ec->stats, sizeof(struct ethtool_stats) + (size_t)n * 8) < 0)
			return -1;
		reserve_counters(ec, n);
		for (uint32_t i = 0; i < n; i++) {
			memcpy(ec->names[i], gs->data + (size_t)i * ETH_GSTRING_LEN,
			       ETH_GSTRING_LEN);
			ec->names[i][ETHTOOL_NAME_LEN] = '\0';
			ec->nlen[i] = (uint8_t)strlen(ec->names[i]);
		}
		goto done;
	}
	errno = EAGAIN; /* the set kept changing under us */
	return -1;
done:
	ec->n = n;
	ec->loaded = true;
	ec->generation++;
	return 0;
}

/* Read the values (and the names when the set changed) with one GSTATS per call. */
int
ethtool_read(int fd, const char *ifname, struct ethtool_counters *ec, struct nm_error *err)
{
	unsigned gen = ec->generation;
	struct ethtool_stats *st;
	int rc;

	ec->text_ok = false; /* the values are no text's */
	if (!ec->loaded && load_names(fd, ifname, ec) < 0)
		goto fail;
	for (int attempt = 0; attempt < 3; attempt++) {
		if (ec->n == 0)
			return 0;
		st = ec->stats.p;
		st->cmd = ETHTOOL_GSTATS;
		st->n_stats = ec->n;
		rc = ethtool_ioctl(fd, ifname, st);
		if (rc == 0 && st->n_stats == ec->n) {
			take_values(ec, (const uint64_t *)st->data, ec->generation == gen);
			return 0;
		}
		if (rc < 0 && errno != EFAULT)
			goto fail;
		/* The set changed under us (or grew past the guard): names again. */
		if (load_names(fd, ifname, ec) < 0)
			goto fail;
	}
	errno = EAGAIN;
fail:
	return nm_error_set(err, errno == ENODEV ? NM_ERR_NOT_FOUND : NM_ERR_FAILED,
	                    "ethtool: %s: %s", ifname, strerror(errno));
}

/* Whether c may surround a value: a blank or the '\r' of a CRLF file. */
static bool
is_value_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Parse a decimal u64 from s[0..len) (surrounding blanks allowed); 0 or -1. */
static int
parse_u64(const char *s, size_t len, uint64_t *out)
{
	size_t i = 0;
	uint64_t v = 0;

	while (i < len && is_value_blank(s[i]))
		i++;
	if (i == len || s[i] < '0' || s[i] > '9')
		return -1;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	while (i < len && is_value_blank(s[i]))
		i++;
	if (i != len)
		return -1;
	*out = v;
	return 0;
}

/* The position of the last ": " in s[0..len), or NULL. */
static const char *
last_colon_space(const char *s, size_t len)
{
	for (size_t i = len; i-- > 1;)
		if (s[i] == ' ' && s[i - 1] == ':')
			return s + i - 1;
	return NULL;
}

/* Whether the line at p is blanks, the name of counter i, ": " and a value as parse_u64 takes
 * it: the common case of a line that names the counter it named last time. Then *v is the
 * value, *val where the value's blanks start (after ": ") and *nl the line's end ('\n' or
 * end). The value holds no ':', so that ": " is the line's last, where the full parse splits
 * it too. */
static bool
same_name_line(const struct ethtool_counters *ec, uint32_t i, const char *p, const char *end,
               uint64_t *v, const char **val, const char **nl)
{
	size_t nlen = ec->nlen[i];

	p = pp_skip_blanks(p, end);
	/* A name fills at most 32 of its 33 bytes: with 32 bytes of text left, both sides
	 * can be read whole (pp_eq32), a call of memcmp per line saved. */
	if (nlen == 0 || (size_t)(end - p) < nlen + 2 ||
	    !((size_t)(end - p) >= 32 ? pp_eq32(p, ec->names[i], nlen)
	                              : memcmp(p, ec->names[i], nlen) == 0) ||
	    p[nlen] != ':' || p[nlen + 1] != ' ')
		return false;
	p += nlen + 2;
	*val = p;
	while (p < end && is_value_blank(*p))
		p++;
	if (pp_u64_wide(&p, end, v) < 0)
		return false;
	while (p < end && is_value_blank(*p))
		p++;
	if (p < end && *p != '\n')
		return false;
	*nl = p;
	return true;
}

/* Store counter i (name[0..nlen), value) in ec, where the last parse had n counters; true
 * when the name differs from before. */
static bool
store_counter(struct ethtool_counters *ec, uint32_t i, uint32_t n, const char *name, size_t nlen,
              uint64_t value)
{
	bool changed = false;

	reserve_counters(ec, i + 1);
	if (i >= n || ec->nlen[i] != nlen || memcmp(ec->names[i], name, nlen) != 0) {
		memcpy(ec->names[i], name, nlen);
		ec->names[i][nlen] = '\0';
		ec->nlen[i] = (uint8_t)nlen;
		changed = true;
	}
	if (i < n && ec->values[i] != value)
		ec->changed[ec->nchanged++] = i;
	ec->values[i] = value;
	return changed;
}

/* Note where counter i's value (from val, after its ": ") and line (at nl) are in buf. */
static void
note_place(struct ethtool_counters *ec, uint32_t i, const char *buf, const char *val,
           const char *nl)
{
	ec->text_at[i].val = (uint32_t)(val - buf);
	ec->text_at[i].end = (uint32_t)(nl - buf);
}

/* Parse `ethtool -S` text, splitting each line at its last ": ". */
size_t
ethtool_parse_text(const char *buf, size_t len, struct ethtool_counters *ec)
{
	const char *p = buf, *end = buf + len, *nl, *sep, *name, *val;
	size_t skipped = 0, nlen;
	uint32_t n = 0, oldn = ec->n;
	bool changed = false;
	uint64_t v;

	ec->nchanged = 0;
	for (; p < end; p = nl + 1) {
		if (n < oldn && same_name_line(ec, n, p, end, &v, &val, &nl)) {
			if (v != ec->values[n]) {
				ec->values[n] = v;
				ec->changed[ec->nchanged++] = n;
			}
			note_place(ec, n, buf, val, nl);
			n++;
			continue;
		}
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		name = p;
		while (name < nl && (*name == ' ' || *name == '\t'))
			name++;
		if (name == nl)
			continue;
		sep = last_colon_space(name, (size_t)(nl - name));
		if (sep == NULL || sep == name) {
			/* "NIC statistics:" and other headers */
			skipped += (nl[-1] != ':');
			continue;
		}
		nlen = (size_t)(sep - name);
		if (nlen > ETHTOOL_NAME_LEN || n >= ETHTOOL_MAX_COUNTERS ||
		    parse_u64(sep + 2, (size_t)(nl - sep - 2), &v) < 0) {
			skipped++;
			continue;
		}
		changed |= store_counter(ec, n, oldn, name, nlen, v);
		note_place(ec, n, buf, sep + 2, nl);
		n++;
	}
	if (n != ec->n || changed || !ec->loaded)
		ec->generation++;
	ec->n = n;
	ec->loaded = true;
	/* The places fit in 32 bits, which a text of 4 GiB would not. */
	ec->text_ok = len < UINT32_MAX;
	ec->text_len = len;
	ec->text_skipped = skipped;
	ec->text_compared = false;
	return skipped;
}

/* The compare of ethtool_parse_text_since: true when buf differs from prev, the text whose
 * places ec holds, only in values; then ec->changed and ec->text_new hold the values that
 * changed and the places are buf's. False (the places of no use, nothing else touched) on
 * any other difference. shift is what a place in prev adds to be buf's. */
static bool
changed_values(const char *buf, size_t len, const char *prev, struct ethtool_counters *ec)
{
	struct ethtool_text_at *at = ec->text_at;
	const char *end = buf + len, *p;
	size_t pos = 0, oldlen = ec->text_len, m, d;
	int64_t shift = 0;
	uint32_t i = 0;
	uint64_t v;

	ec->nchanged = 0;
	for (;;) {
		/* Equal from pos (prev's pos - shift) to d. */
		m = len - pos < oldlen - (size_t)((int64_t)pos - shift)
		        ? len - pos
		        : oldlen - (size_t)((int64_t)pos - shift);
		d = pos + pp_first_diff_near(buf + pos, prev + ((int64_t)pos - shift), 0, m);
		if (d == pos + m && len - pos == oldlen - (size_t)((int64_t)pos - shift))
			d = len + 1; /* equal to the end */
		/* The lines that end before d are the same lines. */
		if (shift == 0) { /* the places hold: only read */
			while (i < ec->n && at[i].end < d)
				i++;
		} else {
			for (; i < ec->n && (int64_t)at[i].end + shift < (int64_t)d; i++) {
				at[i].val = (uint32_t)((int64_t)at[i].val + shift);
				at[i].end = (uint32_t)((int64_t)at[i].end + shift);
			}
		}
		if (d == len + 1)
			return true;
		/* The difference is in counter i's value, or not one this takes. */
		if (i == ec->n || (int64_t)d < (int64_t)at[i].val + shift)
			return false;
		p = buf + ((int64_t)at[i].val + shift);
		while (p < end && is_value_blank(*p))
			p++;
		if (pp_u64_wide(&p, end, &v) < 0)
			return false;
		while (p < end && is_value_blank(*p))
			p++;
		if (p < end && *p != '\n')
			return false;
		if (v != ec->values[i]) {
			ec->text_new[ec->nchanged] = v;
			ec->changed[ec->nchanged++] = i;
		}
		at[i].val = (uint32_t)((int64_t)at[i].val + shift);
		shift = (int64_t)(p - buf) - (int64_t)at[i].end;
		at[i].end = (uint32_t)(p - buf);
		pos = (size_t)(p - buf);
		i++;
	}
}

size_t
ethtool_parse_text_since(const char *buf, size_t len, const char *prev, size_t prevlen,
                         struct ethtool_counters *ec)
{
	if (prev == NULL || !ec->text_ok || !ec->loaded || prevlen != ec->text_len ||
	    len >= UINT32_MAX || !changed_values(buf, len, prev, ec))
		return ethtool_parse_text(buf, len, ec);
	for (uint32_t k = 0; k < ec->nchanged; k++)
		ec->values[ec->changed[k]] = ec->text_new[k];
	ec->text_len = len;
	ec->text_compared = true;
	return ec->text_skipped;
}

/* The driver, its version, the firmware and the bus (ETHTOOL_GDRVINFO). */
int
ethtool_get_info(int fd, const char *ifname, struct ethtool_info *out)
{
	struct ethtool_drvinfo info;

	memset(&info, 0, sizeof(info));
	info.cmd = ETHTOOL_GDRVINFO;
	if (ethtool_ioctl(fd, ifname, &info) < 0)
		return -1;
	snprintf(out->driver, sizeof(out->driver), "%.*s", (int)sizeof(info.driver), info.driver);
	snprintf(out->version, sizeof(out->version), "%.*s", (int)sizeof(info.version),
	         info.version);
	snprintf(out->firmware, sizeof(out->firmware), "%.*s", (int)sizeof(info.fw_version),
	         info.fw_version);
	snprintf(out->bus, sizeof(out->bus), "%.*s", (int)sizeof(info.bus_info), info.bus_info);
	return 0;
}

/* Named features' states from ETHTOOL_GSTRINGS (ETH_SS_FEATURES) and ETHTOOL_GFEATURES. */
int
ethtool_get_features(int fd, const char *ifname, const char *const *names, size_t nn, int *state)
{
	struct ethtool_gstrings *gs;
	struct ethtool_gfeatures *gf = NULL;
	uint32_t n, blocks;
	int r = -1;

	for (size_t i = 0; i < nn; i++)
		state[i] = -1;
	if ((gs = feature_names(fd, ifname, &n)) == NULL)
		return -1;
	blocks = (n + 31) / 32;
	gf = xcalloc(1, sizeof(*gf) + blocks * sizeof(gf->features[0]));
	gf->cmd = ETHTOOL_GFEATURES;
	gf->size = blocks;
	if (ethtool_ioctl(fd, ifname, gf) < 0)
		goto out;
	for (size_t i = 0; i < nn; i++) {
		uint32_t bit = feature_bit(gs, n, names[i]);
		if (bit < n)
			state[i] = (gf->features[bit / 32].active >> (bit % 32)) & 1u;
	}
	r = 0;
out:
	free(gs);
	free(gf);
	return r;
}

/* The RSS table and key (ETHTOOL_GRSSH): sizes first, then the contents. */
int
ethtool_get_rss(int fd, const char *ifname, uint32_t *indir, uint32_t indir_cap, uint32_t *nindir,
                uint8_t *key, uint32_t key_cap, uint32_t *nkey, uint8_t *hfunc)
{
	struct ethtool_rxfh sz = {.cmd = ETHTOOL_GRSSH}, *r;
	size_t len;

	if (ethtool_ioctl(fd, ifname, &sz) < 0)
		return -1;
	*nindir = sz.indir_size;
	*nkey = sz.key_size;
	*hfunc = sz.hfunc;
	if (sz.indir_size > indir_cap || sz.key_size > key_cap) {
		errno = EMSGSIZE;
		return -1;
	}
	len = sizeof(*r) + (size_t)sz.indir_size * sizeof(uint32_t) + sz.key_size;
	r = xcalloc(1, len);
	r->cmd = ETHTOOL_GRSSH;
	r->indir_size = sz.indir_size;
	r->key_size = sz.key_size;
	if (ethtool_ioctl(fd, ifname, r) < 0) {
		free(r);
		return -1;
	}
	memcpy(indir, r->rss_config, (size_t)sz.indir_size * sizeof(uint32_t));
	memcpy(key, (const uint8_t *)(r->rss_config + sz.indir_size), sz.key_size);
	*hfunc = r->hfunc;
	free(r);
	return 0;
}

/* The number of rx rings RSS spreads over (ETHTOOL_GRXRINGS). */
int
ethtool_get_rxrings(int fd, const char *ifname, uint32_t *n)
{
	struct ethtool_rxnfc nfc = {.cmd = ETHTOOL_GRXRINGS};

	if (ethtool_ioctl(fd, ifname, &nfc) < 0)
		return -1;
	*n = (uint32_t)nfc.data;
	return 0;
}

/* Set one part of the default RSS context with ETHTOOL_SRSSH, the others marked unchanged. */
int
ethtool_set_rss(int fd, const char *ifname, const uint32_t *indir, uint32_t nindir,
                const uint8_t *key, uint32_t nkey, uint8_t hfunc)
{
	struct ethtool_rxfh *r;
	size_t len = sizeof(*r) + (size_t)nindir * sizeof(uint32_t) + nkey;
	int rc;

	if (nindir > ETHTOOL_RSS_TABLE_MAX || nkey > ETHTOOL_RSS_KEY_MAX ||
	    (nindir == 0 && nkey == 0 && hfunc == 0)) {
		errno = EINVAL;
		return -1;
	}
	r = xcalloc(1, len);
	r->cmd = ETHTOOL_SRSSH;
	r->indir_size = nindir > 0 ? nindir : ETH_RXFH_INDIR_NO_CHANGE;
	r->key_size = nkey;
	r->hfunc = hfunc;
	/* input_xfrm (6.8+; rsvd8[0] in older headers): RXH_XFRM_NO_CHANGE, as ethtool sends. */
	r->rsvd8[0] = 0xff;
	if (nindir > 0)
		memcpy(r->rss_config, indir, (size_t)nindir * sizeof(uint32_t));
	if (nkey > 0)
		memcpy((uint8_t *)(r->rss_config + nindir), key, nkey);
	rc = ethtool_ioctl(fd, ifname, r);
	free(r);
	return rc < 0 ? -1 : 0;
}

/* The hash fields of a flow type (ETHTOOL_GRXFH). */
int
ethtool_get_rxfh_fields(int fd, const char *ifname, uint32_t flow_type, uint64_t *fields)
{
	struct ethtool_rxnfc nfc = {.cmd = ETHTOOL_GRXFH, .flow_type = flow_type};

	if (ethtool_ioctl(fd, ifname, &nfc) < 0)
		return -1;
	*fields = nfc.data;
	return 0;
}

/* Set them (ETHTOOL_SRXFH). */
int
ethtool_set_rxfh_fields(int fd, const char *ifname, uint32_t flow_type, uint64_t fields)
{
	struct ethtool_rxnfc nfc = {.cmd = ETHTOOL_SRXFH, .flow_type = flow_type, .data = fields};

	return ethtool_ioctl(fd, ifname, &nfc) < 0 ? -1 : 0;
}
