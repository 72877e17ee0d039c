/* cmd-util.c: helpers the query commands share. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-util.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "query.h"
#include "sampler.h"
#include "timeutil.h"
#include "window.h"
#include "xmalloc.h"

void
cmd_format_mono(struct daemon *d, uint64_t mono_ns, char *buf, size_t size)
{
	sampler_format_mono(d->sampler, mono_ns, buf, size);
}

double
cmd_epoch_s(struct daemon *d, uint64_t mono_ns)
{
	return (double)((int64_t)mono_ns + sampler_mono_to_real(d->sampler)) / 1e9;
}

void
cmd_span_json(struct daemon *d, json_object *result)
{
	char t0[40], t1[40];
	uint64_t a = query_t0(d->query), b = query_t1(d->query);

	cmd_format_mono(d, a, t0, sizeof(t0));
	cmd_format_mono(d, b, t1, sizeof(t1));
	json_add_double(result, "span_s", (double)(b - a) / 1e9);
	json_add_string(result, "from", t0);
	json_add_string(result, "to", t1);
}

int
cmd_span_last(struct daemon *d, json_object *args, double def_s, json_object *result,
              struct nm_error *err)
{
	double last = json_get_double(args, "last", def_s);

	if (query_span_last(d->query, last, err) < 0)
		return -1;
	cmd_span_json(d, result);
	return 0;
}

int
cmd_span(struct daemon *d, json_object *args, double def_s, enum sampler_kind src,
         json_object *result, struct nm_error *err)
{
	const char *win = json_get_string(args, "window", NULL);
	const struct source *so = sampler_source_of(d->sampler, src);
	uint64_t t0, t1;

	if (win != NULL) {
		if (json_object_object_get_ex(args, "last", NULL))
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "arguments \"window\" and \"last\": give one of them");
		if (window_span(d->windows, win, &t0, &t1, err) < 0 ||
		    query_span(d->query, t0, t1, err) < 0)
			return -1;
		cmd_span_json(d, result);
		json_add_string(result, "window", win);
		return 0;
	}
	if (so != NULL) {
		if (query_span_last_src(d->query, json_get_double(args, "last", def_s), so->index,
		                        err) < 0)
			return -1;
		cmd_span_json(d, result);
		json_add_string(result, "source", so->ops->name);
		return 0;
	}
	return cmd_span_last(d, args, def_s, result, err);
}

bool
cmd_name_segment(const char *name, size_t prefix_len, char *buf, size_t size)
{
	const char *s = name + prefix_len;
	size_t n = strcspn(s, ".");

	if (n == 0 || n >= size)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return true;
}

/* Compare for qsort: numbers numerically (cpu12 after cpu2), words alphabetically. */
static int
part_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t i = strcspn(x, "0123456789"), j = strcspn(y, "0123456789");

	if (i == j && strncmp(x, y, i) == 0 && x[i] && y[j]) {
		long u = strtol(x + i, NULL, 10), v = strtol(y + j, NULL, 10);
		if (u != v)
			return u < v ? -1 : 1;
	}
	return strcmp(x, y);
}

/* The parts found for a prefix, kept while the registry does not grow: a scan of every
 * name costs milliseconds on a big host, the views run every second. */
struct parts_cache {
	char prefix[64];
	size_t reg_n;
	char **parts;
	size_t n;
};

#define PARTS_CACHE 8
static struct parts_cache cache[PARTS_CACHE];
static unsigned cache_next;

/* Copy a list of parts for the caller. */
static size_t
parts_dup(const struct parts_cache *pc, char ***parts)
{
	*parts = xcalloc(pc->n ? pc->n : 1, sizeof(**parts));
	for (size_t i = 0; i < pc->n; i++)
		(*parts)[i] = xstrdup(pc->parts[i]);
	return pc->n;
}

static size_t collect_scan(struct daemon *d, const char *prefix, char ***parts);

size_t
cmd_collect_parts(struct daemon *d, const char *prefix, char ***parts)
{
	size_t reg_n = sampler_registry(d->sampler)->n;
	struct parts_cache *pc;

	for (unsigned i = 0; i < PARTS_CACHE; i++)
		if (cache[i].reg_n == reg_n && strcmp(cache[i].prefix, prefix) == 0)
			return parts_dup(&cache[i], parts);
	pc = &cache[cache_next++ % PARTS_CACHE];
	for (size_t i = 0; i < pc->n; i++)
		free(pc->parts[i]);
	free(pc->parts);
	snprintf(pc->prefix, sizeof(pc->prefix), "%s", prefix);
	pc->reg_n = reg_n;
	pc->n = collect_scan(d, prefix, &pc->parts);
	return parts_dup(pc, parts);
}

/* Scan every series name for the parts after prefix (dead series too: the cache must not
 * depend on liveness; callers check it). */
static size_t
collect_scan(struct daemon *d, const char *prefix, char ***parts)
{
	const struct series_registry *reg = sampler_registry(d->sampler);
	size_t plen = strlen(prefix), n = 0, cap = 0;
	char seg[128];

	*parts = NULL;
	for (size_t id = 0; id < reg->n; id++) {
		const char *name = reg->v[id].name;
		bool dup = false;
		if (strncmp(name, prefix, plen) != 0 ||
		    !cmd_name_segment(name, plen, seg, sizeof(seg)))
			continue;
		/* Series of one part are adjacent in id order: check the last few. */
		for (size_t k = n; k > 0 && k + 64 > n; k--)
			if (strcmp((*parts)[k - 1], seg) == 0) {
				dup = true;
				break;
			}
		if (!dup) {
			for (size_t k = 0; k < n && !dup; k++)
				dup = strcmp((*parts)[k], seg) == 0;
		}
		if (dup)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			*parts = xreallocarray(*parts, cap, sizeof(**parts));
		}
		(*parts)[n++] = xstrdup(seg);
	}
	qsort(*parts, n, sizeof(**parts), part_cmp);
	return n;
}
