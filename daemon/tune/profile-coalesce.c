/* profile-coalesce.c: the [coalesce] section: interrupt coalescing ("ethtool -C"), fixed
 * or adaptive.
 *
 *   adaptive-rx = off       the driver's adaptive moderation off (fixed values below)
 *   rx-usecs = 8            wait up to 8 us after a packet before the rx interrupt
 *   rx-frames = 32          or until 32 packets
 *   tx-usecs = 8
 *   tx-frames = 32
 *   adaptive-tx = off
 *
 * A latency profile lowers them (or turns adaptive off with small values); a throughput
 * one raises them. Each parameter is one entry (`ethtool DEV coalesce rx-usecs`), written
 * after [rings] and before [offloads] (plan_order 3) with ETHTOOL_SCOALESCE, the others kept, by
 * the privileged process (PS_COALESCE: device name, parameter and range checked there), and read
 * back: a driver that rounds (to its timer's tick) or ignores a parameter reads back another value,
 * a failure naming both, rolled back. A driver that takes no coalescing (veth) skips the section.
 * Under a fixture root the values are the lines of ROOT/ethtool/DEV.coalesce (`ethtool -c` text:
 * "rx-usecs: 8", "Adaptive RX: off  TX: off"); "# rounds usecs to N" makes its usecs writes round
 * up to a multiple of N. */
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

#define COAL_VALUE_MAX 999999999u
#define COAL_TEXT_MAX  4096

/* In enum ethtool_coal_param order. */
static const char *const coal_names[PROFILE_COAL_N] = {"rx-usecs",  "rx-frames",   "tx-usecs",
                                                       "tx-frames", "adaptive-rx", "adaptive-tx"};

static int
param_of(const char *name)
{
	for (int i = 0; i < PROFILE_COAL_N; i++)
		if (strcmp(name, coal_names[i]) == 0)
			return i;
	return -1;
}

static bool
is_adaptive(int i)
{
	return i == ETHTOOL_COAL_ADAPTIVE_RX || i == ETHTOOL_COAL_ADAPTIVE_TX;
}

/* Take a key of [coalesce]. */
static int
profile_coalesce_key(struct profile *p, const char *key, const char *val, struct nm_error *err)
{
	int i = param_of(key);
	enum profile_switch sw;

	if (i < 0)
		return nm_error_set(
		    err, NM_ERR_BAD_ARGS,
		    "[coalesce]: unknown key \"%s\" (rx-usecs, rx-frames, tx-usecs, "
		    "tx-frames, adaptive-rx, adaptive-tx)",
		    key);
	if (is_adaptive(i)) {
		if (profile_parse_switch("coalesce", key, val, &sw, err) < 0)
			return -1;
		p->coal[i] = sw == PROFILE_SWITCH_ON;
	} else if (profile_parse_u32("coalesce", key, val, COAL_VALUE_MAX, &p->coal[i], err) < 0)
		return -1;
	p->has_coal[i] = true;
	return 0;
}

static int
profile_coalesce_check(const struct profile *p, struct nm_error *err)
{
	(void)p;
	(void)err;
	return 0;
}

static bool
coalesce_present(const struct profile *p)
{
	for (int i = 0; i < PROFILE_COAL_N; i++)
		if (p->has_coal[i])
			return true;
	return false;
}

/* A value as an entry holds it: adaptive ones "on"/"off", the others decimal. */
static void
format_value(int i, uint32_t v, char *buf, size_t size)
{
	if (is_adaptive(i))
		snprintf(buf, size, "%s", v ? "on" : "off");
	else
		snprintf(buf, size, "%u", v);
}

/* The fixture's value of parameter i in `ethtool -c` text; false when it has none. */
static bool
fixture_value(const char *text, int i, uint32_t *v)
{
	char key[32];
	const char *p;

	if (is_adaptive(i)) {
		if ((p = strstr(text, "Adaptive RX:")) == NULL)
			return false;
		if (i == ETHTOOL_COAL_ADAPTIVE_TX && (p = strstr(p, "TX:")) == NULL)
			return false;
		p = strchr(p, ':') + 1;
		p += strspn(p, " \t");
		*v = strncmp(p, "on", 2) == 0;
		return true;
	}
	snprintf(key, sizeof(key), "\n%s:", coal_names[i]);
	if ((p = strstr(text, key)) == NULL)
		return false;
	p += strlen(key);
	p += strspn(p, " \t");
	if (*p < '0' || *p > '9')
		return false;
	*v = (uint32_t)strtoul(p, NULL, 10);
	return true;
}

/* Parameter i of dev now: the ioctl on the host, the fixture's text otherwise. */
static int
coal_get(struct profile_host *h, const char *dev, int i, uint32_t *v, struct nm_error *err)
{
	char rel[64], *text;
	int fd;
	bool ok;

	if (h->real) {
		if ((fd = profile_host_ethfd(h, err)) < 0)
			return -1;
		if (ethtool_get_coalesce(fd, dev, (enum ethtool_coal_param)i, v) == 0)
			return 0;
		return nm_error_set(err, errno == EOPNOTSUPP ? NM_ERR_UNSUPPORTED : NM_ERR_FAILED,
		                    "ethtool %s coalesce: %s", dev,
		                    errno == EOPNOTSUPP ? "the driver has no interrupt coalescing"
		                                        : strerror(errno));
	}
	snprintf(rel, sizeof(rel), "ethtool/%s.coalesce", dev);
	text = xmalloc(COAL_TEXT_MAX);
	if (profile_host_read(h, PROFILE_BASE_ROOT, NULL, rel, text, COAL_TEXT_MAX) < 0) {
		free(text);
		return nm_error_set(err, NM_ERR_UNSUPPORTED,
		                    "%s: coalescing unknown (no %s under the root)", dev, rel);
	}
	ok = fixture_value(text, i, v);
	free(text);
	if (!ok)
		return nm_error_set(err, NM_ERR_UNSUPPORTED, "%s: the driver has no %s (%s)", dev,
		                    coal_names[i], rel);
	return 0;
}

/* Plan the parameters the profile gives. */
static int
profile_coalesce_plan(const struct profile *p, struct profile_host *h, struct plan *pl,
                      struct nm_error *err)
{
	struct nm_error e;
	uint32_t v;
	char val[16];

	for (int i = 0; i < PROFILE_COAL_N; i++)
		if (p->has_coal[i] && coal_get(h, h->dev, i, &v, &e) < 0)
			return plan_cannot(pl, p, "coalesce", err, "%s", e.message);
	for (int i = 0; i < PROFILE_COAL_N; i++) {
		if (!p->has_coal[i])
			continue;
		format_value(i, p->coal[i], val, sizeof(val));
		if (plan_add(pl, h, PLAN_COALESCE, h->dev, -1, coal_names[i], val, err) == NULL)
			return -1;
	}
	return 0;
}

/* The coalescing of h's device, {"rx-usecs": 8, ..., "adaptive-rx": true} with the
 * parameters it has (new reference), or NULL when it has none. */
json_object *
profile_coalesce_json(struct profile_host *h)
{
	json_object *o = NULL;
	uint32_t v;

	for (int i = 0; i < PROFILE_COAL_N; i++) {
		if (coal_get(h, h->dev, i, &v, NULL) < 0)
			continue;
		if (o == NULL)
			o = json_object_new_object();
		json_object_object_add(o, coal_names[i],
		                       is_adaptive(i) ? json_object_new_boolean(v != 0)
		                                      : json_object_new_int64(v));
	}
	return o;
}

/* [coalesce] as saved: the parameters the device has. */
static void
coalesce_save(struct profile_host *h, struct strbuf *sb)
{
	bool any = false;
	uint32_t v;
	char val[16];

	for (int i = 0; i < PROFILE_COAL_N; i++) {
		if (coal_get(h, h->dev, i, &v, NULL) < 0)
			continue;
		if (!any)
			strbuf_addf(sb, "\n[coalesce]\n");
		any = true;
		format_value(i, v, val, sizeof(val));
		strbuf_addf(sb, "%s = %s\n", coal_names[i], val);
	}
}

static int
coalesce_file(const struct plan_entry *e, enum profile_base *base, char *rel, size_t size)
{
	(void)e;
	(void)base;
	(void)rel;
	(void)size;
	return -1;
}

static void
coalesce_path(struct plan_entry *e)
{
	snprintf(e->path, sizeof(e->path), "ethtool %s coalesce %s", e->dev, e->name);
}

static char *
coalesce_read(struct profile_host *h, const struct plan_entry *e, struct nm_error *err)
{
	int i = param_of(e->name);
	uint32_t v;
	char buf[16];

	if (i < 0) {
		nm_error_set(err, NM_ERR_BAD_ARGS, "%s: not a coalescing parameter", e->path);
		return NULL;
	}
	if (coal_get(h, e->dev, i, &v, err) < 0)
		return NULL;
	format_value(i, v, buf, sizeof(buf));
	return xstrdup(buf);
}

/* Set a parameter in a fixture's text (usecs rounded as "# rounds usecs to N" says). */
static int
fixture_set(struct profile_host *h, const struct plan_entry *e, int i, uint32_t v,
            struct nm_error *err)
{
	char rel[64], *text = xmalloc(COAL_TEXT_MAX), *p, *vstart, *vend, *out, key[32];
	int r;

	snprintf(rel, sizeof(rel), "ethtool/%s.coalesce", e->dev);
	if (profile_host_read(h, PROFILE_BASE_ROOT, NULL, rel, text, COAL_TEXT_MAX) < 0) {
		free(text);
		return nm_error_set(err, NM_ERR_FAILED, "write %s: no %s", e->path, rel);
	}
	if (!is_adaptive(i) && (p = strstr(text, "\n# rounds usecs to ")) != NULL &&
	    (i == ETHTOOL_COAL_RX_USECS || i == ETHTOOL_COAL_TX_USECS)) {
		uint32_t n = (uint32_t)strtoul(p + 19, NULL, 10);
		if (n > 0)
			v = (v + n - 1) / n * n;
	}
	if (is_adaptive(i)) {
		p = strstr(text, "Adaptive RX:");
		if (p != NULL && i == ETHTOOL_COAL_ADAPTIVE_TX)
			p = strstr(p, "TX:");
		if (p != NULL)
			p = strchr(p, ':') + 1;
	} else {
		snprintf(key, sizeof(key), "\n%s:", coal_names[i]);
		if ((p = strstr(text, key)) != NULL)
			p += strlen(key);
	}
	if (p == NULL) {
		free(text);
		return nm_error_set(err, NM_ERR_FAILED, "write %s: no such line in %s", e->path,
		                    rel);
	}
	vstart = p + strspn(p, " \t");
	vend = vstart + strcspn(vstart, " \t\n");
	if (is_adaptive(i))
		out = xasprintf("%.*s%s%s", (int)(vstart - text), text, v ? "on" : "off", vend);
	else
		out = xasprintf("%.*s%u%s", (int)(vstart - text), text, v, vend);
	r = profile_host_write(h, PROFILE_BASE_ROOT, NULL, rel, out);
	free(out);
	free(text);
	if (r < 0)
		return nm_error_set(err, NM_ERR_FAILED, "write %s: %s", e->path, strerror(errno));
	return 0;
}

/* ETHTOOL_SCOALESCE (PS_COALESCE under privilege separation). */
static int
coalesce_write(struct profile_host *h, const struct plan_entry *e, const char *val,
               struct nm_error *err)
{
	int i = param_of(e->name), fd;
	unsigned long v;
	char *end = NULL;

	if (i >= 0 && is_adaptive(i) && (strcmp(val, "on") == 0 || strcmp(val, "off") == 0))
		v = strcmp(val, "on") == 0;
	else if (i >= 0 && !is_adaptive(i)) {
		errno = 0;
		v = strtoul(val, &end, 10);
		if (end == val || *end != '\0' || v > COAL_VALUE_MAX)
			i = -1;
	} else
		i = -1;
	if (i < 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "%s: \"%s\" is not a value", e->path,
		                    val);
	if (!h->real)
		return fixture_set(h, e, i, (uint32_t)v, err);
	if (privsep_on()) {
		struct nm_error pe;
		if (privsep_coalesce(e->dev, i, (uint32_t)v, &pe) == 0)
			return 0;
		return nm_error_set(err, NM_ERR_FAILED, "write %s %s: %s", e->path, val,
		                    pe.message);
	}
	if ((fd = profile_host_ethfd(h, err)) < 0)
		return -1;
	if (ethtool_set_coalesce(fd, e->dev, (enum ethtool_coal_param)i, (uint32_t)v) < 0)
		return nm_error_set(err, NM_ERR_FAILED, "write %s %s: %s", e->path, val,
		                    strerror(errno));
	return 0;
}

const struct knob_ops knob_coalesce = {
    .section = "coalesce",
    .key = profile_coalesce_key,
    .check = profile_coalesce_check,
    .present = coalesce_present,
    .plan = profile_coalesce_plan,
    .plan_order = 3,
    .save = coalesce_save,
    .kind = PLAN_COALESCE,
    .kind_name = "coalesce",
    .index = KNOB_INDEX_NONE,
    .on_device = true,
    .priv = KNOB_PRIV_COALESCE,
    .file = coalesce_file,
    .path = coalesce_path,
    .read = coalesce_read,
    .write = coalesce_write,
    .same = knob_same_string,
    .display = knob_display_asis,
    .value_on = knob_always_on,
    .write_hint = knob_hint_default,
    .readback_hint = " (the driver rounds or ignores it: \"ethtool -c\")",
};
