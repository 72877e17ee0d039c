/* profile-xps.c: the [xps] section: which CPUs transmit on which tx queue
 * (queues/tx-N/xps_cpus, a hex mask in 32-bit comma groups).
 *
 *   policy = one-to-one  tx-i -> the i-th CPU of cpus, wrapping
 *   policy = none        every tx queue's mask emptied (the kernel picks by hash)
 *   policy = explicit    only the queues named below
 *   cpus = 0-143 | all | local
 *   tx-N = LIST|MASK     tx queue N (with any policy: overrides it for N)
 */
#include "error.h"
#include "profile.h"

/* Take a key of [xps]. */
int
profile_xps_key(struct profile *p, const char *key, const char *val, struct nm_error *err)
{
	static const char *const names[] = {"one-to-one", "none", "explicit", NULL};
	static const enum profile_policy values[] = {PROFILE_POLICY_ONE_TO_ONE, PROFILE_POLICY_NONE,
	                                             PROFILE_POLICY_EXPLICIT};

	return profile_knob_key(&p->xps, "xps", "tx-", names, values, key, val, err);
}

/* Check [xps] once all its keys are read. */
int
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
int
profile_xps_plan(const struct profile *p, struct profile_host *h, struct plan *pl,
                 struct nm_error *err)
{
	return plan_queue_masks(pl, h, p, &p->xps, PLAN_XPS, h->ntx, "xps", "tx-", err);
}
