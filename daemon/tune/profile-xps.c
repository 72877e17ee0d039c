/* profile-xps.c: the [xps] section: which CPUs transmit on which tx queue
 * (queues/tx-N/xps_cpus, a hex mask in 32-bit comma groups).
 *
 *   policy = one-to-one  tx-i -> the i-th CPU of cpus, wrapping
 *   policy = none        every tx queue's mask emptied (the kernel picks by hash)
 *   policy = explicit    only the queues named below
 *   cpus = 0-143 | all | local
 *   tx-N = LIST|MASK     tx queue N (with any policy: overrides it for N)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "knob.h"
#include "profile.h"
#include "strbuf.h"

extern const struct knob_ops knob_xps;

/* Take a key of [xps]. */
static int
profile_xps_key(struct profile *p, const char *key, const char *val, struct nm_error *err)
{
	static const char *const names[] = {"one-to-one", "none", "explicit", NULL};
	static const enum profile_policy values[] = {PROFILE_POLICY_ONE_TO_ONE, PROFILE_POLICY_NONE,
	                                             PROFILE_POLICY_EXPLICIT};

	return profile_knob_key(&p->xps, "xps", "tx-", names, values, key, val, err);
}

/* Check [xps] once all its keys are read. */
static int
profile_xps_check(const struct profile *p, struct nm_error *err)
{
	const struct profile_knob *k = &p->xps;

	if (!k->present)
		return 0;
	if (k->policy == PROFILE_POLICY_UNSET && k->nqueues == 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "[xps] needs policy = one-to-one, none or explicit");
	if (k->policy == PROFILE_POLICY_ONE_TO_ONE && k->cpus.kind == PROFILE_CPUS_UNSET)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "[xps] policy = one-to-one needs cpus");
	if (k->policy == PROFILE_POLICY_EXPLICIT && k->nqueues == 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "[xps] policy = explicit needs tx-N = CPUS keys");
	return 0;
}

/* Plan xps_cpus of the tx queues. */
static int
profile_xps_plan(const struct profile *p, struct profile_host *h, struct plan *pl,
                 struct nm_error *err)
{
	/* XPS chooses among tx queues: with one there is nothing to choose (and the kernel
	 * has no xps_cpus to read). RPS is for single-queue devices above all: kept. */
	if (p->xps.present && h->ntx == 1)
		return plan_cannot(pl, p, "xps", err,
		                   "%s has one tx queue: XPS has no queue to choose", h->dev);
	return knob_plan_masks(pl, h, p, &p->xps, &knob_xps, h->ntx, "tx-", false, err);
}

/* xps=CPUS | one-to-one | none. */
static void
xps_setting_ini(struct strbuf *sb, const char *v)
{
	if (strcmp(v, "none") == 0)
		strbuf_addf(sb, "[xps]\npolicy = none\n");
	else
		strbuf_addf(sb, "[xps]\npolicy = one-to-one\ncpus = %s\n",
		            strcmp(v, "one-to-one") == 0 ? "all" : v);
}

static bool
xps_present(const struct profile *p)
{
	return p->xps.present;
}

/* [xps] as saved: tx-N keys (none with one tx queue: XPS has nothing to choose). */
static void
xps_save(struct profile_host *h, struct strbuf *sb)
{
	profile_save_masks(h, sb, PLAN_XPS, h->ntx > 1 ? h->ntx : 0, "xps", "tx-");
}

/* queues/tx-N/xps_cpus. */
static int
xps_file(const struct plan_entry *e, enum profile_base *base, char *rel, size_t size)
{
	return knob_queue_file(e, "tx", "xps_cpus", base, rel, size);
}

/* A mask the kernel refused. */
const char *
knob_hint_mask(int en)
{
	return en == EINVAL ? " (a CPU is offline or out of range)" : knob_hint_default(en);
}

/* Free what [xps] owns. */
static void
xps_release(struct profile *p)
{
	free(p->xps.queues);
}

/* The privileged process writes queues/tx-N/xps_cpus with a hex mask. */
static int
xps_allow(const char *rel, const char *val, char *why, size_t size)
{
	if (!knob_allow_queue_file(rel, "tx", "xps_cpus"))
		return 0;
	return knob_allow_mask(rel, val, why, size);
}

const struct knob_ops knob_xps = {
    .section = "xps",
    .key = profile_xps_key,
    .check = profile_xps_check,
    .present = xps_present,
    .release = xps_release,
    .setting = "xps",
    .setting_ini = xps_setting_ini,
    .plan = profile_xps_plan,
    .plan_order = 40,
    .save = xps_save,
    .kind = PLAN_XPS,
    .kind_name = "xps",
    .index = KNOB_INDEX_QUEUE,
    .on_device = true,
    .priv = KNOB_PRIV_WRITE,
    .base = PROFILE_BASE_NETDEV,
    .allow = xps_allow,
    .file = xps_file,
    .path = knob_file_path,
    .read = knob_file_read,
    .write = knob_file_write,
    .same = knob_same_mask,
    .display = knob_display_mask,
    .value_on = knob_mask_on,
    .write_hint = knob_hint_mask,
    .readback_hint = "",
};
