/* compare-manifest.c: the settings that differ between two sides, from their manifests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare-manifest.h"
#include "jsonutil.h"
#include "manifest.h"
#include "xmalloc.h"

/* The order groups are listed in; any other after them. */
static const char *const group_order[] = {"device", "cpu", "kernel", "sysctl", "host", "benchmark"};
#define NGROUPS (sizeof(group_order) / sizeof(group_order[0]))

/* The rank of a setting's group. */
static size_t
group_rank(const char *name)
{
	char g[32];
	size_t i;

	manifest_group(name, g, sizeof(g));
	for (i = 0; i < NGROUPS && strcmp(g, group_order[i]) != 0; i++)
		;
	return i;
}

/* Grouped, then by name. */
static int
by_group(const void *x, const void *y)
{
	const char *a = *(const char *const *)x, *b = *(const char *const *)y;
	size_t ra = group_rank(a), rb = group_rank(b);

	return ra != rb ? (ra < rb ? -1 : 1) : strcmp(a, b);
}

/* The manifest of a result, NULL when it has none. */
static json_object *
manifest_of(json_object *r)
{
	json_object *m;

	if (!json_object_object_get_ex(r, "manifest", &m) ||
	    !json_object_is_type(m, json_type_object))
		return NULL;
	return m;
}

/* Do two values (either may be NULL) differ? */
static int
differ(const char *x, const char *y)
{
	return (x == NULL) != (y == NULL) || (x != NULL && strcmp(x, y) != 0);
}

/* One side's value of name: 0 with *v when its manifests agree (or it has none: *v NULL,
 * *any false), -1 when they differ (values lists them, once each). */
static int
side_value(json_object *const *r, size_t n, const char *name, const char **v, bool *any,
           json_object *values)
{
	bool vary = false;

	*v = NULL;
	*any = false;
	for (size_t i = 0; i < n; i++) {
		json_object *m = manifest_of(r[i]);
		const char *x;
		if (m == NULL)
			continue;
		x = manifest_value(m, name);
		if (!*any) {
			*v = x;
			*any = true;
		} else if (differ(*v, x))
			vary = true;
	}
	if (!vary)
		return 0;
	for (size_t i = 0; i < n; i++) {
		json_object *m = manifest_of(r[i]);
		const char *x = m ? manifest_value(m, name) : NULL;
		bool seen = false;
		if (m == NULL)
			continue;
		for (size_t k = 0; k < json_object_array_length(values); k++) {
			json_object *e = json_object_array_get_idx(values, k);
			seen |= !differ(e ? json_object_get_string(e) : NULL, x);
		}
		if (!seen)
			json_object_array_add(values, x ? json_object_new_string(x) : NULL);
	}
	return -1;
}

/* Every setting name of every manifest of both sides, once each. */
static json_object *
all_names(json_object *const *a, size_t na, json_object *const *b, size_t nb)
{
	json_object *names = json_object_new_object(), *settings;

	for (size_t i = 0; i < na + nb; i++) {
		json_object *m = manifest_of(i < na ? a[i] : b[i - na]);
		if (m == NULL || !json_object_object_get_ex(m, "settings", &settings))
			continue;
		json_object_object_foreach(settings, k, v)
		{
			(void)v;
			json_object_object_add(names, k, NULL);
		}
	}
	return names;
}

/* A varying setting of one side. */
static void
add_varying(json_object *arr, const char *side, const char *name, json_object *values)
{
	json_object *o = json_object_new_object();

	json_add_string(o, "side", side);
	json_add_string(o, "setting", name);
	json_object_object_add(o, "values", values);
	json_object_array_add(arr, o);
}

/* The cause in words. */
static void
cause_of(json_object *diffs, json_object *out)
{
	size_t n = json_object_array_length(diffs), len;
	char buf[1024];

	if (n == 0) {
		json_object_object_add(out, "cause", NULL);
		return;
	}
	if (n == 1) {
		json_object *d = json_object_array_get_idx(diffs, 0);
		snprintf(buf, sizeof(buf), "after %s changed from %s to %s",
		         json_get_string(d, "setting", "?"), json_get_string(d, "a", "(none)"),
		         json_get_string(d, "b", "(none)"));
		json_add_string(out, "cause", buf);
		return;
	}
	len = (size_t)snprintf(buf, sizeof(buf), "after %zu settings changed: ", n);
	for (size_t i = 0; i < n && i < COMPARE_CAUSE_NAMED && len < sizeof(buf); i++) {
		json_object *d = json_object_array_get_idx(diffs, i);
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s (%s -> %s)",
		                        i ? ", " : "", json_get_string(d, "setting", "?"),
		                        json_get_string(d, "a", "(none)"),
		                        json_get_string(d, "b", "(none)"));
	}
	if (n > COMPARE_CAUSE_NAMED && len < sizeof(buf))
		snprintf(buf + len, sizeof(buf) - len, ", ...");
	json_add_string(out, "cause", buf);
}

/* Sort strings. */
static int
by_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

json_object *
compare_manifest(json_object *const *a, size_t na, json_object *const *b, size_t nb)
{
	json_object *out = json_object_new_object(), *names = all_names(a, na, b, nb);
	json_object *diffs = json_object_new_array(), *varying = json_object_new_array();
	json_object *sizes = json_object_new_array();
	size_t n = 0, without = 0, nsz = 0;
	const char **keys, *sz[16];

	for (size_t i = 0; i < na + nb; i++)
		without += manifest_of(i < na ? a[i] : b[i - na]) == NULL;
	keys = xcalloc((size_t)json_object_object_length(names) + 1, sizeof(*keys));
	json_object_object_foreach(names, k, unused)
	{
		(void)unused;
		keys[n++] = k;
	}
	qsort(keys, n, sizeof(*keys), by_group);
	for (size_t i = 0; i < n; i++) {
		json_object *va = json_object_new_array(), *vb = json_object_new_array(), *d;
		const char *xa, *xb, *shortn;
		bool anya, anyb;
		int ra = side_value(a, na, keys[i], &xa, &anya, va);
		int rb = side_value(b, nb, keys[i], &xb, &anyb, vb);
		if (ra < 0)
			add_varying(varying, "A", keys[i], va);
		else
			json_object_put(va);
		if (rb < 0)
			add_varying(varying, "B", keys[i], vb);
		else
			json_object_put(vb);
		if (ra < 0 || rb < 0 || !anya || !anyb || !differ(xa, xb))
			continue;
		d = json_object_new_object();
		json_add_string(d, "setting", keys[i]);
		char g[32];
		manifest_group(keys[i], g, sizeof(g));
		json_add_string(d, "group", g);
		json_object_object_add(d, "a", xa ? json_object_new_string(xa) : NULL);
		json_object_object_add(d, "b", xb ? json_object_new_string(xb) : NULL);
		json_object_array_add(diffs, d);
		if (manifest_is_size_offload(keys[i], &shortn) && nsz < 16) {
			bool dup = false;
			for (size_t k = 0; k < nsz; k++)
				dup |= strcmp(sz[k], shortn) == 0;
			if (!dup)
				sz[nsz++] = shortn;
		}
	}
	qsort(sz, nsz, sizeof(sz[0]), by_str);
	for (size_t k = 0; k < nsz; k++)
		json_object_array_add(sizes, json_object_new_string(sz[k]));
	json_object_object_add(out, "differences", diffs);
	json_object_object_add(out, "varying", varying);
	json_object_object_add(out, "size_offloads", sizes);
	cause_of(diffs, out);
	json_add_uint(out, "without_manifest", without);
	free(keys);
	json_object_put(names);
	return out;
}

int
compare_manifest_packet_figure(const char *path, const char *unit, const char *better)
{
	if (better != NULL)
		return 0; /* drops, retransmits: a loss whatever the size */
	return strncmp(unit, "packets", 7) == 0 || strncmp(unit, "segments", 8) == 0 ||
	       strstr(path, "per_packet") != NULL || strstr(path, "packets_per") != NULL;
}

void
compare_manifest_apply(json_object *settings, json_object *figures)
{
	json_object *sizes, *diffs;
	const char *cause = json_get_string(settings, "cause", NULL);
	char nc[256];
	size_t len, n;

	if (json_object_object_get_ex(settings, "size_offloads", &sizes) &&
	    (n = json_object_array_length(sizes)) > 0) {
		len = (size_t)snprintf(nc, sizeof(nc), "not comparable: ");
		for (size_t i = 0; i < n && len < sizeof(nc); i++)
			len += (size_t)snprintf(
			    nc + len, sizeof(nc) - len, "%s%s", i ? ", " : "",
			    json_object_get_string(json_object_array_get_idx(sizes, i)));
		if (len < sizeof(nc))
			snprintf(nc + len, sizeof(nc) - len, " %s", n == 1 ? "differs" : "differ");
	} else
		nc[0] = '\0';
	if (!json_object_object_get_ex(settings, "differences", &diffs) ||
	    json_object_array_length(diffs) == 0)
		return;
	for (size_t i = 0; i < json_object_array_length(figures); i++) {
		json_object *f = json_object_array_get_idx(figures, i);
		const char *v = json_get_string(f, "verdict", "");
		const char *path = json_get_string(f, "figure", "");
		const char *unit = json_get_string(f, "unit", "");
		const char *better = json_get_string(f, "better", NULL);
		if (nc[0] && compare_manifest_packet_figure(path, unit, better)) {
			json_add_string(f, "not_comparable", nc);
			json_object_object_add(f, "verdict", NULL);
			continue;
		}
		if (cause != NULL && (strcmp(v, "better") == 0 || strcmp(v, "worse") == 0))
			json_add_string(f, "cause", cause);
	}
}
