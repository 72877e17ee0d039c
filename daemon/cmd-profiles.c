/* cmd-profiles.c: the profiles of the profile directory ([daemon] profile_dir), each with
 * its description, device and sections, or why it does not parse. */
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "profile.h"

/* profiles: the profile directory's profiles. */
int
cmd_profiles(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	json_object *o = json_object_new_object();

	(void)args;
	(void)err;
	json_add_string(o, "dir", ctx->d->config.profile_dir);
	json_object_object_add(o, "profiles", profile_list_json(ctx->d->config.profile_dir));
	*result = o;
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_profiles_entry = {.proto = "profiles", .exec = cmd_profiles};
