/* results.h: finished windows' reports kept in the state directory as JSON files, written
 * atomically (temp file, fsync, rename, fsync of the directory), listed again after a
 * restart. A result's name may contain '/' (SUITE/conns_64_iter_1): it maps to
 * subdirectories of STATE_DIR/results/. */
#ifndef NM_RESULTS_H
#define NM_RESULTS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

struct nm_error;
struct results;

/* Open (creating) STATE_DIR/results and index what is there. NULL with err. */
struct results *results_open(const char *state_dir, struct nm_error *err);
void results_close(struct results *rs);

/* Is name usable: 1-200 bytes of [A-Za-z0-9._-] and '/', no empty or dot-dot component, not
 * starting or ending with '/'. 0 yes; -1 with err (NM_ERR_BAD_ARGS) saying why. */
int results_name_check(const char *name, struct nm_error *err);

/* Store result under name, atomically; replaces nothing: NM_ERR_EXISTS if name is taken. */
int results_put(struct results *rs, const char *name, json_object *result, struct nm_error *err);
/* Load a result (new reference) or NULL with err: NM_ERR_NOT_FOUND, or NM_ERR_FAILED when
 * the file cannot be read or fails results_check. */
json_object *results_get(struct results *rs, const char *name, struct nm_error *err);
/* Check what is read back from a result file as network input is checked: r is an object,
 * and each member the daemon reads (window, test, figures, span_s, and the members of window
 * and test that are read) has its kind when present and not null. 0 ok; -1 with err. */
int results_check(json_object *r, struct nm_error *err);
int results_delete(struct results *rs, const char *name, struct nm_error *err);
bool results_exists(struct results *rs, const char *name);
/* Names matching glob (fnmatch, '/' matched by '*' too; NULL: all), sorted; *names is an
 * array of strings owned by rs, valid until the next put/delete. Returns the count. */
size_t results_match(struct results *rs, const char *glob, const char *const **names);

#endif
