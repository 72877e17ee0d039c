/* profile-napi.c: the [napi] section: how the device's NAPI instances poll, device-wide
 * (sys/class/net/DEV/gro_flush_timeout, napi_defer_hard_irqs, threaded).
 *
 *   gro_flush_timeout = 20000      ns a poll that ended with packets held in GRO waits
 *                                  (with napi_defer_hard_irqs: the hard IRQ stays masked)
 *   napi_defer_hard_irqs = 2       empty polls before the device's IRQ is unmasked again
 *   threaded = on | off            poll in a kernel thread per NAPI (napi/DEV-N) instead of
 *                                  softirq context
 *
 * Only the keys given are written; each is read back. Writing threaded needs a NAPI
 * instance: a veth has one only while GRO (or XDP) is on, so [offloads] gro = on comes
 * first. The kernel copies the device-wide values into every NAPI instance the device has
 * (and will have): per-NAPI values set through netdev netlink are overwritten. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "knob.h"
#include "profile.h"
#include "strbuf.h"
#include "xmalloc.h"

#define NAPI_VALUE_MAX 999999999u /* 9 digits: what the allow-list takes */

/* The files, in the order they are written. */
static const char *const napi_files[] = {"gro_flush_timeout", "napi_defer_hard_irqs", "threaded",
                                         NULL};

/* Take a key of [napi]. */
static int
profile_napi_key(struct profile *p, const char *key, const char *val, struct nm_error *err)
{
	enum profile_switch sw;

	if (strcmp(key, "gro_flush_timeout") == 0) {
		if (profile_parse_u32("napi", key, val, NAPI_VALUE_MAX, &p->napi.gro_flush_timeout,
		                      err) < 0)
			return -1;
		p->napi.has_gro_flush_timeout = true;
		return 0;
	}
	if (strcmp(key, "napi_defer_hard_irqs") == 0) {
		if (profile_parse_u32("napi", key, val, NAPI_VALUE_MAX, &p->napi.defer_hard_irqs,
		                      err) < 0)
			return -1;
		p->napi.has_defer_hard_irqs = true;
		return 0;
	}
	if (strcmp(key, "threaded") == 0) {
		if (profile_parse_switch("napi", key, val, &sw, err) < 0)
			return -1;
		p->napi.threaded = sw;
		return 0;
	}
	return nm_error_set(err, NM_ERR_BAD_ARGS,
	                    "[napi]: unknown key \"%s\" (gro_flush_timeout, napi_defer_hard_irqs, "
	                    "threaded)",
	                    key);
}

static bool
napi_present(const struct profile *p)
{
	return p->napi.has_gro_flush_timeout || p->napi.has_defer_hard_irqs ||
	       p->napi.threaded != PROFILE_SWITCH_UNSET;
}

/* Every key checks itself. */
static int
profile_napi_check(const struct profile *p, struct nm_error *err)
{
	(void)p;
	(void)err;
	return 0;
}

/* Plan the device's files the profile names, in napi_files order. */
static int
profile_napi_plan(const struct profile *p, struct profile_host *h, struct plan *pl,
                  struct nm_error *err)
{
	char val[16];

	if (p->napi.has_gro_flush_timeout) {
		snprintf(val, sizeof(val), "%u", p->napi.gro_flush_timeout);
		if (plan_add(pl, h, PLAN_NAPI, h->dev, -1, "gro_flush_timeout", val, err) == NULL)
			return -1;
	}
	if (p->napi.has_defer_hard_irqs) {
		snprintf(val, sizeof(val), "%u", p->napi.defer_hard_irqs);
		if (plan_add(pl, h, PLAN_NAPI, h->dev, -1, "napi_defer_hard_irqs", val, err) ==
		    NULL)
			return -1;
	}
	if (p->napi.threaded != PROFILE_SWITCH_UNSET &&
	    plan_add(pl, h, PLAN_NAPI, h->dev, -1, "threaded",
	             p->napi.threaded == PROFILE_SWITCH_ON ? "1" : "0", err) == NULL)
		return -1;
	return 0;
}

/* napi=off | ITEM,ITEM...: threaded, unthreaded, defer-N, flush-N (a word has no '='). An
 * item it does not know becomes a key [napi] refuses, naming it. */
static void
napi_setting_ini(struct strbuf *sb, const char *v)
{
	char *copy = xstrdup(v), *save = NULL;

	strbuf_addf(sb, "[napi]\n");
	if (strcmp(v, "off") == 0) {
		strbuf_addf(sb,
		            "gro_flush_timeout = 0\nnapi_defer_hard_irqs = 0\nthreaded = off\n");
		free(copy);
		return;
	}
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (strcmp(w, "threaded") == 0)
			strbuf_addf(sb, "threaded = on\n");
		else if (strcmp(w, "unthreaded") == 0)
			strbuf_addf(sb, "threaded = off\n");
		else if (strncmp(w, "defer-", 6) == 0)
			strbuf_addf(sb, "napi_defer_hard_irqs = %s\n", w + 6);
		else if (strncmp(w, "flush-", 6) == 0)
			strbuf_addf(sb, "gro_flush_timeout = %s\n", w + 6);
		else
			strbuf_addf(sb,
			            "%s = (napi=%s: not threaded, unthreaded, defer-N, flush-N "
			            "or off)\n",
			            w, w);
	}
	free(copy);
}

/* [napi] as saved: the three files as the kernel has them. */
static void
napi_save(struct profile_host *h, struct strbuf *sb)
{
	bool any = false;

	for (size_t i = 0; napi_files[i] != NULL; i++) {
		char *v = plan_read_live(h, PLAN_NAPI, -1, napi_files[i]);
		if (v == NULL)
			continue;
		if (!any)
			strbuf_addf(sb, "\n[napi]\n");
		any = true;
		if (strcmp(napi_files[i], "threaded") == 0)
			strbuf_addf(sb, "threaded = %s\n", strcmp(v, "0") == 0 ? "off" : "on");
		else
			strbuf_addf(sb, "%s = %s\n", napi_files[i], v);
		free(v);
	}
}

/* Is name one of the files? */
static bool
napi_file_known(const char *name)
{
	for (size_t i = 0; napi_files[i] != NULL; i++)
		if (strcmp(name, napi_files[i]) == 0)
			return true;
	return false;
}

/* sys/class/net/DEV/NAME. */
static int
napi_file(const struct plan_entry *e, enum profile_base *base, char *rel, size_t size)
{
	if (!napi_file_known(e->name) || profile_host_check_dev(e->dev, NULL) < 0)
		return -1;
	*base = PROFILE_BASE_NETDEV;
	snprintf(rel, size, "%s", e->name);
	return 0;
}

/* The privileged process writes exactly these three files: decimals, threaded 0 or 1. */
static int
napi_allow(const char *rel, const char *val, char *why, size_t size)
{
	const char *end;

	if (!napi_file_known(rel))
		return 0;
	if (strcmp(rel, "threaded") == 0) {
		if (strcmp(val, "0") != 0 && strcmp(val, "1") != 0)
			return snprintf(why, size, "%s: not 0 or 1", rel), -1;
		return 1;
	}
	if (!knob_allow_number(val, &end) || *end != '\0')
		return snprintf(why, size, "%s: not a decimal number", rel), -1;
	return 1;
}

/* EIO on threaded: no NAPI instance to put in a thread. */
static const char *
napi_hint(int en)
{
	if (en == EIO)
		return " (the device has no NAPI instance now: a veth has one only while GRO or "
		       "XDP "
		       "is on; give [offloads] gro = on)";
	return knob_hint_default(en);
}

const struct knob_ops knob_napi = {
    .section = "napi",
    .key = profile_napi_key,
    .check = profile_napi_check,
    .present = napi_present,
    .setting = "napi",
    .setting_ini = napi_setting_ini,
    .plan = profile_napi_plan,
    .plan_order = 6,
    .save = napi_save,
    .kind = PLAN_NAPI,
    .kind_name = "napi",
    .index = KNOB_INDEX_NONE,
    .on_device = true,
    .priv = KNOB_PRIV_WRITE,
    .base = PROFILE_BASE_NETDEV,
    .allow = napi_allow,
    .file = napi_file,
    .path = knob_file_path,
    .read = knob_file_read,
    .write = knob_file_write,
    .same = knob_same_string,
    .display = knob_display_asis,
    .value_on = knob_always_on,
    .write_hint = napi_hint,
    .readback_hint = "",
};
