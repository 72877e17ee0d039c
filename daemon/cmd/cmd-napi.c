/* cmd-napi.c: NAPI instances per second from the bpf source's napi:napi_poll counts: polls,
 * packets, packets per poll, polls that used their whole budget, and the CPUs that polled.
 * An instance is the series labelled source=bpf, table=napi (bpf.napi.<ID>.*). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-util.h"
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "query.h"
#include "sampler.h"
#include "xmalloc.h"

/* The series of one instance (bpf.napi.<ID>): its totals and its per-CPU polls. */
struct napi_row {
	const char *base; /* "bpf.napi.713": the name of polls less ".polls" (length baselen) */
	size_t baselen;
	series_id polls, packets, exhausted;
};

/* The instance whose totals' name starts with base, made when new. */
static struct napi_row *
row_of(struct napi_row *rows, size_t *n, const char *name, size_t baselen)
{
	for (size_t i = 0; i < *n; i++)
		if (rows[i].baselen == baselen && strncmp(rows[i].base, name, baselen) == 0)
			return &rows[i];
	rows[*n] = (struct napi_row){name, baselen, SERIES_NONE, SERIES_NONE, SERIES_NONE};
	return &rows[(*n)++];
}

/* The CPUs that polled instance r, as [{"cpu", "polls_per_s", "share_pct"}]. */
static json_object *
cpus_json(struct daemon *d, const struct series_registry *reg, const series_id *sel, size_t n,
          const struct napi_row *r, double polls_rate)
{
	json_object *arr = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		const struct series_labels l = series_labels_of(reg, sel[i]);
		const char *name = series_get(reg, sel[i])->name;
		json_object *co;
		double rate;

		if (l.cpu < 0 || strncmp(name, r->base, r->baselen) != 0 ||
		    strncmp(name + r->baselen, ".polls.cpu", 10) != 0 ||
		    query_delta(d->query, sel[i]) == 0)
			continue;
		rate = query_rate(d->query, sel[i]);
		co = json_object_new_object();
		json_add_int(co, "cpu", l.cpu);
		json_add_double(co, "polls_per_s", rate);
		json_add_double(co, "share_pct", polls_rate > 0 ? 100.0 * rate / polls_rate : 0);
		json_object_array_add(arr, co);
	}
	return arr;
}

/* One instance as an object, or NULL when it did not poll (and all is false) or is not of
 * device dev. */
static json_object *
napi_json(struct daemon *d, const struct series_registry *reg, const series_id *sel, size_t n,
          const struct napi_row *r, const char *dev, bool all)
{
	const struct series_labels l = series_labels_of(reg, r->polls);
	const char *device = series_atom_str(reg, l.device);
	uint64_t polls = query_delta(d->query, r->polls);
	uint64_t packets = r->packets != SERIES_NONE ? query_delta(d->query, r->packets) : 0;
	uint64_t exhausted = r->exhausted != SERIES_NONE ? query_delta(d->query, r->exhausted) : 0;
	double prate = query_rate(d->query, r->polls);
	json_object *o;
	char id[32];

	if ((polls == 0 && !all) || (dev != NULL && strcmp(device, dev) != 0))
		return NULL;
	snprintf(id, sizeof(id), "%.*s", (int)(r->baselen - 9), r->base + 9); /* "bpf.napi." */
	o = json_object_new_object();
	json_add_string(o, "id", id);
	if (device[0] != '\0')
		json_add_string(o, "device", device);
	if (l.queue >= 0)
		json_add_int(o, "queue", l.queue);
	json_add_uint(o, "polls", polls);
	json_add_uint(o, "packets", packets);
	json_add_uint(o, "exhausted", exhausted);
	json_add_double(o, "polls_per_s", prate);
	json_add_double(o, "packets_per_s",
	                r->packets != SERIES_NONE ? query_rate(d->query, r->packets) : 0);
	json_add_double(o, "exhausted_per_s",
	                r->exhausted != SERIES_NONE ? query_rate(d->query, r->exhausted) : 0);
	json_add_double(o, "packets_per_poll", polls ? (double)packets / (double)polls : 0);
	json_add_double(o, "exhausted_pct", polls ? 100.0 * (double)exhausted / (double)polls : 0);
	json_object_object_add(o, "cpus", cpus_json(d, reg, sel, n, r, prate));
	return o;
}

int
cmd_build_napi(struct daemon *d, json_object *args, json_object *o, struct nm_error *err)
{
	const struct series_registry *reg = sampler_registry(d->sampler);
	const char *dev = json_get_string(args, "dev", NULL);
	bool all = json_get_bool(args, "all", false);
	struct series_matcher m[2];
	json_object *arr = json_object_new_array();
	struct napi_row *rows;
	series_id *sel = NULL;
	size_t n = 0, nrows = 0;

	(void)err;
	if (series_matcher_set(reg, &m[0], "source", "bpf", NULL) == 0 &&
	    series_matcher_set(reg, &m[1], "table", "napi", NULL) == 0)
		n = series_select(reg, m, 2, &sel);
	rows = xcalloc(n ? n : 1, sizeof(*rows));
	for (size_t i = 0; i < n; i++) {
		const struct series_labels l = series_labels_of(reg, sel[i]);
		const char *name = series_get(reg, sel[i])->name,
		           *field = series_atom_str(reg, l.field);
		const char *dot = strrchr(name, '.');
		struct napi_row *r;

		if (l.cpu >= 0 || dot == NULL || strncmp(name, "bpf.napi.", 9) != 0)
			continue;
		r = row_of(rows, &nrows, name, (size_t)(dot - name));
		if (strcmp(field, "polls") == 0)
			r->polls = sel[i];
		else if (strcmp(field, "packets") == 0)
			r->packets = sel[i];
		else if (strcmp(field, "exhausted") == 0)
			r->exhausted = sel[i];
	}
	for (size_t i = 0; i < nrows; i++) {
		json_object *no;

		if (rows[i].polls != SERIES_NONE &&
		    (no = napi_json(d, reg, sel, n, &rows[i], dev, all)) != NULL)
			json_object_array_add(arr, no);
	}
	if (nrows == 0)
		json_add_string(o, "napi",
		                "none: the bpf source has no NAPI counts here (see "
		                "status: not built, no BTF, or not attached)");
	else
		json_add_string(o, "napi", "bpf");
	json_object_object_add(o, "napis", arr);
	free(rows);
	free(sel);
	return 0;
}

static int
cmd_napi(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	json_object *o = json_object_new_object();

	if (cmd_span(ctx->d, args, CMD_DEFAULT_LAST_S, SAMPLER_BPF, o, err) < 0 ||
	    cmd_build_napi(ctx->d, args, o, err) < 0) {
		json_object_put(o);
		return -1;
	}
	*result = o;
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_napi_entry = {.proto = "napi", .exec = cmd_napi};
