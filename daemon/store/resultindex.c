/* resultindex.c: the SQLite index of the results store. SQLite because the listing and the
 * searches need a sorted, filtered, paged view of up to a few hundred thousand rows kept on
 * disk across restarts, updated one row at a time by one thread while another reads: a
 * B-tree with transactions and WAL readers, which Debian ships (libsqlite3) and every
 * distribution has. The JSON files stay the record; this file only speaks SQL. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "log.h"
#include "resultindex.h"
#include "xmalloc.h"

/* How long a statement waits for a lock before it gives up (a checkpoint, a rebuild's
 * commit): short, as the loop must not wait long. */
#define BUSY_MS_READER 50
#define BUSY_MS_WRITER 5000
/* A glob turned into SQL (each character may become three). */
#define GLOB_MAX 1024

struct resultindex {
	sqlite3 *db;
	bool damaged;
};

static const char schema_sql[] =
    "CREATE TABLE IF NOT EXISTS results ("
    " name TEXT PRIMARY KEY, origin TEXT, suite TEXT, start TEXT, start_s REAL, end_t TEXT,"
    " duration_s REAL, complete INTEGER, closed_by TEXT, reason TEXT, host TEXT,"
    " driver TEXT, test_status TEXT, test TEXT, figures TEXT, mtime_ns INTEGER,"
    " size INTEGER);"
    "CREATE INDEX IF NOT EXISTS results_by_start ON results(start_s, name);"
    "CREATE TABLE IF NOT EXISTS skipped ("
    " name TEXT PRIMARY KEY, why TEXT, mtime_ns INTEGER, size INTEGER);";

/* The columns a query reads, in the order row_read takes them. */
#define ROW_COLUMNS                                                                                \
	"name, origin, suite, start, end_t, closed_by, reason, host, driver, test_status, test, "  \
	"figures, duration_s, complete, mtime_ns, size"

/* Free the strings of a row. */
void
resultindex_row_free(struct resultindex_row *row)
{
	char **s[] = {&row->name,   &row->origin,      &row->suite,  &row->start,
	              &row->end,    &row->closed_by,   &row->reason, &row->host,
	              &row->driver, &row->test_status, &row->test,   &row->figures};

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		free(*s[i]);
		*s[i] = NULL;
	}
}

/* Note rc when it says the database is damaged; fill err with what SQLite said. */
static int
fail(struct resultindex *ri, int rc, const char *what, struct nm_error *err)
{
	int code = rc & 0xff;

	if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB || code == SQLITE_IOERR ||
	    code == SQLITE_CANTOPEN || code == SQLITE_READONLY || code == SQLITE_SCHEMA)
		ri->damaged = true;
	return nm_error_set(err, code == SQLITE_BUSY ? NM_ERR_BUSY : NM_ERR_FAILED,
	                    "results index: %s: %s", what, sqlite3_errmsg(ri->db));
}

/* Run sql (no rows wanted). */
static int
exec(struct resultindex *ri, const char *sql, struct nm_error *err)
{
	int rc = sqlite3_exec(ri->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : fail(ri, rc, sql, err);
}

/* The integer sql's first row holds; -1 when none or on error. */
static long long
query_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long long v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Is the database sound: quick_check says "ok"? */
static bool
quick_check_ok(sqlite3 *db)
{
	sqlite3_stmt *st;
	bool ok = false;

	if (sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &st, NULL) != SQLITE_OK)
		return false;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *s = sqlite3_column_text(st, 0);
		ok = s != NULL && strcmp((const char *)s, "ok") == 0;
	}
	sqlite3_finalize(st);
	return ok;
}

/* Remove the database at path and its WAL and shared-memory files. */
static void
remove_files(const char *path)
{
	static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
	char p[4096];

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", path, suffixes[i]);
		unlink(p);
	}
}

/* Open path for the writer: a sound index of this schema, or why not. */
static sqlite3 *
open_writer(const char *path, const char **why)
{
	sqlite3 *db = NULL;
	long long v;

	*why = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		*why = "cannot be opened";
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, BUSY_MS_WRITER);
	if ((v = query_int(db, "PRAGMA user_version")) < 0)
		*why = "is not a database";
	else if (!quick_check_ok(db))
		*why = "fails its integrity check";
	else if (v != 0 && v != RESULTINDEX_SCHEMA)
		*why = "has another schema version";
	else if (v == 0 && query_int(db, "SELECT count(*) FROM sqlite_master") != 0)
		*why = "has no schema version";
	if (*why != NULL) {
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

/* Open the index (see resultindex.h). */
struct resultindex *
resultindex_open(const char *path, bool writer, bool *fresh, struct nm_error *err)
{
	struct resultindex *ri = xcalloc(1, sizeof(*ri));
	const char *why;
	char sql[128];

	if (fresh != NULL)
		*fresh = false;
	if (!writer) {
		if (sqlite3_open_v2(path, &ri->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
			nm_error_set(err, NM_ERR_FAILED, "results index %s: %s", path,
			             sqlite3_errmsg(ri->db));
			resultindex_close(ri);
			return NULL;
		}
		sqlite3_busy_timeout(ri->db, BUSY_MS_READER);
		return ri;
	}
	if ((ri->db = open_writer(path, &why)) == NULL) {
		if (access(path, F_OK) == 0)
			log_warnx("results index %s %s: rebuilding it from the result files", path,
			          why);
		remove_files(path);
		if (fresh != NULL)
			*fresh = true;
		if ((ri->db = open_writer(path, &why)) == NULL) {
			nm_error_set(err, NM_ERR_FAILED, "results index %s %s", path, why);
			resultindex_close(ri);
			return NULL;
		}
	}
	if (query_int(ri->db, "PRAGMA user_version") == 0 && fresh != NULL)
		*fresh = true;
	snprintf(sql, sizeof(sql), "PRAGMA user_version=%d", RESULTINDEX_SCHEMA);
	/* WAL: the loop's reads never wait for the writer's transactions. NORMAL: a crash may
	 * lose the last rows, which the next start finds missing and adds again. */
	if (exec(ri, "PRAGMA journal_mode=WAL", err) < 0 ||
	    exec(ri, "PRAGMA synchronous=NORMAL", err) < 0 || exec(ri, schema_sql, err) < 0 ||
	    exec(ri, sql, err) < 0) {
		resultindex_close(ri);
		return NULL;
	}
	return ri;
}

/* Close a connection. */
void
resultindex_close(struct resultindex *ri)
{
	if (ri == NULL)
		return;
	sqlite3_close(ri->db);
	free(ri);
}

bool
resultindex_damaged(const struct resultindex *ri)
{
	return ri->damaged;
}

/* Start a transaction. */
int
resultindex_begin(struct resultindex *ri, struct nm_error *err)
{
	return exec(ri, "BEGIN IMMEDIATE", err);
}

/* Commit the transaction. */
int
resultindex_commit(struct resultindex *ri, struct nm_error *err)
{
	return exec(ri, "COMMIT", err);
}

/* Bind s (NULL: SQL NULL) to parameter i. */
static void
bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s == NULL)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

/* Step a statement that returns no rows, then finalize it. */
static int
step_done(struct resultindex *ri, sqlite3_stmt *st, const char *what, struct nm_error *err)
{
	int rc = sqlite3_step(st);

	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : fail(ri, rc, what, err);
}

/* Insert or replace a result's row (and forget it as skipped). */
int
resultindex_put(struct resultindex *ri, const struct resultindex_row *row, struct nm_error *err)
{
	static const char sql[] =
	    "INSERT OR REPLACE INTO results (name, origin, suite, start, start_s, end_t, "
	    "duration_s, complete, closed_by, reason, host, driver, test_status, test, figures, "
	    "mtime_ns, size) VALUES (?1, ?2, ?3, ?4, "
	    /* Epoch seconds of the RFC 3339 start, to the millisecond it has. */
	    "round((julianday(?4) - 2440587.5) * 86400000.0) / 1000.0, "
	    "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)";
	sqlite3_stmt *st;
	int rc;

	if (resultindex_remove(ri, row->name, err) < 0)
		return -1;
	if ((rc = sqlite3_prepare_v2(ri->db, sql, -1, &st, NULL)) != SQLITE_OK)
		return fail(ri, rc, "insert", err);
	bind_text(st, 1, row->name);
	bind_text(st, 2, row->origin);
	bind_text(st, 3, row->suite);
	bind_text(st, 4, row->start);
	bind_text(st, 5, row->end);
	if (isnan(row->duration_s))
		sqlite3_bind_null(st, 6);
	else
		sqlite3_bind_double(st, 6, row->duration_s);
	if (row->complete < 0)
		sqlite3_bind_null(st, 7);
	else
		sqlite3_bind_int(st, 7, row->complete);
	bind_text(st, 8, row->closed_by);
	bind_text(st, 9, row->reason);
	bind_text(st, 10, row->host);
	bind_text(st, 11, row->driver);
	bind_text(st, 12, row->test_status);
	bind_text(st, 13, row->test);
	bind_text(st, 14, row->figures);
	sqlite3_bind_int64(st, 15, row->mtime_ns);
	sqlite3_bind_int64(st, 16, row->size);
	return step_done(ri, st, "insert", err);
}

/* Note a file that could not be indexed. */
int
resultindex_put_skipped(struct resultindex *ri, const char *name, const char *why, int64_t mtime_ns,
                        int64_t size, struct nm_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if (resultindex_remove(ri, name, err) < 0)
		return -1;
	rc = sqlite3_prepare_v2(
	    ri->db, "INSERT INTO skipped (name, why, mtime_ns, size) VALUES (?, ?, ?, ?)", -1, &st,
	    NULL);
	if (rc != SQLITE_OK)
		return fail(ri, rc, "insert skipped", err);
	bind_text(st, 1, name);
	bind_text(st, 2, why);
	sqlite3_bind_int64(st, 3, mtime_ns);
	sqlite3_bind_int64(st, 4, size);
	return step_done(ri, st, "insert skipped", err);
}

/* Forget name in both tables. */
int
resultindex_remove(struct resultindex *ri, const char *name, struct nm_error *err)
{
	static const char *const sql[] = {"DELETE FROM results WHERE name = ?",
	                                  "DELETE FROM skipped WHERE name = ?"};

	for (size_t i = 0; i < 2; i++) {
		sqlite3_stmt *st;
		int rc = sqlite3_prepare_v2(ri->db, sql[i], -1, &st, NULL);
		if (rc != SQLITE_OK)
			return fail(ri, rc, "delete", err);
		bind_text(st, 1, name);
		if (step_done(ri, st, "delete", err) < 0)
			return -1;
	}
	return 0;
}

/* Every known file with its mtime and size. */
int
resultindex_known(struct resultindex *ri, resultindex_known_fn fn, void *arg, struct nm_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(ri->db,
	                            "SELECT name, mtime_ns, size FROM results UNION ALL "
	                            "SELECT name, mtime_ns, size FROM skipped",
	                            -1, &st, NULL);

	if (rc != SQLITE_OK)
		return fail(ri, rc, "list", err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		fn((const char *)sqlite3_column_text(st, 0), sqlite3_column_int64(st, 1),
		   sqlite3_column_int64(st, 2), arg);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : fail(ri, rc, "list", err);
}

/* An fnmatch(3) pattern (no flags) as an SQLite GLOB: "[!" is "[^", and "\c" the literal c.
 * *prefix gets the literal start (up to the first '*', '?' or '['), for an index range.
 * False when it does not fit. */
static bool
glob_to_sql(const char *glob, char *out, size_t size, char *prefix, size_t psize)
{
	size_t o = 0, p = 0;
	bool literal = true;

	for (const char *c = glob; *c; c++) {
		char lit = 0;
		if (o + 4 >= size || p + 2 >= psize)
			return false;
		if (*c == '\\' && c[1] != '\0') {
			lit = *++c;
		} else if (*c == '[') {
			literal = false;
			out[o++] = '[';
			if (c[1] == '!') {
				out[o++] = '^';
				c++;
			}
			continue;
		} else if (*c == '*' || *c == '?' || *c == ']') {
			if (*c != ']')
				literal = false;
			out[o++] = *c;
			continue;
		} else
			lit = *c;
		if (literal)
			prefix[p++] = lit;
		/* A literal that GLOB would read as special goes in brackets. */
		if (lit == '*' || lit == '?' || lit == '[') {
			out[o++] = '[';
			out[o++] = lit;
			out[o++] = ']';
		} else
			out[o++] = lit;
	}
	out[o] = '\0';
	prefix[p] = '\0';
	return true;
}

/* A glob made ready for a statement: the GLOB pattern (?1) and, when it starts with
 * literal text, the index range of names with that prefix (?2 <= name < ?3). */
struct glob_sql {
	char where[96];
	char g[GLOB_MAX], prefix[GLOB_MAX], upper[GLOB_MAX];
};

/* Prepare glob (NULL: match all) for a statement. */
static int
glob_prepare(const char *glob, struct glob_sql *gs, struct nm_error *err)
{
	size_t n;

	if (glob == NULL)
		glob = "*";
	if (!glob_to_sql(glob, gs->g, sizeof(gs->g), gs->prefix, sizeof(gs->prefix)))
		return nm_error_set(err, NM_ERR_BAD_ARGS, "glob \"%.40s...\" is too long", glob);
	/* Names are ASCII: the range ends before the prefix with its last byte one up. */
	if ((n = strlen(gs->prefix)) > 0 && (unsigned char)gs->prefix[n - 1] < 0x7f) {
		memcpy(gs->upper, gs->prefix, n + 1);
		gs->upper[n - 1]++;
		snprintf(gs->where, sizeof(gs->where), "name GLOB ?1 AND name >= ?2 AND name < ?3");
	} else
		snprintf(gs->where, sizeof(gs->where), "name GLOB ?1");
	return 0;
}

/* Bind a prepared glob's parameters. */
static void
glob_bind(sqlite3_stmt *st, const struct glob_sql *gs)
{
	bind_text(st, 1, gs->g);
	if (strstr(gs->where, "?2") != NULL) {
		bind_text(st, 2, gs->prefix);
		bind_text(st, 3, gs->upper);
	}
}

/* Copy a text column (NULL stays NULL). */
static char *
col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s != NULL ? xstrdup((const char *)s) : NULL;
}

/* The row at the statement's cursor (ROW_COLUMNS). */
static void
row_read(sqlite3_stmt *st, struct resultindex_row *row)
{
	char **s[] = {&row->name,   &row->origin,      &row->suite,  &row->start,
	              &row->end,    &row->closed_by,   &row->reason, &row->host,
	              &row->driver, &row->test_status, &row->test,   &row->figures};
	int n = (int)(sizeof(s) / sizeof(s[0]));

	for (int i = 0; i < n; i++)
		*s[i] = col_text(st, i);
	row->duration_s =
	    sqlite3_column_type(st, n) == SQLITE_NULL ? NAN : sqlite3_column_double(st, n);
	row->complete =
	    sqlite3_column_type(st, n + 1) == SQLITE_NULL ? -1 : sqlite3_column_int(st, n + 1);
	row->mtime_ns = sqlite3_column_int64(st, n + 2);
	row->size = sqlite3_column_int64(st, n + 3);
}

/* Rows matching a filter, newest first. */
int
resultindex_query(struct resultindex *ri, const struct resultindex_filter *f, resultindex_row_fn fn,
                  void *arg, struct nm_error *err)
{
	struct glob_sql gs;
	char sql[1024];
	sqlite3_stmt *st;
	int rc;

	if (glob_prepare(f->glob, &gs, err) < 0)
		return -1;
	snprintf(sql, sizeof(sql),
	         "SELECT " ROW_COLUMNS " FROM results WHERE %s AND (?4 IS NULL OR origin = ?4) "
	         "AND (?5 IS NULL OR suite = ?5) AND (?6 IS NULL OR start_s >= ?6) AND "
	         "(?7 IS NULL OR start_s < ?7) AND (?8 = 0 OR driver IS NOT NULL) "
	         "ORDER BY start_s DESC, name DESC LIMIT ?9",
	         gs.where);
	if ((rc = sqlite3_prepare_v2(ri->db, sql, -1, &st, NULL)) != SQLITE_OK)
		return fail(ri, rc, "query", err);
	glob_bind(st, &gs);
	bind_text(st, 4, f->origin);
	bind_text(st, 5, f->suite);
	if (!isnan(f->since))
		sqlite3_bind_double(st, 6, f->since);
	if (!isnan(f->until))
		sqlite3_bind_double(st, 7, f->until);
	sqlite3_bind_int(st, 8, f->tests_only);
	sqlite3_bind_int64(st, 9, f->limit > 0 ? (sqlite3_int64)f->limit : -1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct resultindex_row row;
		row_read(st, &row);
		fn(&row, arg);
		resultindex_row_free(&row);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : fail(ri, rc, "query", err);
}

/* Names matching a glob, sorted. */
int
resultindex_names(struct resultindex *ri, const char *glob, resultindex_name_fn fn, void *arg,
                  struct nm_error *err)
{
	struct glob_sql gs;
	char sql[384];
	sqlite3_stmt *st;
	int rc;

	if (glob_prepare(glob, &gs, err) < 0)
		return -1;
	snprintf(sql, sizeof(sql),
	         "SELECT name FROM results WHERE %s UNION ALL SELECT name FROM skipped WHERE %s "
	         "ORDER BY name",
	         gs.where, gs.where);
	if ((rc = sqlite3_prepare_v2(ri->db, sql, -1, &st, NULL)) != SQLITE_OK)
		return fail(ri, rc, "names", err);
	glob_bind(st, &gs);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		fn((const char *)sqlite3_column_text(st, 0), arg);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : fail(ri, rc, "names", err);
}

/* Skipped files matching a glob. */
int
resultindex_skipped(struct resultindex *ri, const char *glob, resultindex_skip_fn fn, void *arg,
                    struct nm_error *err)
{
	struct glob_sql gs;
	char sql[256];
	sqlite3_stmt *st;
	int rc;

	if (glob_prepare(glob, &gs, err) < 0)
		return -1;
	snprintf(sql, sizeof(sql), "SELECT name, why FROM skipped WHERE %s ORDER BY name",
	         gs.where);
	if ((rc = sqlite3_prepare_v2(ri->db, sql, -1, &st, NULL)) != SQLITE_OK)
		return fail(ri, rc, "skipped", err);
	glob_bind(st, &gs);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		fn((const char *)sqlite3_column_text(st, 0),
		   (const char *)sqlite3_column_text(st, 1), arg);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : fail(ri, rc, "skipped", err);
}
