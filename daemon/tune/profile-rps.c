/* profile-rps.c: the [rps] section: which CPUs process the packets of each rx queue in
 * software (queues/rx-N/rps_cpus, a hex mask in 32-bit comma groups).
 *
 *   cpus = 0-143 | all | local   every rx queue -> these CPUs ("all": the online CPUs
 *                                that are neither isolated nor nohz_full)
 *   policy = none                every rx queue's mask emptied (RPS off)
 *   policy = explicit            only the queues named below
 *   rx-N = LIST|MASK             rx queue N (overrides cpus for N)
 *
 * The kernel silently drops isolated CPUs from rps_cpus: they are refused up front, and
 * every value is read back. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "knob.h"
#include "profile.h"
#include "strbuf.h"

extern const struct knob_ops knob_rps;

/* Take a key of [rps]. */
static int
profile_rps_key(struct profile *p, const char *key, const char *val, struct nm_error *err)
{
	static const char *const names[] = {"cpus", "none", "explicit", NULL};
	static const enum profile_policy values[] = {PROFILE_POLICY_CPUS, PROFILE_POLICY_NONE,
	                                             PROFILE_POLICY_EXPLICIT};

	return profile_knob_key(&p->rps, "rps", "rx-", names, values, key, val, err);
}

/* Check [rps] once all its keys are read. */
static int
profile_rps_check(const struct profile *p, struct nm_error *err)
{
	const struct profile_knob *k = &p->rps;

	if (!k->present)
		return 0;
	if (k->policy == PROFILE_POLICY_CPUS && k->cpus.kind == PROFILE_CPUS_UNSET)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "[rps] policy = cpus needs cpus");
	if (k->policy == PROFILE_POLICY_UNSET && k->cpus.kind == PROFILE_CPUS_UNSET &&
	    k->nqueues == 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "[rps] needs cpus, policy = none or rx-N = CPUS keys");
	if (k->policy == PROFILE_POLICY_EXPLICIT && k->nqueues == 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "[rps] policy = explicit needs rx-N = CPUS keys");
	if ((k->policy == PROFILE_POLICY_NONE || k->policy == PROFILE_POLICY_EXPLICIT) &&
	    k->cpus.kind != PROFILE_CPUS_UNSET)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "[rps] cpus makes no sense with policy = "
		                    "%s",
		                    k->policy == PROFILE_POLICY_NONE ? "none" : "explicit");
	return 0;
}

/* Plan rps_cpus of the rx queues. */
static int
profile_rps_plan(const struct profile *p, struct profile_host *h, struct plan *pl,
                 struct nm_error *err)
{
	struct profile_knob k = p->rps;

	/* cpus alone means every rx queue gets them. */
	if (k.policy == PROFILE_POLICY_UNSET)
		k.policy = k.cpus.kind != PROFILE_CPUS_UNSET ? PROFILE_POLICY_CPUS
		                                             : PROFILE_POLICY_EXPLICIT;
	return knob_plan_masks(pl, h, p, &k, &knob_rps, h->nrx, "rx-", true, err);
}

/* rps=CPUS | all | local | none. */
static void
rps_setting_ini(struct strbuf *sb, const char *v)
{
	if (strcmp(v, "none") == 0)
		strbuf_addf(sb, "[rps]\npolicy = none\n");
	else
		strbuf_addf(sb, "[rps]\ncpus = %s\n", v);
}

static bool
rps_present(const struct profile *p)
{
	return p->rps.present;
}

/* [rps] as saved: rx-N keys. */
static void
rps_save(struct profile_host *h, struct strbuf *sb)
{
	profile_save_masks(h, sb, PLAN_RPS, h->nrx, "rps", "rx-");
}

/* queues/rx-N/rps_cpus. */
static int
rps_file(const struct plan_entry *e, enum profile_base *base, char *rel, size_t size)
{
	return knob_queue_file(e, "rx", "rps_cpus", base, rel, size);
}

/* Free what [rps] owns. */
static void
rps_release(struct profile *p)
{
	free(p->rps.queues);
}

/* The privileged process writes queues/rx-N/rps_cpus with a hex mask. */
static int
rps_allow(const char *rel, const char *val, char *why, size_t size)
{
	if (!knob_allow_queue_file(rel, "rx", "rps_cpus"))
		return 0;
	return knob_allow_mask(rel, val, why, size);
}

const struct knob_ops knob_rps = {
    .section = "rps",
    .key = profile_rps_key,
    .check = profile_rps_check,
    .present = rps_present,
    .release = rps_release,
    .setting = "rps",
    .setting_ini = rps_setting_ini,
    .plan = profile_rps_plan,
    .plan_order = 30,
    .save = rps_save,
    .kind = PLAN_RPS,
    .kind_name = "rps",
    .index = KNOB_INDEX_QUEUE,
    .on_device = true,
    .priv = KNOB_PRIV_WRITE,
    .base = PROFILE_BASE_NETDEV,
    .allow = rps_allow,
    .file = rps_file,
    .path = knob_file_path,
    .read = knob_file_read,
    .write = knob_file_write,
    .same = knob_same_mask,
    .display = knob_display_mask,
    .value_on = knob_mask_on,
    .write_hint = knob_hint_mask,
    .readback_hint = " (the kernel drops isolated CPUs from rps_cpus)",
};
