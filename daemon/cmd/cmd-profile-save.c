/* cmd-profile-save.c: write a device's current tuning as a new profile NAME.conf of the
 * profile directory (profile-save.c makes the text). The main process writes it when it
 * may; a directory it may not write (root's /etc/netmetricsd/profiles) is written by the
 * privileged process (privsep-parent.c SAVE), into the directory it was given at start. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "log.h"
#include "privsep.h"
#include "profile.h"
#include "strbuf.h"

/* Write the text where the profile directory is, in place or through privsep. */
static int
save_file(struct daemon *d, const char *name, const char *text, bool *privileged,
          struct nm_error *err)
{
	*privileged = false;
	if (!privsep_on() || access(d->config.profile_dir, W_OK) == 0)
		return profile_write_file(d->config.profile_dir, name, text, err);
	*privileged = true;
	return privsep_save_profile(name, text, err);
}

/* profile-save: DEV's tuning now as PROFILE_DIR/NAME.conf. */
static int
cmd_profile_save(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct daemon *d = ctx->d;
	const char *dev = json_get_string(args, "dev", NULL),
	           *name = json_get_string(args, "name", "");
	bool dry = json_get_bool(args, "dry_run", false), privileged = false;
	struct strbuf sb = STRBUF_INIT;
	struct profile_host h;
	char path[4096];
	int r = -1;

	if (profile_host_open_sampled(&h, d->config.root, d->sampler, err) < 0)
		return -1;
	if (profile_host_set_device(&h, dev, err) < 0 || profile_save_text(&h, name, &sb, err) < 0)
		goto out;
	snprintf(path, sizeof(path), "%s/%s.conf", d->config.profile_dir, name);
	if (!dry && save_file(d, name, sb.buf, &privileged, err) < 0)
		goto out;
	if (!dry)
		log_info("profile save: %s's tuning written to %s", h.dev, path);
	*result = json_object_new_object();
	json_add_string(*result, "device", h.dev);
	json_add_string(*result, "name", name);
	json_add_string(*result, "path", path);
	json_add_bool(*result, "written", !dry);
	json_add_bool(*result, "privileged", privileged);
	json_add_string(*result, "text", sb.buf);
	r = 0;
out:
	strbuf_free(&sb);
	profile_host_close(&h);
	return r;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_profile_save_entry = {.proto = "profile-save", .exec = cmd_profile_save};
