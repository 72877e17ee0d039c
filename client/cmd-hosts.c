/* cmd-hosts.c: the hosts of a multi-host result side by side (peer-window.c in the daemon):
 * one column per host, then the cross-host figures and the edges' skew. */
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "jsonutil.h"
#include "render-table.h"

#define HOSTS_MAX (TABLE_MAX_COLS - 1)

/* The device of a host's report with the most of field (lo left out), or NULL. */
static json_object *
busiest(json_object *rep, const char *field)
{
	json_object *fig = NULL, *devs = NULL, *best = NULL;
	int64_t most = 0;

	if (!json_object_object_get_ex(rep, "figures", &fig) ||
	    !json_object_object_get_ex(fig, "devices", &devs) ||
	    !json_object_is_type(devs, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(devs); i++) {
		json_object *d = json_object_array_get_idx(devs, i);
		if (strcmp(json_get_string(d, "name", ""), "lo") != 0 &&
		    json_get_int(d, field, 0) > most) {
			most = json_get_int(d, field, 0);
			best = d;
		}
	}
	return best;
}

/* One row of the side-by-side table: label, then fn's cell for each host. */
static void
host_row(struct table *t, const char *label, json_object *hosts, const char *const *names, size_t n,
         void (*fn)(json_object *rep, char *buf, size_t size))
{
	char cells[HOSTS_MAX][128];
	const char *row[HOSTS_MAX + 1];

	row[0] = label;
	for (size_t i = 0; i < n; i++) {
		fn(json_object_object_get(hosts, names[i]), cells[i], sizeof(cells[i]));
		row[i + 1] = cells[i];
	}
	table_row(t, row);
}

static void
cell_state(json_object *rep, char *buf, size_t size)
{
	json_object *win = NULL;

	if (json_object_object_get_ex(rep, "window", &win))
		snprintf(buf, size, "%s",
		         json_get_bool(win, "complete", false) ? "complete" : "incomplete");
	else
		snprintf(buf, size, "incomplete: %.100s", json_get_string(rep, "reason", "?"));
}

static void
cell_start(json_object *rep, char *buf, size_t size)
{
	json_object *win = NULL;

	json_object_object_get_ex(rep, "window", &win);
	snprintf(buf, size, "%s", json_get_string(win, "start", "-"));
}

static void
cell_duration(json_object *rep, char *buf, size_t size)
{
	json_object *win = NULL;

	if (json_object_object_get_ex(rep, "window", &win))
		snprintf(buf, size, "%.3f s", json_get_double(win, "duration_s", 0));
	else
		snprintf(buf, size, "-");
}

/* "vA 1.2 GB/s" style: the busiest device's bytes per second for field. */
static void
cell_dev(json_object *rep, const char *field, char *buf, size_t size)
{
	json_object *d = busiest(rep, field);
	char key[64];

	if (d == NULL) {
		snprintf(buf, size, "-");
		return;
	}
	snprintf(key, sizeof(key), "%s_per_s", field);
	snprintf(buf, size, "%s %.1f Mbit/s", json_get_string(d, "name", "?"),
	         json_get_double(d, key, 0) * 8 / 1e6);
}

static void
cell_tx(json_object *rep, char *buf, size_t size)
{
	cell_dev(rep, "tx_bytes", buf, size);
}

static void
cell_rx(json_object *rep, char *buf, size_t size)
{
	cell_dev(rep, "rx_bytes", buf, size);
}

/* The LOST cell of a cross entry: the loss with the edges' skew's bound ("0 (within the
 * edges' skew, +/-12)"); a result stored before losses were bounded shows its count. */
static void
lost_cell(json_object *x, char *buf, size_t size)
{
	const char *state = json_get_string(x, "loss_state", NULL);
	long long lost = (long long)json_get_int(x, "lost_packets", 0),
	          bound = (long long)json_get_int(x, "loss_bound_packets", 0),
	          diff = (long long)json_get_int(x, "tx_minus_rx_packets", 0);

	if (state == NULL)
		snprintf(buf, size, "%lld", lost);
	else if (strcmp(state, "within_skew") == 0)
		snprintf(buf, size, "0 (within the edges' skew, +/-%lld)", bound);
	else if (strcmp(state, "more_received") == 0)
		snprintf(buf, size, "0 (%lld more received: other traffic)", -diff);
	else
		snprintf(buf, size, "%lld (+/-%lld)", lost, bound);
}

/* The cross-host figures: one row per sender and receiver. */
static void
cross_table(json_object *cross, const struct ctl_opts *opts, FILE *fp)
{
	static const char *const hdr[] = {"SENDER",       "RECEIVER", ">TX PACKETS", ">RX PACKETS",
	                                  ">LOST",        ">LOSS %",  ">TX Mbit/s",  ">RX Mbit/s",
	                                  ">RX/TX BYTES", NULL};
	struct table t;

	table_init(&t, hdr);
	for (size_t i = 0; i < json_object_array_length(cross); i++) {
		json_object *x = json_object_array_get_idx(cross, i);
		char s[160], r[160], c[7][32], l[96];
		const char *row[9];

		snprintf(s, sizeof(s), "%s %s", json_get_string(x, "sender", "?"),
		         json_get_string(x, "sender_device", "?"));
		snprintf(r, sizeof(r), "%s %s", json_get_string(x, "receiver", "?"),
		         json_get_string(x, "receiver_device", "?"));
		snprintf(c[0], 32, "%lld", (long long)json_get_int(x, "tx_packets", 0));
		snprintf(c[1], 32, "%lld", (long long)json_get_int(x, "rx_packets", 0));
		lost_cell(x, l, sizeof(l));
		snprintf(c[3], 32, "%.3f", json_get_double(x, "loss_ratio", 0) * 100);
		snprintf(c[4], 32, "%.1f", json_get_double(x, "tx_bits_per_s", 0) / 1e6);
		snprintf(c[5], 32, "%.1f", json_get_double(x, "rx_bits_per_s", 0) / 1e6);
		snprintf(c[6], 32, "%.4f", json_get_double(x, "bytes_ratio", 0));
		row[0] = s;
		row[1] = r;
		for (int k = 0; k < 7; k++)
			row[2 + k] = c[k];
		row[4] = l;
		table_row(&t, row);
	}
	fprintf(fp, "\nAcross hosts (each sender's busiest device against each receiver's)\n");
	ctl_table_out(&t, opts, fp);
}

void
ctl_print_hosts(json_object *rep, const struct ctl_opts *opts, FILE *fp)
{
	json_object *hosts = NULL, *cross = NULL, *skew = NULL;
	const char *names[HOSTS_MAX], *hdr[HOSTS_MAX + 2];
	const char *local = json_get_string(rep, "local_host", "");
	size_t n = 0;
	struct table t;

	if (!json_object_object_get_ex(rep, "hosts", &hosts) ||
	    !json_object_is_type(hosts, json_type_object))
		return;
	/* This host first, then the peers in their order. */
	if (json_object_object_get(hosts, local) != NULL)
		names[n++] = local;
	json_object_object_foreach(hosts, k, v)
	{
		(void)v;
		if (n < HOSTS_MAX && strcmp(k, local) != 0)
			names[n++] = k;
	}
	hdr[0] = "";
	for (size_t i = 0; i < n; i++)
		hdr[i + 1] = names[i];
	hdr[n + 1] = NULL;
	table_init(&t, hdr);
	host_row(&t, "window", hosts, names, n, cell_state);
	host_row(&t, "start", hosts, names, n, cell_start);
	host_row(&t, "duration", hosts, names, n, cell_duration);
	host_row(&t, "busiest tx", hosts, names, n, cell_tx);
	host_row(&t, "busiest rx", hosts, names, n, cell_rx);
	fprintf(fp, "\nHosts\n");
	ctl_table_out(&t, opts, fp);
	if (json_object_object_get_ex(rep, "cross", &cross) &&
	    json_object_is_type(cross, json_type_array) && json_object_array_length(cross) > 0)
		cross_table(cross, opts, fp);
	if (json_object_object_get_ex(rep, "skew", &skew))
		fprintf(fp, "\nEdge skew between hosts: start %.3f ms, stop %.3f ms\n",
		        json_get_double(skew, "start_ms", 0), json_get_double(skew, "stop_ms", 0));
}
