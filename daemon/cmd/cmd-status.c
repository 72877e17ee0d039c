/* cmd-status.c: what the daemon is and how it is: pid, uptime, configuration, clients. */
#include <unistd.h>

#include "cmd.h"
#include "control.h"
#include "daemon.h"
#include "jsonutil.h"
#include "runner.h"
#include "sampler.h"
#include "timeutil.h"

static int
cmd_status(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct daemon *d = ctx->d;
	json_object *o = json_object_new_object();
	json_object *clients = json_object_new_object();
	char started[40];

	(void)args;
	(void)err;
	time_format_rfc3339(d->start_real_ns, started, sizeof(started));
	json_add_int(o, "pid", getpid());
	json_add_string(o, "version", NM_VERSION);
	json_add_int(o, "protocol", PROTO_VERSION);
	json_add_double(o, "uptime_s", (double)(time_mono_ns() - d->start_mono_ns) / 1e9);
	json_add_string(o, "started", started);
	json_add_string(o, "root", d->config.root);
	json_add_string(o, "state_dir", d->config.state_dir);
	json_add_string(o, "socket", control_socket_path(d->control));
	json_add_bool(o, "socket_activated", control_activated(d->control));
	json_add_string(o, "config_file", d->config_found ? d->config_path : NULL);
	json_object_object_add(o, "config", config_to_json(&d->config));
	{
		/* Where profiles and suites are read by name, and why there. */
		char why[256];
		json_add_string(o, "profile_dir", d->config.profile_dir);
		json_add_string(o, "profile_dir_why",
		                config_dir_origin(d->config.profile_dir_from,
		                                  CONFIG_DEFAULT_PROFILEDIR, why, sizeof(why)));
		json_add_string(o, "suite_dir", d->config.suite_dir);
		json_add_string(o, "suite_dir_why",
		                config_dir_origin(d->config.suite_dir_from, CONFIG_DEFAULT_SUITEDIR,
		                                  why, sizeof(why)));
	}
	json_add_uint(clients, "connected", control_nclients(d->control));
	json_add_uint(clients, "max", d->config.max_clients);
	json_add_uint(clients, "max_per_uid", d->config.max_clients_per_uid);
	json_object_object_add(o, "clients", clients);
	if (d->runner != NULL)
		json_object_object_add(o, "tests", runner_isolation_json(d->runner));
	if (d->sampler != NULL) {
		json_object *smp = sampler_status_json(d->sampler), *v = NULL;
		json_object_object_get_ex(smp, "sources", &v);
		json_object_object_add(o, "sources", json_object_get(v));
		json_object_object_get_ex(smp, "ring", &v);
		json_object_object_add(o, "ring", json_object_get(v));
		json_object_object_get_ex(smp, "fine", &v);
		json_object_object_add(o, "fine", json_object_get(v));
		json_object_put(smp);
	}
	*result = o;
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_status_entry = {.proto = "status", .exec = cmd_status};
