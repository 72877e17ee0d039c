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
#include "error.h"
#include "profile.h"

/* Take a key of [rps]. */
int
profile_rps_key(struct profile *p, const char *key, const char *val, struct nm_error *err)
{
	static const char *const names[] = {"cpus", "none", "explicit", NULL};
	static const enum profile_policy values[] = {PROFILE_POLICY_CPUS, PROFILE_POLICY_NONE,
	                                             PROFILE_POLICY_EXPLICIT};

	return profile_knob_key(&p->rps, "rps", "rx-", names, values, key, val, err);
}

/* Check [rps] once all its keys are read. */
int
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
int
profile_rps_plan(const struct profile *p, struct profile_host *h, struct plan *pl,
                 struct nm_error *err)
{
	struct profile_knob k = p->rps;

	/* cpus alone means every rx queue gets them. */
	if (k.policy == PROFILE_POLICY_UNSET)
		k.policy = k.cpus.kind != PROFILE_CPUS_UNSET ? PROFILE_POLICY_CPUS
		                                             : PROFILE_POLICY_EXPLICIT;
	return plan_queue_masks(pl, h, p, &k, PLAN_RPS, h->nrx, "rps", "rx-", err);
}
