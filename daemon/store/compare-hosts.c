/* compare-hosts.c: two multi-host results host by host, matched by name, and their
 * cross-host figures pair by pair (compare-hosts.h). What one side lacks is listed as
 * missing: comparing it with 0 would read as a fall of 100 %. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare-hosts.h"
#include "compare.h"
#include "crosshost.h"
#include "jsonutil.h"
#include "xmalloc.h"

#define PREFIX_MAX 300 /* "queues.devices." + a device name + "." */

/* Does any of the n results have a "hosts" object? */
static bool
has_hosts(json_object *const *r, size_t n)
{
	json_object *h;

	for (size_t i = 0; i < n; i++)
		if (json_object_object_get_ex(r[i], "hosts", &h) &&
		    json_object_is_type(h, json_type_object))
			return true;
	return false;
}

/* The report of host name in result r, or NULL. */
static json_object *
host_report(json_object *r, const char *name)
{
	json_object *h, *rep;

	if (!json_object_object_get_ex(r, "hosts", &h) ||
	    !json_object_is_type(h, json_type_object) ||
	    !json_object_object_get_ex(h, name, &rep) ||
	    !json_object_is_type(rep, json_type_object))
		return NULL;
	return rep;
}

/* Add the members' names of each result's key object to order (an array, first
 * appearance first) and seen (a set). */
static void
add_names(json_object *const *r, size_t n, json_object *order, json_object *seen)
{
	json_object *h;

	for (size_t i = 0; i < n; i++) {
		if (!json_object_object_get_ex(r[i], "hosts", &h) ||
		    !json_object_is_type(h, json_type_object))
			continue;
		json_object_object_foreach(h, k, v)
		{
			(void)v;
			if (json_object_object_get_ex(seen, k, NULL))
				continue;
			json_object_object_add(seen, k, NULL);
			json_object_array_add(order, json_object_new_string(k));
		}
	}
}

/* The names of the devices in the reports' figures.devices, as a set. */
static json_object *
device_set(json_object *const *reps, size_t n)
{
	json_object *set = json_object_new_object(), *fig, *devs;

	for (size_t i = 0; i < n; i++) {
		if (!json_object_object_get_ex(reps[i], "figures", &fig) ||
		    !json_object_object_get_ex(fig, "devices", &devs) ||
		    !json_object_is_type(devs, json_type_array))
			continue;
		for (size_t d = 0; d < json_object_array_length(devs); d++) {
			const char *name =
			    json_get_string(json_object_array_get_idx(devs, d), "name", NULL);
			if (name != NULL)
				json_object_object_add(set, name, NULL);
		}
	}
	return set;
}

/* Keep only the comparison's figures whose path starts with none of the prefixes. */
static void
drop_prefixed(json_object *cmp, const char *const *prefix, size_t np)
{
	json_object *figs, *kept;

	if (np == 0 || !json_object_object_get_ex(cmp, "figures", &figs))
		return;
	kept = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(figs); i++) {
		json_object *f = json_object_array_get_idx(figs, i);
		const char *path = json_get_string(f, "figure", "");
		bool drop = false;
		for (size_t p = 0; p < np && !drop; p++)
			drop = strncmp(path, prefix[p], strlen(prefix[p])) == 0;
		if (!drop)
			json_object_array_add(kept, json_object_get(f));
	}
	json_object_object_add(cmp, "figures", kept);
}

/* A missing entry: {"KEY": name, "in": side}. */
static json_object *
missing_entry(const char *key, const char *name, const char *side)
{
	json_object *o = json_object_new_object();

	json_add_string(o, key, name);
	json_add_string(o, "in", side);
	return o;
}

/* The members of mine not in other: added to missing as in side, and their figures
 * (each prefix fmt of the name) dropped from cmp. */
static void
drop_one_sided(json_object *cmp, json_object *mine, json_object *other, const char *key,
               const char *side, const char *const *fmt, size_t nfmt, json_object *missing)
{
	json_object_object_foreach(mine, name, v)
	{
		char buf[4][PREFIX_MAX];
		const char *prefix[4];

		(void)v;
		if (json_object_object_get_ex(other, name, NULL))
			continue;
		json_object_array_add(missing, missing_entry(key, name, side));
		for (size_t f = 0; f < nfmt && f < 4; f++) {
			snprintf(buf[f], sizeof(buf[f]), fmt[f], name);
			prefix[f] = buf[f];
		}
		drop_prefixed(cmp, prefix, nfmt < 4 ? nfmt : 4);
	}
}

/* One host's reports of both sides compared; its devices on one side only as missing. */
static json_object *
compare_host(json_object *const *ha, size_t ca, json_object *const *hb, size_t cb,
             compare_hosts_fn cmpf)
{
	static const char *const fmt[] = {"devices.%s.", "queues.devices.%s."};
	json_object *cmp = cmpf(ha, ca, hb, cb), *missing = json_object_new_array();
	json_object *da = device_set(ha, ca), *db = device_set(hb, cb);

	drop_one_sided(cmp, da, db, "device", "a", fmt, 2, missing);
	drop_one_sided(cmp, db, da, "device", "b", fmt, 2, missing);
	json_object_object_add(cmp, "missing", missing);
	json_object_put(da);
	json_object_put(db);
	return cmp;
}

/* The members of a cross entry that are not compared: what the counters said before the
 * edges' skew bounded it, the bound and the gaps themselves. */
static const char *const cross_skip[] = {"tx_minus_rx_packets", "loss_bound_packets",
                                         "edge_gap_ms"};

/* A cross entry of r as compared: its figures but cross_skip; one stored before the loss
 * was bounded (no loss_state) gets its bound from r's edges and hosts (crosshost.c), so
 * that no side compares a negative loss. */
static json_object *
cross_entry(json_object *r, json_object *x)
{
	json_object *o = json_object_new_object(), *edges = NULL, *hosts = NULL;
	const char *snd = json_get_string(x, "sender", "?"),
	           *rcv = json_get_string(x, "receiver", "?");
	const char *local = json_get_string(r, "local_host", "");

	json_object_object_foreach(x, k, v)
	{
		bool skip = false;
		for (size_t i = 0; i < sizeof(cross_skip) / sizeof(cross_skip[0]); i++)
			skip |= strcmp(k, cross_skip[i]) == 0;
		if (!skip)
			json_object_object_add(o, k, json_object_get(v));
	}
	if (!json_object_object_get_ex(x, "loss_state", NULL)) {
		double st = 0, sr = 0, pps = 0;
		json_object_object_get_ex(r, "edges", &edges);
		if (json_object_object_get_ex(r, "hosts", &hosts)) {
			json_object *h = json_object_object_get(hosts, snd), *w = NULL;
			if (json_object_object_get_ex(h, "window", &w))
				st = json_get_double(w, "duration_s", 0);
			h = json_object_object_get(hosts, rcv);
			if (json_object_object_get_ex(h, "window", &w))
				sr = json_get_double(w, "duration_s", 0);
		}
		if (st > 0)
			pps = (double)json_get_int(x, "tx_packets", 0) / st;
		if (sr > 0)
			pps = fmax(pps, (double)json_get_int(x, "rx_packets", 0) / sr);
		crosshost_bound_loss(
		    o, isfinite(pps) ? pps : 0,
		    crosshost_edge_gap_ms(json_object_object_get(edges, "start"), local, snd, rcv),
		    crosshost_edge_gap_ms(json_object_object_get(edges, "stop"), local, snd, rcv));
		for (size_t i = 0; i < sizeof(cross_skip) / sizeof(cross_skip[0]); i++)
			json_object_object_del(o, cross_skip[i]);
	}
	return o;
}

/* A result's cross entries as a report compare_results flattens: {"span_s": its span,
 * "figures": {"SND>RCV": entry}}; pairs gets each pair's name. */
static json_object *
cross_report(json_object *r, json_object *pairs)
{
	json_object *out = json_object_new_object(), *figs = json_object_new_object(), *cross, *v;

	/* The span: so that totals of windows of unequal length are not judged (compare.h). */
	if (json_object_object_get_ex(r, "span_s", &v))
		json_object_object_add(out, "span_s", json_object_get(v));
	json_object_object_add(out, "figures", figs);
	if (!json_object_object_get_ex(r, "cross", &cross) ||
	    !json_object_is_type(cross, json_type_array))
		return out;
	for (size_t i = 0; i < json_object_array_length(cross); i++) {
		json_object *x = json_object_array_get_idx(cross, i);
		char pair[PREFIX_MAX];
		if (!json_object_is_type(x, json_type_object))
			continue;
		snprintf(pair, sizeof(pair), "%s>%s", json_get_string(x, "sender", "?"),
		         json_get_string(x, "receiver", "?"));
		json_object_object_add(figs, pair, cross_entry(r, x));
		json_object_object_add(pairs, pair, NULL);
	}
	return out;
}

/* The cross-host figures of both sides, pair by pair. */
static json_object *
compare_cross(json_object *const *a, size_t na, json_object *const *b, size_t nb)
{
	static const char *const fmt[] = {"%s."}, *const span[] = {"span_s"};
	json_object **xs = xcalloc(na + nb, sizeof(*xs));
	json_object *pa = json_object_new_object(), *pb = json_object_new_object();
	json_object *cmp, *out = json_object_new_object(), *missing = json_object_new_array();
	json_object *figs, *win;

	for (size_t i = 0; i < na + nb; i++)
		xs[i] = cross_report(i < na ? a[i] : b[i - na], i < na ? pa : pb);
	cmp = compare_results(xs, na, xs + na, nb);
	drop_one_sided(cmp, pa, pb, "pair", "a", fmt, 1, missing);
	drop_one_sided(cmp, pb, pa, "pair", "b", fmt, 1, missing);
	drop_prefixed(cmp, span, 1); /* the results' own, compared with their figures */
	if (json_object_object_get_ex(cmp, "figures", &figs))
		json_object_object_add(out, "figures", json_object_get(figs));
	if (json_object_object_get_ex(cmp, "windows", &win))
		json_object_object_add(out, "windows", json_object_get(win));
	json_object_object_add(out, "missing", missing);
	json_object_put(cmp);
	json_object_put(pa);
	json_object_put(pb);
	for (size_t i = 0; i < na + nb; i++)
		json_object_put(xs[i]);
	free(xs);
	return out;
}

void
compare_hosts_add(json_object *out, json_object *const *a, size_t na, json_object *const *b,
                  size_t nb, compare_hosts_fn cmpf)
{
	json_object *order, *seen, *hosts, *missing;
	json_object **ha, **hb;

	if (!has_hosts(a, na) && !has_hosts(b, nb))
		return;
	order = json_object_new_array();
	seen = json_object_new_object();
	add_names(a, na, order, seen);
	add_names(b, nb, order, seen);
	hosts = json_object_new_object();
	missing = json_object_new_array();
	ha = xcalloc(na, sizeof(*ha));
	hb = xcalloc(nb, sizeof(*hb));
	for (size_t i = 0; i < json_object_array_length(order); i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(order, i));
		size_t ca = 0, cb = 0;
		for (size_t k = 0; k < na; k++)
			if ((ha[ca] = host_report(a[k], name)) != NULL)
				ca++;
		for (size_t k = 0; k < nb; k++)
			if ((hb[cb] = host_report(b[k], name)) != NULL)
				cb++;
		if (ca > 0 && cb > 0)
			json_object_object_add(hosts, name, compare_host(ha, ca, hb, cb, cmpf));
		else
			json_object_array_add(missing, missing_entry("host", name, ca ? "a" : "b"));
	}
	free(ha);
	free(hb);
	json_object_object_add(out, "hosts", hosts);
	json_object_object_add(out, "hosts_missing", missing);
	json_object_object_add(out, "cross", compare_cross(a, na, b, nb));
	json_object_put(order);
	json_object_put(seen);
}
