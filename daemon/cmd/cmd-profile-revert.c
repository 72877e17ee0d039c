/* cmd-profile-revert.c: write back every value the applied profiles changed, as it was
 * before the first of them (saved in the state directory, so this works after a restart
 * too). Reverting with nothing saved says so and succeeds. */
#include "cmd.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "log.h"
#include "profile.h"
#include "sampler.h"

/* profile-revert: restore the saved values. */
int
cmd_profile_revert(struct cmd_ctx *ctx, json_object *args, json_object **result,
                   struct nm_error *err)
{
	struct daemon *d = ctx->d;
	struct profile_host h;
	json_object *res;

	(void)args;
	if (profile_host_open_sampled(&h, d->config.root, d->sampler, err) < 0)
		return -1;
	res = profile_state_revert(d->config.state_dir, &h, err);
	profile_host_close(&h);
	sampler_irq_refresh_affinity(d->sampler);
	if (res == NULL)
		return -1;
	if (json_get_bool(res, "reverted", false))
		log_info("profile %s reverted: %lld values restored",
		         json_get_string(res, "profile", "(unrecorded)"),
		         (long long)json_get_int(res, "restored", 0));
	*result = res;
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_profile_revert_entry = {.proto = "profile-revert",
                                                   .exec = cmd_profile_revert};
