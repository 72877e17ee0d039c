/* profile-offloads.c: the [offloads] section: the device's ethtool features ("ethtool -K"),
 * each by its kernel name or one of the short names ethtool takes.
 *
 *   gro = on                  rx-gro (generic-receive-offload)
 *   lro = off                 rx-lro (large-receive-offload)
 *   tso = on                  tx-tcp-segmentation (this bit alone: ethtool's "tso" also
 *                             sets tx-tcp6-segmentation and the ECN/mangleid variants;
 *                             name those to change them)
 *   gso = on                  tx-generic-segmentation
 *   rx-gro-hw = off           any other feature by its kernel name ("ethtool -k" shows
 *   rx-gro-list = on          it so when it has no old alias)
 *
 * A feature the device does not have refuses the profile; one that cannot change ("[fixed]"
 * in "ethtool -k") and would have to is a section the device cannot have (skipped, refused
 * with strict = yes). Every write is read back: the kernel turns a feature on only when the
 * driver and the features it depends on let it (rx-gro-hw needs rx-gro; a feature another
 * one forces), and what it then reports is what counts: a difference is a failure naming
 * both values, and everything written before it rolls back.
 *
 * On the host the features are read with ETHTOOL_GFEATURES and written by the privileged
 * process (PS_FEATURE: ETHTOOL_SFEATURES, checked there: the device exists, the feature is
 * known and changeable). Under a fixture root no ioctl touches the host: the feature is the
 * line of ROOT/ethtool/DEV.features (`ethtool -k` text) named by its kernel name or its old
 * alias ("generic-receive-offload"); "[fixed]" means it cannot change. */
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

#define FEATURES_MAX 16384

/* Short names and the kernel's. */
static const struct {
	const char *word, *kernel;
} aliases[] = {
    {"gro", "rx-gro"},
    {"lro", "rx-lro"},
    {"tso", "tx-tcp-segmentation"},
    {"gso", "tx-generic-segmentation"},
    {"generic-receive-offload", "rx-gro"},
    {"large-receive-offload", "rx-lro"},
    {"generic-segmentation-offload", "tx-generic-segmentation"},
};

/* The kernel's features `ethtool -k` names otherwise (a fixture's lines). */
static const struct {
	const char *kernel, *ethtool;
} legacy[] = {
    {"rx-gro", "generic-receive-offload"},
    {"rx-lro", "large-receive-offload"},
    {"tx-generic-segmentation", "generic-segmentation-offload"},
    {"rx-ntuple-filter", "ntuple-filters"},
    {"rx-hashing", "receive-hashing"},
    {"rx-checksum", "rx-checksumming"},
    {"rx-vlan-hw-parse", "rx-vlan-offload"},
    {"tx-vlan-hw-insert", "tx-vlan-offload"},
};

/* What profile save and profile show report: the features a tuning guide changes. */
static const char *const reported[] = {
    "rx-gro",    "rx-lro",      "tx-tcp-segmentation",   "tx-generic-segmentation",
    "rx-gro-hw", "rx-gro-list", "rx-udp-gro-forwarding", NULL};

/* The kernel name of a key ("gro" -> "rx-gro"), or the key. */
static const char *
kernel_name(const char *key)
{
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(key, aliases[i].word) == 0)
			return aliases[i].kernel;
	return key;
}

/* A feature name as the kernel spells them: 1-31 bytes of [a-z0-9-], not starting '-'. */
static bool
name_ok(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n < 32 && s[0] != '-' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

/* Take a key of [offloads]: FEATURE = on|off. */
static int
profile_offloads_key(struct profile *p, const char *key, const char *val, struct nm_error *err)
{
	const char *name = kernel_name(key);
	enum profile_switch sw;
	size_t i;

	if (!name_ok(name))
		return nm_error_set(
		    err, NM_ERR_BAD_ARGS,
		    "[offloads] \"%s\": not a feature name (gro, lro, tso, gso, or a "
		    "kernel name as \"ethtool -k\" shows it: rx-gro-hw)",
		    key);
	if (profile_parse_switch("offloads", key, val, &sw, err) < 0)
		return -1;
	for (i = 0; i < p->noffloads; i++)
		if (strcmp(p->offloads[i].name, name) == 0)
			break;
	if (i == p->noffloads) {
		if (p->noffloads == PROFILE_MAX_OFFLOADS)
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "[offloads]: more than %d features",
			                    PROFILE_MAX_OFFLOADS);
		p->offloads = xreallocarray(p->offloads, p->noffloads + 1, sizeof(*p->offloads));
		p->noffloads++;
	}
	snprintf(p->offloads[i].name, sizeof(p->offloads[i].name), "%s", name);
	p->offloads[i].on = sw == PROFILE_SWITCH_ON;
	return 0;
}

static int
profile_offloads_check(const struct profile *p, struct nm_error *err)
{
	(void)p;
	(void)err;
	return 0;
}

static bool
offloads_present(const struct profile *p)
{
	return p->noffloads > 0;
}

static void
offloads_release(struct profile *p)
{
	free(p->offloads);
}

/* The line of feature name in fixture text (its kernel name or old alias), or NULL; *len
 * gets the label's length. */
static char *
fixture_line(char *text, const char *name, size_t *len)
{
	const char *labels[2] = {name, NULL};

	for (size_t i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++)
		if (strcmp(legacy[i].kernel, name) == 0)
			labels[1] = legacy[i].ethtool;
	for (char *p = text; p != NULL && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		char *q = p + strspn(p, " \t");
		for (size_t k = 0; k < 2 && labels[k]; k++) {
			size_t n = strlen(labels[k]);
			if (strncmp(q, labels[k], n) == 0 && q[n] == ':') {
				*len = (size_t)(q - p) + n + 1;
				return p;
			}
		}
	}
	return NULL;
}

/* A feature of dev: the ioctl on the host, the fixture's features text otherwise. 0 with
 * *f; -1 with err (NM_ERR_NOT_FOUND: the device has no such feature). */
static int
feature_get(struct profile_host *h, const char *dev, const char *name, struct ethtool_feature *f,
            struct nm_error *err)
{
	char rel[64], *text, *line;
	size_t len;
	int fd;

	if (h->real) {
		if ((fd = profile_host_ethfd(h, err)) < 0)
			return -1;
		if (ethtool_get_feature(fd, dev, name, f) == 0)
			return 0;
		return nm_error_set(err, errno == ENOENT ? NM_ERR_NOT_FOUND : NM_ERR_FAILED,
		                    "ethtool %s %s: %s", dev, name,
		                    errno == ENOENT
		                        ? "the device has no such feature (\"ethtool -k\" "
		                          "lists them)"
		                        : strerror(errno));
	}
	snprintf(rel, sizeof(rel), "ethtool/%s.features", dev);
	text = xmalloc(FEATURES_MAX);
	if (profile_host_read(h, PROFILE_BASE_ROOT, NULL, rel, text, FEATURES_MAX) < 0) {
		free(text);
		return nm_error_set(err, NM_ERR_UNSUPPORTED,
		                    "%s: features unknown (no %s under the root)", dev, rel);
	}
	if ((line = fixture_line(text, name, &len)) == NULL) {
		free(text);
		return nm_error_set(err, NM_ERR_NOT_FOUND,
		                    "ethtool %s %s: the device has no such feature (no line in %s)",
		                    dev, name, rel);
	}
	line += len;
	line += strspn(line, " \t");
	f->active = f->requested = strncmp(line, "on", 2) == 0;
	f->changeable = memmem(line, strcspn(line, "\n"), "[fixed]", 7) == NULL;
	free(text);
	return 0;
}

/* Set a feature in a fixture's features text, refusing a [fixed] one as the kernel does. */
static int
fixture_set(struct profile_host *h, const char *dev, const char *name, bool on,
            struct nm_error *err)
{
	char rel[64], *text = xmalloc(FEATURES_MAX), *line, *eol, *out;
	size_t len;
	int r;

	snprintf(rel, sizeof(rel), "ethtool/%s.features", dev);
	if (profile_host_read(h, PROFILE_BASE_ROOT, NULL, rel, text, FEATURES_MAX) < 0 ||
	    (line = fixture_line(text, name, &len)) == NULL) {
		free(text);
		return nm_error_set(err, NM_ERR_FAILED,
		                    "write ethtool %s %s: no such feature in %s", dev, name, rel);
	}
	eol = line + strcspn(line, "\n");
	if (memmem(line, (size_t)(eol - line), "[fixed]", 7) != NULL) {
		free(text);
		return nm_error_set(err, NM_ERR_FAILED,
		                    "write ethtool %s %s %s: the feature is [fixed]", dev, name,
		                    on ? "on" : "off");
	}
	out = xasprintf("%.*s %s%s", (int)(line - text + (long)len), text, on ? "on" : "off", eol);
	r = profile_host_write(h, PROFILE_BASE_ROOT, NULL, rel, out);
	free(out);
	free(text);
	if (r < 0)
		return nm_error_set(err, NM_ERR_FAILED, "write ethtool %s %s: %s", dev, name,
		                    strerror(errno));
	return 0;
}

/* Plan every feature the profile names: known on the device; a [fixed] one that would
 * change makes the section one the device cannot have. */
static int
profile_offloads_plan(const struct profile *p, struct profile_host *h, struct plan *pl,
                      struct nm_error *err)
{
	struct ethtool_feature f;

	/* All checked before any is planned: a skipped section plans nothing. */
	for (size_t i = 0; i < p->noffloads; i++) {
		if (feature_get(h, h->dev, p->offloads[i].name, &f, err) < 0)
			return -1;
		if (!f.changeable && f.active != p->offloads[i].on)
			return plan_cannot(pl, p, "offloads", err,
			                   "%s cannot turn %s %s: \"ethtool -k %s\" shows it %s "
			                   "[fixed]",
			                   h->dev, p->offloads[i].name,
			                   p->offloads[i].on ? "on" : "off", h->dev,
			                   f.active ? "on" : "off");
	}
	for (size_t i = 0; i < p->noffloads; i++)
		if (plan_add(pl, h, PLAN_OFFLOAD, h->dev, -1, p->offloads[i].name,
		             p->offloads[i].on ? "on" : "off", err) == NULL)
			return -1;
	return 0;
}

/* offloads=ITEM,ITEM...: FEATURE turns it on, no-FEATURE off ("gro,no-lro,rx-gro-hw"). */
static void
offloads_setting_ini(struct strbuf *sb, const char *v)
{
	char *copy = xstrdup(v), *save = NULL;

	strbuf_addf(sb, "[offloads]\n");
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (strncmp(w, "no-", 3) == 0)
			strbuf_addf(sb, "%s = off\n", w + 3);
		else
			strbuf_addf(sb, "%s = on\n", w);
	}
	free(copy);
}

/* The state of every reported feature the device has, as "name on|off[ fixed]" JSON (new
 * reference; {} when it says none). */
json_object *
profile_offloads_json(struct profile_host *h)
{
	json_object *o = json_object_new_object();
	struct ethtool_feature f;

	for (size_t i = 0; reported[i] != NULL; i++) {
		json_object *v;
		if (feature_get(h, h->dev, reported[i], &f, NULL) < 0)
			continue;
		v = json_object_new_object();
		json_object_object_add(v, "on", json_object_new_boolean(f.active));
		json_object_object_add(v, "fixed", json_object_new_boolean(!f.changeable));
		json_object_object_add(o, reported[i], v);
	}
	return o;
}

/* [offloads] as saved: the reported features that can change. */
static void
offloads_save(struct profile_host *h, struct strbuf *sb)
{
	struct ethtool_feature f;
	bool any = false;

	for (size_t i = 0; reported[i] != NULL; i++) {
		if (feature_get(h, h->dev, reported[i], &f, NULL) < 0 || !f.changeable)
			continue;
		if (!any)
			strbuf_addf(sb, "\n[offloads]\n");
		any = true;
		strbuf_addf(sb, "%s = %s\n", reported[i], f.active ? "on" : "off");
	}
}

/* A feature, not a file. */
static int
offloads_file(const struct plan_entry *e, enum profile_base *base, char *rel, size_t size)
{
	(void)e;
	(void)base;
	(void)rel;
	(void)size;
	return -1;
}

static void
offloads_path(struct plan_entry *e)
{
	snprintf(e->path, sizeof(e->path), "ethtool %s %s", e->dev, e->name);
}

/* "on" or "off": what the device does now (active), and, as "ethtool -k" says it, what was
 * asked for when that differs ("off [requested on]": a feature another one forces off), so
 * that a rollback or revert puts the request back too. */
static char *
offloads_read(struct profile_host *h, const struct plan_entry *e, struct nm_error *err)
{
	struct ethtool_feature f;
	char buf[32];

	if (!name_ok(e->name)) {
		nm_error_set(err, NM_ERR_BAD_ARGS, "%s: not a feature name", e->path);
		return NULL;
	}
	if (feature_get(h, e->dev, e->name, &f, err) < 0)
		return NULL;
	snprintf(buf, sizeof(buf), "%s%s", f.active ? "on" : "off",
	         f.requested == f.active ? ""
	         : f.requested           ? " [requested on]"
	                                 : " [requested off]");
	return xstrdup(buf);
}

/* ETHTOOL_SFEATURES (PS_FEATURE under privilege separation). */
static int
offloads_write(struct profile_host *h, const struct plan_entry *e, const char *val,
               struct nm_error *err)
{
	/* A value read with its request ("off [requested on]") asks for the request again. */
	bool on = strstr(val, "[requested on]") != NULL ||
	          (strstr(val, "[requested off]") == NULL && strncmp(val, "on", 2) == 0);
	int fd;

	if (!name_ok(e->name))
		return nm_error_set(err, NM_ERR_BAD_ARGS, "%s: not a feature name", e->path);
	if (!h->real)
		return fixture_set(h, e->dev, e->name, on, err);
	if (privsep_on()) {
		if (privsep_feature(e->dev, e->name, on, err) == 0)
			return 0;
	} else if ((fd = profile_host_ethfd(h, err)) < 0)
		return -1;
	else if (ethtool_set_feature(fd, e->dev, e->name, on) == 0)
		return 0;
	return nm_error_set(err, NM_ERR_FAILED, "write %s %s: %s%s", e->path, val, strerror(errno),
	                    errno == EOPNOTSUPP ? " (\"ethtool -k\" shows it [fixed])" : "");
}

const struct knob_ops knob_offloads = {
    .section = "offloads",
    .key = profile_offloads_key,
    .check = profile_offloads_check,
    .present = offloads_present,
    .release = offloads_release,
    .setting = "offloads",
    .setting_ini = offloads_setting_ini,
    .plan = profile_offloads_plan,
    .plan_order = 4,
    .save = offloads_save,
    .kind = PLAN_OFFLOAD,
    .kind_name = "offload",
    .index = KNOB_INDEX_NONE,
    .on_device = true,
    .priv = KNOB_PRIV_FEATURE,
    .file = offloads_file,
    .path = offloads_path,
    .read = offloads_read,
    .write = offloads_write,
    .same = knob_same_string,
    .display = knob_display_asis,
    .value_on = knob_always_on,
    .write_hint = knob_hint_default,
    .readback_hint = " (the driver or a feature it depends on decides: \"ethtool -k\")",
};
