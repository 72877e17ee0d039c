/* compare-tuning.c: when the tuning a comparison is about could not have worked. A change
 * of +30 % transactions/s between "RFS 1024" and "RFS 512" means nothing when
 * rps_sock_flow_entries was 0 on both: the kernel steered no flow. The facts are those a
 * result keeps in "tuning" (tuning.c); nothing here reads the host. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "compare-tuning.h"
#include "jsonutil.h"

enum { W_RFS, W_RPS, W_XPS, W__COUNT };

static const char *const codes[W__COUNT] = {"rfs_inactive", "rps_inactive", "xps_one_queue"};

/* What one side's results said: how many had each warning, and the first one's words. */
struct side_warn {
	size_t count[W__COUNT];
	char message[W__COUNT][256];
};

/* Is v an integer (or a double) equal to 0? */
static bool
is_zero(json_object *v)
{
	return v != NULL &&
	       (json_object_is_type(v, json_type_int) ||
	        json_object_is_type(v, json_type_double)) &&
	       json_object_get_double(v) == 0;
}

/* Does the array of strings arr hold s? */
static bool
has_string(json_object *arr, const char *s)
{
	if (!json_object_is_type(arr, json_type_array))
		return false;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *v = json_object_array_get_idx(arr, i);
		if (json_object_is_type(v, json_type_string) &&
		    strcmp(json_object_get_string(v), s) == 0)
			return true;
	}
	return false;
}

/* Did the profile (its brief, profile_state_applied_brief) skip its [section], one the
 * device could not have ("[xps] skipped: eth1 has one tx queue")? Asked for, so warned of. */
static bool
skipped_section(json_object *profile, const char *section)
{
	json_object *arr = NULL;
	char head[32];
	size_t n = (size_t)snprintf(head, sizeof(head), "[%s] ", section);

	if (profile == NULL || !json_object_object_get_ex(profile, "skipped", &arr) ||
	    !json_object_is_type(arr, json_type_array))
		return false;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *v = json_object_array_get_idx(arr, i);
		if (json_object_is_type(v, json_type_string) &&
		    strncmp(json_object_get_string(v), head, n) == 0)
			return true;
	}
	return false;
}

/* The device named name of the tuning's devices, or NULL. */
static json_object *
device(json_object *tuning, const char *name)
{
	json_object *devs;

	if (name == NULL || !json_object_object_get_ex(tuning, "devices", &devs) ||
	    !json_object_is_type(devs, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(devs); i++) {
		json_object *d = json_object_array_get_idx(devs, i);
		if (strcmp(json_get_string(d, "name", ""), name) == 0)
			return d;
	}
	return NULL;
}

/* Why RFS was asked for, into why; false when it was not. */
static bool
rfs_asked(json_object *r, json_object *tuning, json_object *kinds, char *why, size_t size)
{
	json_object *devs, *test, *vars;

	if (json_object_object_get_ex(tuning, "devices", &devs) &&
	    json_object_is_type(devs, json_type_array))
		for (size_t i = 0; i < json_object_array_length(devs); i++) {
			json_object *d = json_object_array_get_idx(devs, i);
			if (json_get_int(d, "flow_cnt", 0) > 0) {
				snprintf(why, size, "%s has rps_flow_cnt %lld in all",
				         json_get_string(d, "name", "?"),
				         (long long)json_get_int(d, "flow_cnt", 0));
				return true;
			}
		}
	if (has_string(kinds, "flow_cnt")) {
		snprintf(why, size, "the profile wrote rps_flow_cnt");
		return true;
	}
	if (json_object_object_get_ex(r, "test", &test) &&
	    json_object_object_get_ex(test, "profile_vars", &vars) &&
	    json_object_is_type(vars, json_type_object)) {
		json_object_object_foreach(vars, k, v)
		{
			if (strstr(k, "rfs") != NULL || strstr(k, "flow") != NULL) {
				snprintf(why, size, "the test's profile has %s=%s", k,
				         json_object_get_string(v));
				return true;
			}
		}
	}
	return false;
}

/* Note warning w of a result on its side, with its words when it is the first. */
static void
note(struct side_warn *sw, int w, const char *msg)
{
	if (sw->count[w]++ == 0)
		snprintf(sw->message[w], sizeof(sw->message[w]), "%s", msg);
}

/* The warnings one result earns. */
static void
check_result(json_object *r, struct side_warn *sw)
{
	json_object *tuning, *profile = NULL, *kinds = NULL, *entries = NULL, *d;
	const char *dev = NULL;
	char why[160], msg[256];

	if (!json_object_object_get_ex(r, "tuning", &tuning) ||
	    !json_object_is_type(tuning, json_type_object))
		return;
	json_object_object_get_ex(tuning, "rps_sock_flow_entries", &entries);
	if (json_object_object_get_ex(tuning, "profile", &profile) &&
	    json_object_is_type(profile, json_type_object)) {
		json_object_object_get_ex(profile, "kinds", &kinds);
		dev = json_get_string(profile, "device", NULL);
	}
	if (is_zero(entries) && rfs_asked(r, tuning, kinds, why, sizeof(why))) {
		snprintf(
		    msg, sizeof(msg),
		    "RFS could not take effect: rps_sock_flow_entries is 0 (%s), so the kernel "
		    "steered no flow",
		    why);
		note(sw, W_RFS, msg);
	}
	d = device(tuning, dev);
	if (d != NULL && (has_string(kinds, "rps") || skipped_section(profile, "rps"))) {
		json_object *q = NULL;
		json_object_object_get_ex(d, "rps_queues", &q);
		if (q == NULL || is_zero(q)) {
			snprintf(msg, sizeof(msg),
			         q == NULL
			             ? "RPS masks could not take effect: %s has no rps_cpus "
			               "(a kernel without RPS)"
			             : "RPS masks could not take effect: every rps_cpus of %s "
			               "is empty",
			         dev);
			note(sw, W_RPS, msg);
		}
	}
	if (d != NULL && (has_string(kinds, "xps") || skipped_section(profile, "xps")) &&
	    json_get_int(d, "tx_queues", 0) == 1) {
		snprintf(msg, sizeof(msg),
		         "XPS could not take effect: %s has one tx queue, so every CPU sends on it",
		         dev);
		note(sw, W_XPS, msg);
	}
}

/* Each side's results, then one warning per side and code. */
json_object *
compare_tuning_warnings(json_object *const *a, size_t na, json_object *const *b, size_t nb)
{
	struct side_warn sw[2];
	json_object *out = json_object_new_array();

	memset(sw, 0, sizeof(sw));
	for (size_t i = 0; i < na; i++)
		check_result(a[i], &sw[0]);
	for (size_t i = 0; i < nb; i++)
		check_result(b[i], &sw[1]);
	for (int s = 0; s < 2; s++)
		for (int w = 0; w < W__COUNT; w++) {
			json_object *o;
			if (sw[s].count[w] == 0)
				continue;
			o = json_object_new_object();
			json_add_string(o, "code", codes[w]);
			json_add_string(o, "side", s ? "B" : "A");
			json_add_uint(o, "results", sw[s].count[w]);
			json_add_uint(o, "of", s ? nb : na);
			json_add_string(o, "message", sw[s].message[w]);
			json_object_array_add(out, o);
		}
	return out;
}
