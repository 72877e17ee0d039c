/* statefile.h: JSON files below a directory of the state directory, written atomically
 * (temp file, fsync, rename, fsync of the directory) so that a crash leaves either the old
 * state or the new one, never half a file. Paths are relative to a root directory that
 * exists; their missing subdirectories are created on write and removed when emptied. */
#ifndef NM_STATEFILE_H
#define NM_STATEFILE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

struct nm_error;

/* The suffix of a file being written; a file with it found at start-up is a crash's
 * leftover. */
#define STATEFILE_TMP_SUFFIX ".tmp"
/* The largest file read back (a report of a very big host stays far below). */
#define STATEFILE_MAX_BYTES (64u << 20)

/* Write obj as one line of JSON and a newline to root/rel atomically, creating rel's
 * directories. With noreplace, an existing file is left alone: NM_ERR_EXISTS. 0 ok; -1
 * with err. */
int statefile_write_json(const char *root, const char *rel, json_object *obj, bool noreplace,
                         struct nm_error *err);
/* Flags of the _flags variants. NOSYNC: still atomic (a reader sees the old file or the new
 * one), but not fsync'ed: a crash may lose it. For files that only help recovery (the
 * marker of an open window, a suite's progress), where an fsync stalling the event loop on
 * a busy disk would cost more (seen here: 8 s, while a benchmark ran). */
#define STATEFILE_NOREPLACE 1u
#define STATEFILE_NOSYNC    2u
int statefile_write_json_flags(const char *root, const char *rel, json_object *obj, unsigned flags,
                               struct nm_error *err);
/* Write line (len bytes, no newline; one is added) to root/rel as statefile_write_json_flags
 * writes JSON: for a line serialised elsewhere (the results writer thread). */
int statefile_write_line(const char *root, const char *rel, const char *line, size_t len,
                         unsigned flags, struct nm_error *err);
/* TEST ONLY: sleep ms before each fsync of a written file (0: none), to play a slow disk.
 * main.c sets it from NETMETRICS_TEST_FSYNC_DELAY_MS at start-up. Not for production. */
void statefile_test_fsync_delay(unsigned ms);
int statefile_remove_flags(const char *root, const char *rel, unsigned flags, struct nm_error *err);
/* Read root/rel, which must hold a JSON object (every file of the state directory does),
 * as a new reference, or NULL with err: NM_ERR_NOT_FOUND when the file does not exist,
 * NM_ERR_FAILED when it is not JSON or another JSON value (an array, a number, a string,
 * null). Only regular files are read: a symbolic link, a FIFO or a device is refused
 * (regfile.h). The members' types are the caller's to check. */
json_object *statefile_read_json(const char *root, const char *rel, struct nm_error *err);
/* Remove root/rel, sync its directory and remove the directories it leaves empty up to
 * root. 0 ok; -1 with err (NM_ERR_NOT_FOUND when it did not exist). */
int statefile_remove(const char *root, const char *rel, struct nm_error *err);

/* Called for each file found by statefile_scan, with its path relative to root. */
typedef void (*statefile_scan_fn)(const char *rel, void *arg);
/* Walk the tree below root and call fn for every regular file whose name ends with
 * suffix; files ending with STATEFILE_TMP_SUFFIX (interrupted writes) are removed. */
void statefile_scan(const char *root, const char *suffix, statefile_scan_fn fn, void *arg);
struct stat;
/* As statefile_scan, with each file's stat (its size and mtime: the results index tells a
 * file it knows from one that changed), but files ending with STATEFILE_TMP_SUFFIX stay:
 * this walk may run on another thread while a write is under way. */
typedef void (*statefile_scan_stat_fn)(const char *rel, const struct stat *st, void *arg);
void statefile_scan_stat(const char *root, const char *suffix, statefile_scan_stat_fn fn,
                         void *arg);

/* Create the directory dir when missing (mode 0750). 0 ok; -1 with err. */
int statefile_mkdir(const char *dir, struct nm_error *err);

#endif
