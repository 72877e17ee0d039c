/* cmd-profile-apply.c: apply a tuning profile: a name in the profile directory, INI text the
 * client read from a file, an inline JSON object, or (profile-set) KNOB=VALUE words. Everything is
 * validated and every old value read before anything is written; the old values go to the state
 * directory first; each write is read back; any failure rolls every write back. With dry_run, only
 * the changes are returned. */
#include <string.h>

#include "cmd.h"
#include "control.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "log.h"
#include "profile.h"
#include "sampler.h"

/* Parse the profile the arguments give; *source says where it came from. 0 or -1 with err. */
static int
load_profile(struct daemon *d, json_object *args, struct profile *p, char *path, size_t size,
             const char **source, struct nm_error *err)
{
	const char *name = json_get_string(args, "name", NULL);
	const char *text = json_get_string(args, "text", NULL);
	json_object *obj = NULL;

	json_object *settings = NULL;

	/* profile-set: KNOB=VALUE words of the command line. */
	if (json_object_object_get_ex(args, "settings", &settings)) {
		*source = "command line";
		return profile_parse_settings(p, "set", settings, err);
	}
	json_object_object_get_ex(args, "profile", &obj);
	if (text != NULL && obj != NULL)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "give text or profile, not both");
	if (text != NULL) {
		*source = json_get_string(args, "file", "text");
		return profile_parse_ini(p, name ? name : "text", text, strlen(text), err);
	}
	if (obj != NULL) {
		*source = "inline";
		return profile_parse_json(p, name ? name : "inline", obj, err);
	}
	if (name == NULL)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "argument \"name\": give a profile name (\"profiles\" lists "
		                    "them), a file, or --profile JSON");
	*source = path;
	return profile_load(p, d->config.profile_dir, name, path, size, err);
}

/* Does the plan touch IRQ affinity? */
static bool
touches_irqs(const struct plan *pl)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->e[i].kind == PLAN_IRQ)
			return true;
	return false;
}

/* The result object, for a dry run and for an apply alike. */
static json_object *
result_json(const struct profile *p, const struct profile_host *h, const struct plan *pl,
            const char *source, bool dry)
{
	json_object *o = json_object_new_object();
	size_t changes = plan_nchanges(pl);

	json_add_bool(o, "dry_run", dry);
	json_add_bool(o, "applied", !dry);
	json_add_string(o, "profile", p->name);
	json_add_string(o, "source", source);
	json_add_string(o, "device", h->dev);
	json_add_bool(o, "default_route", h->dev_from_route);
	json_add_string(o, "root", h->root);
	json_add_uint(o, dry ? "would_write" : "written", changes);
	json_add_uint(o, "unchanged", pl->n - changes);
	json_object_object_add(o, "changes", plan_changes_json(pl));
	json_object_object_add(o, "warnings", json_object_get(pl->warnings));
	json_object_object_add(o, "skipped", json_object_get(pl->skipped));
	return o;
}

/* Apply the plan on behalf of the client; refresh the IRQ view after IRQ writes. */
static int
apply_plan(struct cmd_ctx *ctx, const struct profile *p, struct profile_host *h, struct plan *pl,
           const char *source, struct nm_error *err)
{
	struct profile_origin o = {p->name, source, 0, -1};
	int r;

	if (ctx->client != NULL) {
		o.uid = (uint32_t)control_client_uid(ctx->client);
		o.pid = (int32_t)control_client_pid(ctx->client);
	}
	r = profile_apply(ctx->d->config.state_dir, pl, h, &o, err);
	if (pl->irq_written)
		sampler_irq_refresh_affinity(ctx->d->sampler);
	if (r == 0)
		log_info("profile %s applied to %s by uid %u: %zu values written", p->name, h->dev,
		         o.uid, plan_nchanges(pl));
	return r;
}

/* profile-apply: check, plan, then apply or only show the changes. */
static int
cmd_profile_apply(struct cmd_ctx *ctx, json_object *args, json_object **result,
                  struct nm_error *err)
{
	struct daemon *d = ctx->d;
	const char *dev = json_get_string(args, "dev", NULL), *source = "";
	bool dry = json_get_bool(args, "dry_run", false);
	struct profile_host h;
	struct profile p;
	struct plan pl;
	char path[4096];
	int r = -1;

	if (load_profile(d, args, &p, path, sizeof(path), &source, err) < 0)
		return -1;
	if (profile_host_open_sampled(&h, d->config.root, d->sampler, err) < 0) {
		profile_free(&p);
		return -1;
	}
	plan_init(&pl);
	if (profile_host_set_device(&h, dev ? dev : p.device, err) < 0 ||
	    plan_build(&pl, &p, &h, err) < 0)
		goto out;
	if (touches_irqs(&pl) && profile_host_irqbalance(&h))
		plan_warn(&pl, "irqbalance is running: it will rewrite these IRQ affinities (stop "
		               "it, or ban the IRQs with IRQBALANCE_BANNED_CPULIST)");
	if (plan_nchanges(&pl) > 0) {
		char tp[PROFILE_NAME_MAX];
		if (profile_host_tuned(&h, tp, sizeof(tp)))
			plan_warn(
			    &pl,
			    "tuned is running (profile %s): its sysctl, net and irq plugins "
			    "rewrite what its profile names, these values among them (\"tuned-adm "
			    "off\", or a tuned profile without them)",
			    tp[0] ? tp : "unknown");
	}
	if (!dry && apply_plan(ctx, &p, &h, &pl, source, err) < 0)
		goto out;
	*result = result_json(&p, &h, &pl, source, dry);
	r = 0;
out:
	plan_free(&pl);
	profile_host_close(&h);
	profile_free(&p);
	return r;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_profile_apply_entry = {.proto = "profile-apply",
                                                  .exec = cmd_profile_apply};

/* profile set: the same handler, with a profile built from the command line's knobs. */
const struct cmd_entry cmd_profile_set_entry = {.proto = "profile-set", .exec = cmd_profile_apply};
