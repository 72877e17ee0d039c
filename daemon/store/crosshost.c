/* crosshost.c: a multi-host result's hosts checked and put together, and its cross-host
 * figures with the loss bounded by the edges' skew (crosshost.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "crosshost.h"
#include "jsonutil.h"

#define CHECK_DEPTH 64 /* deeper than any report; a deeper one is refused, not walked */
#define PATH_LEN    200

/* A number's trouble, or NULL when it is a number within range (nonneg: not below 0). Not
 * a number (a string, a boolean, null) is no trouble: labels are not counted. */
static const char *
number_trouble(json_object *v, bool nonneg)
{
	if (json_object_is_type(v, json_type_int)) {
		/* A uint64 above INT64_MAX reads as INT64_MAX: above the range too. */
		int64_t i = json_object_get_int64(v);
		if (i > CROSSHOST_COUNT_MAX || i < -CROSSHOST_COUNT_MAX)
			return "beyond 2^62";
		return nonneg && i < 0 ? "negative" : NULL;
	}
	if (json_object_is_type(v, json_type_double)) {
		double d = json_object_get_double(v);
		if (!isfinite(d))
			return "not finite";
		if (fabs(d) > (double)CROSSHOST_COUNT_MAX)
			return "beyond 2^62";
		return nonneg && d < 0 ? "negative" : NULL;
	}
	return NULL;
}

/* Walk v (at path, of length len) for the first number in trouble: its path and trouble
 * into why. nonneg for every number below. -1 when one is (or the nesting is too deep). */
static int
walk_check(json_object *v, bool nonneg, char *path, size_t len, int depth, char *why, size_t size)
{
	const char *t;
	int n;

	if (depth > CHECK_DEPTH) {
		snprintf(why, size, "its report nests deeper than %d at %s", CHECK_DEPTH, path);
		return -1;
	}
	if (json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, k, m)
		{
			n = snprintf(path + len, PATH_LEN - len, "%s%s", len ? "." : "", k);
			if (n < 0 || len + (size_t)n >= PATH_LEN)
				n = (int)(PATH_LEN - 1 - len);
			if (walk_check(m, nonneg, path, len + (size_t)n, depth + 1, why, size) < 0)
				return -1;
		}
	} else if (json_object_is_type(v, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			n = snprintf(path + len, PATH_LEN - len, "%s%zu", len ? "." : "", i);
			if (n < 0 || len + (size_t)n >= PATH_LEN)
				n = (int)(PATH_LEN - 1 - len);
			if (walk_check(json_object_array_get_idx(v, i), nonneg, path,
			               len + (size_t)n, depth + 1, why, size) < 0)
				return -1;
		}
	} else if ((t = number_trouble(v, nonneg)) != NULL) {
		snprintf(why, size, "its report has an out-of-range number at %s (%s: %.60s)", path,
		         t, json_object_to_json_string(v));
		return -1;
	}
	path[len] = '\0';
	return 0;
}

/* Check member key of o (when there) with nonneg, under the path prefix. */
static int
check_member(json_object *o, const char *key, const char *prefix, char *why, size_t size)
{
	char path[PATH_LEN];
	json_object *v;
	int n;

	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	n = snprintf(path, sizeof(path), "%s%s", prefix, key);
	if (n < 0 || (size_t)n >= sizeof(path))
		n = (int)sizeof(path) - 1;
	return walk_check(v, true, path, (size_t)n, 0, why, size);
}

int
crosshost_check_report(json_object *report, char *why, size_t size)
{
	char path[PATH_LEN] = "";
	json_object *fig = NULL, *win = NULL;

	if (!json_object_is_type(report, json_type_object)) {
		snprintf(why, size, "its report is not an object");
		return -1;
	}
	/* Everything in range; then what arithmetic uses, not negative either. */
	if (walk_check(report, false, path, 0, 0, why, size) < 0)
		return -1;
	if (json_object_object_get_ex(report, "figures", &fig) &&
	    check_member(fig, "devices", "figures.", why, size) < 0)
		return -1;
	if (check_member(report, "span_s", "", why, size) < 0)
		return -1;
	if (json_object_object_get_ex(report, "window", &win) &&
	    (check_member(win, "duration_s", "window.", why, size) < 0 ||
	     check_member(win, "start_real_ns", "window.", why, size) < 0 ||
	     check_member(win, "end_real_ns", "window.", why, size) < 0))
		return -1;
	return 0;
}

int
crosshost_check_edges(json_object *edges, const char *peer, char *why, size_t size)
{
	static const char *const names[] = {"start", "stop"};

	for (size_t i = 0; i < 2; i++) {
		json_object *e = NULL, *peers = NULL, *h = NULL, *v = NULL;
		int64_t at;
		if (!json_object_object_get_ex(edges, names[i], &e) ||
		    !json_object_object_get_ex(e, "peers", &peers) ||
		    !json_object_object_get_ex(peers, peer, &h) ||
		    json_object_object_get_ex(h, "error", NULL))
			continue;
		at = json_object_object_get_ex(h, "real_ns", &v) &&
		             json_object_is_type(v, json_type_int)
		         ? json_object_get_int64(v)
		         : 0;
		if (at < 1 || at > CROSSHOST_COUNT_MAX) {
			snprintf(why, size, "its %s edge time is out of range (%.40s ns)", names[i],
			         v != NULL ? json_object_to_json_string(v) : "none");
			return -1;
		}
		if (!json_object_object_get_ex(h, "skew_ms", &v) ||
		    !isfinite(json_object_get_double(v))) {
			snprintf(why, size, "its %s edge has no skew", names[i]);
			return -1;
		}
	}
	return 0;
}

void
crosshost_assemble(json_object *extra, const char *local_host, json_object *local,
                   json_object *parts, json_object *edges)
{
	json_object *hosts = json_object_new_object(), *incomplete = json_object_new_object();
	json_object *reports = json_object_new_object();
	char why[400];

	json_object_object_add(hosts, local_host, NULL); /* this host: its report (window.c) */
	json_object_object_foreach(parts, p, r)
	{
		json_object *po;
		if (json_object_is_type(r, json_type_object) &&
		    json_object_object_get_ex(r, "complete", NULL) &&
		    !json_get_bool(r, "complete", true))
			snprintf(why, sizeof(why), "%s",
			         json_get_string(r, "reason", "incomplete"));
		else if (crosshost_check_report(r, why, sizeof(why)) == 0 &&
		         crosshost_check_edges(edges, p, why, sizeof(why)) == 0) {
			json_object_object_add(hosts, p, json_object_get(r));
			json_object_object_add(reports, p, json_object_get(r));
			continue;
		}
		po = json_object_new_object();
		json_add_bool(po, "complete", false);
		json_add_string(po, "reason", why);
		json_object_object_add(hosts, p, po);
		json_add_string(incomplete, p, why);
	}
	if (local != NULL)
		json_object_object_add(reports, local_host, json_object_get(local));
	json_object_object_add(extra, "hosts", hosts);
	json_add_string(extra, "local_host", local_host);
	json_object_object_add(extra, "edges", json_object_get(edges));
	json_object_object_add(extra, "peers_incomplete", incomplete);
	json_object_object_add(extra, "cross", crosshost_cross(reports, edges, local_host));
	json_object_put(reports);
}

/* The device of a report's figures.devices with the most of field, or NULL. */
static json_object *
busiest(json_object *report, const char *field)
{
	json_object *fig = NULL, *devs = NULL, *best = NULL;
	int64_t most = 0;

	if (!json_object_object_get_ex(report, "figures", &fig) ||
	    !json_object_object_get_ex(fig, "devices", &devs) ||
	    !json_object_is_type(devs, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(devs); i++) {
		json_object *dv = json_object_array_get_idx(devs, i);
		int64_t v = json_get_int(dv, field, 0);
		if (strcmp(json_get_string(dv, "name", ""), "lo") != 0 && v > most) {
			most = v;
			best = dv;
		}
	}
	return best;
}

/* A report's span in seconds (0 when it has none). */
static double
span_of(json_object *report)
{
	json_object *win = NULL;

	if (json_object_object_get_ex(report, "window", &win))
		return json_get_double(win, "duration_s", 0);
	return json_get_double(report, "span_s", 0);
}

/* A host's skew and round trip at edge: 0 and 0 for this host; false when it has none. */
static bool
host_time(json_object *edge, const char *local_host, const char *h, double *skew, double *rt)
{
	json_object *peers = NULL, *o = NULL;

	if (strcmp(h, local_host) == 0) {
		*skew = *rt = 0;
		return true;
	}
	if (!json_object_object_get_ex(edge, "peers", &peers) ||
	    !json_object_object_get_ex(peers, h, &o) ||
	    !json_object_object_get_ex(o, "skew_ms", NULL))
		return false;
	*skew = json_get_double(o, "skew_ms", NAN);
	*rt = json_get_double(o, "round_trip_ms", INFINITY);
	return isfinite(*skew) && !isnan(*rt) && *rt >= 0;
}

double
crosshost_edge_gap_ms(json_object *edge, const char *local_host, const char *a, const char *b)
{
	double sa, ra, sb, rb;

	if (!host_time(edge, local_host, a, &sa, &ra) || !host_time(edge, local_host, b, &sb, &rb))
		return -1;
	return fmin(fabs(sa - sb), ra + rb);
}

void
crosshost_bound_loss(json_object *entry, double pps, double gap_start_ms, double gap_stop_ms)
{
	int64_t tx = json_get_int(entry, "tx_packets", 0),
	        rx = json_get_int(entry, "rx_packets", 0);
	double gap = fmax(gap_start_ms, 0) + fmax(gap_stop_ms, 0);
	double b = ceil(pps * gap / 1000);
	int64_t diff, bound, lost;
	const char *state;

	/* Both are checked counts (crosshost_check_report): the difference cannot overflow. */
	if (tx < 0 || tx > CROSSHOST_COUNT_MAX)
		tx = 0;
	if (rx < 0 || rx > CROSSHOST_COUNT_MAX)
		rx = 0;
	diff = tx - rx;
	if (!(b >= 0)) /* NAN: an unknown rate */
		b = 0;
	bound = b < (double)CROSSHOST_COUNT_MAX ? (int64_t)b : CROSSHOST_COUNT_MAX;
	if (diff > bound) {
		state = "lost";
		lost = diff;
	} else {
		state = diff >= -bound ? "within_skew" : "more_received";
		lost = 0;
	}
	json_add_int(entry, "tx_minus_rx_packets", diff);
	json_add_int(entry, "loss_bound_packets", bound);
	json_add_string(entry, "loss_state", state);
	json_add_int(entry, "lost_packets", lost);
	json_object_object_add(entry, "loss_ratio",
	                       json_double(tx > 0 ? (double)lost / (double)tx : 0));
}

/* One entry of the cross figures: a's device tx against b's device rx. */
static json_object *
cross_entry(const char *a, json_object *ra, json_object *tx, const char *b, json_object *rb,
            json_object *rx, json_object *edges, const char *local_host)
{
	json_object *o = json_object_new_object(), *gaps = json_object_new_object();
	json_object *es = json_object_object_get(edges, "start"),
	            *ee = json_object_object_get(edges, "stop");
	int64_t txp = json_get_int(tx, "tx_packets", 0), txb = json_get_int(tx, "tx_bytes", 0),
	        rxp = json_get_int(rx, "rx_packets", 0), rxb = json_get_int(rx, "rx_bytes", 0);
	double sa = span_of(ra), sb = span_of(rb), gs, ge, pps = 0;

	/* The link's rate: the faster end's, each over its own window. */
	if (sa > 0)
		pps = (double)txp / sa;
	if (sb > 0)
		pps = fmax(pps, (double)rxp / sb);
	gs = crosshost_edge_gap_ms(es, local_host, a, b);
	ge = crosshost_edge_gap_ms(ee, local_host, a, b);
	json_add_string(o, "sender", a);
	json_add_string(o, "sender_device", json_get_string(tx, "name", ""));
	json_add_string(o, "receiver", b);
	json_add_string(o, "receiver_device", json_get_string(rx, "name", ""));
	json_add_int(o, "tx_packets", txp);
	json_add_int(o, "tx_bytes", txb);
	json_add_int(o, "rx_packets", rxp);
	json_add_int(o, "rx_bytes", rxb);
	json_object_object_add(gaps, "start", gs < 0 ? NULL : json_double(gs));
	json_object_object_add(gaps, "stop", ge < 0 ? NULL : json_double(ge));
	json_object_object_add(o, "edge_gap_ms", gaps);
	crosshost_bound_loss(o, pps, gs, ge);
	json_object_object_add(o, "bytes_ratio",
	                       json_double(txb > 0 ? (double)rxb / (double)txb : 0));
	json_object_object_add(o, "tx_bits_per_s", json_double(sa > 0 ? (double)txb * 8 / sa : 0));
	json_object_object_add(o, "rx_bits_per_s", json_double(sb > 0 ? (double)rxb * 8 / sb : 0));
	return o;
}

json_object *
crosshost_cross(json_object *reports, json_object *edges, const char *local_host)
{
	json_object *arr = json_object_new_array();

	json_object_object_foreach(reports, a, ra)
	{
		json_object *tx = busiest(ra, "tx_bytes");
		if (tx == NULL)
			continue;
		json_object_object_foreach(reports, b, rb)
		{
			json_object *rx;
			if (strcmp(a, b) == 0 || (rx = busiest(rb, "rx_bytes")) == NULL)
				continue;
			json_object_array_add(arr,
			                      cross_entry(a, ra, tx, b, rb, rx, edges, local_host));
		}
	}
	return arr;
}
