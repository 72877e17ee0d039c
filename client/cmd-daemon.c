/* cmd-daemon.c: renderers for the commands about the daemon itself: hello, status. */
#include <string.h>

#include "ctl.h"
#include "jsonutil.h"
#include "render-table.h"

void
render_hello(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	json_object *cmds = NULL;
	struct table t;
	static const char *const hdr[] = {"COMMAND", "ACCESS", "SUMMARY", NULL};

	(void)opts;
	fprintf(fp, "%s %s, protocol %lld\n\n", json_get_string(result, "daemon", "?"),
	        json_get_string(result, "version", "?"),
	        (long long)json_get_int(result, "protocol", 0));
	if (!json_object_object_get_ex(result, "commands", &cmds) ||
	    !json_object_is_type(cmds, json_type_array))
		return;
	table_init(&t, hdr);
	for (size_t i = 0; i < json_object_array_length(cmds); i++) {
		json_object *c = json_object_array_get_idx(cmds, i);
		char words[PROTO_MAX_NAME];
		/* As netmetricsctl spells it ("mark start"); --json keeps the wire's names. */
		ctl_command_words(json_get_string(c, "name", ""), words, sizeof(words));
		const char *row[] = {words, json_get_string(c, "access", ""),
		                     json_get_string(c, "summary", "")};
		table_row(&t, row);
	}
	table_print(&t, fp);
	table_free(&t);
}

/* The fine sampling lines of status: on or off and why; each fine source's lateness and
 * cost; the fine history. */
static void
render_fine(json_object *result, FILE *fp)
{
	json_object *fine = NULL, *arr = ctl_array(result, "sources"), *ring = NULL;

	if (!json_object_object_get_ex(result, "fine", &fine) || fine == NULL)
		return;
	fprintf(fp, "fine: %s every %lldms (%s)\n", json_get_bool(fine, "on", false) ? "on" : "off",
	        (long long)json_get_int(fine, "interval_ms", 0), json_get_string(fine, "why", ""));
	for (size_t i = 0; arr != NULL && i < json_object_array_length(arr); i++) {
		json_object *s = json_object_array_get_idx(arr, i), *f = NULL;

		if (!json_object_object_get_ex(s, "fine", &f) || f == NULL)
			continue;
		fprintf(
		    fp,
		    "  %-8s %lld fine samples, late %.2f ms median, %.2f ms max, %.0f us each\n",
		    json_get_string(s, "name", "?"), (long long)json_get_int(f, "samples", 0),
		    json_get_double(f, "late_median_ms", 0), json_get_double(f, "late_max_ms", 0),
		    json_get_double(f, "cost_us", 0));
	}
	if (json_object_object_get_ex(fine, "ring", &ring) && ring != NULL) {
		char used[32], cap[32];
		fmt_bytes(json_get_double(ring, "used_bytes", 0), used, sizeof(used));
		fmt_bytes(json_get_double(ring, "capacity_bytes", 0), cap, sizeof(cap));
		fprintf(fp, "  history  %s of %s used, %lld records, oldest %.0f s ago\n", used,
		        cap, (long long)json_get_int(ring, "records", 0),
		        json_get_double(ring, "oldest_age_s", 0));
	}
}

/* The sources table and the ring line of status. */
static void
render_sources(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	static const char *const hdr[] = {"SOURCE",   ">INTERVAL", "STATE",  ">SERIES",
	                                  ">SAMPLES", ">COST",     "REASON", NULL};
	json_object *arr = ctl_array(result, "sources"), *ring = NULL;
	struct table t;

	if (arr == NULL)
		return;
	fputc('\n', fp);
	table_init(&t, hdr);
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *s = json_object_array_get_idx(arr, i);
		char iv[32], n[32], k[32], cost[32];
		bool en = json_get_bool(s, "enabled", false);
		snprintf(iv, sizeof(iv), "%lldms", (long long)json_get_int(s, "interval_ms", 0));
		fmt_count((uint64_t)json_get_int(s, "series", 0), n, sizeof(n));
		fmt_count((uint64_t)json_get_int(s, "samples", 0), k, sizeof(k));
		snprintf(cost, sizeof(cost), "%.0fus", json_get_double(s, "last_cost_us", 0));
		const char *row[] = {json_get_string(s, "name", "?"),
		                     iv,
		                     !en                                  ? "disabled"
		                     : json_get_bool(s, "healthy", false) ? "ok"
		                                                          : "FAILING",
		                     n,
		                     k,
		                     cost,
		                     json_get_string(s, "reason", "")};
		table_row(&t, row);
	}
	ctl_table_out(&t, opts, fp);
	if (json_object_object_get_ex(result, "ring", &ring)) {
		char used[32], cap[32], bps[32], span[32], ns[32];
		fmt_bytes(json_get_double(ring, "used_bytes", 0), used, sizeof(used));
		fmt_bytes(json_get_double(ring, "capacity_bytes", 0), cap, sizeof(cap));
		fmt_bytes(json_get_double(ring, "bytes_per_second", 0), bps, sizeof(bps));
		fmt_seconds(json_get_double(ring, "span_s", 0), span, sizeof(span));
		fmt_count((uint64_t)json_get_int(ring, "series", 0), ns, sizeof(ns));
		fprintf(fp, "\nring: %s of %s used, %s series, %s/s, holds %s since %s\n", used,
		        cap, ns, bps, span, json_get_string(ring, "oldest", "-"));
	}
	render_fine(result, fp);
}

/* How a test's processes are kept: their group, their number's limit, where they start. */
static void
render_children(json_object *result, FILE *fp)
{
	json_object *t = NULL, *pl = NULL;
	const char *by;

	if (!json_object_object_get_ex(result, "tests", &t))
		return;
	if (strcmp(json_get_string(t, "isolation", ""), "cgroup") == 0)
		fprintf(fp, "  tests      a cgroup each, below %s\n",
		        json_get_string(t, "cgroup", "?"));
	else
		fprintf(fp, "  tests      a process group each (%s)\n",
		        json_get_string(t, "reason", "no cgroup v2"));
	if (json_object_object_get_ex(t, "pids_limit", &pl)) {
		by = json_get_string(pl, "by", "none");
		if (strcmp(by, "cgroup") == 0)
			fprintf(fp, "  processes  at most %lld per test (pids.max of its cgroup)\n",
			        (long long)json_get_int(pl, "max", 0));
		else if (strcmp(by, "rlimit") == 0)
			fprintf(
			    fp,
			    "  processes  at most %lld per user for a test of a client other than "
			    "root (RLIMIT_NPROC; no pids cgroup: %s); no limit for root's\n",
			    (long long)json_get_int(pl, "max", 0),
			    json_get_string(pl, "reason", "?"));
		else
			fprintf(fp, "  processes  no limit (test_pids_max = 0)\n");
	}
	if (json_object_object_get_ex(t, "work_dir", NULL))
		fprintf(fp, "  children   start in %s, PATH=%s\n",
		        json_get_string(t, "work_dir", "?"), json_get_string(t, "path", "?"));
}

void
render_status(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	json_object *clients = NULL;
	char up[32], n[32];
	const char *cfg = json_get_string(result, "config_file", NULL);

	(void)opts;
	fmt_seconds(json_get_double(result, "uptime_s", 0), up, sizeof(up));
	fprintf(
	    fp, "netmetricsd %s (protocol %lld), pid %lld, up %s since %s\n",
	    json_get_string(result, "version", "?"), (long long)json_get_int(result, "protocol", 0),
	    (long long)json_get_int(result, "pid", 0), up, json_get_string(result, "started", "?"));
	fprintf(fp, "  socket     %s%s\n", json_get_string(result, "socket", "?"),
	        json_get_bool(result, "socket_activated", false) ? " (from systemd)" : "");
	fprintf(fp, "  root       %s\n", json_get_string(result, "root", "?"));
	fprintf(fp, "  state dir  %s\n", json_get_string(result, "state_dir", "?"));
	fprintf(fp, "  config     %s\n", cfg ? cfg : "built-in defaults (no file)");
	if (json_object_object_get_ex(result, "profile_dir", NULL))
		fprintf(fp, "  profiles   %s (%s)\n", json_get_string(result, "profile_dir", "?"),
		        json_get_string(result, "profile_dir_why", "?"));
	if (json_object_object_get_ex(result, "suite_dir", NULL))
		fprintf(fp, "  suites     %s (%s)\n", json_get_string(result, "suite_dir", "?"),
		        json_get_string(result, "suite_dir_why", "?"));
	if (json_object_object_get_ex(result, "clients", &clients)) {
		fmt_count((uint64_t)json_get_int(clients, "connected", 0), n, sizeof(n));
		fprintf(fp, "  clients    %s connected (at most %lld, %lld per uid)\n", n,
		        (long long)json_get_int(clients, "max", 0),
		        (long long)json_get_int(clients, "max_per_uid", 0));
	}
	render_children(result, fp);
	render_sources(result, opts, fp);
}
