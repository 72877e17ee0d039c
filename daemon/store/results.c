/* results.c: the results store: one JSON file per result below STATE_DIR/results, a sorted
 * list of their names built by scanning the tree at open and kept up to date after, and the
 * SQLite index of what they hold (resultindex.c), kept by the writer thread (writer.c):
 * a result is written, fsync'ed and indexed there, and the caller told on the loop. */
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare.h"
#include "error.h"
#include "jsonutil.h"
#include "log.h"
#include "regfile.h"
#include "results.h"
#include "statefile.h"
#include "seriesblock.h"
#include "timeutil.h"
#include "writer.h"
#include "xmalloc.h"

#define RESULTS_NAME_MAX 200
#define RESULTS_SUFFIX   ".json"
#define RESULTS_INDEX    "results-index.sqlite"
/* Rows a rebuild writes per transaction. */
#define REBUILD_BATCH 500

/* A result on its way to disk: its name is taken, its report served from memory. */
struct pending {
	char *name;
	json_object *result;
	bool reserved; /* results_reserve: the put is still to come */
	struct pending *next;
};

struct results {
	char *dir;        /* STATE_DIR/results */
	char *index_path; /* STATE_DIR/results-index.sqlite */
	char **names;     /* sorted, owned: files on disk and pending puts */
	size_t n, cap;
	const char **matched; /* results_match's answer, pointing into names or owned */
	char **matched_own;   /* copies made from the index, freed at the next match */
	size_t nmatched_own, own_cap;
	struct pending *pending;
	struct writer *writer;
	struct writer *reader; /* results_reader: reads for requests */
	/* The writer thread's connection: touched by jobs only, which run one at a time. */
	struct resultindex *wri;
	/* The loop's read-only connection; NULL while the index is (re)built. */
	struct resultindex *rri;
	bool rebuilding;
	bool sync_queued; /* a (re)build is on the writer's queue */
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

/* The file of a name's series block (seriesblock.h), beside its result. */
static void
series_rel(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s", name, SERIESBLOCK_SUFFIX);
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

/* Free the names results_match copied from the index. */
static void
own_free(struct results *rs)
{
	for (size_t i = 0; i < rs->nmatched_own; i++)
		free(rs->matched_own[i]);
	free(rs->matched_own);
	rs->matched_own = NULL;
	rs->nmatched_own = rs->own_cap = 0;
}

/* Take name out of the sorted list, when there. */
static void
index_forget(struct results *rs, const char *name)
{
	bool found;
	size_t pos = index_find(rs, name, &found);

	if (!found)
		return;
	free(rs->names[pos]);
	memmove(rs->names + pos, rs->names + pos + 1, (rs->n - pos - 1) * sizeof(*rs->names));
	rs->n--;
}

/* The pending put of name, or NULL. */
static struct pending *
pending_find(struct results *rs, const char *name)
{
	for (struct pending *p = rs->pending; p != NULL; p = p->next)
		if (strcmp(p->name, name) == 0)
			return p;
	return NULL;
}

static void index_failed(struct results *rs, const struct nm_error *err);

/* ---- what the index keeps of a result ---- */

/* A copy of o's string member key, or NULL. */
static char *
dup_member(json_object *o, const char *key)
{
	json_object *v;

	if (o == NULL || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return xstrdup(json_object_get_string(v));
}

/* Add one flattened figure to the object arg. */
static void
flat_add(const char *path, double v, void *arg)
{
	json_object_object_add(arg, path, isnan(v) ? NULL : json_object_new_double(v));
}

/* The index row of result r, stored under name (r passed results_check). Thread-safe: it
 * reads r only. */
static void
row_from(json_object *r, const char *name, struct resultindex_row *row)
{
	static const char *const keep[] = {"driver",     "type",    "host",   "procs",
	                                   "duration_s", "status",  "reason", "started",
	                                   "suite",      "figures", NULL};
	json_object *win = NULL, *t = NULL, *v, *flat, *lt;

	memset(row, 0, sizeof(*row));
	json_object_object_get_ex(r, "window", &win);
	json_object_object_get_ex(r, "test", &t);
	row->name = xstrdup(name);
	row->origin = dup_member(win, "origin");
	row->start = dup_member(win, "start");
	row->end = dup_member(win, "end");
	row->closed_by = dup_member(win, "closed_by");
	row->reason = dup_member(win, "reason");
	row->suite = dup_member(t, "suite");
	row->host = dup_member(t, "host");
	row->driver = dup_member(t, "driver");
	row->test_status = dup_member(t, "status");
	row->duration_s = NAN;
	if (win != NULL && json_object_object_get_ex(win, "duration_s", &v) && v != NULL)
		row->duration_s = json_object_get_double(v);
	row->complete = -1;
	if (win != NULL && json_object_object_get_ex(win, "complete", &v) && v != NULL)
		row->complete = json_object_get_boolean(v);
	if (t != NULL) {
		lt = json_object_new_object();
		for (size_t i = 0; keep[i] != NULL; i++)
			if (json_object_object_get_ex(t, keep[i], &v))
				json_object_object_add(lt, keep[i], json_object_get(v));
		row->test = xstrdup(json_object_to_json_string_ext(lt, JSON_C_TO_STRING_PLAIN));
		json_object_put(lt);
		if (row->driver == NULL)
			row->driver = xstrdup("");
	}
	flat = json_object_new_object();
	compare_flatten(r, flat_add, flat);
	row->figures = xstrdup(json_object_to_json_string_ext(flat, JSON_C_TO_STRING_PLAIN));
	json_object_put(flat);
}

/* ---- the writer thread's jobs ---- */

/* A file found by a rebuild's scan. */
struct found {
	char *name;
	int64_t mtime_ns, size;
};

/* A (re)build of the index: the tree scanned on the thread, compared with the index. */
struct sync_job {
	struct results *rs; /* dir and wri only */
	struct found *v;
	size_t n, cap;
	json_object *known; /* name -> "mtime size" */
	bool ok;
	size_t added, removed, skipped, total;
	uint64_t ns;
	char error[NM_ERROR_MSG_MAX];
};

/* The mtime of st in ns. */
static int64_t
mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* Collect one file found by the scan. */
static void
sync_found(const char *rel, const struct stat *st, void *arg)
{
	struct sync_job *j = arg;
	size_t len = strlen(rel) - strlen(RESULTS_SUFFIX);
	struct found *f;

	if (j->n == j->cap) {
		j->cap = j->cap ? j->cap * 2 : 256;
		j->v = xreallocarray(j->v, j->cap, sizeof(*j->v));
	}
	f = &j->v[j->n++];
	f->name = xstrndup(rel, len);
	f->mtime_ns = mtime_ns(st);
	f->size = (int64_t)st->st_size;
}

/* Note one file the index knows. */
static void
sync_known(const char *name, int64_t mtime, int64_t size, void *arg)
{
	struct sync_job *j = arg;
	char buf[64];

	snprintf(buf, sizeof(buf), "%lld %lld", (long long)mtime, (long long)size);
	json_object_object_add(j->known, name, json_object_new_string(buf));
}

/* Index the file of f: a row, or a skipped entry with a warning when it cannot be read. */
static int
sync_one(struct results *rs, const struct found *f, bool *skipped, struct nm_error *err)
{
	char rel[PATH_MAX];
	struct resultindex_row row;
	struct nm_error e;
	json_object *r;
	int rc;

	*skipped = false;
	name_rel(f->name, rel, sizeof(rel));
	if (results_name_check(f->name, &e) == 0 &&
	    (r = statefile_read_json(rs->dir, rel, &e)) != NULL) {
		if (results_check(r, &e) == 0) {
			row_from(r, f->name, &row);
			row.mtime_ns = f->mtime_ns;
			row.size = f->size;
			rc = resultindex_put(rs->wri, &row, err);
			resultindex_row_free(&row);
			json_object_put(r);
			return rc;
		}
		json_object_put(r);
	}
	log_warnx("results: skipping %s/%s: %s", rs->dir, rel, e.message);
	*skipped = true;
	return resultindex_put_skipped(rs->wri, f->name, e.message, f->mtime_ns, f->size, err);
}

/* (Re)open the writer's connection when missing or damaged. */
static int
writer_index(struct results *rs, struct nm_error *err)
{
	if (rs->wri != NULL && resultindex_damaged(rs->wri)) {
		resultindex_close(rs->wri);
		rs->wri = NULL;
	}
	if (rs->wri == NULL &&
	    (rs->wri = resultindex_open(rs->index_path, true, NULL, err)) == NULL)
		return -1;
	return 0;
}

/* Bring the index in line with the files (writer thread). */
static void
sync_job_run(void *arg)
{
	struct sync_job *j = arg;
	struct results *rs = j->rs;
	uint64_t t0 = time_mono_ns();
	struct nm_error err;
	size_t batch = 0;

	j->known = json_object_new_object();
	/* Open afresh: the open checks the file (integrity, schema) and recreates a bad one. */
	resultindex_close(rs->wri);
	rs->wri = NULL;
	if (writer_index(rs, &err) < 0 || resultindex_known(rs->wri, sync_known, j, &err) < 0)
		goto fail;
	statefile_scan_stat(rs->dir, RESULTS_SUFFIX, sync_found, j);
	j->total = j->n;
	if (resultindex_begin(rs->wri, &err) < 0)
		goto fail;
	for (size_t i = 0; i < j->n; i++) {
		struct found *f = &j->v[i];
		json_object *k;
		char buf[64];
		bool skipped;

		snprintf(buf, sizeof(buf), "%lld %lld", (long long)f->mtime_ns, (long long)f->size);
		if (json_object_object_get_ex(j->known, f->name, &k)) {
			bool same = strcmp(json_object_get_string(k), buf) == 0;
			json_object_object_del(j->known, f->name);
			if (same)
				continue;
		}
		if (sync_one(rs, f, &skipped, &err) < 0)
			goto fail;
		j->added += !skipped;
		j->skipped += skipped;
		if (++batch == REBUILD_BATCH) {
			batch = 0;
			if (resultindex_commit(rs->wri, &err) < 0 ||
			    resultindex_begin(rs->wri, &err) < 0)
				goto fail;
		}
	}
	/* What the index knows and the tree no longer has. */
	json_object_object_foreach(j->known, name, v)
	{
		(void)v;
		if (resultindex_remove(rs->wri, name, &err) < 0)
			goto fail;
		j->removed++;
	}
	if (resultindex_commit(rs->wri, &err) < 0)
		goto fail;
	j->ok = true;
	j->ns = time_mono_ns() - t0;
	return;
fail:
	snprintf(j->error, sizeof(j->error), "%s", err.message);
	if (rs->wri != NULL && resultindex_damaged(rs->wri)) {
		resultindex_close(rs->wri);
		rs->wri = NULL;
	}
}

/* The (re)build is over (loop): open the loop's connection. */
static void
sync_job_done(void *arg)
{
	struct sync_job *j = arg;
	struct results *rs = j->rs;
	struct nm_error err;

	rs->sync_queued = false;
	resultindex_close(rs->rri);
	rs->rri = NULL;
	if (!j->ok)
		log_warnx("results index: not built: %s (listings read the files' names only)",
		          j->error);
	else if ((rs->rri = resultindex_open(rs->index_path, false, NULL, &err)) == NULL)
		log_warnx("%s", err.message);
	else {
		rs->rebuilding = false;
		log_info(
		    "results index: %zu files, %zu indexed, %zu removed, %zu skipped in %.0f ms",
		    j->total, j->added, j->removed, j->skipped, (double)j->ns / 1e6);
	}
	for (size_t i = 0; i < j->n; i++)
		free(j->v[i].name);
	free(j->v);
	json_object_put(j->known);
	free(j);
}

/* Start a (re)build of the index on the writer; listings fall back until it is done. */
static void
sync_start(struct results *rs)
{
	struct sync_job *j;

	resultindex_close(rs->rri);
	rs->rri = NULL;
	rs->rebuilding = true;
	/* One on the queue does it: it reads the tree when it runs. */
	if (rs->sync_queued)
		return;
	rs->sync_queued = true;
	j = xcalloc(1, sizeof(*j));
	j->rs = rs;
	writer_submit(rs->writer, sync_job_run, sync_job_done, j);
}

/* Start the writer thread on base (NULL: jobs inline) and the index's check. */
int
results_start(struct results *rs, struct event_base *base, struct nm_error *err)
{
	struct writer *w = writer_new(base, err);

	if (w == NULL)
		return -1;
	writer_free(rs->writer);
	rs->writer = w;
	if ((w = writer_new(base, err)) == NULL)
		return -1;
	writer_free(rs->reader);
	rs->reader = w;
	sync_start(rs);
	return 0;
}

/* Run what is queued and go on inline (the loop has stopped). */
void
results_stop_thread(struct results *rs)
{
	writer_inline(rs->reader);
	writer_inline(rs->writer);
}

/* A put on the writer thread: the file, then its index row. */
struct put_job {
	struct results *rs; /* dir and wri only, on the thread */
	char *name, *line;
	size_t len;
	bool write; /* false: the file is written already, only the row goes in */
	struct resultindex_row row;
	struct seriesblock *blk; /* encoded and written beside the result first (may be NULL) */
	int rc;
	bool damaged; /* the index could not take the row */
	struct nm_error err;
	results_done_fn done;
	void *arg;
};

/* Index a stored file's row (writer thread); a failure costs the listing only. */
static void
put_index(struct put_job *j)
{
	char rel[PATH_MAX], path[PATH_MAX + 8];
	struct nm_error e;
	struct stat st;

	name_rel(j->name, rel, sizeof(rel));
	snprintf(path, sizeof(path), "%s/%s", j->rs->dir, rel);
	if (stat(path, &st) == 0) {
		j->row.mtime_ns = mtime_ns(&st);
		j->row.size = (int64_t)st.st_size;
	}
	if (writer_index(j->rs, &e) < 0 || resultindex_put(j->rs->wri, &j->row, &e) < 0) {
		log_warnx("results: %s stored, not indexed: %s", j->name, e.message);
		j->damaged = j->rs->wri == NULL || resultindex_damaged(j->rs->wri);
	}
}

/* Write, fsync, rename, fsync the directory, index (writer thread). */
static void
put_job_run(void *arg)
{
	struct put_job *j = arg;
	char rel[PATH_MAX];
	struct nm_error e;

	if (j->write && j->blk != NULL) {
		uint8_t *buf;
		size_t len;

		/* The series first, renamed into place before the result. Not fsync'ed on its
		 * own: the result's fsync of the directory makes both names durable, and a slow
		 * disk pays one fsync of a file per result, not two. A crash may leave a block
		 * cut short (skipped with a warning when read) or one without a result (which
		 * the next put of the name replaces). A block that cannot be written costs the
		 * series only. */
		series_rel(j->name, rel, sizeof(rel));
		if (seriesblock_encode(j->blk, &buf, &len, &e) == 0) {
			if (statefile_write_line(j->rs->dir, rel, (const char *)buf, len,
			                         STATEFILE_NOSYNC, &e) < 0)
				log_warnx("results: %s: its series are not stored: %s", j->name,
				          e.message);
			free(buf);
		} else
			log_warnx("results: %s: its series are not stored: %s", j->name, e.message);
		seriesblock_free(j->blk);
		j->blk = NULL;
	}
	if (j->write) {
		name_rel(j->name, rel, sizeof(rel));
		if (statefile_write_line(j->rs->dir, rel, j->line, j->len, STATEFILE_NOREPLACE,
		                         &e) < 0) {
			j->rc = nm_error_set(&j->err, e.code, "cannot store result %s: %s", j->name,
			                     e.message);
			return;
		}
	}
	put_index(j);
}

/* The put is over (loop): the name is a stored result, or free again. */
static void
put_job_done(void *arg)
{
	struct put_job *j = arg;
	struct results *rs = j->rs;
	bool damaged = j->damaged;

	if (j->write) {
		struct pending **pp = &rs->pending;
		while (*pp != NULL && strcmp((*pp)->name, j->name) != 0)
			pp = &(*pp)->next;
		if (*pp != NULL) {
			struct pending *p = *pp;
			*pp = p->next;
			json_object_put(p->result);
			free(p->name);
			free(p);
		}
		if (j->rc < 0)
			index_forget(rs, j->name);
	}
	if (j->done != NULL)
		j->done(j->arg, j->rc < 0 ? &j->err : NULL);
	if (damaged && !rs->rebuilding) {
		log_warnx("results index: damaged; rebuilding it from the files");
		sync_start(rs);
	}
	free(j->name);
	free(j->line);
	seriesblock_free(j->blk);
	resultindex_row_free(&j->row);
	free(j);
}

/* A put job for result under name. */
static struct put_job *
put_job_new(struct results *rs, const char *name, json_object *result, bool write)
{
	struct put_job *j = xcalloc(1, sizeof(*j));
	const char *line;

	j->rs = rs;
	j->name = xstrdup(name);
	j->write = write;
	if (write) {
		line = json_to_line(result, &j->len);
		j->line = xstrndup(line, j->len);
	}
	row_from(result, name, &j->row);
	return j;
}

/* Store a result on the writer thread; done on the loop once it is durable. */
int
results_put_async(struct results *rs, const char *name, json_object *result, results_done_fn done,
                  void *arg, struct nm_error *err)
{
	return results_put_async_series(rs, name, result, NULL, done, arg, err);
}

int
results_put_async_series(struct results *rs, const char *name, json_object *result,
                         struct seriesblock *blk, results_done_fn done, void *arg,
                         struct nm_error *err)
{
	struct pending *p;
	struct put_job *j;

	/* Reserved with this report: the name is taken and the report served already. */
	if ((p = pending_find(rs, name)) != NULL && p->reserved && p->result == result)
		p->reserved = false;
	else if (results_reserve(rs, name, result, err) < 0) {
		seriesblock_free(blk);
		return -1;
	} else
		pending_find(rs, name)->reserved = false;
	j = put_job_new(rs, name, result, true);
	j->blk = blk;
	j->done = done;
	j->arg = arg;
	writer_submit(rs->writer, put_job_run, put_job_done, j);
	return 0;
}

int
results_reserve(struct results *rs, const char *name, json_object *result, struct nm_error *err)
{
	struct pending *p;
	bool found;
	size_t pos;

	if (results_name_check(name, err) < 0)
		return -1;
	pos = index_find(rs, name, &found);
	if (found)
		return nm_error_set(err, NM_ERR_EXISTS, "a result named %s exists", name);
	/* The name is taken now, and the report served from memory until it is on disk. */
	index_insert(rs, pos, name);
	p = xcalloc(1, sizeof(*p));
	p->name = xstrdup(name);
	p->result = json_object_get(result);
	p->reserved = true;
	p->next = rs->pending;
	rs->pending = p;
	return 0;
}

struct writer *
results_writer(struct results *rs)
{
	return rs->writer;
}

struct writer *
results_reader(struct results *rs)
{
	return rs->reader;
}

/* Store a new result atomically, now, on the calling thread (start-up and shutdown, where
 * nothing else waits); its index row follows on the writer. */
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
	writer_submit(rs->writer, put_job_run, put_job_done, put_job_new(rs, name, result, false));
	return 0;
}

/* Forget a deleted result's row (writer thread). */
static void
unindex_job_run(void *arg)
{
	struct put_job *j = arg;
	struct nm_error e;

	if (writer_index(j->rs, &e) < 0 || resultindex_remove(j->rs->wri, j->name, &e) < 0)
		log_warnx("results: %s deleted, still indexed: %s", j->name, e.message);
}

/* Free an unindex job (loop). */
static void
unindex_job_done(void *arg)
{
	struct put_job *j = arg;

	free(j->name);
	free(j);
}

/* Open the store below state_dir and index it. */
struct results *
results_open(const char *state_dir, struct nm_error *err)
{
	struct results *rs = xcalloc(1, sizeof(*rs));

	rs->dir = xasprintf("%s/results", state_dir);
	rs->index_path = xasprintf("%s/%s", state_dir, RESULTS_INDEX);
	rs->rebuilding = true;
	rs->writer = writer_new(NULL, err);
	rs->reader = writer_new(NULL, err);
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
	/* Reads queued are answered, what is queued is written, before the threads go. */
	writer_free(rs->reader);
	writer_free(rs->writer);
	/* The reader first: the writer's close, the last, checkpoints and removes the WAL. */
	resultindex_close(rs->rri);
	resultindex_close(rs->wri);
	for (size_t i = 0; i < rs->n; i++)
		free(rs->names[i]);
	free(rs->names);
	free(rs->matched);
	own_free(rs);
	free(rs->dir);
	free(rs->index_path);
	free(rs);
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

/* Find a stored result for a read: a copy of one being stored, else its files. */
int
results_where(struct results *rs, const char *name, struct results_where *w, struct nm_error *err)
{
	char rel[PATH_MAX], path[PATH_MAX + 8];
	struct pending *p;
	bool found;

	memset(w, 0, sizeof(*w));
	if (results_name_check(name, err) < 0)
		return -1;
	index_find(rs, name, &found);
	if (!found)
		return nm_error_set(err, NM_ERR_NOT_FOUND, "no result named %s", name);
	w->name = xstrdup(name);
	w->dir = rs->dir;
	if ((p = pending_find(rs, name)) != NULL)
		json_object_deep_copy(p->result, &w->copy, NULL);
	else {
		name_rel(name, rel, sizeof(rel));
		w->rel = xstrdup(rel);
	}
	series_rel(name, rel, sizeof(rel));
	snprintf(path, sizeof(path), "%s/%s", rs->dir, rel);
	w->series_path = xstrdup(path);
	return 0;
}

/* Read and check a result found by results_where (any thread). */
json_object *
results_where_read(struct results_where *w, struct nm_error *err)
{
	struct nm_error e;
	json_object *r;

	if (w->rel == NULL) {
		r = w->copy;
		w->copy = NULL;
		if (r == NULL)
			nm_error_set(err, NM_ERR_FAILED, "result %s: cannot be copied", w->name);
		return r;
	}
	/* A file deleted since results_where is not found (NM_ERR_NOT_FOUND), as one removed
	 * by hand is; one replaced since is read as it is now. */
	if ((r = statefile_read_json(w->dir, w->rel, &e)) == NULL) {
		nm_error_set(err, e.code, "result %s: %s", w->name, e.message);
		return NULL;
	}
	if (results_check(r, &e) < 0) {
		nm_error_set(err, NM_ERR_FAILED, "result %s: %s/%s: %s", w->name, w->dir, w->rel,
		             e.message);
		json_object_put(r);
		return NULL;
	}
	return r;
}

/* The bytes of the series block at path of result name. */
static int
series_read(const char *path, const char *name, uint8_t **buf, size_t *len, struct nm_error *err)
{
	struct nm_error e;

	if (access(path, F_OK) < 0)
		return nm_error_set(err, NM_ERR_NOT_FOUND, "result %s has no stored series", name);
	if ((*buf = (uint8_t *)regfile_read(path, SERIESBLOCK_MAX_FILE, len, &e)) == NULL)
		return nm_error_set(err, NM_ERR_FAILED, "result %s: series: %s", name, e.message);
	return 0;
}

int
results_where_series(const struct results_where *w, uint8_t **buf, size_t *len,
                     struct nm_error *err)
{
	return series_read(w->series_path, w->name, buf, len, err);
}

void
results_where_free(struct results_where *w)
{
	free(w->name);
	free(w->rel);
	free(w->series_path);
	json_object_put(w->copy);
	memset(w, 0, sizeof(*w));
}

/* Load a stored result, on the calling thread. */
json_object *
results_get(struct results *rs, const char *name, struct nm_error *err)
{
	struct results_where w;
	json_object *r;

	if (results_where(rs, name, &w, err) < 0)
		return NULL;
	r = results_where_read(&w, err);
	results_where_free(&w);
	return r;
}

/* Remove a stored result, its file and the directories it leaves empty. */
int
results_delete(struct results *rs, const char *name, struct nm_error *err)
{
	struct put_job *j;
	char rel[PATH_MAX];
	struct nm_error e;
	bool found;
	size_t pos;

	if (results_name_check(name, err) < 0)
		return -1;
	pos = index_find(rs, name, &found);
	if (!found)
		return nm_error_set(err, NM_ERR_NOT_FOUND, "no result named %s", name);
	if (pending_find(rs, name) != NULL)
		return nm_error_set(err, NM_ERR_BUSY, "result %s is being stored", name);
	name_rel(name, rel, sizeof(rel));
	/* A file someone removed by hand is gone either way: forget it too. */
	if (statefile_remove(rs->dir, rel, &e) < 0 && e.code != NM_ERR_NOT_FOUND)
		return nm_error_set(err, e.code, "%s", e.message);
	series_rel(name, rel, sizeof(rel));
	if (statefile_remove(rs->dir, rel, &e) < 0 && e.code != NM_ERR_NOT_FOUND)
		log_warnx("results: %s: %s", name, e.message);
	free(rs->names[pos]);
	memmove(rs->names + pos, rs->names + pos + 1, (rs->n - pos - 1) * sizeof(*rs->names));
	rs->n--;
	/* Listings drop a row whose name is gone, until the writer has removed it. */
	j = xcalloc(1, sizeof(*j));
	j->rs = rs;
	j->name = xstrdup(name);
	writer_submit(rs->writer, unindex_job_run, unindex_job_done, j);
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

/* Collect a name the index matched, when it is a stored result still. */
static void
match_one(const char *name, void *arg)
{
	struct results *rs = arg;

	if (!results_exists(rs, name) || pending_find(rs, name) != NULL)
		return;
	/* At most rs->n names exist: matched has room for them. */
	if (rs->nmatched_own == rs->own_cap) {
		rs->own_cap = rs->own_cap ? rs->own_cap * 2 : 64;
		rs->matched_own =
		    xreallocarray(rs->matched_own, rs->own_cap, sizeof(*rs->matched_own));
	}
	rs->matched_own[rs->nmatched_own++] = xstrdup(name);
}

/* The names matching glob, in order: from the index (a range of its B-tree when the glob
 * starts with literal text), else from the list in memory. */
size_t
results_match(struct results *rs, const char *glob, const char *const **names)
{
	struct nm_error err;
	size_t n = 0;

	own_free(rs);
	if (rs->rri != NULL && rs->cap > 0) {
		if (resultindex_names(rs->rri, glob, match_one, rs, &err) == 0) {
			for (size_t i = 0; i < rs->nmatched_own; i++)
				rs->matched[i] = rs->matched_own[i];
			*names = rs->matched;
			return rs->nmatched_own;
		}
		own_free(rs);
		index_failed(rs, &err);
	}
	for (size_t i = 0; i < rs->n; i++)
		if (glob == NULL || fnmatch(glob, rs->names[i], 0) == 0)
			rs->matched[n++] = rs->names[i];
	*names = rs->matched;
	return n;
}

/* A query of the loop's connection failed: rebuild when the index is damaged. */
static void
index_failed(struct results *rs, const struct nm_error *err)
{
	log_warnx("%s", err->message);
	if (resultindex_damaged(rs->rri)) {
		log_warnx("results index: damaged; rebuilding it from the files");
		sync_start(rs);
	}
}

/* Is the index ready for listings (not being built)? */
bool
results_index_ready(const struct results *rs)
{
	return rs->rri != NULL;
}

/* A listing's callback and its argument, behind the filter of deleted names. */
struct list_ctx {
	struct results *rs;
	resultindex_row_fn fn;
	void *arg;
};

/* Pass on a row whose result is still stored. */
static void
list_one(const struct resultindex_row *row, void *arg)
{
	struct list_ctx *c = arg;

	if (results_exists(c->rs, row->name))
		c->fn(row, c->arg);
}

/* Rows of the index matching f, newest first. */
int
results_list(struct results *rs, const struct resultindex_filter *f, resultindex_row_fn fn,
             void *arg, struct nm_error *err)
{
	struct list_ctx c = {rs, fn, arg};

	if (rs->rri == NULL)
		return nm_error_set(err, NM_ERR_BUSY, "index rebuilding");
	if (resultindex_query(rs->rri, f, list_one, &c, err) < 0) {
		index_failed(rs, err);
		return -1;
	}
	return 0;
}

/* Files the index skipped, matching glob. */
int
results_list_skipped(struct results *rs, const char *glob, resultindex_skip_fn fn, void *arg,
                     struct nm_error *err)
{
	if (rs->rri == NULL)
		return nm_error_set(err, NM_ERR_BUSY, "index rebuilding");
	if (resultindex_skipped(rs->rri, glob, fn, arg, err) < 0) {
		index_failed(rs, err);
		return -1;
	}
	return 0;
}

/* The bytes of a stored result's series block. */
int
results_series_bytes(struct results *rs, const char *name, uint8_t **buf, size_t *len,
                     struct nm_error *err)
{
	char rel[PATH_MAX], path[PATH_MAX + 8];

	if (results_name_check(name, err) < 0)
		return -1;
	if (!results_exists(rs, name))
		return nm_error_set(err, NM_ERR_NOT_FOUND, "no result named %s", name);
	series_rel(name, rel, sizeof(rel));
	snprintf(path, sizeof(path), "%s/%s", rs->dir, rel);
	return series_read(path, name, buf, len, err);
}

/* A stored result's series block, decoded. */
struct seriesblock *
results_series_get(struct results *rs, const char *name, int64_t mono_to_real, struct nm_error *err)
{
	struct seriesblock *b;
	struct nm_error e;
	uint8_t *buf;
	size_t len;

	if (results_series_bytes(rs, name, &buf, &len, err) < 0)
		return NULL;
	b = seriesblock_decode(buf, len, mono_to_real, &e);
	free(buf);
	if (b == NULL) {
		log_warnx("results: %s: stored series skipped: %s", name, e.message);
		nm_error_set(err, NM_ERR_FAILED, "result %s: stored series skipped: %s", name,
		             e.message);
	}
	return b;
}
