/* resultindex.h: the index of the results store, an SQLite database beside it: one row per
 * result file with what listings and searches show (name, origin, suite, start, duration,
 * completeness, host, the test's headline members, every flattened figure), and one per
 * file that could not be read (skipped). The JSON files stay the record: the index is
 * rebuilt from them when it is missing, damaged or of another schema (results.c). One
 * connection per thread: the writer thread's writes, the loop's reads (WAL: a read never
 * waits for a write). */
#ifndef NM_RESULTINDEX_H
#define NM_RESULTINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nm_error;
struct resultindex;

/* Bump when the tables change: an index of another version is rebuilt. */
#define RESULTINDEX_SCHEMA 1

/* One result as the index keeps it. Strings may be NULL (absent). */
struct resultindex_row {
	char *name, *origin, *suite, *start, *end, *closed_by, *reason, *host, *driver;
	char *test_status;
	char *test;        /* JSON object: the test's listing members (tests --all) */
	char *figures;     /* JSON object: flattened figure path -> number (compare_flatten) */
	double duration_s; /* NAN when absent */
	int complete;      /* 1, 0, or -1 when absent */
	int64_t mtime_ns, size;
};
void resultindex_row_free(struct resultindex_row *row);

/* Open the index at path. With writer, for the writer thread: created when missing, and
 * recreated empty when it cannot be opened, fails its quick_check or has another schema
 * (*fresh says it was). Without, a read-only connection for the loop. NULL with err. */
struct resultindex *resultindex_open(const char *path, bool writer, bool *fresh,
                                     struct nm_error *err);
void resultindex_close(struct resultindex *ri);
/* Did a statement find the database damaged (SQLITE_CORRUPT, SQLITE_NOTADB, a vanished
 * file)? The caller then rebuilds. */
bool resultindex_damaged(const struct resultindex *ri);

/* Writes (writer thread). 0, or -1 with err. */
int resultindex_begin(struct resultindex *ri, struct nm_error *err);
int resultindex_commit(struct resultindex *ri, struct nm_error *err);
int resultindex_put(struct resultindex *ri, const struct resultindex_row *row,
                    struct nm_error *err);
int resultindex_put_skipped(struct resultindex *ri, const char *name, const char *why,
                            int64_t mtime_ns, int64_t size, struct nm_error *err);
int resultindex_remove(struct resultindex *ri, const char *name, struct nm_error *err);
/* Every file the index knows (results and skipped), with the mtime and size it had. */
typedef void (*resultindex_known_fn)(const char *name, int64_t mtime_ns, int64_t size, void *arg);
int resultindex_known(struct resultindex *ri, resultindex_known_fn fn, void *arg,
                      struct nm_error *err);

/* What a listing asks for. */
struct resultindex_filter {
	const char *glob;    /* fnmatch(3) style, '*' matching '/' too; NULL: all */
	const char *origin;  /* "hand" or "test"; NULL: any */
	const char *suite;   /* NULL: any */
	double since, until; /* epoch seconds of the start, since <= start < until; NAN: open */
	bool tests_only;     /* only results of a test */
	size_t limit;        /* at most this many rows; 0: all */
};
/* Rows matching f, newest start first (then by name). row is valid during the call only. */
typedef void (*resultindex_row_fn)(const struct resultindex_row *row, void *arg);
int resultindex_query(struct resultindex *ri, const struct resultindex_filter *f,
                      resultindex_row_fn fn, void *arg, struct nm_error *err);
/* Names of the files matching glob (NULL: all), results and skipped ones, sorted: those a
 * glob names (reading a skipped one then says what is wrong with it). */
typedef void (*resultindex_name_fn)(const char *name, void *arg);
int resultindex_names(struct resultindex *ri, const char *glob, resultindex_name_fn fn, void *arg,
                      struct nm_error *err);
/* Skipped files whose names match glob, sorted, with why. */
typedef void (*resultindex_skip_fn)(const char *name, const char *why, void *arg);
int resultindex_skipped(struct resultindex *ri, const char *glob, resultindex_skip_fn fn, void *arg,
                        struct nm_error *err);

#endif
