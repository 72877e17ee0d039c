/* profile-arfs.c: the [arfs] section: accelerated RFS, the NIC steering flows to the CPU
 * RFS picked, through its ntuple filters (the ntuple feature, ETHTOOL_GFLAGS/SFLAGS with
 * ETH_FLAG_NTUPLE). It needs RFS: the profile must turn [rfs] on too.
 *
 *   ntuple = on | off
 *
 * Under a fixture root no ioctl touches the host: the feature is the "ntuple-filters:" line
 * of ROOT/ethtool/DEV.features (`ethtool -k` text; "[fixed]" means it cannot change), and
 * the channel counts come from ROOT/ethtool/DEV.channels (`ethtool -l` text). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "ethtool.h"
#include "jsonutil.h"
#include "privsep.h"
#include "knob.h"
#include "profile.h"
#include "strbuf.h"
#include "xmalloc.h"

#define FEATURES_MAX 16384
#define NTUPLE_LINE  "ntuple-filters:"

/* Take a key of [arfs]. */
static int
profile_arfs_key(struct profile *p, const char *key, const char *val, struct nm_error *err)
{
	if (strcmp(key, "ntuple") == 0)
		return profile_parse_switch("arfs", key, val, &p->ntuple, err);
	return nm_error_set(err, NM_ERR_BAD_ARGS, "[arfs]: unknown key \"%s\" (ntuple)", key);
}

/* ntuple on needs RFS on. */
static int
profile_arfs_check(const struct profile *p, struct nm_error *err)
{
	if (p->ntuple == PROFILE_SWITCH_ON && p->rfs != PROFILE_SWITCH_ON)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "[arfs] ntuple = on needs RFS: give [rfs] flow_cnt too");
	return 0;
}

/* Plan the ntuple feature of the device. */
static int
profile_arfs_plan(const struct profile *p, struct profile_host *h, struct plan *pl,
                  struct nm_error *err)
{
	const char *want = p->ntuple == PROFILE_SWITCH_ON ? "on" : "off";
	struct nm_error e;
	char cur[8];
	bool fixed;

	if (p->ntuple == PROFILE_SWITCH_UNSET)
		return 0;
	/* What apply would refuse, a dry run does not promise: a [fixed] feature that would
	 * have to change is a section the device cannot have. */
	if (profile_arfs_get(h, h->dev, cur, sizeof(cur), &e) < 0)
		return plan_cannot(pl, p, "arfs", err, "%s", e.message);
	if (strcmp(cur, want) != 0) {
		if (profile_arfs_fixed(h, h->dev, &fixed, &e) < 0)
			return plan_cannot(pl, p, "arfs", err, "%s", e.message);
		if (fixed)
			return plan_cannot(
			    pl, p, "arfs", err,
			    "%s cannot turn ntuple filters %s: \"ethtool -k %s\" shows "
			    "ntuple-filters: %s [fixed]",
			    h->dev, want, h->dev, cur);
	}
	if (plan_add(pl, h, PLAN_NTUPLE, h->dev, -1, NULL,
	             p->ntuple == PROFILE_SWITCH_ON ? "on" : "off", err) == NULL)
		return -1;
	return 0;
}

/* The features text of a fixture device into a new buffer (caller frees); NULL with err. */
static char *
fixture_features(struct profile_host *h, const char *dev, char *rel, size_t relsize,
                 struct nm_error *err)
{
	char *buf = xmalloc(FEATURES_MAX);

	snprintf(rel, relsize, "ethtool/%s.features", dev);
	if (profile_host_read(h, PROFILE_BASE_ROOT, NULL, rel, buf, FEATURES_MAX) < 0) {
		nm_error_set(err, NM_ERR_UNSUPPORTED,
		             "%s: ntuple feature unknown (no %s under the "
		             "root)",
		             dev, rel);
		free(buf);
		return NULL;
	}
	return buf;
}

/* The "ntuple-filters:" line of features text, or NULL. */
static char *
ntuple_line(char *text)
{
	for (char *p = text; p != NULL && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, NTUPLE_LINE, strlen(NTUPLE_LINE)) == 0)
			return p;
	return NULL;
}

/* The ntuple feature of dev: an ioctl on the host, the features text under a fixture root. */
int
profile_arfs_get(struct profile_host *h, const char *dev, char *buf, size_t size,
                 struct nm_error *err)
{
	char rel[64], *text, *line;
	bool on;
	int fd;

	if (h->real) {
		if ((fd = profile_host_ethfd(h, err)) < 0)
			return -1;
		if (ethtool_get_ntuple(fd, dev, &on) < 0)
			return nm_error_set(err, errno == ENODEV ? NM_ERR_NOT_FOUND : NM_ERR_FAILED,
			                    "ethtool %s: cannot read the ntuple feature: %s", dev,
			                    strerror(errno));
		snprintf(buf, size, "%s", on ? "on" : "off");
		return 0;
	}
	if ((text = fixture_features(h, dev, rel, sizeof(rel), err)) == NULL)
		return -1;
	if ((line = ntuple_line(text)) == NULL) {
		free(text);
		return nm_error_set(err, NM_ERR_UNSUPPORTED, "%s: no \"%s\" line in %s", dev,
		                    NTUPLE_LINE, rel);
	}
	line += strlen(NTUPLE_LINE);
	line += strspn(line, " \t");
	snprintf(buf, size, "%s", strncmp(line, "on", 2) == 0 ? "on" : "off");
	free(text);
	return 0;
}

/* Can the feature change: the ioctl on the host, "[fixed]" in a fixture's features text. */
int
profile_arfs_fixed(struct profile_host *h, const char *dev, bool *fixed, struct nm_error *err)
{
	char rel[64], *text, *line;
	int fd;

	if (h->real) {
		if ((fd = profile_host_ethfd(h, err)) < 0)
			return -1;
		if (ethtool_ntuple_fixed(fd, dev, fixed) < 0)
			return nm_error_set(err, NM_ERR_UNSUPPORTED,
			                    "ethtool %s: cannot tell whether ntuple filters can "
			                    "change: %s",
			                    dev, strerror(errno));
		return 0;
	}
	if ((text = fixture_features(h, dev, rel, sizeof(rel), err)) == NULL)
		return -1;
	if ((line = ntuple_line(text)) == NULL) {
		free(text);
		return nm_error_set(err, NM_ERR_UNSUPPORTED, "%s: no \"%s\" line in %s", dev,
		                    NTUPLE_LINE, rel);
	}
	*fixed = memmem(line, strcspn(line, "\n"), "[fixed]", 7) != NULL;
	free(text);
	return 0;
}

/* Set the feature in a fixture's features text, refusing a [fixed] one as the kernel does. */
static int
fixture_set(struct profile_host *h, const char *dev, bool on, struct nm_error *err)
{
	char rel[64], *text, *line, *eol, *out;
	int r = -1;

	if ((text = fixture_features(h, dev, rel, sizeof(rel), err)) == NULL)
		return -1;
	if ((line = ntuple_line(text)) == NULL) {
		nm_error_set(err, NM_ERR_UNSUPPORTED, "%s: no \"%s\" line in %s", dev, NTUPLE_LINE,
		             rel);
		goto out;
	}
	eol = line + strcspn(line, "\n");
	if (memmem(line, (size_t)(eol - line), "[fixed]", 7) != NULL) {
		errno = EOPNOTSUPP;
		goto fail;
	}
	out =
	    xasprintf("%.*s%s %s%s", (int)(line - text), text, NTUPLE_LINE, on ? "on" : "off", eol);
	r = profile_host_write(h, PROFILE_BASE_ROOT, NULL, rel, out);
	free(out);
	if (r == 0)
		goto out;
fail:
	nm_error_set(err, NM_ERR_FAILED, "write ethtool %s ntuple %s: %s%s", dev, on ? "on" : "off",
	             strerror(errno),
	             errno == EOPNOTSUPP ? " (the device cannot change ntuple filters: \"ethtool "
	                                   "-k\" shows ntuple-filters [fixed])"
	                                 : "");
	r = -1;
out:
	free(text);
	return r;
}

/* Turn the ntuple feature on or off (ETHTOOL_SFLAGS on the host). */
int
profile_arfs_set(struct profile_host *h, const char *dev, bool on, struct nm_error *err)
{
	int fd;

	if (!h->real)
		return fixture_set(h, dev, on, err);
	if (privsep_on()) {
		/* The privileged process sets it (privsep.h); errno says why it did not. */
		if (privsep_ntuple(dev, on, err) == 0)
			return 0;
	} else if ((fd = profile_host_ethfd(h, err)) < 0)
		return -1;
	else if (ethtool_set_ntuple(fd, dev, on) == 0)
		return 0;
	return nm_error_set(err, NM_ERR_FAILED, "write ethtool %s ntuple %s: %s%s", dev,
	                    on ? "on" : "off", strerror(errno),
	                    errno == EOPNOTSUPP ? " (the driver cannot change ntuple filters: "
	                                          "\"ethtool -k\" shows ntuple-filters [fixed])"
	                                        : "");
}

/* A count of `ethtool -l` text: a number, or 0 for "n/a". */
static uint32_t
chan_value(const char *s)
{
	s += strspn(s, " \t");
	return (uint32_t)strtoul(s, NULL, 10);
}

/* Parse `ethtool -l` text into ch; false when it has no "Current" section. */
static bool
parse_channels(char *text, struct ethtool_chan *ch)
{
	static const char *const keys[] = {"RX:", "TX:", "Other:", "Combined:"};
	uint32_t *cur[] = {&ch->rx, &ch->tx, &ch->other, &ch->combined};
	uint32_t *max[] = {&ch->max_rx, &ch->max_tx, &ch->max_other, &ch->max_combined};
	bool current = false, seen = false;
	char *save = NULL;

	memset(ch, 0, sizeof(*ch));
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (strncmp(l, "Current", 7) == 0) {
			current = seen = true;
			continue;
		}
		for (size_t i = 0; i < 4; i++)
			if (strncmp(l, keys[i], strlen(keys[i])) == 0)
				*(current ? cur[i] : max[i]) = chan_value(l + strlen(keys[i]));
	}
	return seen;
}

/* The channel counts of dev as JSON, or NULL when unknown. */
json_object *
profile_arfs_channels(struct profile_host *h, const char *dev)
{
	struct ethtool_chan ch;
	json_object *o;
	char rel[64], text[4096];
	int fd;

	if (h->real) {
		if ((fd = profile_host_ethfd(h, NULL)) < 0 ||
		    ethtool_get_channels(fd, dev, &ch) < 0)
			return NULL;
	} else {
		snprintf(rel, sizeof(rel), "ethtool/%s.channels", dev);
		if (profile_host_read(h, PROFILE_BASE_ROOT, NULL, rel, text, sizeof(text)) < 0 ||
		    !parse_channels(text, &ch))
			return NULL;
	}
	o = json_object_new_object();
	json_add_uint(o, "rx", ch.rx);
	json_add_uint(o, "tx", ch.tx);
	json_add_uint(o, "other", ch.other);
	json_add_uint(o, "combined", ch.combined);
	json_add_uint(o, "max_rx", ch.max_rx);
	json_add_uint(o, "max_tx", ch.max_tx);
	json_add_uint(o, "max_other", ch.max_other);
	json_add_uint(o, "max_combined", ch.max_combined);
	return o;
}

/* ntuple=on|off. */
static void
arfs_setting_ini(struct strbuf *sb, const char *v)
{
	strbuf_addf(sb, "[arfs]\nntuple = %s\n", v);
}

static bool
arfs_present(const struct profile *p)
{
	return p->ntuple != PROFILE_SWITCH_UNSET;
}

/* [arfs] as saved: the ntuple feature (on without RFS: only a comment). */
static void
arfs_save(struct profile_host *h, struct strbuf *sb)
{
	unsigned long long max, min;
	unsigned seen;
	char *nt;

	if ((nt = plan_read_live(h, PLAN_NTUPLE, -1, NULL)) == NULL)
		return;
	profile_rfs_counts(h, &seen, &min, &max);
	if (strcmp(nt, "on") == 0 && (seen == 0 || max == 0))
		strbuf_addf(sb, "\n# ntuple filters were on, without RFS\n");
	else
		strbuf_addf(sb, "\n[arfs]\nntuple = %s\n", nt);
	free(nt);
}

/* A feature, not a file. */
static int
arfs_file(const struct plan_entry *e, enum profile_base *base, char *rel, size_t size)
{
	(void)e;
	(void)base;
	(void)rel;
	(void)size;
	return -1;
}

static void
arfs_path(struct plan_entry *e)
{
	snprintf(e->path, sizeof(e->path), "ethtool %s ntuple", e->dev);
}

/* "on" or "off", as ethtool -k says. */
static char *
arfs_read(struct profile_host *h, const struct plan_entry *e, struct nm_error *err)
{
	char v[8];

	if (profile_arfs_get(h, e->dev, v, sizeof(v), err) < 0)
		return NULL;
	return xstrdup(v);
}

/* ETHTOOL_SFLAGS (PS_NTUPLE under privilege separation). */
static int
arfs_write(struct profile_host *h, const struct plan_entry *e, const char *val,
           struct nm_error *err)
{
	return profile_arfs_set(h, e->dev, strcmp(val, "on") == 0, err);
}

const struct knob_ops knob_arfs = {
    .section = "arfs",
    .key = profile_arfs_key,
    .check = profile_arfs_check,
    .present = arfs_present,
    .setting = "ntuple",
    .setting_ini = arfs_setting_ini,
    .plan = profile_arfs_plan,
    .plan_order = 60,
    .save = arfs_save,
    .kind = PLAN_NTUPLE,
    .kind_name = "ntuple",
    .index = KNOB_INDEX_NONE,
    .on_device = true,
    .priv = KNOB_PRIV_NTUPLE,
    .file = arfs_file,
    .path = arfs_path,
    .read = arfs_read,
    .write = arfs_write,
    .same = knob_same_string,
    .display = knob_display_asis,
    .value_on = knob_always_on,
    .write_hint = knob_hint_default,
    .readback_hint = "",
};
