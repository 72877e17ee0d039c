/* cmd-util.c: helpers the query commands share. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-util.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "query.h"
#include "results.h"
#include "runner.h"
#include "ring.h"
#include "sampler.h"
#include "seriesblock.h"
#include "timeutil.h"
#include "window.h"

void
cmd_format_mono(struct daemon *d, uint64_t mono_ns, char *buf, size_t size)
{
	sampler_format_mono(d->sampler, mono_ns, buf, size);
}

double
cmd_epoch_s(struct daemon *d, uint64_t mono_ns)
{
	int64_t m2r = sampler_mono_to_real(d->sampler), real;

	/* A time out of int64_t's range (none that a checked block holds) is still a number. */
	if (__builtin_add_overflow((int64_t)mono_ns, m2r, &real))
		return ((double)(int64_t)mono_ns + (double)m2r) / 1e9;
	return (double)real / 1e9;
}

/* The span of q into result ("span_s", "from", "to"). */
static void
span_json(struct daemon *d, const struct query *q, json_object *result)
{
	char t0[40], t1[40];
	uint64_t a = query_t0(q), b = query_t1(q);

	cmd_format_mono(d, a, t0, sizeof(t0));
	cmd_format_mono(d, b, t1, sizeof(t1));
	json_add_double(result, "span_s", (double)(b - a) / 1e9);
	json_add_string(result, "from", t0);
	json_add_string(result, "to", t1);
}

void
cmd_span_json(struct daemon *d, json_object *result)
{
	span_json(d, d->query, result);
}

/* cmd_span_last on q. */
static int
span_last(struct daemon *d, struct query *q, json_object *args, double def_s, json_object *result,
          struct nm_error *err)
{
	double last = json_get_double(args, "last", def_s);

	if (query_span_last(q, last, err) < 0)
		return -1;
	span_json(d, q, result);
	return 0;
}

int
cmd_span_last(struct daemon *d, json_object *args, double def_s, json_object *result,
              struct nm_error *err)
{
	return span_last(d, d->query, args, def_s, result, err);
}

int
cmd_span_edges(struct daemon *d, const struct query *q, json_object *args, double def_s,
               enum sampler_kind src, struct cmd_span_edges *e, struct nm_error *err)
{
	const char *win = json_get_string(args, "window", NULL);
	const struct source *so = sampler_source_of(d->sampler, src);

	e->key = e->value = NULL;
	if (win != NULL) {
		if (json_object_object_get_ex(args, "last", NULL))
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "arguments \"window\" and \"last\": give one of them");
		if (window_span(d->windows, win, &e->t0, &e->t1, err) < 0)
			return -1;
		e->key = "window";
		e->value = win;
		return 0;
	}
	if (so != NULL) {
		if (query_edges_last_src(q, json_get_double(args, "last", def_s), so->index, &e->t0,
		                         &e->t1, err) < 0)
			return -1;
		e->key = "source";
		e->value = so->ops->name;
		return 0;
	}
	return query_edges_last(q, json_get_double(args, "last", def_s), &e->t0, &e->t1, err);
}

void
cmd_span_add(struct daemon *d, const struct query *q, const struct cmd_span_edges *e,
             json_object *result)
{
	span_json(d, q, result);
	if (e->key != NULL)
		json_add_string(result, e->key, e->value);
}

int
cmd_span_query(struct daemon *d, struct query *q, json_object *args, double def_s,
               enum sampler_kind src, json_object *result, struct nm_error *err)
{
	struct cmd_span_edges e;

	if (cmd_span_edges(d, q, args, def_s, src, &e, err) < 0 ||
	    query_span(q, e.t0, e.t1, err) < 0)
		return -1;
	cmd_span_add(d, q, &e, result);
	return 0;
}

int
cmd_span(struct daemon *d, json_object *args, double def_s, enum sampler_kind src,
         json_object *result, struct nm_error *err)
{
	return cmd_span_query(d, d->query, args, def_s, src, result, err);
}

void
cmd_labels_json(const struct series_registry *reg, series_id id, json_object *o)
{
	const struct series_labels lv = series_labels_of(reg, id), *l = &lv;
	json_object *lo = json_object_new_object();
	const struct {
		const char *key;
		series_atom a;
	} atoms[] = {{"device", l->device},
	             {"type", l->type},
	             {"mode", l->mode},
	             {"table", l->table},
	             {"field", l->field}};

	json_add_string(lo, "source", series_source_name(reg, id));
	json_add_string(lo, "unit", series_get(reg, id)->unit);
	for (size_t i = 0; i < sizeof(atoms) / sizeof(atoms[0]); i++)
		if (atoms[i].a != SERIES_ATOM_NONE)
			json_add_string(lo, atoms[i].key, series_atom_str(reg, atoms[i].a));
	if (l->dir != SERIES_DIR_NONE)
		json_add_string(lo, "direction", l->dir == SERIES_DIR_RX ? "rx" : "tx");
	if (l->queue >= 0)
		json_add_int(lo, "queue", l->queue);
	if (l->cpu >= 0)
		json_add_int(lo, "cpu", l->cpu);
	if (l->irq >= 0)
		json_add_int(lo, "irq", l->irq);
	json_object_object_add(o, "labels", lo);
}
