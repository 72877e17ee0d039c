/* tuning.c: what the host's RPS, RFS and XPS (and the NIC knobs: channels, offloads, NAPI)
 * were when a window closed, and which profile
 * was applied, read through the profile host (the same files, below the same root, as
 * profile-show): three small sysfs files per queue of the profile's device and of the
 * busiest devices that moved, about 3 ms per 144-queue device (a release build reading a
 * fixture tree), on the results writer thread as the window closes (window.c): it touches
 * only the report it is given and the files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "jsonutil.h"
#include "profile.h"
#include "tuning.h"

/* Read one queue file (or the sock_flow sysctl, index -1) into a new string; NULL when it
 * cannot be read. */
static char *
read_value(struct profile_host *h, enum plan_kind kind, int index)
{
	struct plan_entry e;

	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.index = index;
	snprintf(e.dev, sizeof(e.dev), "%s", h->dev);
	if (kind == PLAN_SYSCTL)
		snprintf(e.name, sizeof(e.name), "net.core.rps_sock_flow_entries");
	plan_entry_path(h, &e);
	return plan_read(h, &e, NULL);
}

/* Count the queues whose mask of kind is set; -1 when no queue has the file. */
static long
count_masks(struct profile_host *h, enum plan_kind kind, unsigned nq)
{
	long set = 0;
	bool any = false;

	for (unsigned q = 0; q < nq; q++) {
		char *v = read_value(h, kind, (int)q);
		if (v == NULL)
			continue;
		any = true;
		set += plan_value_on(kind, v);
		free(v);
	}
	return any ? set : -1;
}

/* The NIC knobs of a device ([channels], [offloads], [napi]): "channels" {rx, tx, other,
 * combined and their maxima} or null, "offloads" {FEATURE: on} of the features profile
 * show reports that the device has, "napi" {gro_flush_timeout, napi_defer_hard_irqs,
 * threaded} (null where not readable). A few ioctls and three small files. */
static void
nic_json(struct profile_host *h, json_object *o)
{
	static const char *const files[] = {"gro_flush_timeout", "napi_defer_hard_irqs",
	                                    "threaded"};
	json_object *feats = profile_offloads_json(h), *off = json_object_new_object();
	json_object *napi = json_object_new_object();

	json_object_object_add(o, "channels", profile_arfs_channels(h, h->dev));
	json_object_object_add(o, "rings", profile_rings_json(h));
	json_object_object_add(o, "coalesce", profile_coalesce_json(h));
	json_object_object_add(o, "rss", profile_rss_json(h));
	json_object_object_foreach(feats, name, f)
	{
		json_object *on = NULL;
		json_object_object_get_ex(f, "on", &on);
		json_object_object_add(off, name, json_object_get(on));
	}
	json_object_put(feats);
	json_object_object_add(o, "offloads", off);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *v = plan_read_live(h, PLAN_NAPI, -1, files[i]);
		if (v != NULL)
			json_add_uint(napi, files[i], strtoull(v, NULL, 10));
		else
			json_object_object_add(napi, files[i], NULL);
		free(v);
	}
	json_object_object_add(o, "napi", napi);
}

/* One device's queue counts, masks and flow counts, and its NIC knobs. */
static json_object *
device_json(struct profile_host *h)
{
	json_object *o = json_object_new_object();
	unsigned long long flows = 0;
	bool any = false;
	long n;

	json_add_string(o, "name", h->dev);
	json_add_uint(o, "rx_queues", h->nrx);
	json_add_uint(o, "tx_queues", h->ntx);
	n = count_masks(h, PLAN_RPS, h->nrx);
	if (n < 0)
		json_object_object_add(o, "rps_queues", NULL);
	else
		json_add_uint(o, "rps_queues", (uint64_t)n);
	for (unsigned q = 0; q < h->nrx; q++) {
		char *v = read_value(h, PLAN_FLOW_CNT, (int)q);
		if (v != NULL) {
			flows += strtoull(v, NULL, 10);
			any = true;
			free(v);
		}
	}
	if (any)
		json_add_uint(o, "flow_cnt", flows);
	else
		json_object_object_add(o, "flow_cnt", NULL);
	n = count_masks(h, PLAN_XPS, h->ntx);
	if (n < 0)
		json_object_object_add(o, "xps_queues", NULL);
	else
		json_add_uint(o, "xps_queues", (uint64_t)n);
	nic_json(h, o);
	return o;
}

/* A device of the report and the packets it moved. */
struct moved {
	const char *name;
	double packets;
};

/* Busiest first. */
static int
by_packets(const void *a, const void *b)
{
	double pa = ((const struct moved *)a)->packets, pb = ((const struct moved *)b)->packets;

	return pa < pb ? 1 : pa > pb ? -1 : 0;
}

/* Append the devices of arr (the report's "devices", or "queues.devices" with its totals)
 * with the packets each moved. */
static void
moved_of(json_object *arr, struct moved *m, size_t *n, size_t cap)
{
	if (!json_object_is_type(arr, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(arr) && *n < cap; i++) {
		json_object *d = json_object_array_get_idx(arr, i), *tot;
		const char *name = json_get_string(d, "name", NULL);
		if (name == NULL || strcmp(name, "lo") == 0)
			continue;
		if (json_object_object_get_ex(d, "total", &tot))
			d = tot;
		m[*n].name = name;
		m[*n].packets =
		    json_get_double(d, "rx_packets", 0) + json_get_double(d, "tx_packets", 0);
		(*n)++;
	}
}

/* Add to names (after what is there) the busiest devices of the report, up to
 * TUNING_MAX_DEVICES in all: each costs three small files per queue. */
static void
busiest(json_object *report, json_object *names)
{
	json_object *figs, *g, *arr;
	struct moved m[2 * TUNING_MAX_CANDIDATES];
	size_t n = 0;

	if (!json_object_object_get_ex(report, "figures", &figs))
		return;
	if (json_object_object_get_ex(figs, "devices", &arr))
		moved_of(arr, m, &n, TUNING_MAX_CANDIDATES);
	if (json_object_object_get_ex(figs, "queues", &g) &&
	    json_object_object_get_ex(g, "devices", &arr))
		moved_of(arr, m, &n, 2 * TUNING_MAX_CANDIDATES);
	qsort(m, n, sizeof(m[0]), by_packets);
	for (size_t i = 0; i < n && json_object_object_length(names) < TUNING_MAX_DEVICES; i++)
		json_object_object_add(names, m[i].name, NULL);
}

/* The applied profile, the sysctl and the devices. */
json_object *
tuning_read(const char *root, const char *state_dir, json_object *report)
{
	json_object *o = json_object_new_object(), *devs, *names;
	struct profile_host h;
	struct nm_error err;
	char *v;

	json_object *profile = profile_state_applied_brief(state_dir);
	const char *pdev = json_get_string(profile, "device", NULL);

	json_object_object_add(o, "profile", profile);
	if (profile_host_open(&h, root, &err) < 0) {
		json_object_object_add(o, "rps_sock_flow_entries", NULL);
		json_add_string(o, "error", err.message);
		return o;
	}
	v = read_value(&h, PLAN_SYSCTL, -1);
	if (v != NULL)
		json_add_uint(o, "rps_sock_flow_entries", strtoull(v, NULL, 10));
	else
		json_object_object_add(o, "rps_sock_flow_entries", NULL);
	free(v);
	/* The profile's device first: its tuning is what compare judges, moved or not. */
	names = json_object_new_object();
	if (pdev != NULL)
		json_object_object_add(names, pdev, NULL);
	busiest(report, names);
	devs = json_object_new_array();
	json_object_object_foreach(names, dev, unused)
	{
		(void)unused;
		if (profile_host_set_device(&h, dev, &err) == 0)
			json_object_array_add(devs, device_json(&h));
	}
	json_object_put(names);
	json_object_object_add(o, "devices", devs);
	profile_host_close(&h);
	return o;
}

/* The queue counts, masks and flow counts of each device of devs[0..n) that exists (as
 * tuning_read gives them), and whether irqbalance runs; for the manifest (manifest.c). */
json_object *
tuning_devices_read(const char *root, const char *const *devs, size_t n, bool *irqbalance)
{
	json_object *arr = json_object_new_array();
	struct profile_host h;
	struct nm_error err;

	*irqbalance = false;
	if (profile_host_open(&h, root, &err) < 0)
		return arr;
	*irqbalance = profile_host_irqbalance(&h);
	for (size_t i = 0; i < n; i++)
		if (profile_host_set_device(&h, devs[i], &err) == 0)
			json_object_array_add(arr, device_json(&h));
	profile_host_close(&h);
	return arr;
}

/* The applied profile's values now (profile_state_values), or null. */
json_object *
tuning_knobs_read(const char *root, const char *state_dir)
{
	struct profile_host h;
	struct nm_error err;
	json_object *o;

	if (profile_host_open(&h, root, &err) < 0)
		return NULL;
	o = profile_state_values(state_dir, &h);
	profile_host_close(&h);
	return o;
}

/* The same profile (name and apply time) at both edges? */
static bool
same_profile(json_object *a, json_object *b)
{
	const char *na = json_get_string(a, "profile", ""), *nb = json_get_string(b, "profile", "");
	const char *ta = json_get_string(a, "time", ""), *tb = json_get_string(b, "time", "");

	return strcmp(na, nb) == 0 && strcmp(ta, tb) == 0;
}

/* "knobs" in tuning: both edges' values and what changed between them. */
void
tuning_knobs_edges(json_object *tuning, bool have_open, json_object *open, json_object *close)
{
	json_object *k = json_object_new_object(), *changed = json_object_new_array(), *vo = NULL,
	            *vc = NULL;

	json_object_object_get_ex(open, "values", &vo);
	json_object_object_get_ex(close, "values", &vc);
	json_object_object_add(k, "open", open ? json_object_get(open) : NULL);
	json_object_object_add(k, "close", close ? json_object_get(close) : NULL);
	if (have_open)
		json_add_bool(k, "profile_changed",
		              (open == NULL) != (close == NULL) ||
		                  (open != NULL && !same_profile(open, close)));
	else
		json_object_object_add(k, "profile_changed", NULL);
	if (vc != NULL && vo != NULL) {
		json_object_object_foreach(vc, path, v)
		{
			json_object *ov = NULL, *c;
			const char *a, *b;
			if (!json_object_object_get_ex(vo, path, &ov))
				continue;
			a = ov ? json_object_get_string(ov) : NULL;
			b = v ? json_object_get_string(v) : NULL;
			if ((a == NULL) == (b == NULL) && (a == NULL || strcmp(a, b) == 0))
				continue;
			c = json_object_new_object();
			json_add_string(c, "path", path);
			json_add_string(c, "open", a);
			json_add_string(c, "close", b);
			json_object_array_add(changed, c);
		}
	}
	json_object_object_add(k, "changed", changed);
	json_object_object_add(tuning, "knobs", k);
}
