/* cmd-profile-status.c: which profile is applied, when, by whom, and whether the live values
 * have drifted from what it wrote since (someone else, or irqbalance, changed them). */
#include "cmd.h"
#include "daemon.h"
#include "error.h"
#include "profile.h"

/* profile-status: the applied profile and its drift. */
int
cmd_profile_status(struct cmd_ctx *ctx, json_object *args, json_object **result,
                   struct nm_error *err)
{
	struct profile_host h;

	(void)args;
	if (profile_host_open_sampled(&h, ctx->d->config.root, ctx->d->sampler, err) < 0)
		return -1;
	*result = profile_state_status(ctx->d->config.state_dir, &h);
	profile_host_close(&h);
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_profile_status_entry = {.proto = "profile-status",
                                                   .exec = cmd_profile_status};
