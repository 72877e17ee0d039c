/* manifest-sysctl.c: the net sysctls of a manifest (manifest.h): a fixed set always, and
 * every other one whose value differs from the daemon's snapshot of this boot
 * (STATE_DIR/sysctl-boot.json, taken at its first start after a boot: manifest_snapshot).
 * Not a table of the kernel's defaults: those vary with the kernel, its configuration and
 * the memory size. */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "jsonutil.h"
#include "log.h"
#include "manifest-read.h"
#include "manifest.h"
#include "statefile.h"

/* The net sysctls every manifest records, whatever their value. */
static const char *const fixed_sysctls[] = {
    "net.core.rmem_default",
    "net.core.rmem_max",
    "net.core.wmem_default",
    "net.core.wmem_max",
    "net.core.optmem_max",
    "net.core.netdev_budget",
    "net.core.netdev_budget_usecs",
    "net.core.netdev_max_backlog",
    "net.core.dev_weight",
    "net.core.busy_poll",
    "net.core.busy_read",
    "net.core.rps_sock_flow_entries",
    "net.core.default_qdisc",
    "net.ipv4.tcp_rmem",
    "net.ipv4.tcp_wmem",
    "net.ipv4.tcp_mem",
    "net.ipv4.tcp_congestion_control",
    "net.ipv4.tcp_mtu_probing",
    "net.ipv4.tcp_timestamps",
    "net.ipv4.tcp_sack",
    "net.ipv4.tcp_window_scaling",
    "net.ipv4.tcp_autocorking",
    "net.ipv4.tcp_ecn",
    "net.ipv4.tcp_limit_output_bytes",
    "net.ipv4.tcp_notsent_lowat",
    "net.ipv4.tcp_no_metrics_save",
    "net.ipv4.udp_mem",
    "net.ipv4.ip_local_port_range",
};

/* The fixed net sysctls. */
void
manifest_sysctls_fixed(json_object *o, const char *root)
{
	char rel[256], name[256];

	for (size_t i = 0; i < sizeof(fixed_sysctls) / sizeof(fixed_sysctls[0]); i++) {
		snprintf(rel, sizeof(rel), "/proc/sys/%s", fixed_sysctls[i]);
		for (char *p = rel; *p != '\0'; p++)
			if (*p == '.')
				*p = '/';
		snprintf(name, sizeof(name), "sysctl.%s", fixed_sysctls[i]);
		manifest_add_file(o, name, root, rel);
	}
}

/* Should a file of /proc/sys/net be left out of the snapshot: a secret (a key), or a
 * count that moves by itself? */
static bool
sysctl_skipped(const char *name)
{
	return strstr(name, "_key") != NULL || strstr(name, "nf_conntrack_count") != NULL ||
	       strcmp(name, "net.ipv4.route.flush") == 0 ||
	       strcmp(name, "net.ipv6.route.flush") == 0;
}

/* Every readable file below ROOT/proc/sys/REL (a directory), NAME -> tidied value, at most
 * MANIFEST_SYSCTL_FILES files in all (*count). */
static void
walk_sysctls(const char *root, char *rel, size_t len, int depth, json_object *out, size_t *count)
{
	char path[4096], buf[MANIFEST_VALUE_MAX], name[512];
	struct dirent **ents;
	int k;

	snprintf(path, sizeof(path), "%s/proc/sys/%s", strcmp(root, "/") == 0 ? "" : root, rel);
	if ((k = scandir(path, &ents, NULL, alphasort)) < 0)
		return;
	for (int i = 0; i < k; i++) {
		const char *e = ents[i]->d_name;
		size_t n = strlen(e);
		if (e[0] != '.' && len + 1 + n < 256 && *count < MANIFEST_SYSCTL_FILES) {
			snprintf(rel + len, 256 - len, "/%s", e);
			snprintf(path, sizeof(path), "%s/proc/sys/%s",
			         strcmp(root, "/") == 0 ? "" : root, rel);
			if (ents[i]->d_type == DT_DIR && depth < 8)
				walk_sysctls(root, rel, len + 1 + n, depth + 1, out, count);
			else if (ents[i]->d_type == DT_REG || ents[i]->d_type == DT_UNKNOWN) {
				snprintf(name, sizeof(name), "%s", rel);
				for (char *p = name; *p; p++)
					if (*p == '/')
						*p = '.';
				snprintf(path, sizeof(path), "/proc/sys/%s", rel);
				if (!sysctl_skipped(name) &&
				    manifest_read_small(root, path, buf, sizeof(buf)) == 0) {
					json_add_string(out, name, buf);
					(*count)++;
				}
			}
			rel[len] = '\0';
		}
		free(ents[i]);
	}
	free(ents);
}

/* The net sysctls below root now: {NAME: VALUE}. */
static json_object *
net_sysctls(const char *root)
{
	json_object *o = json_object_new_object();
	char rel[256] = "net";
	size_t count = 0;

	walk_sysctls(root, rel, 3, 0, o, &count);
	return o;
}

int
manifest_snapshot(const char *root, const char *state_dir)
{
	char boot[128] = "";
	json_object *old, *snap;
	struct nm_error err;
	int rc;

	(void)manifest_read_small(root, "/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
	old = statefile_read_json(state_dir, MANIFEST_SNAPSHOT_FILE, &err);
	if (old != NULL && strcmp(json_get_string(old, "boot_id", ""), boot) == 0) {
		json_object_put(old);
		return 0; /* this boot's snapshot is taken */
	}
	json_object_put(old);
	snap = json_object_new_object();
	json_add_string(snap, "boot_id", boot);
	json_object_object_add(snap, "values", net_sysctls(root));
	rc = statefile_write_json(state_dir, MANIFEST_SNAPSHOT_FILE, snap, false, &err);
	if (rc < 0)
		log_warnx("manifest: %s: %s", MANIFEST_SNAPSHOT_FILE, err.message);
	json_object_put(snap);
	return rc;
}

/* Is name one of the sysctls every manifest records? */
static bool
is_fixed_sysctl(const char *name)
{
	for (size_t i = 0; i < sizeof(fixed_sysctls) / sizeof(fixed_sysctls[0]); i++)
		if (strcmp(fixed_sysctls[i], name) == 0)
			return true;
	return false;
}

/* The net sysctls whose value differs from this boot's snapshot (manifest_snapshot), not the
 * fixed ones (recorded anyway): "sysctl.NAME": "VALUE (boot OLD)", at most
 * MANIFEST_SYSCTL_CHANGED, in name order; the rest counted in host.sysctls_left_out. A name
 * the snapshot lacks (a device's conf made since) is not compared. */
void
manifest_sysctls_changed(json_object *o, const char *root, const char *state_dir)
{
	json_object *snap, *values, *now;
	struct nm_error err;
	char key[600], v[MANIFEST_VALUE_MAX * 2 + 16];
	size_t listed = 0, left = 0;

	if (state_dir == NULL ||
	    (snap = statefile_read_json(state_dir, MANIFEST_SNAPSHOT_FILE, &err)) == NULL)
		return;
	if (!json_object_object_get_ex(snap, "values", &values) ||
	    !json_object_is_type(values, json_type_object)) {
		json_object_put(snap);
		return;
	}
	now = net_sysctls(root);
	json_object_object_foreach(now, name, val)
	{
		json_object *was;
		const char *a = json_object_get_string(val), *b;
		if (is_fixed_sysctl(name) || !json_object_object_get_ex(values, name, &was) ||
		    !json_object_is_type(was, json_type_string))
			continue;
		b = json_object_get_string(was);
		if (strcmp(a, b) == 0)
			continue;
		if (listed == MANIFEST_SYSCTL_CHANGED) {
			left++;
			continue;
		}
		snprintf(key, sizeof(key), "sysctl.%s", name);
		snprintf(v, sizeof(v), "%s (boot %s)", a, b);
		v[MANIFEST_VALUE_MAX - 1] = '\0';
		json_add_string(o, key, v);
		listed++;
	}
	if (left > 0)
		json_add_uint(o, "host.sysctls_left_out", left);
	json_object_put(now);
	json_object_put(snap);
}
