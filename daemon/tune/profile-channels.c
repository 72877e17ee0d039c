/* profile-channels.c: the [channels] section: how many rx, tx or combined channels (queue
 * sets with their IRQ and NAPI) the device runs ("ethtool -L").
 *
 *   combined = 8           the combined channels (NICs with queue pairs: mlx5, ice)
 *   rx = 4                 separate rx and tx channels (veth, some drivers)
 *   tx = 4
 *
 * Changing the counts renumbers the queues, their IRQs and NAPI instances and resets what
 * hangs on them (XPS, RPS, RFS tables, IRQ affinity): [channels] is written first of all
 * knobs (plan_order 1), the device's queues are counted again after each write, and revert
 * restores the counts first (every apply's, last first), then the values that hang on the
 * queues, which a count change resets on most drivers. A profile whose [channels] changes a count
 * and that also plans on the queues
 * ([irq], [xps], [rps], [rfs], the [rss] table, [napi_queue]) is planned in two stages
 * (plan_build): the counts first; the rest on the layout the counts will give (the dry run
 * shows that), and, when applied, planned again after the channel writes on the device as
 * it is then (plan_replan: queues counted, IRQs and NAPI read again). The queue values the
 * change resets are saved beforehand (keep entries), so that a rollback or revert, which
 * restores the counts first, puts them back too.
 *
 * Each count is one plan entry (name rx, tx or combined) written with ETHTOOL_SCHANNELS,
 * the other counts kept, by the privileged process (PS_CHANNELS), and read back: a driver
 * that gives another count than asked is a failure with both values. Under a fixture root
 * the counts are the "Current hardware settings" of ROOT/ethtool/DEV.channels (`ethtool -l`
 * text). */
#include <errno.h>
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

#define CHANNELS_MAX 4096u

static const char *const chan_names[] = {"rx", "tx", "combined"}; /* enum ethtool_chan_which */

/* The count of name in p (0: not given). */
static uint32_t *
field(struct profile *p, int which)
{
	return which == ETHTOOL_CHAN_RX   ? &p->channels.rx
	       : which == ETHTOOL_CHAN_TX ? &p->channels.tx
	                                  : &p->channels.combined;
}

/* Which count a name is, -1 when none. */
static int
which_of(const char *name)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(name, chan_names[i]) == 0)
			return i;
	return -1;
}

/* Take a key of [channels]. */
static int
profile_channels_key(struct profile *p, const char *key, const char *val, struct nm_error *err)
{
	int w = which_of(key);

	if (w < 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "[channels]: unknown key \"%s\" (combined, rx, tx)", key);
	if (profile_parse_u32("channels", key, val, CHANNELS_MAX, field(p, w), err) < 0)
		return -1;
	if (*field(p, w) == 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "[channels] %s: at least 1", key);
	return 0;
}

static int
profile_channels_check(const struct profile *p, struct nm_error *err)
{
	(void)p;
	(void)err;
	return 0;
}

static bool
channels_present(const struct profile *p)
{
	return p->channels.rx || p->channels.tx || p->channels.combined;
}

/* Parse `ethtool -l` text's counts into ch; false when it has no "Current" section. */
static bool
parse_text(char *text, struct ethtool_chan *ch)
{
	static const char *const keys[] = {"RX:", "TX:", "Other:", "Combined:"};
	uint32_t *cur[] = {&ch->rx, &ch->tx, &ch->other, &ch->combined};
	uint32_t *max[] = {&ch->max_rx, &ch->max_tx, &ch->max_other, &ch->max_combined};
	bool current = false;
	char *save = NULL;

	memset(ch, 0, sizeof(*ch));
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (strncmp(l, "Current", 7) == 0) {
			current = true;
			continue;
		}
		for (size_t i = 0; i < 4; i++)
			if (strncmp(l, keys[i], strlen(keys[i])) == 0)
				*(current ? cur[i] : max[i]) = (uint32_t)strtoul(
				    l + strlen(keys[i]) + strspn(l + strlen(keys[i]), " \t"), NULL,
				    10);
	}
	return current;
}

/* The channel counts of dev: the ioctl on the host, the fixture's text otherwise. */
static int
chan_get(struct profile_host *h, const char *dev, struct ethtool_chan *ch, struct nm_error *err)
{
	char rel[64], text[4096];
	int fd;

	if (h->real) {
		if ((fd = profile_host_ethfd(h, err)) < 0)
			return -1;
		if (ethtool_get_channels(fd, dev, ch) == 0)
			return 0;
		return nm_error_set(err, errno == EOPNOTSUPP ? NM_ERR_UNSUPPORTED : NM_ERR_FAILED,
		                    "ethtool %s channels: %s", dev,
		                    errno == EOPNOTSUPP ? "the driver has no channel counts"
		                                        : strerror(errno));
	}
	snprintf(rel, sizeof(rel), "ethtool/%s.channels", dev);
	if (profile_host_read(h, PROFILE_BASE_ROOT, NULL, rel, text, sizeof(text)) < 0 ||
	    !parse_text(text, ch))
		return nm_error_set(err, NM_ERR_UNSUPPORTED,
		                    "%s: channel counts unknown (no %s under the root)", dev, rel);
	return 0;
}

static uint32_t
count_of(const struct ethtool_chan *ch, int which, bool max)
{
	if (which == ETHTOOL_CHAN_RX)
		return max ? ch->max_rx : ch->rx;
	if (which == ETHTOOL_CHAN_TX)
		return max ? ch->max_tx : ch->tx;
	return max ? ch->max_combined : ch->combined;
}

/* Does p's [channels] change h's counts; the queue counts after. */
bool
profile_channels_change(const struct profile *p, struct profile_host *h, unsigned *nrx,
                        unsigned *ntx)
{
	struct ethtool_chan ch;
	uint32_t rx, tx, comb;

	if (!channels_present(p) || chan_get(h, h->dev, &ch, NULL) < 0)
		return false;
	rx = p->channels.rx ? p->channels.rx : ch.rx;
	tx = p->channels.tx ? p->channels.tx : ch.tx;
	comb = p->channels.combined ? p->channels.combined : ch.combined;
	*nrx = rx + comb;
	*ntx = tx + comb;
	return rx != ch.rx || tx != ch.tx || comb != ch.combined;
}

/* Does p plan on the queues, their IRQs or NAPI instances? */
bool
profile_channels_dependents(const struct profile *p)
{
	return p->irq.present || p->xps.present || p->rps.present ||
	       p->rfs != PROFILE_SWITCH_UNSET || profile_rss_sets_table(p) || p->napiq.has_all[0] ||
	       p->napiq.has_all[1] || p->napiq.n > 0;
}

/* Plan the counts the profile gives, checked against the device's maxima. */
static int
profile_channels_plan(const struct profile *p, struct profile_host *h, struct plan *pl,
                      struct nm_error *err)
{
	struct profile pc = *p;
	struct ethtool_chan ch;
	struct nm_error e;
	char val[16];

	if (!channels_present(p))
		return 0;
	if (chan_get(h, h->dev, &ch, &e) < 0)
		return plan_cannot(pl, p, "channels", err, "%s", e.message);
	for (int w = 0; w < 3; w++) {
		uint32_t want = *field(&pc, w), max = count_of(&ch, w, true);
		if (want == 0)
			continue;
		if (max == 0 && want != count_of(&ch, w, false))
			return plan_cannot(pl, p, "channels", err,
			                   "%s has no separate %s channel count (\"ethtool -l %s\" "
			                   "shows n/a)",
			                   h->dev, chan_names[w], h->dev);
		if (want > max)
			return nm_error_set(
			    err, NM_ERR_BAD_ARGS,
			    "[channels] %s = %u: %s has at most %u (\"ethtool -l %s\")",
			    chan_names[w], want, h->dev, max, h->dev);
	}
	for (int w = 0; w < 3; w++) {
		if (*field(&pc, w) == 0)
			continue;
		snprintf(val, sizeof(val), "%u", *field(&pc, w));
		if (plan_add(pl, h, PLAN_CHANNELS, h->dev, -1, chan_names[w], val, err) == NULL)
			return -1;
	}
	return 0;
}

/* channels=N (combined) | rxN-txN ("rx4-tx4"): a word has no '='. */
static void
channels_setting_ini(struct strbuf *sb, const char *v)
{
	unsigned rx, tx;

	strbuf_addf(sb, "[channels]\n");
	if (sscanf(v, "rx%u-tx%u", &rx, &tx) == 2)
		strbuf_addf(sb, "rx = %u\ntx = %u\n", rx, tx);
	else
		strbuf_addf(sb, "combined = %s\n", v);
}

/* [channels] as saved: the counts the device has a maximum for. */
static void
channels_save(struct profile_host *h, struct strbuf *sb)
{
	struct ethtool_chan ch;
	bool any = false;

	if (chan_get(h, h->dev, &ch, NULL) < 0)
		return;
	for (int w = 0; w < 3; w++) {
		if (count_of(&ch, w, true) == 0 || count_of(&ch, w, false) == 0)
			continue;
		if (!any)
			strbuf_addf(sb, "\n# With the queue sections above, this applies where the "
			                "channel counts are\n# these already; elsewhere apply "
			                "[channels] alone first.\n[channels]\n");
		any = true;
		strbuf_addf(sb, "%s = %u\n", chan_names[w], count_of(&ch, w, false));
	}
}

static int
channels_file(const struct plan_entry *e, enum profile_base *base, char *rel, size_t size)
{
	(void)e;
	(void)base;
	(void)rel;
	(void)size;
	return -1;
}

static void
channels_path(struct plan_entry *e)
{
	snprintf(e->path, sizeof(e->path), "ethtool %s channels %s", e->dev, e->name);
}

/* The count now, in decimal. */
static char *
channels_read(struct profile_host *h, const struct plan_entry *e, struct nm_error *err)
{
	struct ethtool_chan ch;
	char buf[16];
	int w = which_of(e->name);

	if (w < 0) {
		nm_error_set(err, NM_ERR_BAD_ARGS, "%s: not a channel count", e->path);
		return NULL;
	}
	if (chan_get(h, e->dev, &ch, err) < 0)
		return NULL;
	snprintf(buf, sizeof(buf), "%u", count_of(&ch, w, false));
	return xstrdup(buf);
}

/* Set one count in a fixture's `ethtool -l` text (its "Current" section). */
static int
fixture_set(struct profile_host *h, const struct plan_entry *e, uint32_t count,
            struct nm_error *err)
{
	static const char *const labels[] = {"RX:", "TX:", "Combined:"};
	char rel[64], text[4096], *cur, *line, *eol, *out;
	size_t n;
	int r;

	snprintf(rel, sizeof(rel), "ethtool/%s.channels", e->dev);
	if (profile_host_read(h, PROFILE_BASE_ROOT, NULL, rel, text, sizeof(text)) < 0 ||
	    (cur = strstr(text, "Current")) == NULL)
		return nm_error_set(err, NM_ERR_FAILED, "write %s: no %s", e->path, rel);
	n = strlen(labels[which_of(e->name)]);
	for (line = cur; line != NULL && strncmp(line, labels[which_of(e->name)], n) != 0;)
		line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL;
	if (line == NULL)
		return nm_error_set(err, NM_ERR_FAILED, "write %s: no %s line in %s", e->path,
		                    labels[which_of(e->name)], rel);
	eol = line + strcspn(line, "\n");
	/* The label and its blanks kept as they were. */
	out = xasprintf("%.*s%u%s", (int)(line - text + (long)n + (long)strspn(line + n, " \t")),
	                text, count, eol);
	r = profile_host_write(h, PROFILE_BASE_ROOT, NULL, rel, out);
	free(out);
	if (r < 0)
		return nm_error_set(err, NM_ERR_FAILED, "write %s: %s", e->path, strerror(errno));
	return 0;
}

/* ETHTOOL_SCHANNELS (PS_CHANNELS under privilege separation), then the queues counted
 * again: what is planned or shown next sees the device as it is now. */
static int
channels_write(struct profile_host *h, const struct plan_entry *e, const char *val,
               struct nm_error *err)
{
	int w = which_of(e->name), fd, r = -1;
	char dev[PROFILE_DEV_MAX];
	uint32_t count;
	char *end;

	errno = 0;
	count = (uint32_t)strtoul(val, &end, 10);
	if (w < 0 || *end != '\0' || count == 0 || count > CHANNELS_MAX)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "%s: \"%s\" is not a channel count",
		                    e->path, val);
	if (!h->real)
		r = fixture_set(h, e, count, err);
	else if (privsep_on()) {
		if ((r = privsep_channels(e->dev, w, count, err)) < 0)
			nm_error_set(err, NM_ERR_FAILED, "write %s %s: %s", e->path, val,
			             strerror(errno));
	} else if ((fd = profile_host_ethfd(h, err)) >= 0) {
		if ((r = ethtool_set_channel(fd, e->dev, (enum ethtool_chan_which)w, count)) < 0)
			nm_error_set(err, NM_ERR_FAILED, "write %s %s: %s", e->path, val,
			             errno == ERANGE ? "above the device's maximum"
			                             : strerror(errno));
	}
	if (r == 0 && strcmp(e->dev, h->dev) == 0) {
		snprintf(dev, sizeof(dev), "%s", h->dev);
		(void)profile_host_set_device(h, dev, NULL);
	}
	return r;
}

/* Counts compare as numbers ("08" is 8). */
static bool
channels_same(const char *name, const char *a, const char *b)
{
	(void)name;
	return strtoul(a, NULL, 10) == strtoul(b, NULL, 10);
}

const struct knob_ops knob_channels = {
    .section = "channels",
    .key = profile_channels_key,
    .check = profile_channels_check,
    .present = channels_present,
    .setting = "channels",
    .setting_ini = channels_setting_ini,
    .plan = profile_channels_plan,
    .plan_order = 1,
    .save = channels_save,
    .kind = PLAN_CHANNELS,
    .kind_name = "channels",
    .index = KNOB_INDEX_NONE,
    .on_device = true,
    .priv = KNOB_PRIV_CHANNELS,
    .file = channels_file,
    .path = channels_path,
    .read = channels_read,
    .write = channels_write,
    .same = channels_same,
    .display = knob_display_asis,
    .value_on = knob_always_on,
    .write_hint = knob_hint_default,
    .readback_hint = " (the driver chose another count)",
};
