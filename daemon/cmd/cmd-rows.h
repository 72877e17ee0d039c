/* cmd-rows.h: a reply whose result ends in an array of rows (metrics, now, rates: one row a
 * series), checked against the reply budget and written a part at a time as the client
 * reads it (see control_client_produce), never built whole. */
#ifndef NM_CMD_ROWS_H
#define NM_CMD_ROWS_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "series.h"

struct cmd_ctx;
struct daemon;
struct nm_error;

/* Row i of the reply: a new object (the rows code puts it), or NULL to leave it out. */
typedef json_object *(*cmd_row_fn)(struct daemon *d, size_t i, void *arg);

/* Most bytes a string takes as JSON text (quotes and escapes included). */
size_t cmd_json_text_bound(const char *s);

/* The most bytes a series' name and unit take as JSON text. */
uint64_t cmd_rows_series_bytes(struct daemon *d, series_id id);

/* Check a reply of n rows of at most `bytes` bytes in all against the budget
 * (reply_max_points counts rows, reply_max_bytes bytes). 0, or -1 with err (too_large, with
 * how many rows fit; `what` names them, e.g. "series"). */
int cmd_rows_budget(struct daemon *d, size_t n, uint64_t bytes, const char *what,
                    struct nm_error *err);

/* How many rows of about row_bytes each one reply may hold (both budgets). */
size_t cmd_rows_cap(const struct daemon *d, uint64_t row_bytes);

/* The most bytes row i takes (name and unit of a series, as cmd_json_text_bound counts). */
typedef uint64_t (*cmd_row_bytes_fn)(struct daemon *d, size_t i, void *arg);

/* Members to end the reply with, after the rows: a new object (taken), or NULL for none.
 * Called once every row is written, so it can name what the rows left out. */
typedef json_object *(*cmd_rows_tail_fn)(void *arg);

/* Work before the rows, a slice per turn of the loop (matching a glob, reading the values),
 * before the size check and any byte of the reply: 1 once done, with *n set to the rows'
 * count; 0 to be called again on the next turn; -1 with err (the reply is that error). It may
 * add members to head. */
typedef int (*cmd_rows_prep_fn)(struct daemon *d, void *arg, json_object *head, size_t *n,
                                struct nm_error *err);

/* The rows of a reply: n of them (with prep: as prep says), made by fn; their size is at most
 * fixed_bytes plus the sum of bytes_fn over them (NULL: fixed_bytes alone). what names them in a
 * too_large message
 * ("series"; static). tail (NULL: none) adds members after the rows' array. */
struct cmd_rows {
	size_t n;
	cmd_row_fn fn;
	cmd_row_bytes_fn bytes_fn;
	uint64_t fixed_bytes;
	const char *what;
	cmd_rows_tail_fn tail;
	cmd_rows_prep_fn prep; /* NULL: none */
};

/* Answer with head's members, then key: [row 0 .. row n-1] a part at a time: first prep's
 * slices, if any, then the
 * rows' size bounds are summed and checked against the budget (a slice per turn of the loop;
 * too_large ends the reply there), then rows are written as the client reads. Takes head;
 * free_arg(arg) runs at the end. 0, or -1 with err (too many rows: too_large at once). */
int cmd_rows_reply(struct cmd_ctx *ctx, json_object *head, const char *key,
                   const struct cmd_rows *rows, void *arg, void (*free_arg)(void *),
                   json_object **result, struct nm_error *err);

#endif
