/* source-harness.c: the sink test double, worlds and fixture trees the source tests share. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "source-harness.h"

/* Grow the sink's arrays to hold id. */
static void
sink_reserve(struct sink *s, series_id id)
{
	size_t cap = s->cap ? s->cap : 1024, more;

	if (id < s->cap)
		return;
	while (cap <= id)
		cap *= 2;
	more = cap - s->cap;
	s->val = realloc(s->val, cap * sizeof(*s->val));
	s->put = realloc(s->put, cap);
	s->gone = realloc(s->gone, cap);
	s->count = realloc(s->count, cap * sizeof(*s->count));
	s->dead = realloc(s->dead, cap);
	memset(s->val + s->cap, 0, more * sizeof(*s->val));
	memset(s->put + s->cap, 0, more);
	memset(s->gone + s->cap, 0, more);
	memset(s->count + s->cap, 0, more * sizeof(*s->count));
	memset(s->dead + s->cap, 0, more);
	s->cap = cap;
}

/* Record a value put. */
void
sink_put(struct sink *s, series_id id, uint64_t raw)
{
	sink_reserve(s, id);
	s->val[id] = raw;
	s->put[id] = 1;
	s->count[id]++;
	s->dead[id] = 0;
	s->nput++;
}

/* Record a series declared gone. */
void
sink_gone(struct sink *s, series_id id)
{
	sink_reserve(s, id);
	s->gone[id] = 1;
	s->dead[id] = 1;
	s->ngone++;
}

/* Forget what the last sample put and declared gone (values and counts stay). */
static void
sink_clear(struct sink *s)
{
	if (s->cap) {
		memset(s->put, 0, s->cap);
		memset(s->gone, 0, s->cap);
	}
	s->nput = s->ngone = 0;
}

/* Free the sink's arrays. */
static void
sink_free(struct sink *s)
{
	free(s->val);
	free(s->put);
	free(s->gone);
	free(s->count);
	free(s->dead);
	memset(s, 0, sizeof(*s));
}

/* Set up a world on root, as the sampler sets a source up. */
void
harness_init(struct world *w, const struct source_ops *ops, const char *root)
{
	memset(w, 0, sizeof(*w));
	if (root == NULL) {
		w->dir = harness_tempdir();
		root = w->dir;
	}
	series_registry_init(&w->reg);
	w->src.ops = ops;
	w->src.index = 3;
	w->src.root = root;
	w->src.host = strcmp(root, "/") == 0;
	w->src.rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(w->src.rootfd >= 0);
	w->src.reg = &w->reg;
}

/* A source on an empty root: its init fails, naming what is missing. */
void
harness_init_missing(struct world *w, const struct source_ops *ops, const char *want)
{
	struct nm_error err;

	harness_init(w, ops, NULL);
	nm_error_clear(&err);
	assert_int_equal(w->src.ops->init(&w->src, &err), -1);
	if (strstr(err.message, want) == NULL)
		fail_msg("init failed with \"%s\", not with \"%s\"", err.message, want);
}

/* A source on this machine, sampled once: a series per online CPU for each format. */
long
harness_init_host_cpus(struct world *w, const struct source_ops *ops, const char *const *fmts,
                       size_t n)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char name[128];

	harness_init(w, ops, "/");
	harness_start(w);
	harness_sample(w);
	for (long c = 0; c < ncpu; c++)
		for (size_t i = 0; i < n; i++) {
			snprintf(name, sizeof(name), fmts[i], c);
			harness_find(w, name);
		}
	return ncpu;
}

/* Configure one option, failing the test when it is refused. */
void
harness_configure(struct world *w, const char *key, const char *val)
{
	struct nm_error err;

	nm_error_clear(&err);
	if (w->src.ops->configure(&w->src, key, val, &err) != 0)
		fail_msg("%s = %s refused: %s", key, val, err.message);
}

/* Init the source, failing the test on error. */
void
harness_start(struct world *w)
{
	struct nm_error err;

	nm_error_clear(&err);
	if (w->src.ops->init(&w->src, &err) != 0)
		fail_msg("init: %s", err.message);
}

/* One sample into a cleared sink, failing the test on error. */
void
harness_sample(struct world *w)
{
	struct nm_error err;

	nm_error_clear(&err);
	sink_clear(&w->sink);
	if (w->src.ops->sample(&w->src, &w->sink, &err) != 0)
		fail_msg("sample: %s", err.message);
	if (w->reg.n > 0)
		sink_reserve(&w->sink, (series_id)(w->reg.n - 1));
	/* Every series of every source has a unit (series.h), whatever the fixture. */
	for (series_id id = 0; id < w->reg.n; id++)
		if (w->reg.v[id].unit == NULL || w->reg.v[id].unit[0] == '\0')
			fail_msg("%s: no unit", w->reg.v[id].name);
}

/* Tear a world down and remove its fixture dir. */
void
harness_free(struct world *w)
{
	w->src.ops->free(&w->src);
	assert_null(w->src.priv);
	assert_null(w->src.opts);
	close(w->src.rootfd);
	series_registry_free(&w->reg);
	sink_free(&w->sink);
	if (w->js)
		json_object_put(w->js);
	w->js = NULL;
	if (w->dir != NULL)
		harness_rmtree(w->dir);
	w->dir = NULL;
}

/* The id of a series that must exist. */
series_id
harness_find(struct world *w, const char *name)
{
	series_id id = series_find(&w->reg, name);

	if (id == SERIES_NONE)
		fail_msg("no series %s", name);
	return id;
}

/* Whether a series exists. */
bool
harness_exists(struct world *w, const char *name)
{
	return series_find(&w->reg, name) != SERIES_NONE;
}

/* The last value put for a series that is put and not gone. */
uint64_t
harness_value(struct world *w, const char *name)
{
	series_id id = harness_find(w, name);

	assert_true(id < w->sink.cap);
	if (w->sink.count[id] == 0 || w->sink.dead[id])
		fail_msg("series %s not put or gone", name);
	return w->sink.val[id];
}

/* Check a series' value (put in the last sample), kind, source, and that it has a unit. */
void
harness_check(struct world *w, const char *name, uint64_t val, enum series_kind kind)
{
	series_id id = harness_find(w, name);
	const struct series_info *si = series_get(&w->reg, id);

	assert_true(id < w->sink.cap);
	if (!w->sink.put[id])
		fail_msg("%s not put", name);
	if (w->sink.val[id] != val)
		fail_msg("%s = %llu, expected %llu", name, (unsigned long long)w->sink.val[id],
		         (unsigned long long)val);
	assert_int_equal(si->kind, kind);
	assert_int_equal(si->source, w->src.index);
	if (si->unit[0] == '\0')
		fail_msg("%s has no unit", name);
}

void
harness_labels(struct world *w, const char *name, const char *spec)
{
	series_id id = harness_find(w, name);
	bool given[SERIES_NKEYS] = {false};
	char buf[512], *save = NULL;
	struct nm_error err;
	struct series_matcher m;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *kv = strtok_r(buf, " ", &save); kv != NULL; kv = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(kv, '=');
		if (eq == NULL)
			fail_msg("label spec \"%s\": no '='", kv);
		*eq = '\0';
		if (series_matcher_set(&w->reg, &m, kv, eq + 1, &err) < 0)
			fail_msg("%s: %s", name, err.message);
		given[m.key] = true;
		if (!series_matches(&w->reg, id, &m, 1))
			fail_msg("%s: label %s is not \"%s\"", name, kv, eq + 1);
	}
	for (int k = 0; k < SERIES_NKEYS; k++) {
		const char *none = "";
		if (given[k] || k == SERIES_KEY_SOURCE || k == SERIES_KEY_UNIT)
			continue;
		if (k == SERIES_KEY_QUEUE || k == SERIES_KEY_CPU || k == SERIES_KEY_IRQ)
			none = "-1";
		assert_int_equal(series_matcher_set(&w->reg, &m, series_key_names[k], none, NULL),
		                 0);
		if (!series_matches(&w->reg, id, &m, 1))
			fail_msg("%s: has a label %s, not expected", name, series_key_names[k]);
	}
}

/* Run gen-host.py into the world's dir and keep its summary. */
void
harness_gen(struct world *w, const char *args)
{
	char cmd[1024], *out = NULL;
	size_t len = 0, cap = 0, n;
	FILE *f;

	assert_non_null(w->dir);
	snprintf(cmd, sizeof(cmd), "python3 -S %s/gen-host.py %s --json %s", FIXTURE_DIR, w->dir,
	         args);
	f = popen(cmd, "r");
	assert_non_null(f);
	do {
		if (len + 65536 > cap) {
			cap = cap ? cap * 2 : 1 << 20;
			out = realloc(out, cap);
		}
		n = fread(out + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	out[len] = '\0';
	assert_int_equal(pclose(f), 0);
	if (w->js)
		json_object_put(w->js);
	w->js = json_tokener_parse(out);
	assert_non_null(w->js);
	free(out);
}

/* A member of the summary. */
json_object *
harness_js(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("summary has no %s", key);
	return v;
}

/* A summary number as 64 bits. */
uint64_t
harness_js_u64(json_object *v)
{
	int64_t i = json_object_get_int64(v);

	return i == INT64_MAX ? json_object_get_uint64(v) : (uint64_t)i;
}

/* The number a summary member holds. */
int64_t
harness_js_int(struct world *w, const char *key, const char *sub)
{
	json_object *o = harness_js(w->js, key);

	return json_object_get_int64(sub ? harness_js(o, sub) : o);
}

/* Check every summary value of a series starting with prefix against what was put. */
void
harness_check_values(struct world *w, const char *prefix)
{
	json_object_object_foreach(harness_js(w->js, "values"), name, v)
	{
		series_id id;

		if (strncmp(name, prefix, strlen(prefix)) != 0)
			continue;
		id = harness_find(w, name);
		assert_true(id < w->sink.cap);
		if (w->sink.val[id] != harness_js_u64(v))
			fail_msg("%s: got %llu, want %llu", name,
			         (unsigned long long)w->sink.val[id],
			         (unsigned long long)harness_js_u64(v));
	}
}

/* The summary's absent series of a prefix exist nowhere, or are gone. */
void
harness_check_absent(struct world *w, const char *prefix)
{
	json_object *a = harness_js(w->js, "absent");

	for (size_t i = 0; i < json_object_array_length(a); i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(a, i));
		series_id id = series_find(&w->reg, name);

		if (strncmp(name, prefix, strlen(prefix)) != 0)
			continue;
		if (id != SERIES_NONE && series_get(&w->reg, id)->live &&
		    !(id < w->sink.cap && w->sink.gone[id]))
			fail_msg("%s should be absent", name);
	}
}

/* Make a new temporary directory. */
char *
harness_tempdir(void)
{
	char *dir = strdup("/tmp/nm-test-src-XXXXXX");

	assert_non_null(dir);
	assert_non_null(mkdtemp(dir));
	return dir;
}

/* Remove a temporary tree and free its name. */
void
harness_rmtree(char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(dir);
}

/* Copy a fixture tree into dir. */
void
harness_copy_fixture(const char *name, const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "cp -a '%s/%s/.' '%s/'", FIXTURE_DIR, name, dir);
	assert_int_equal(system(cmd), 0);
}

/* Make a directory below the fixture dir. */
void
harness_mkdir(struct world *w, const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", w->dir, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

/* Write or remove a file below the fixture dir. */
void
harness_write(struct world *w, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", w->dir, rel);
	if (text == NULL) {
		assert_int_equal(unlink(path), 0);
		return;
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Replace the first occurrence of old by new in a file below the fixture dir, in place (same
 * inode, as /proc changes under a kept fd). */
void
harness_edit(struct world *w, const char *rel, const char *old, const char *new)
{
	char path[512], buf[65536], *at;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", w->dir, rel);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	at = strstr(buf, old);
	if (at == NULL)
		fail_msg("%s: no \"%s\"", rel, old);
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite(buf, 1, (size_t)(at - buf), f);
	fputs(new, f);
	fputs(at + strlen(old), f);
	fclose(f);
}
