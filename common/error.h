/* error.h: error codes shared by daemon, protocol and client, and the error a function fills. */
#ifndef NM_ERROR_H
#define NM_ERROR_H

/* The fixed list of error codes on the wire. Never reuse or renumber a name. */
enum nm_errcode {
	NM_OK = 0,
	NM_ERR_BAD_REQUEST, /* "bad_request": not JSON, not an object, bad envelope, bad UTF-8 */
	NM_ERR_TOO_LONG,    /* "too_long": a request line over the limit */
	NM_ERR_UNKNOWN_CMD, /* "unknown_command" */
	NM_ERR_BAD_ARGS,    /* "bad_args": arguments fail the command's schema */
	NM_ERR_DENIED,      /* "denied": peer may not run a mutating command */
	NM_ERR_NOT_FOUND,   /* "not_found" */
	NM_ERR_EXISTS,      /* "exists" */
	NM_ERR_BUSY,        /* "busy": a limit or a running operation refuses it */
	NM_ERR_UNSUPPORTED, /* "unsupported": the kernel or device lacks it */
	NM_ERR_FAILED,      /* "failed": the operation was tried and failed */
	NM_ERR_INTERNAL,    /* "internal" */
	NM_ERR_TOO_LARGE,   /* "too_large": the reply would pass its budget (reply_max_*) */
	NM_ERR__COUNT
};

#define NM_ERROR_MSG_MAX 512

struct nm_error {
	enum nm_errcode code;
	char message[NM_ERROR_MSG_MAX];
};

/* Fill err (if not NULL) with code and a formatted message; returns -1 for `return
 * nm_error_set(...)`. */
int nm_error_set(struct nm_error *err, enum nm_errcode code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Put context before err's message: the formatted fmt, then ": ", then the message it held
 * (cut at the end to fit), with code as its code (err->code keeps it). For a caller that
 * names what failed around an error filled below it: "run %s", "test %s: profile %s".
 * err may be NULL; returns -1 for `return nm_error_prefix(...)`. */
int nm_error_prefix(struct nm_error *err, enum nm_errcode code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void nm_error_clear(struct nm_error *err);
/* The wire name of a code ("bad_args"); "internal" for out-of-range values. */
const char *nm_error_name(enum nm_errcode code);
/* The code for a wire name; NM_ERR_INTERNAL when unknown. */
enum nm_errcode nm_error_from_name(const char *name);

#endif
