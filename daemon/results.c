/* results.c: the results store: one JSON file per result below STATE_DIR/results, a sorted
 * index of their names built by scanning the tree at open and kept up to date after. */
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "log.h"
#include "results.h"
#include "statefile.h"
#include "xmalloc.h"

#define RESULTS_NAME_MAX 200
#define RESULTS_SUFFIX   ".json"

struct results {
	char *dir;    /* STATE_DIR/results */
	char **names; /* sorted, owned */
	size_t n, cap;
	const char **matched; /* results_match's answer, pointing into names */
};

/* Compare two names for qsort and bsearch. */
static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Is c allowed in a name? */
static bool
name_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-' || c == '/';
}

/* Check a name: characters, length, and each '/'-separated component. */
int
results_name_check(const char *name, struct nm_error *err)
{
	size_t len = strnlen(name, RESULTS_NAME_MAX + 1);

	if (len == 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "a name cannot be empty");
	if (len > RESULTS_NAME_MAX)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "name \"%.40s...\" is over %d bytes",
		                    name, RESULTS_NAME_MAX);
	for (size_t i = 0; i < len; i++)
		if (!name_char_ok(name[i]))
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "name \"%s\": only letters, digits, '.', '_', '-' and "
			                    "'/' are allowed",
			                    name);
	if (name[0] == '/' || name[len - 1] == '/')
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "name \"%s\" cannot start or end with '/'", name);
	for (const char *c = name;; c++) {
		size_t n = strcspn(c, "/");
		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "name \"%s\": a part between '/' cannot be empty, "
			                    "\".\" or \"..\"",
			                    name);
		c += n;
		if (*c == '\0')
			return 0;
	}
}

/* The file of a name, relative to the results directory. */
static void
name_rel(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s", name, RESULTS_SUFFIX);
}

/* The index position of name, or where it would go; *found says which. */
static size_t
index_find(const struct results *rs, const char *name, bool *found)
{
	size_t lo = 0, hi = rs->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(rs->names[mid], name);
		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

/* Add name to the index at position pos, keeping it sorted. */
static void
index_insert(struct results *rs, size_t pos, const char *name)
{
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 16;
		rs->names = xreallocarray(rs->names, rs->cap, sizeof(*rs->names));
		rs->matched = xreallocarray(rs->matched, rs->cap, sizeof(*rs->matched));
	}
	memmove(rs->names + pos + 1, rs->names + pos, (rs->n - pos) * sizeof(*rs->names));
	rs->names[pos] = xstrdup(name);
	rs->n++;
}

/* Index one file found at open: its path without the suffix is the name. */
static void
index_scanned(const char *rel, void *arg)
{
	struct results *rs = arg;
	char name[PATH_MAX];
	struct nm_error err;

	snprintf(name, sizeof(name), "%.*s", (int)(strlen(rel) - strlen(RESULTS_SUFFIX)), rel);
	if (results_name_check(name, &err) < 0) {
		log_warnx("results: ignoring %s/%s: %s", rs->dir, rel, err.message);
		return;
	}
	/* Sorted once the scan is done: paths, hence names, are unique. */
	index_insert(rs, rs->n, name);
}

/* Open the store below state_dir and index it. */
struct results *
results_open(const char *state_dir, struct nm_error *err)
{
	struct results *rs = xcalloc(1, sizeof(*rs));

	rs->dir = xasprintf("%s/results", state_dir);
	if (statefile_mkdir(rs->dir, err) < 0) {
		results_close(rs);
		return NULL;
	}
	statefile_scan(rs->dir, RESULTS_SUFFIX, index_scanned, rs);
	if (rs->n > 1)
		qsort(rs->names, rs->n, sizeof(*rs->names), name_cmp);
	log_info("results: %zu in %s", rs->n, rs->dir);
	return rs;
}

/* Free the index (the files stay). */
void
results_close(struct results *rs)
{
	if (rs == NULL)
		return;
	for (size_t i = 0; i < rs->n; i++)
		free(rs->names[i]);
	free(rs->names);
	free(rs->matched);
	free(rs->dir);
	free(rs);
}

/* Store a new result atomically. */
int
results_put(struct results *rs, const char *name, json_object *result, struct nm_error *err)
{
	char rel[PATH_MAX];
	struct nm_error e;
	bool found;
	size_t pos;

	if (results_name_check(name, err) < 0)
		return -1;
	pos = index_find(rs, name, &found);
	if (found)
		return nm_error_set(err, NM_ERR_EXISTS, "a result named %s exists", name);
	name_rel(name, rel, sizeof(rel));
	if (statefile_write_json(rs->dir, rel, result, true, &e) < 0)
		return nm_error_set(err, e.code, "cannot store result %s: %s", name, e.message);
	index_insert(rs, pos, name);
	return 0;
}

/* The JSON kinds a member of a stored result may have (null is always allowed: absent). */
enum shape { SHAPE_STRING, SHAPE_NUMBER, SHAPE_BOOL, SHAPE_OBJECT, SHAPE_ARRAY, SHAPE_STRINGS };

/* A member the daemon reads back from a result file, and its kind. */
struct member_shape {
	const char *key;
	enum shape shape;
};

static const struct member_shape top_shape[] = {
    {"window", SHAPE_OBJECT}, {"test", SHAPE_OBJECT}, {"figures", SHAPE_OBJECT},
    {"span_s", SHAPE_NUMBER}, {"stored", SHAPE_BOOL}, {NULL, 0},
};
static const struct member_shape window_shape[] = {
    {"name", SHAPE_STRING},       {"origin", SHAPE_STRING},
    {"start", SHAPE_STRING},      {"end", SHAPE_STRING},
    {"state", SHAPE_STRING},      {"closed_by", SHAPE_STRING},
    {"reason", SHAPE_STRING},     {"recovered", SHAPE_STRING},
    {"duration_s", SHAPE_NUMBER}, {"complete", SHAPE_BOOL},
    {"min_rate", SHAPE_NUMBER},   {"cpus", SHAPE_STRINGS},
    {"tcpext", SHAPE_STRINGS},    {NULL, 0},
};
static const struct member_shape test_shape[] = {
    {"name", SHAPE_STRING},      {"driver", SHAPE_STRING},
    {"type", SHAPE_STRING},      {"host", SHAPE_STRING},
    {"status", SHAPE_STRING},    {"state", SHAPE_STRING},
    {"reason", SHAPE_STRING},    {"program", SHAPE_STRING},
    {"started", SHAPE_STRING},   {"suite", SHAPE_STRING},
    {"profile", SHAPE_STRING},   {"duration_s", SHAPE_NUMBER},
    {"elapsed_s", SHAPE_NUMBER}, {"figures", SHAPE_OBJECT},
    {"argv", SHAPE_STRINGS},     {NULL, 0},
};

/* The name of a kind, for messages. */
static const char *
shape_name(enum shape shape)
{
	static const char *const names[] = {"a string",  "a number", "a boolean",
	                                    "an object", "an array", "an array of strings"};
	return names[shape];
}

/* Does v have the kind shape? */
static bool
shape_ok(json_object *v, enum shape shape)
{
	switch (shape) {
	case SHAPE_STRING:
		return json_object_is_type(v, json_type_string);
	case SHAPE_NUMBER:
		return json_object_is_type(v, json_type_int) ||
		       json_object_is_type(v, json_type_double);
	case SHAPE_BOOL:
		return json_object_is_type(v, json_type_boolean);
	case SHAPE_OBJECT:
		return json_object_is_type(v, json_type_object);
	case SHAPE_ARRAY:
		return json_object_is_type(v, json_type_array);
	case SHAPE_STRINGS:
		if (!json_object_is_type(v, json_type_array))
			return false;
		for (size_t i = 0; i < json_object_array_length(v); i++)
			if (!json_object_is_type(json_object_array_get_idx(v, i), json_type_string))
				return false;
		return true;
	}
	return false;
}

/* Check the members of o listed in shapes (o is an object). */
static int
members_check(json_object *o, const char *where, const struct member_shape *shapes,
              struct nm_error *err)
{
	json_object *v;

	for (size_t i = 0; shapes[i].key != NULL; i++) {
		if (!json_object_object_get_ex(o, shapes[i].key, &v) || v == NULL)
			continue;
		if (!shape_ok(v, shapes[i].shape))
			return nm_error_set(err, NM_ERR_FAILED, "%s%s%s is not %s", where,
			                    where[0] ? "." : "", shapes[i].key,
			                    shape_name(shapes[i].shape));
	}
	return 0;
}

/* Check the shape of a result read back (see results.h). */
int
results_check(json_object *r, struct nm_error *err)
{
	json_object *v;

	if (!json_object_is_type(r, json_type_object))
		return nm_error_set(err, NM_ERR_FAILED, "not a JSON object");
	if (members_check(r, "", top_shape, err) < 0)
		return -1;
	if (json_object_object_get_ex(r, "window", &v) && v != NULL &&
	    members_check(v, "window", window_shape, err) < 0)
		return -1;
	if (json_object_object_get_ex(r, "test", &v) && v != NULL &&
	    members_check(v, "test", test_shape, err) < 0)
		return -1;
	return 0;
}

/* Load a stored result. */
json_object *
results_get(struct results *rs, const char *name, struct nm_error *err)
{
	char rel[PATH_MAX];
	struct nm_error e;
	json_object *r;
	bool found;

	if (results_name_check(name, err) < 0)
		return NULL;
	index_find(rs, name, &found);
	if (!found) {
		nm_error_set(err, NM_ERR_NOT_FOUND, "no result named %s", name);
		return NULL;
	}
	name_rel(name, rel, sizeof(rel));
	if ((r = statefile_read_json(rs->dir, rel, &e)) == NULL) {
		nm_error_set(err, e.code, "result %s: %s", name, e.message);
		return NULL;
	}
	if (results_check(r, &e) < 0) {
		nm_error_set(err, NM_ERR_FAILED, "result %s: %s/%s: %s", name, rs->dir, rel,
		             e.message);
		json_object_put(r);
		return NULL;
	}
	return r;
}

/* Remove a stored result, its file and the directories it leaves empty. */
int
results_delete(struct results *rs, const char *name, struct nm_error *err)
{
	char rel[PATH_MAX];
	struct nm_error e;
	bool found;
	size_t pos;

	if (results_name_check(name, err) < 0)
		return -1;
	pos = index_find(rs, name, &found);
	if (!found)
		return nm_error_set(err, NM_ERR_NOT_FOUND, "no result named %s", name);
	name_rel(name, rel, sizeof(rel));
	/* A file someone removed by hand is gone either way: forget it too. */
	if (statefile_remove(rs->dir, rel, &e) < 0 && e.code != NM_ERR_NOT_FOUND)
		return nm_error_set(err, e.code, "%s", e.message);
	free(rs->names[pos]);
	memmove(rs->names + pos, rs->names + pos + 1, (rs->n - pos - 1) * sizeof(*rs->names));
	rs->n--;
	return 0;
}

/* Is there a result named name? */
bool
results_exists(struct results *rs, const char *name)
{
	bool found;

	index_find(rs, name, &found);
	return found;
}

/* The names matching glob, in order. */
size_t
results_match(struct results *rs, const char *glob, const char *const **names)
{
	size_t n = 0;

	for (size_t i = 0; i < rs->n; i++)
		if (glob == NULL || fnmatch(glob, rs->names[i], 0) == 0)
			rs->matched[n++] = rs->names[i];
	*names = rs->matched;
	return n;
}
