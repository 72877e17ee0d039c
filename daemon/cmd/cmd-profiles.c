/* cmd-profiles.c: the profiles of the profile directory ([daemon] profile_dir), each with
 * its description, device and sections, or why it does not parse; which directory was read,
 * why that one, and why the list is empty when it is. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "config.h"
#include "daemon.h"
#include "jsonutil.h"
#include "profile.h"

/* Why a directory gave no profiles, in words that say what to do. */
static void
empty_note(const struct config *cfg, char *buf, size_t size)
{
	const char *dir = cfg->profile_dir;
	struct stat st;

	if (stat(dir, &st) < 0)
		snprintf(buf, size,
		         "%s: %s: install the shipped profiles (ninja -C build install puts "
		         "conf/profiles there) or set profile_dir in netmetricsd.conf; a profile "
		         "file is also taken by path",
		         dir, strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		snprintf(buf, size, "%s is not a directory", dir);
	else
		snprintf(buf, size, "%s holds no NAME.conf file the daemon (user %s) can read", dir,
		         cfg->user);
}

/* profiles: the profile directory's profiles. */
static int
cmd_profiles(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	const struct config *cfg = &ctx->d->config;
	json_object *o = json_object_new_object(), *list = profile_list_json(cfg->profile_dir);
	char why[256], note[512];

	(void)args;
	(void)err;
	json_add_string(o, "dir", cfg->profile_dir);
	json_add_string(
	    o, "dir_why",
	    config_dir_origin(cfg->profile_dir_from, CONFIG_DEFAULT_PROFILEDIR, why, sizeof(why)));
	if (json_object_array_length(list) == 0) {
		empty_note(cfg, note, sizeof(note));
		json_add_string(o, "note", note);
	}
	json_object_object_add(o, "profiles", list);
	*result = o;
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_profiles_entry = {.proto = "profiles", .exec = cmd_profiles};
