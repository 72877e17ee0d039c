/* profile-rings.c: the [rings] section: the rx and tx ring sizes, in descriptors ("ethtool
 * -G").
 *
 *   rx = 4096
 *   tx = 1024
 *
 * Written after [channels] and before everything else (plan_order 2): most drivers tear
 * the device's queues down and build them again to resize rings (the link goes down for a
 * moment), which the dry run says. Each size is one entry, written with
 * ETHTOOL_SRINGPARAM, the other kept, by the privileged process (PS_RINGS: the device name
 * and 1 to the maximum checked there) and read back: a driver that rounds the size (to a
 * power of two, a multiple of its descriptor block) reads back another value, which is a
 * failure naming both, rolled back. Under a fixture root the sizes are the "Current
 * hardware settings" of ROOT/ethtool/DEV.rings (`ethtool -g` text); a fixture line
 * "# rounds to N" makes its writes round up to a multiple of N, as such a driver does. */
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

#define RING_MAX 65536u

static const char *const ring_names[] = {"rx", "tx"};

static int
which_of(const char *name)
{
	return strcmp(name, "rx") == 0 ? 0 : strcmp(name, "tx") == 0 ? 1 : -1;
}

/* Take a key of [rings]. */
static int
profile_rings_key(struct profile *p, const char *key, const char *val, struct nm_error *err)
{
	int w = which_of(key);

	if (w < 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "[rings]: unknown key \"%s\" (rx, tx)",
		                    key);
	if (profile_parse_u32("rings", key, val, RING_MAX, &p->rings[w], err) < 0)
		return -1;
	if (p->rings[w] == 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "[rings] %s: at least 1", key);
	return 0;
}

static int
profile_rings_check(const struct profile *p, struct nm_error *err)
{
	(void)p;
	(void)err;
	return 0;
}

static bool
rings_present(const struct profile *p)
{
	return p->rings[0] || p->rings[1];
}

/* Parse `ethtool -g` text; the rounding of a fixture ("# rounds to N"), 1 without. */
static bool
parse_text(char *text, struct ethtool_ring *r, uint32_t *round)
{
	bool current = false;
	char *save = NULL;

	memset(r, 0, sizeof(*r));
	*round = 1;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (strncmp(l, "Current", 7) == 0)
			current = true;
		else if (strncmp(l, "# rounds to ", 12) == 0)
			*round = (uint32_t)strtoul(l + 12, NULL, 10);
		else if (strncmp(l, "RX:", 3) == 0)
			*(current ? &r->rx : &r->max_rx) = (uint32_t)strtoul(l + 3, NULL, 10);
		else if (strncmp(l, "TX:", 3) == 0)
			*(current ? &r->tx : &r->max_tx) = (uint32_t)strtoul(l + 3, NULL, 10);
	}
	if (*round == 0)
		*round = 1;
	return current;
}

/* The ring sizes of dev: the ioctl on the host, the fixture's text otherwise. */
static int
rings_get(struct profile_host *h, const char *dev, struct ethtool_ring *r, uint32_t *round,
          struct nm_error *err)
{
	char rel[64], text[4096];
	int fd;

	*round = 1;
	if (h->real) {
		if ((fd = profile_host_ethfd(h, err)) < 0)
			return -1;
		if (ethtool_get_rings(fd, dev, r) == 0)
			return 0;
		return nm_error_set(err, errno == EOPNOTSUPP ? NM_ERR_UNSUPPORTED : NM_ERR_FAILED,
		                    "ethtool %s rings: %s", dev,
		                    errno == EOPNOTSUPP ? "the driver has no ring sizes"
		                                        : strerror(errno));
	}
	snprintf(rel, sizeof(rel), "ethtool/%s.rings", dev);
	if (profile_host_read(h, PROFILE_BASE_ROOT, NULL, rel, text, sizeof(text)) < 0 ||
	    !parse_text(text, r, round))
		return nm_error_set(err, NM_ERR_UNSUPPORTED,
		                    "%s: ring sizes unknown (no %s under the root)", dev, rel);
	return 0;
}

/* Plan the sizes the profile gives, checked against the maxima. */
static int
profile_rings_plan(const struct profile *p, struct profile_host *h, struct plan *pl,
                   struct nm_error *err)
{
	struct ethtool_ring r;
	struct nm_error e;
	uint32_t round;
	bool changes = false;
	char val[16];

	if (!rings_present(p))
		return 0;
	if (rings_get(h, h->dev, &r, &round, &e) < 0)
		return plan_cannot(pl, p, "rings", err, "%s", e.message);
	for (int w = 0; w < 2; w++) {
		uint32_t max = w ? r.max_tx : r.max_rx, cur = w ? r.tx : r.rx;
		if (p->rings[w] == 0)
			continue;
		if (max == 0 && p->rings[w] != cur)
			return plan_cannot(
			    pl, p, "rings", err,
			    "%s has no %s ring size it can change (\"ethtool -g %s\")", h->dev,
			    ring_names[w], h->dev);
		if (p->rings[w] > max)
			return nm_error_set(
			    err, NM_ERR_BAD_ARGS,
			    "[rings] %s = %u: %s has at most %u (\"ethtool -g %s\")", ring_names[w],
			    p->rings[w], h->dev, max, h->dev);
		changes = changes || p->rings[w] != cur;
	}
	for (int w = 0; w < 2; w++) {
		if (p->rings[w] == 0)
			continue;
		snprintf(val, sizeof(val), "%u", p->rings[w]);
		if (plan_add(pl, h, PLAN_RINGS, h->dev, -1, ring_names[w], val, err) == NULL)
			return -1;
	}
	if (changes)
		plan_warn(pl,
		          "resizing %s's rings makes most drivers reset the device: its link goes "
		          "down for a moment",
		          h->dev);
	return 0;
}

/* The ring sizes of h's device as JSON {rx, tx, max_rx, max_tx} (new reference), or NULL
 * when the driver does not say. */
json_object *
profile_rings_json(struct profile_host *h)
{
	struct ethtool_ring r;
	json_object *o;
	uint32_t round;

	if (rings_get(h, h->dev, &r, &round, NULL) < 0)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "rx", json_object_new_int64(r.rx));
	json_object_object_add(o, "tx", json_object_new_int64(r.tx));
	json_object_object_add(o, "max_rx", json_object_new_int64(r.max_rx));
	json_object_object_add(o, "max_tx", json_object_new_int64(r.max_tx));
	return o;
}

/* rings=N (both) | rxN-txN. */
static void
rings_setting_ini(struct strbuf *sb, const char *v)
{
	unsigned rx, tx;

	strbuf_addf(sb, "[rings]\n");
	if (sscanf(v, "rx%u-tx%u", &rx, &tx) == 2)
		strbuf_addf(sb, "rx = %u\ntx = %u\n", rx, tx);
	else
		strbuf_addf(sb, "rx = %s\ntx = %s\n", v, v);
}

/* [rings] as saved: the sizes the device can change. */
static void
rings_save(struct profile_host *h, struct strbuf *sb)
{
	struct ethtool_ring r;
	uint32_t round;
	bool any = false;

	if (rings_get(h, h->dev, &r, &round, NULL) < 0)
		return;
	for (int w = 0; w < 2; w++) {
		if ((w ? r.max_tx : r.max_rx) == 0)
			continue;
		if (!any)
			strbuf_addf(sb, "\n[rings]\n");
		any = true;
		strbuf_addf(sb, "%s = %u\n", ring_names[w], w ? r.tx : r.rx);
	}
}

static int
rings_file(const struct plan_entry *e, enum profile_base *base, char *rel, size_t size)
{
	(void)e;
	(void)base;
	(void)rel;
	(void)size;
	return -1;
}

static void
rings_path(struct plan_entry *e)
{
	snprintf(e->path, sizeof(e->path), "ethtool %s rings %s", e->dev, e->name);
}

static char *
rings_read(struct profile_host *h, const struct plan_entry *e, struct nm_error *err)
{
	struct ethtool_ring r;
	uint32_t round;
	char buf[16];
	int w = which_of(e->name);

	if (w < 0) {
		nm_error_set(err, NM_ERR_BAD_ARGS, "%s: not a ring", e->path);
		return NULL;
	}
	if (rings_get(h, e->dev, &r, &round, err) < 0)
		return NULL;
	snprintf(buf, sizeof(buf), "%u", w ? r.tx : r.rx);
	return xstrdup(buf);
}

/* Set one size in a fixture's `ethtool -g` text (its "Current" section), rounded up as its
 * "# rounds to N" line says. */
static int
fixture_set(struct profile_host *h, const struct plan_entry *e, uint32_t size, struct nm_error *err)
{
	char rel[64], text[4096], copy[4096], *cur, *line, *eol, *out;
	const char *label = which_of(e->name) ? "TX:" : "RX:";
	struct ethtool_ring r;
	uint32_t round;
	int res;

	snprintf(rel, sizeof(rel), "ethtool/%s.rings", e->dev);
	if (profile_host_read(h, PROFILE_BASE_ROOT, NULL, rel, text, sizeof(text)) < 0 ||
	    (cur = strstr(text, "Current")) == NULL)
		return nm_error_set(err, NM_ERR_FAILED, "write %s: no %s", e->path, rel);
	memcpy(copy, text, sizeof(copy));
	parse_text(copy, &r, &round);
	size = (size + round - 1) / round * round;
	for (line = cur; line != NULL && strncmp(line, label, 3) != 0;)
		line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL;
	if (line == NULL)
		return nm_error_set(err, NM_ERR_FAILED, "write %s: no %s line in %s", e->path,
		                    label, rel);
	eol = line + strcspn(line, "\n");
	/* The label and its blanks kept as they were. */
	out = xasprintf("%.*s%u%s", (int)(line - text + 3 + (long)strspn(line + 3, " \t")), text,
	                size, eol);
	res = profile_host_write(h, PROFILE_BASE_ROOT, NULL, rel, out);
	free(out);
	if (res < 0)
		return nm_error_set(err, NM_ERR_FAILED, "write %s: %s", e->path, strerror(errno));
	return 0;
}

/* ETHTOOL_SRINGPARAM (PS_RINGS under privilege separation). */
static int
rings_write(struct profile_host *h, const struct plan_entry *e, const char *val,
            struct nm_error *err)
{
	int w = which_of(e->name), fd;
	unsigned long size;
	char *end;

	errno = 0;
	size = strtoul(val, &end, 10);
	if (w < 0 || *end != '\0' || end == val || size == 0 || size > RING_MAX)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "%s: \"%s\" is not a ring size", e->path,
		                    val);
	if (!h->real)
		return fixture_set(h, e, (uint32_t)size, err);
	if (privsep_on()) {
		struct nm_error pe;
		if (privsep_rings(e->dev, w == 1, (uint32_t)size, &pe) == 0)
			return 0;
		return nm_error_set(err, NM_ERR_FAILED, "write %s %s: %s", e->path, val,
		                    pe.message);
	}
	if ((fd = profile_host_ethfd(h, err)) < 0)
		return -1;
	if (ethtool_set_ring(fd, e->dev, w == 1, (uint32_t)size) < 0)
		return nm_error_set(err, NM_ERR_FAILED, "write %s %s: %s", e->path, val,
		                    errno == ERANGE ? "above the device's maximum"
		                                    : strerror(errno));
	return 0;
}

/* Sizes compare as numbers. */
static bool
rings_same(const char *name, const char *a, const char *b)
{
	(void)name;
	return strtoul(a, NULL, 10) == strtoul(b, NULL, 10);
}

const struct knob_ops knob_rings = {
    .section = "rings",
    .key = profile_rings_key,
    .check = profile_rings_check,
    .present = rings_present,
    .setting = "rings",
    .setting_ini = rings_setting_ini,
    .plan = profile_rings_plan,
    .plan_order = 2,
    .save = rings_save,
    .kind = PLAN_RINGS,
    .kind_name = "rings",
    .index = KNOB_INDEX_NONE,
    .on_device = true,
    .priv = KNOB_PRIV_RINGS,
    .file = rings_file,
    .path = rings_path,
    .read = rings_read,
    .write = rings_write,
    .same = rings_same,
    .display = knob_display_asis,
    .value_on = knob_always_on,
    .write_hint = knob_hint_default,
    .readback_hint = " (the driver rounds ring sizes: give one it takes as is)",
};
