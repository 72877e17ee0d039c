/* cmd-profile.c: the profile commands: a FILE given to "profile apply" is read here and
 * sent as text; renderers for profile show (a table per queue), apply and its dry run
 * ("path: old -> new"), revert, status and profiles. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "jsonutil.h"
#include "render-table.h"
#include "xmalloc.h"

#define PROFILE_FILE_MAX 60000 /* the daemon's limit on profile text */

/* Is the word a file rather than a profile name: a path with '/' or a name ending .conf? */
static bool
is_file(const char *s)
{
	size_t n = strlen(s);

	return strchr(s, '/') != NULL || (n > 5 && strcmp(s + n - 5, ".conf") == 0);
}

/* profile apply FILE: send the file's text, named after it. */
int
ctl_profile_args(json_object *args)
{
	const char *name = json_get_string(args, "name", NULL), *base;
	char *text, label[64], path[PATH_MAX], shown[256];
	size_t n;
	FILE *fp;

	if (name == NULL || !is_file(name))
		return 0;
	if ((fp = fopen(name, "r")) == NULL) {
		fprintf(stderr, "netmetricsctl: %s: %s\n", conn_text(name, shown, sizeof(shown)),
		        strerror(errno));
		return -1;
	}
	text = xmalloc(PROFILE_FILE_MAX + 2);
	n = fread(text, 1, PROFILE_FILE_MAX + 1, fp);
	fclose(fp);
	if (n > PROFILE_FILE_MAX) {
		fprintf(stderr, "netmetricsctl: %s: longer than %d bytes\n", name,
		        PROFILE_FILE_MAX);
		free(text);
		return -1;
	}
	text[n] = '\0';
	/* The profile is named after the file, without directory and .conf. */
	base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	snprintf(label, sizeof(label), "%.*s", (int)strcspn(base, "."), base);
	/* name points into args: use it before replacing it. */
	json_object_object_add(args, "file",
	                       json_object_new_string(realpath(name, path) ? path : name));
	json_object_object_add(args, "text", json_object_new_string_len(text, (int)n));
	json_object_object_add(args, "name", json_object_new_string(label[0] ? label : "file"));
	free(text);
	return 0;
}

/* A CPU list for people: "-" for the empty set, "?" when it could not be read. */
static const char *
cpus_cell(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || v == NULL)
		return "?";
	return *json_object_get_string(v) ? json_object_get_string(v) : "-";
}

/* profile show's RSS line: "rss: toeplitz; 128 entries over 4 rx rings: equal 4 (32 32 32
 * 32); key 6d:5a:...; fields tcp4 sdfn, udp4 sd". */
static void
show_rss(json_object *v, FILE *fp)
{
	json_object *q = ctl_array(v, "queues"), *f = NULL, *x = NULL;
	const char *sep = "; fields";

	fprintf(fp, "rss: %s; %lld entries over %lld rx rings: ", json_get_string(v, "hfunc", "?"),
	        (long long)json_get_int(v, "entries", 0), (long long)json_get_int(v, "rings", 0));
	if (json_object_object_get_ex(v, "equal", &x) && x != NULL)
		fprintf(fp, "equal %lld (", (long long)json_object_get_int64(x));
	else
		fprintf(fp, "per queue (");
	for (size_t i = 0; q && i < json_object_array_length(q); i++)
		fprintf(fp, "%s%lld", i ? " " : "",
		        (long long)json_object_get_int64(json_object_array_get_idx(q, i)));
	fprintf(fp, "); key %s",
	        json_get_string(v, "hkey", NULL) ? json_get_string(v, "hkey", "") : "none");
	if (json_object_object_get_ex(v, "fields", &f) && f != NULL) {
		json_object_object_foreach(f, flow, letters)
		{
			fprintf(fp, "%s %s %s", sep, flow, json_object_get_string(letters));
			sep = ",";
		}
	}
	fputc('\n', fp);
}

/* The header lines of profile show. */
static void
show_header(json_object *r, FILE *fp)
{
	json_object *ch = NULL, *v = NULL;

	fprintf(fp, "%s%s: %lld rx and %lld tx queues", json_get_string(r, "device", "?"),
	        json_get_bool(r, "default_route", false) ? " (the default route's device)" : "",
	        (long long)json_get_int(r, "rx_queues", 0),
	        (long long)json_get_int(r, "tx_queues", 0));
	if (json_object_object_get_ex(r, "channels", &ch) && ch != NULL)
		fprintf(fp,
		        "; channels rx %lld tx %lld other %lld combined %lld (max combined %lld)",
		        (long long)json_get_int(ch, "rx", 0), (long long)json_get_int(ch, "tx", 0),
		        (long long)json_get_int(ch, "other", 0),
		        (long long)json_get_int(ch, "combined", 0),
		        (long long)json_get_int(ch, "max_combined", 0));
	fprintf(fp, "\nCPUs online %s; rps_sock_flow_entries ",
	        json_get_string(r, "cpus_online", "?"));
	if (json_object_object_get_ex(r, "rps_sock_flow_entries", &v) && v != NULL)
		fprintf(fp, "%lld", (long long)json_object_get_int64(v));
	else
		fprintf(fp, "(not visible here)");
	fprintf(fp, "; ntuple %s; irqbalance %s\n", json_get_string(r, "ntuple", "unknown"),
	        json_get_bool(r, "irqbalance", false) ? "RUNNING" : "not running");
	if (json_object_object_get_ex(r, "offloads", &v) && v != NULL &&
	    json_object_object_length(v) > 0) {
		const char *sep = "";
		fprintf(fp, "offloads:");
		json_object_object_foreach(v, name, f)
		{
			fprintf(fp, "%s %s %s%s", sep, name,
			        json_get_bool(f, "on", false) ? "on" : "off",
			        json_get_bool(f, "fixed", false) ? " [fixed]" : "");
			sep = ",";
		}
		fputc('\n', fp);
	}
	if (json_object_object_get_ex(r, "rss", &v) && v != NULL)
		show_rss(v, fp);
	if (json_object_object_get_ex(r, "napi", &v) && v != NULL) {
		json_object *t = NULL, *g = NULL, *d = NULL;
		json_object_object_get_ex(v, "threaded", &t);
		json_object_object_get_ex(v, "gro_flush_timeout", &g);
		json_object_object_get_ex(v, "napi_defer_hard_irqs", &d);
		fprintf(fp, "napi: threaded %s; gro_flush_timeout %s ns; napi_defer_hard_irqs %s\n",
		        t ? json_object_get_string(t) : "?", g ? json_object_get_string(g) : "?",
		        d ? json_object_get_string(d) : "?");
	}
	if (json_object_object_get_ex(r, "tuned", &v) && v != NULL &&
	    json_get_bool(v, "running", false))
		fprintf(fp, "tuned RUNNING (profile %s): it rewrites what its profile names\n",
		        json_get_string(v, "profile", "unknown"));
	if (json_object_object_get_ex(r, "irq_note", &v))
		fprintf(fp, "IRQs: %s\n", json_object_get_string(v));
	fputc('\n', fp);
}

/* profile show: a header, then one row per queue IRQ. */
void
render_profile_show(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	static const char *const hdr[] = {">QUEUE",   "NAPI",     ">IRQ",      "NAME",
	                                  "IRQ FROM", "AFFINITY", "EFFECTIVE", "XPS (tx)",
	                                  "RPS (rx)", ">FLOWS",   NULL};
	json_object *qs = ctl_array(result, "queues");
	struct table t;

	if (!opts->csv)
		show_header(result, fp);
	table_init(&t, hdr);
	for (size_t i = 0; qs && i < json_object_array_length(qs); i++) {
		json_object *q = json_object_array_get_idx(qs, i), *irqs = ctl_array(q, "irqs");
		size_t n = irqs ? json_object_array_length(irqs) : 0;
		char qn[16], flows[24], napi[48];
		snprintf(qn, sizeof(qn), "%lld", (long long)json_get_int(q, "queue", 0));
		snprintf(flows, sizeof(flows), "%lld",
		         (long long)json_get_int(q, "rps_flow_cnt", 0));
		ctl_napi_cell(q, napi, sizeof(napi));
		for (size_t k = 0; k < (n ? n : 1); k++) {
			json_object *irq = n ? json_object_array_get_idx(irqs, k) : NULL;
			char num[16] = "-";
			if (irq)
				snprintf(num, sizeof(num), "%lld",
				         (long long)json_get_int(irq, "irq", 0));
			const char *row[] = {
			    k ? "" : qn,
			    k ? "" : napi,
			    num,
			    irq ? json_get_string(irq, "name", "") : "",
			    irq ? json_get_string(irq, "origin", "") : "",
			    irq ? cpus_cell(irq, "affinity") : "",
			    irq ? cpus_cell(irq, "effective") : "",
			    k ? ""
			      : (json_object_object_get_ex(q, "xps", NULL) ? cpus_cell(q, "xps")
			                                                   : ""),
			    k ? ""
			      : (json_object_object_get_ex(q, "rps", NULL) ? cpus_cell(q, "rps")
			                                                   : ""),
			    k || !json_object_object_get_ex(q, "rps_flow_cnt", NULL) ? "" : flows};
			table_row(&t, row);
		}
	}
	ctl_table_out(&t, opts, fp);
}

/* The warnings of a result, one a line. */
static void
warnings(json_object *result, FILE *fp)
{
	json_object *w = ctl_array(result, "warnings");

	for (size_t i = 0; w && i < json_object_array_length(w); i++)
		fprintf(fp, "warning: %s\n",
		        json_object_get_string(json_object_array_get_idx(w, i)));
}

/* profile apply: the summary, then "path: old -> new" per change. */
void
render_profile_apply(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	json_object *ch = ctl_array(result, "changes");
	bool dry = json_get_bool(result, "dry_run", false);
	long long n = json_get_int(result, dry ? "would_write" : "written", 0);

	json_object *sk = ctl_array(result, "skipped");

	(void)opts;
	warnings(result, fp);
	/* The sections the device cannot have ("[xps] skipped: vA has one tx queue..."). */
	for (size_t i = 0; sk && i < json_object_array_length(sk); i++)
		fprintf(fp, "%s\n", json_object_get_string(json_object_array_get_idx(sk, i)));
	fprintf(fp, "%s profile %s on %s: %lld value%s %s, %lld already so\n",
	        dry ? "dry run:" : "applied", json_get_string(result, "profile", "?"),
	        json_get_string(result, "device", "?"), n, n == 1 ? "" : "s",
	        dry ? "would change" : "written", (long long)json_get_int(result, "unchanged", 0));
	for (size_t i = 0; ch && i < json_object_array_length(ch); i++) {
		json_object *c = json_object_array_get_idx(ch, i);
		const char *old = json_get_string(c, "old", ""),
		           *new = json_get_string(c, "new", "");
		fprintf(fp, "%s: %s -> %s\n", json_get_string(c, "path", "?"),
		        *old ? old : "(none)", *new ? new : "(none)");
	}
	if (dry)
		fprintf(fp, "nothing was written\n");
}

/* profile save: where it went (or, dry, the text). */
void
render_profile_save(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	(void)opts;
	if (!json_get_bool(result, "written", false)) {
		fputs(json_get_string(result, "text", ""), fp);
		return;
	}
	fprintf(fp, "saved the tuning of %s as profile %s: %s%s\n",
	        json_get_string(result, "device", "?"), json_get_string(result, "name", "?"),
	        json_get_string(result, "path", "?"),
	        json_get_bool(result, "privileged", false) ? " (written by the privileged process)"
	                                                   : "");
}

/* profile revert: what was restored or that nothing was saved. */
void
render_profile_revert(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	json_object *sk = ctl_array(result, "skipped");

	(void)opts;
	if (!json_get_bool(result, "reverted", false)) {
		fprintf(fp, "%s\n", json_get_string(result, "message", "nothing reverted"));
		return;
	}
	fprintf(fp, "reverted profile %s on %s: %lld values restored, %lld already so\n",
	        json_get_string(result, "profile", "(unrecorded)"),
	        json_get_string(result, "device", "?"),
	        (long long)json_get_int(result, "restored", 0),
	        (long long)json_get_int(result, "unchanged", 0));
	for (size_t i = 0; sk && i < json_object_array_length(sk); i++)
		fprintf(fp, "skipped (its device or IRQ is gone): %s\n",
		        json_object_get_string(json_object_array_get_idx(sk, i)));
}

/* profile status: what, where, when, by whom, and the drift. */
void
render_profile_status(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	json_object *d = ctl_array(result, "drifted");

	(void)opts;
	if (json_object_object_get_ex(result, "error", NULL))
		fprintf(fp, "error: %s\n", json_get_string(result, "error", ""));
	if (!json_get_bool(result, "applied", false)) {
		fprintf(fp, "no profile applied\n");
		if (json_object_object_get_ex(result, "note", NULL))
			fprintf(fp, "%s\n", json_get_string(result, "note", ""));
	} else {
		fprintf(fp, "profile %s applied to %s at %s by uid %lld (pid %lld), from %s\n",
		        json_get_string(result, "profile", "?"),
		        json_get_string(result, "device", "?"),
		        json_get_string(result, "time", "?"),
		        (long long)json_get_int(result, "uid", -1),
		        (long long)json_get_int(result, "pid", -1),
		        json_get_string(result, "source", "?"));
		fprintf(fp, "%lld values; %lld saved for revert (since %s)\n",
		        (long long)json_get_int(result, "entries", 0),
		        (long long)json_get_int(result, "saved", 0),
		        json_get_string(result, "saved_at", "?"));
		if (!json_get_bool(result, "drift", false))
			fprintf(fp, "no drift: the live values are those the profile wrote\n");
		else
			fprintf(fp, "DRIFTED: %zu values changed since:\n",
			        json_object_array_length(d));
		for (size_t i = 0; d && i < json_object_array_length(d); i++) {
			json_object *x = json_object_array_get_idx(d, i),
			            *who = ctl_array(x, "who");
			const char *live = json_get_string(x, "live", NULL);
			fprintf(fp, "  %s: applied %s, now %s", json_get_string(x, "path", "?"),
			        *json_get_string(x, "expected", "")
			            ? json_get_string(x, "expected", "")
			            : "(none)",
			        live == NULL ? "unreadable" : (*live ? live : "(none)"));
			for (size_t k = 0; who && k < json_object_array_length(who); k++)
				fprintf(fp, "%s%s", k ? ", " : " (could have been: ",
				        json_object_get_string(json_object_array_get_idx(who, k)));
			fprintf(fp, "%s\n", who && json_object_array_length(who) ? ")" : "");
		}
		if (json_object_object_get_ex(result, "lock", NULL))
			fprintf(fp, "%s\n", json_get_string(result, "lock", ""));
	}
	if (json_get_bool(result, "irqbalance", false))
		fprintf(fp, "irqbalance is running: it rewrites IRQ affinities\n");
}

/* profiles: one row per profile file. */
void
render_profiles(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	static const char *const hdr[] = {"NAME", "DEVICE", "SECTIONS", "DESCRIPTION", NULL};
	json_object *ps = ctl_array(result, "profiles");
	struct table t;

	if (!opts->csv) {
		fprintf(fp, "profiles in %s", json_get_string(result, "dir", "?"));
		if (json_object_object_get_ex(result, "dir_why", NULL))
			fprintf(fp, " (%s)", json_get_string(result, "dir_why", ""));
		fprintf(fp, "\n\n");
	}
	if (json_object_object_get_ex(result, "note", NULL)) {
		/* Empty: say why, not only an empty table. */
		fprintf(opts->csv ? stderr : fp, "no profiles: %s\n",
		        json_get_string(result, "note", ""));
		if (!opts->csv)
			return;
	}
	table_init(&t, hdr);
	for (size_t i = 0; ps && i < json_object_array_length(ps); i++) {
		json_object *p = json_object_array_get_idx(ps, i), *s = ctl_array(p, "sections");
		char secs[128] = "", desc[300];
		size_t off = 0;
		for (size_t k = 0; s && k < json_object_array_length(s) && off < sizeof(secs); k++)
			off += (size_t)snprintf(
			    secs + off, sizeof(secs) - off, "%s%s", k ? "," : "",
			    json_object_get_string(json_object_array_get_idx(s, k)));
		if (json_object_object_get_ex(p, "error", NULL))
			snprintf(desc, sizeof(desc), "ERROR: %s", json_get_string(p, "error", ""));
		else
			snprintf(desc, sizeof(desc), "%s", json_get_string(p, "description", ""));
		const char *row[] = {json_get_string(p, "name", "?"),
		                     json_get_string(p, "device", ""), secs, desc};
		table_row(&t, row);
	}
	ctl_table_out(&t, opts, fp);
}
