/* error.c: error codes and their wire names, and the error a function fills. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

/* Indexed by enum nm_errcode; the names are part of the protocol and never change. */
static const char *const error_names[NM_ERR__COUNT] = {
    [NM_OK] = "ok",
    [NM_ERR_BAD_REQUEST] = "bad_request",
    [NM_ERR_TOO_LONG] = "too_long",
    [NM_ERR_UNKNOWN_CMD] = "unknown_command",
    [NM_ERR_BAD_ARGS] = "bad_args",
    [NM_ERR_DENIED] = "denied",
    [NM_ERR_NOT_FOUND] = "not_found",
    [NM_ERR_EXISTS] = "exists",
    [NM_ERR_BUSY] = "busy",
    [NM_ERR_UNSUPPORTED] = "unsupported",
    [NM_ERR_FAILED] = "failed",
    [NM_ERR_INTERNAL] = "internal",
    [NM_ERR_TOO_LARGE] = "too_large",
};

/* Fill err with a code and a formatted message (truncated to fit); always returns -1. */
int
nm_error_set(struct nm_error *err, enum nm_errcode code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	va_end(ap);
	return -1;
}

/* Prefix err's message with a formatted context and ": ", and set its code; always -1. The
 * message is copied aside first: it can't be both a source and the destination of one
 * vsnprintf. */
int
nm_error_prefix(struct nm_error *err, enum nm_errcode code, const char *fmt, ...)
{
	char msg[NM_ERROR_MSG_MAX];
	va_list ap;
	int n;

	if (err == NULL)
		return -1;
	memcpy(msg, err->message, sizeof msg);
	msg[sizeof msg - 1] = '\0';
	err->code = code;
	va_start(ap, fmt);
	n = vsnprintf(err->message, sizeof err->message, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof err->message) {
		/* ": " and the old message, cut to fit (by hand: gcc's -Wformat-truncation takes
		 * a snprintf that may cut for a mistake). */
		size_t len = (size_t)n, room, m;
		for (const char *sep = ": "; *sep != '\0' && len + 1 < sizeof err->message; sep++)
			err->message[len++] = *sep;
		room = sizeof err->message - 1 - len;
		m = strnlen(msg, sizeof msg);
		if (m > room)
			m = room;
		memcpy(err->message + len, msg, m);
		err->message[len + m] = '\0';
	}
	return -1;
}

/* Reset err to "no error" with an empty message. */
void
nm_error_clear(struct nm_error *err)
{
	if (err == NULL)
		return;
	err->code = NM_OK;
	err->message[0] = '\0';
}

/* The wire name of a code; "internal" for values outside the list. */
const char *
nm_error_name(enum nm_errcode code)
{
	if ((unsigned)code >= NM_ERR__COUNT)
		return error_names[NM_ERR_INTERNAL];
	return error_names[code];
}

/* The code for a wire name; NM_ERR_INTERNAL for NULL or an unknown name. */
enum nm_errcode
nm_error_from_name(const char *name)
{
	unsigned i;

	if (name == NULL)
		return NM_ERR_INTERNAL;
	for (i = 0; i < NM_ERR__COUNT; i++) {
		if (strcmp(error_names[i], name) == 0)
			return (enum nm_errcode)i;
	}
	return NM_ERR_INTERNAL;
}
