/* fuzz-request.c: the bytes a client sends and the lines a daemon answers, on arbitrary
 * input of at most 256 KiB.
 *
 * The first FUZZ_NSIZES bytes choose chunk sizes; the rest is fed chunk by chunk (the sizes
 * used in turn) into a frame_reader limited to PROTO_MAX_REQUEST, popping after each chunk
 * as control.c does with what a socket read returned. Every line popped goes through
 * proto_request_parse, proto_command_find and proto_args_check in dispatch.c's order, and
 * the reply the daemon would send (proto_reply_error or proto_reply_ok) must parse back with
 * proto_reply_parse. The line itself also goes through proto_reply_parse, as the client reads
 * what a daemon sends. Broken invariants of the framer and the envelope abort. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "error.h"
#include "proto.h"

#define FUZZ_MAX_INPUT (256u << 10)
#define FUZZ_NSIZES    4

/* The chunk size a header byte stands for: 1 to 128 bytes, or 1 to 128 KiB. */
static size_t
chunk_size(uint8_t b)
{
	return b < 128 ? (size_t)b + 1 : (size_t)(b - 127) * 1024;
}

/* The daemon's reply to a request (ok when err is NULL) must be a reply the client reads. */
static void
check_reply(const struct proto_request *req, const struct nm_error *err)
{
	struct proto_reply rep;
	struct nm_error rerr;
	size_t len;
	char *line;

	if (err != NULL)
		line = proto_reply_error(req->id, req->has_id, err->code, err->message, &len);
	else
		line = proto_reply_ok(req->id, req->has_id, NULL, &len);
	fuzz_check(len > 0 && line[len - 1] == '\n' && memchr(line, '\n', len - 1) == NULL);
	fuzz_check(frame_utf8_valid(line, len));
	nm_error_clear(&rerr);
	fuzz_check(proto_reply_parse(line, len - 1, &rep, &rerr) == 0);
	fuzz_check(rep.ok == (err == NULL) && !rep.is_event);
	fuzz_check(err == NULL || rep.code == err->code);
	fuzz_check(!req->has_id || rep.id == req->id);
	proto_reply_free(&rep);
	free(line);
}

/* Check one request line as dispatch_line does, up to the permission check. */
static void
request_line(const char *line, size_t len)
{
	const struct proto_command *cmd;
	struct proto_request req;
	struct nm_error err;

	nm_error_clear(&err);
	memset(&req, 0, sizeof(req));
	if (proto_request_parse(line, len, &req, &err) < 0) {
		fuzz_check(req.root == NULL && err.code == NM_ERR_BAD_REQUEST);
		check_reply(&req, &err);
		return;
	}
	fuzz_check(req.root != NULL && req.cmd != NULL);
	cmd = proto_command_find(req.cmd);
	if (cmd == NULL) {
		nm_error_set(&err, NM_ERR_UNKNOWN_CMD, "unknown command \"%.64s\"", req.cmd);
		check_reply(&req, &err);
	} else if (proto_args_check(cmd, req.args, &err) < 0) {
		fuzz_check(err.code == NM_ERR_BAD_ARGS);
		check_reply(&req, &err);
	} else {
		check_reply(&req, NULL);
	}
	proto_request_free(&req);
}

/* Parse one line as a reply or event from the daemon. */
static void
reply_line(const char *line, size_t len)
{
	struct proto_reply rep;
	struct nm_error err;

	nm_error_clear(&err);
	if (proto_reply_parse(line, len, &rep, &err) < 0) {
		fuzz_check(rep.root == NULL);
		return;
	}
	fuzz_check(rep.root != NULL);
	if (rep.is_event)
		fuzz_check(rep.ok && rep.event != NULL && rep.result != NULL);
	else if (rep.ok)
		fuzz_check(rep.result != NULL && rep.code == NM_OK);
	else
		fuzz_check(rep.code_name != NULL && rep.message != NULL);
	proto_reply_free(&rep);
}

/* Pop every complete line and hand it to both parsers. */
static void
drain(struct frame_reader *fr)
{
	enum frame_status st;
	const char *line;
	size_t len;

	while ((st = frame_pop(fr, &line, &len)) != FRAME_NONE) {
		if (st != FRAME_LINE)
			continue;
		fuzz_check(len > 0 && len <= PROTO_MAX_REQUEST && line[len] == '\0');
		fuzz_check(memchr(line, '\n', len) == NULL && frame_utf8_valid(line, len));
		request_line(line, len);
		reply_line(line, len);
	}
}

/* libFuzzer's entry point: one input, framed and parsed. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t sizes[FUZZ_NSIZES], k = 0, n;
	struct frame_reader fr;

	if (size > FUZZ_MAX_INPUT || size < FUZZ_NSIZES)
		return 0;
	for (size_t i = 0; i < FUZZ_NSIZES; i++)
		sizes[i] = chunk_size(data[i]);
	data += FUZZ_NSIZES;
	size -= FUZZ_NSIZES;
	frame_init(&fr, PROTO_MAX_REQUEST);
	while (size > 0) {
		n = sizes[k++ % FUZZ_NSIZES];
		if (n > size)
			n = size;
		frame_feed(&fr, data, n);
		/* Never more than limit + 1 bytes of an unfinished line (frame.h). */
		fuzz_check(frame_pending(&fr) <= PROTO_MAX_REQUEST + 1);
		drain(&fr);
		data += n;
		size -= n;
	}
	drain(&fr);
	frame_free(&fr);
	return 0;
}
