/* profile-state.c: what a profile changed, kept in STATE_DIR/profile/ so that it survives a
 * restart:
 *   saved.json    the value of everything any applied profile touched, as it was before
 *                 the first of them (revert writes these back)
 *   applied.json  the last profile applied: its name, source, device, when, by whom (peer
 *                 uid and pid), and the values it wrote (status compares them with the live
 *                 ones to see drift)
 * Both are written atomically through statefile.c: a temporary file, fsync, rename, fsync
 * of the directory. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "jsonutil.h"
#include "log.h"
#include "knob.h"
#include "profile.h"
#include "statefile.h"
#include "timeutil.h"
#include "xmalloc.h"

#define STATE_SUBDIR  "profile"
#define STATE_SAVED   "saved.json"
#define STATE_APPLIED "applied.json"
#define STATE_VERSION 1

/* Load STATE_DIR/profile/NAME: NULL with *missing when there is none, NULL with err when
 * it cannot be read or is not a JSON object. */
static json_object *
load_json(const char *state_dir, const char *name, bool *missing, struct nm_error *err)
{
	char rel[64];
	struct nm_error e;
	json_object *o;

	snprintf(rel, sizeof(rel), "%s/%s", STATE_SUBDIR, name);
	*missing = false;
	if ((o = statefile_read_json(state_dir, rel, &e)) == NULL) {
		*missing = e.code == NM_ERR_NOT_FOUND;
		if (!*missing)
			nm_error_set(err, NM_ERR_FAILED,
			             "%s (look at it, then remove it to start "
			             "afresh)",
			             e.message);
		return NULL;
	}
	/* statefile_read_json refused any other JSON value; members are read with
	 * json_get_*() and entries_of(), which take a wrong type as absent, and each entry
	 * is checked as strictly as a profile's own (entry_from_json). */
	return o;
}

/* Write STATE_DIR/profile/NAME atomically. 0 or -1 with err. */
static int
store_json(const char *state_dir, const char *name, json_object *o, struct nm_error *err)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "%s/%s", STATE_SUBDIR, name);
	return statefile_write_json(state_dir, rel, o, false, err);
}

/* Remove STATE_DIR/profile/NAME (gone already is fine). 0 or -1 with err. */
static int
remove_state(const char *state_dir, const char *name, struct nm_error *err)
{
	char rel[64];
	struct nm_error e;

	snprintf(rel, sizeof(rel), "%s/%s", STATE_SUBDIR, name);
	if (statefile_remove(state_dir, rel, &e) < 0 && e.code != NM_ERR_NOT_FOUND) {
		if (err)
			*err = e;
		return -1;
	}
	return 0;
}

/* An entry and one of its values as a JSON object. */
static json_object *
entry_json(const struct plan_entry *e, const char *value)
{
	json_object *o = json_object_new_object();

	json_add_string(o, "kind", plan_kind_name(e->kind));
	if (e->dev[0])
		json_add_string(o, "dev", e->dev);
	json_add_int(o, "index", e->index);
	if (e->name[0])
		json_add_string(o, "name", e->name);
	json_add_string(o, "path", e->path);
	json_add_string(o, "value", value);
	return o;
}

/* An entry back from JSON, checked as strictly as a profile's own: the paths are built
 * again from kind, device, index and name. *value points into o. 0 or -1 with err. */
static int
entry_from_json(json_object *o, struct profile_host *h, struct plan_entry *e, const char **value,
                struct nm_error *err)
{
	int kind = plan_kind_parse(json_get_string(o, "kind", ""));
	const struct knob_ops *k;
	char rel[PROFILE_SYSCTL_MAX];

	memset(e, 0, sizeof(*e));
	*value = json_get_string(o, "value", NULL);
	if (kind < 0 || *value == NULL)
		return nm_error_set(err, NM_ERR_FAILED, "saved entry without kind or value");
	e->kind = (enum plan_kind)kind;
	e->index = (int)json_get_int(o, "index", -1);
	snprintf(e->dev, sizeof(e->dev), "%s", json_get_string(o, "dev", ""));
	snprintf(e->name, sizeof(e->name), "%s", json_get_string(o, "name", ""));
	k = knob_of_kind(e->kind);
	if (k->on_device && profile_host_check_dev(e->dev, err) < 0)
		return -1;
	if (e->kind == PLAN_SYSCTL && plan_sysctl_rel(e->name, rel, sizeof(rel)) < 0)
		return nm_error_set(err, NM_ERR_FAILED, "saved sysctl \"%s\" is not a net.* name",
		                    e->name);
	if (k->index != KNOB_INDEX_NONE && e->index < 0)
		return nm_error_set(err, NM_ERR_FAILED, "saved %s entry without index",
		                    plan_kind_name(e->kind));
	plan_entry_path(h, e);
	return 0;
}

/* Do a plan entry and a saved one name the same thing? */
static bool
same_target(const struct plan_entry *e, json_object *o)
{
	if (strcmp(plan_kind_name(e->kind), json_get_string(o, "kind", "")) != 0 ||
	    e->index != json_get_int(o, "index", -1))
		return false;
	/* A device's file or feature by its device (and name: [napi]'s files), an IRQ by its
	 * number, a sysctl by name. */
	if (knob_of_kind(e->kind)->on_device)
		return strcmp(e->dev, json_get_string(o, "dev", "")) == 0 &&
		       strcmp(e->name, json_get_string(o, "name", "")) == 0;
	if (knob_of_kind(e->kind)->index == KNOB_INDEX_IRQ)
		return true;
	return strcmp(e->name, json_get_string(o, "name", "")) == 0;
}

/* The entries array of a state object (created when missing). */
static json_object *
entries_of(json_object *state)
{
	json_object *a;

	if (!json_object_object_get_ex(state, "entries", &a) ||
	    !json_object_is_type(a, json_type_array)) {
		a = json_object_new_array();
		json_object_object_add(state, "entries", a);
	}
	return a;
}

/* Now as RFC 3339. */
static void
now_string(char *buf, size_t size)
{
	time_format_rfc3339(time_real_ns(), buf, size);
}

/* Save the old values the plan touches that are not saved yet. */
int
profile_state_save(const char *state_dir, const struct plan *pl, const char *root,
                   json_object **prev, struct nm_error *err)
{
	json_object *saved, *arr;
	char when[40];
	bool missing;
	int r;

	*prev = load_json(state_dir, STATE_SAVED, &missing, err);
	if (*prev == NULL && !missing)
		return -1;
	if (*prev != NULL && strcmp(json_get_string(*prev, "root", "/"), root) != 0)
		return nm_error_set(err, NM_ERR_BUSY,
		                    "the saved state is for root %s, not %s: revert it there first",
		                    json_get_string(*prev, "root", "/"), root);
	if (*prev != NULL) {
		saved = NULL;
		json_object_deep_copy(*prev, &saved, NULL);
	} else {
		saved = json_object_new_object();
		json_add_int(saved, "version", STATE_VERSION);
		json_add_string(saved, "root", root);
		now_string(when, sizeof(when));
		json_add_string(saved, "created", when);
	}
	arr = entries_of(saved);
	for (size_t i = 0; i < pl->n; i++) {
		size_t j, n = json_object_array_length(arr);
		for (j = 0; j < n; j++)
			if (same_target(&pl->e[i], json_object_array_get_idx(arr, j)))
				break;
		if (j == n)
			json_object_array_add(arr, entry_json(&pl->e[i], pl->e[i].old));
	}
	r = store_json(state_dir, STATE_SAVED, saved, err);
	json_object_put(saved);
	return r;
}

/* Put saved.json back as it was before a failed apply. */
int
profile_state_restore_saved(const char *state_dir, json_object *prev, struct nm_error *err)
{
	if (prev == NULL)
		return remove_state(state_dir, STATE_SAVED, err);
	return store_json(state_dir, STATE_SAVED, prev, err);
}

/* Record the applied profile and the values it wrote. */
int
profile_state_applied(const char *state_dir, const struct plan *pl, const struct profile_origin *o,
                      const char *device, struct nm_error *err)
{
	json_object *a = json_object_new_object(), *arr = json_object_new_array();
	char when[40];
	int r;

	now_string(when, sizeof(when));
	json_add_int(a, "version", STATE_VERSION);
	json_add_string(a, "profile", o->profile);
	json_add_string(a, "source", o->source);
	json_add_string(a, "device", device);
	json_add_string(a, "time", when);
	json_add_uint(a, "uid", o->uid);
	json_add_int(a, "pid", o->pid);
	for (size_t i = 0; i < pl->n; i++)
		if (!pl->e[i].keep)
			json_object_array_add(arr, entry_json(&pl->e[i], pl->e[i].new));
	json_object_object_add(a, "entries", arr);
	/* The sections the device could not have ("[xps] skipped: ..."): asked for, not done. */
	json_object_object_add(a, "skipped", json_object_get(pl->skipped));
	r = store_json(state_dir, STATE_APPLIED, a, err);
	json_object_put(a);
	return r;
}

/* Is the device of an entry gone (so its value cannot, and need not, be restored)? */
static bool
device_gone(struct profile_host *h, const struct plan_entry *e)
{
	return knob_of_kind(e->kind)->on_device && !profile_host_dev_exists(h, e->dev);
}

/* Restore one saved entry. 1 written, 0 already so, 2 gone (a freed IRQ), -1 with err. */
static int
restore_one(struct profile_host *h, const struct plan_entry *e, const char *value,
            struct nm_error *err)
{
	struct nm_error rerr;
	char *cur = plan_read(h, e, &rerr);
	bool same = cur != NULL && plan_same(e->kind, e->name, cur, value);

	free(cur);
	if (same)
		return 0;
	/* An IRQ freed since (its driver reloaded) has nothing left to restore. */
	if (cur == NULL && knob_of_kind(e->kind)->index == KNOB_INDEX_IRQ &&
	    rerr.code == NM_ERR_NOT_FOUND)
		return 2;
	return plan_write_checked(h, e, value, err) < 0 ? -1 : 1;
}

/* Restore every saved value, last first, then forget them. */
json_object *
profile_state_revert(const char *state_dir, struct profile_host *h, struct nm_error *err)
{
	json_object *saved, *applied, *arr, *res, *skipped;
	char first[NM_ERROR_MSG_MAX] = "";
	size_t restored = 0, unchanged = 0, failed = 0, n;
	bool missing, gone_applied;

	if ((saved = load_json(state_dir, STATE_SAVED, &missing, err)) == NULL && !missing)
		return NULL;
	applied = load_json(state_dir, STATE_APPLIED, &gone_applied, NULL);
	res = json_object_new_object();
	if (saved == NULL) {
		json_add_bool(res, "reverted", false);
		json_add_string(res, "message", "nothing to revert: no profile is applied");
		json_object_put(applied);
		return res;
	}
	skipped = json_object_new_array();
	arr = entries_of(saved);
	n = json_object_array_length(arr);
	/* The channel counts first (last saved first), then everything else last written
	 * first: a count change resets the values that hang on the queues (and the queues
	 * above the new counts are gone), so those come back once the queues are. */
	for (size_t k = 0; k < 2 * n; k++) {
		size_t i = n - 1 - k % n;
		json_object *je = json_object_array_get_idx(arr, i);
		bool chan = strcmp(json_get_string(je, "kind", ""), "channels") == 0;
		struct plan_entry e;
		struct nm_error e2;
		const char *value;
		int r;
		if (chan != (k < n))
			continue;
		if (entry_from_json(je, h, &e, &value, &e2) < 0)
			r = -1;
		else if (device_gone(h, &e)) {
			json_object_array_add(skipped, json_object_new_string(e.path));
			continue;
		} else
			r = restore_one(h, &e, value, &e2);
		if (r == 2) {
			json_object_array_add(skipped, json_object_new_string(e.path));
			continue;
		}
		if (r < 0 && failed++ == 0)
			snprintf(first, sizeof(first), "%s", e2.message);
		restored += r == 1;
		unchanged += r == 0;
	}
	if (failed > 0) {
		nm_error_set(
		    err, NM_ERR_FAILED,
		    "revert: %zu of %zu values could not be restored (first: %s); the saved "
		    "state is kept: fix that and revert again",
		    failed, n, first);
		json_object_put(res);
		json_object_put(skipped);
		json_object_put(saved);
		json_object_put(applied);
		return NULL;
	}
	json_add_bool(res, "reverted", true);
	json_add_string(res, "profile", json_get_string(applied, "profile", NULL));
	json_add_string(res, "device", json_get_string(applied, "device", NULL));
	json_add_string(res, "saved_at", json_get_string(saved, "created", NULL));
	json_add_uint(res, "restored", restored);
	json_add_uint(res, "unchanged", unchanged);
	json_object_object_add(res, "skipped", skipped);
	json_object_put(saved);
	json_object_put(applied);
	/* applied first: a crash between the two leaves saved.json, and revert again works. */
	if (remove_state(state_dir, STATE_APPLIED, err) < 0 ||
	    remove_state(state_dir, STATE_SAVED, err) < 0) {
		json_object_put(res);
		return NULL;
	}
	if (h->real)
		profile_agents_unlock();
	return res;
}

/* The entries of applied whose live value differs from what was written, each with who
 * of agents could have changed it. */
static json_object *
drift(json_object *applied, struct profile_host *h, json_object *agents)
{
	json_object *arr = entries_of(applied), *out = json_object_new_array();
	char want[1024], got[1024];

	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct plan_entry e;
		const char *value;
		json_object *d;
		char *live;
		if (entry_from_json(json_object_array_get_idx(arr, i), h, &e, &value, NULL) < 0)
			continue;
		live = device_gone(h, &e) ? NULL : plan_read(h, &e, NULL);
		if (live != NULL && plan_same(e.kind, e.name, live, value)) {
			free(live);
			continue;
		}
		d = json_object_new_object();
		json_add_string(d, "kind", plan_kind_name(e.kind));
		json_add_string(d, "path", e.path);
		plan_display(e.kind, value, want, sizeof(want));
		json_add_string(d, "expected", want);
		if (live != NULL) {
			plan_display(e.kind, live, got, sizeof(got));
			json_add_string(d, "live", got);
		} else
			json_add_string(d, "live", NULL);
		json_object_object_add(d, "who", profile_agents_who(agents, e.kind));
		free(live);
		json_object_array_add(out, d);
	}
	return out;
}

/* Every value the applied profile wrote, as the host has it now. */
json_object *
profile_state_values(const char *state_dir, struct profile_host *h)
{
	json_object *applied, *arr, *o, *vals;
	char buf[1024];
	bool missing;

	if ((applied = load_json(state_dir, STATE_APPLIED, &missing, NULL)) == NULL)
		return NULL;
	o = json_object_new_object();
	json_add_string(o, "profile", json_get_string(applied, "profile", NULL));
	json_add_string(o, "device", json_get_string(applied, "device", NULL));
	json_add_string(o, "time", json_get_string(applied, "time", NULL));
	vals = json_object_new_object();
	arr = entries_of(applied);
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct plan_entry e;
		const char *value;
		char *live;
		if (entry_from_json(json_object_array_get_idx(arr, i), h, &e, &value, NULL) < 0)
			continue;
		live = device_gone(h, &e) ? NULL : plan_read(h, &e, NULL);
		if (live != NULL) {
			plan_display(e.kind, live, buf, sizeof(buf));
			json_add_string(vals, e.path, buf);
		} else
			json_object_object_add(vals, e.path, NULL);
		free(live);
	}
	json_object_object_add(o, "values", vals);
	json_object_put(applied);
	return o;
}

/* The applied profile in brief: its name, device, the kinds of value it turned on and the
 * sections it skipped. */
json_object *
profile_state_applied_brief(const char *state_dir)
{
	json_object *applied, *o, *kinds, *seen;
	bool missing;

	if ((applied = load_json(state_dir, STATE_APPLIED, &missing, NULL)) == NULL)
		return NULL;
	o = json_object_new_object();
	json_add_string(o, "name", json_get_string(applied, "profile", NULL));
	json_add_string(o, "device", json_get_string(applied, "device", NULL));
	kinds = json_object_new_array();
	seen = json_object_new_object();
	for (size_t i = 0; i < json_object_array_length(entries_of(applied)); i++) {
		json_object *e = json_object_array_get_idx(entries_of(applied), i);
		const char *k = json_get_string(e, "kind", NULL);
		const char *v = json_get_string(e, "value", NULL);
		int kind = k != NULL ? plan_kind_parse(k) : -1;
		if (kind < 0 || v == NULL || !plan_value_on((enum plan_kind)kind, v) ||
		    json_object_object_get_ex(seen, k, NULL))
			continue;
		json_object_object_add(seen, k, NULL);
		json_object_array_add(kinds, json_object_new_string(k));
	}
	json_object_put(seen);
	json_object_object_add(o, "kinds", kinds);
	if (json_object_object_get_ex(applied, "skipped", &seen) &&
	    json_object_is_type(seen, json_type_array))
		json_object_object_add(o, "skipped", json_object_get(seen));
	json_object_put(applied);
	return o;
}

/* What is applied, by whom, when, and what drifted since. */
json_object *
profile_state_status(const char *state_dir, struct profile_host *h)
{
	json_object *res = json_object_new_object(), *applied, *saved, *d, *agents;
	struct nm_error err, lerr;
	bool missing;

	applied = load_json(state_dir, STATE_APPLIED, &missing, &err);
	if (applied == NULL && !missing)
		json_add_string(res, "error", err.message);
	saved = load_json(state_dir, STATE_SAVED, &missing, NULL);
	json_add_bool(res, "applied", applied != NULL);
	json_add_uint(res, "saved", saved ? json_object_array_length(entries_of(saved)) : 0);
	if (saved != NULL)
		json_add_string(res, "saved_at", json_get_string(saved, "created", NULL));
	if (applied == NULL && saved != NULL)
		json_add_string(res, "note",
		                "values are saved but no profile is recorded as applied "
		                "(an apply was interrupted): \"profile revert\" restores "
		                "them");
	if (applied != NULL) {
		json_add_string(res, "profile", json_get_string(applied, "profile", NULL));
		json_add_string(res, "source", json_get_string(applied, "source", NULL));
		json_add_string(res, "device", json_get_string(applied, "device", NULL));
		json_add_string(res, "time", json_get_string(applied, "time", NULL));
		json_add_int(res, "uid", json_get_int(applied, "uid", -1));
		json_add_int(res, "pid", json_get_int(applied, "pid", -1));
		json_add_uint(res, "entries", json_object_array_length(entries_of(applied)));
		/* After a restart the lock is taken again here (and at the next apply). */
		if (h->real &&
		    profile_agents_lock(json_get_string(applied, "device", ""), &lerr) < 0)
			json_add_string(res, "lock", lerr.message);
	}
	agents = profile_agents_json(h, applied != NULL ? json_get_string(applied, "device", NULL)
	                                                : NULL);
	if (applied != NULL) {
		d = drift(applied, h, agents);
		json_add_bool(res, "drift", json_object_array_length(d) > 0);
		json_object_object_add(res, "drifted", d);
	}
	json_add_bool(res, "irqbalance", profile_host_irqbalance(h));
	json_object_object_add(res, "agents", agents);
	json_object_put(applied);
	json_object_put(saved);
	return res;
}

/* At start: the lock of the device of the profile recorded as applied (the real root only). */
void
profile_state_hold(const char *state_dir, const char *root)
{
	json_object *applied;
	struct nm_error err;
	bool missing;

	if (strcmp(root, "/") != 0 ||
	    (applied = load_json(state_dir, STATE_APPLIED, &missing, NULL)) == NULL)
		return;
	if (profile_agents_lock(json_get_string(applied, "device", ""), &err) < 0)
		log_warnx("profile %s: %s", json_get_string(applied, "profile", "?"), err.message);
	json_object_put(applied);
}

/* Is any entry still written after a rollback (which then failed)? */
static bool
still_written(const struct plan *pl)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->e[i].written)
			return true;
	return false;
}

/* A plan in two stages: the channel counts, then, planned again on the device as it is
 * now, the rest (its new targets saved too). */
static int
execute_staged(const char *state_dir, struct plan *pl, struct profile_host *h, struct nm_error *err)
{
	json_object *prev2 = NULL;
	struct nm_error e2;

	if (plan_execute_range(pl, h, 0, pl->stage2, err) < 0)
		return -1;
	if (plan_replan(pl, h, err) < 0 ||
	    profile_state_save(state_dir, pl, h->root, &prev2, err) < 0) {
		json_object_put(prev2);
		if (plan_undo(pl, h, &e2) < 0)
			return nm_error_set(err, NM_ERR_FAILED,
			                    "%s (planned again after the channel writes); rollback "
			                    "FAILED (first: %s); saved state kept: try \"profile "
			                    "revert\"",
			                    err->message, e2.message);
		return nm_error_set(err, NM_ERR_FAILED,
		                    "%s (planned again after the channel writes); rolled back, the "
		                    "host is as before",
		                    err->message);
	}
	json_object_put(prev2);
	return plan_execute_range(pl, h, pl->stage2, pl->n, err);
}

/* Save, write and record a plan; the host is as before on any failure. */
int
profile_apply(const char *state_dir, struct plan *pl, struct profile_host *h,
              const struct profile_origin *o, struct nm_error *err)
{
	json_object *prev = NULL;
	struct nm_error e2;
	int r = -1;

	/* Another daemon applying to the same device would overwrite these values and save
	 * ours as its "before": refused (a fixture root has no lock). */
	if (h->real && profile_agents_lock(h->dev, err) < 0)
		return -1;
	if (profile_state_save(state_dir, pl, h->root, &prev, err) < 0)
		goto out;
	if (pl->replan != NULL && execute_staged(state_dir, pl, h, err) < 0) {
		if (!still_written(pl) && profile_state_restore_saved(state_dir, prev, &e2) < 0)
			log_warnx("profile %s: %s", o->profile, e2.message);
		goto out;
	}
	if (pl->replan == NULL && plan_execute(pl, h, err) < 0) {
		/* A failed rollback keeps the saved values, for profile revert. */
		if (!still_written(pl) && profile_state_restore_saved(state_dir, prev, &e2) < 0)
			log_warnx("profile %s: %s", o->profile, e2.message);
		goto out;
	}
	if (profile_state_applied(state_dir, pl, o, h->dev, err) < 0) {
		/* Without a record the change could not be shown or reverted: undo it. */
		if (plan_undo(pl, h, &e2) < 0)
			log_warnx("profile %s: undo after a failed save: %s", o->profile,
			          e2.message);
		else
			profile_state_restore_saved(state_dir, prev, NULL);
		goto out;
	}
	r = 0;
out:
	/* Nothing applied before and nothing now: the lock goes too. */
	if (r < 0 && prev == NULL && h->real)
		profile_agents_unlock();
	json_object_put(prev);
	return r;
}
