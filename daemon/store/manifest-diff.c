/* manifest-diff.c: a result's manifest from the settings of its two edges, and what a
 * comparison needs of manifests (compare-manifest.c): a setting's value and group, and
 * which offloads change the size of packets. Nothing here reads the host. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonutil.h"
#include "manifest.h"
#include "xmalloc.h"

/* Offloads (manifest.c's short names) that change how many packets carry the same bytes:
 * segmentation on send, coalescing on receive. */
static const char *const size_offloads[] = {"tso",    "gso",      "gro", "lro",
                                            "gro-hw", "gro-list", "uso"};

/* Sort by key. */
static int
by_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The string of a setting's value in an edge's object, NULL when absent or null. */
static const char *
edge_value(json_object *edge, const char *name)
{
	json_object *v;

	if (edge == NULL || !json_object_object_get_ex(edge, name, &v) || v == NULL)
		return NULL;
	return json_object_get_string(v);
}

/* settings[name] = {"start", "end", "changed"}; name into changed when it changed. */
static void
put_setting(json_object *settings, json_object *changed, const char *name, const char *a,
            const char *b, bool have_start, bool have_end)
{
	json_object *s = json_object_new_object();
	bool ch = have_start && have_end &&
	          ((a == NULL) != (b == NULL) || (a != NULL && strcmp(a, b) != 0));

	json_object_object_add(s, "start", a ? json_object_new_string(a) : NULL);
	json_object_object_add(s, "end", b ? json_object_new_string(b) : NULL);
	json_add_bool(s, "changed", ch);
	json_object_object_add(settings, name, s);
	if (ch)
		json_object_array_add(changed, json_object_new_string(name));
}

/* The benchmark's settings: the same at both edges. */
static void
put_bench(json_object *settings, json_object *bench)
{
	json_object *argv;
	char buf[MANIFEST_VALUE_MAX];
	size_t len = 0;

	put_setting(settings, NULL, "benchmark.program", json_get_string(bench, "program", NULL),
	            json_get_string(bench, "program", NULL), false, false);
	put_setting(settings, NULL, "benchmark.version", json_get_string(bench, "version", NULL),
	            json_get_string(bench, "version", NULL), false, false);
	buf[0] = '\0';
	if (json_object_object_get_ex(bench, "argv", &argv) &&
	    json_object_is_type(argv, json_type_array))
		for (size_t i = 0; i < json_object_array_length(argv) && len < sizeof(buf); i++)
			len += (size_t)snprintf(
			    buf + len, sizeof(buf) - len, "%s%s", i ? " " : "",
			    json_object_get_string(json_object_array_get_idx(argv, i)));
	put_setting(settings, NULL, "benchmark.argv", buf[0] ? buf : NULL, buf[0] ? buf : NULL,
	            false, false);
	snprintf(buf, sizeof(buf), "%lld", (long long)json_get_int(bench, "procs", 1));
	put_setting(settings, NULL, "benchmark.procs", buf, buf, false, false);
}

json_object *
manifest_build(json_object *start, json_object *end, json_object *bench)
{
	json_object *o = json_object_new_object(), *edges = json_object_new_array();
	json_object *settings = json_object_new_object(), *changed = json_object_new_array();
	json_object *all = json_object_new_object();
	const char **keys;
	size_t n = 0;

	if (start != NULL)
		json_object_array_add(edges, json_object_new_string("start"));
	if (end != NULL)
		json_object_array_add(edges, json_object_new_string("end"));
	/* The union of both edges' names, in name order. */
	for (int e = 0; e < 2; e++) {
		json_object *edge = e ? end : start;
		if (edge == NULL)
			continue;
		json_object_object_foreach(edge, k, v)
		{
			(void)v;
			json_object_object_add(all, k, NULL);
		}
	}
	keys = xcalloc((size_t)json_object_object_length(all) + 1, sizeof(*keys));
	json_object_object_foreach(all, k, v)
	{
		(void)v;
		keys[n++] = k;
	}
	qsort(keys, n, sizeof(*keys), by_key);
	for (size_t i = 0; i < n; i++)
		put_setting(settings, changed, keys[i], edge_value(start, keys[i]),
		            edge_value(end, keys[i]), start != NULL, end != NULL);
	free(keys);
	json_object_put(all);
	if (bench != NULL)
		put_bench(settings, bench);
	json_object_object_add(o, "edges", edges);
	json_object_object_add(o, "settings", settings);
	json_object_object_add(o, "changed", changed);
	return o;
}

void
manifest_group(const char *name, char *buf, size_t size)
{
	const char *dot = strchr(name, '.');

	snprintf(buf, size, "%.*s", dot ? (int)(dot - name) : (int)strlen(name), name);
}

const char *
manifest_value(json_object *manifest, const char *name)
{
	json_object *settings, *s;
	const char *v;

	if (manifest == NULL || !json_object_object_get_ex(manifest, "settings", &settings) ||
	    !json_object_object_get_ex(settings, name, &s))
		return NULL;
	v = json_get_string(s, "end", NULL);
	return v != NULL ? v : json_get_string(s, "start", NULL);
}

bool
manifest_is_size_offload(const char *name, const char **short_name)
{
	const char *last = strrchr(name, '.');

	if (strncmp(name, "device.", 7) != 0 || strstr(name, ".offload.") == NULL || last == NULL)
		return false;
	for (size_t i = 0; i < sizeof(size_offloads) / sizeof(size_offloads[0]); i++)
		if (strcmp(last + 1, size_offloads[i]) == 0) {
			if (short_name != NULL)
				*short_name = last + 1;
			return true;
		}
	return false;
}
