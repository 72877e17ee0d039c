/* envelope.c: the request, reply and event objects around a command, parsed and built. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "jsonutil.h"
#include "proto.h"
#include "utf8.h"
#include "xmalloc.h"

#define PROTO_MAX_ID 9007199254740992LL /* 2^53: exact in every JSON implementation */

/* Replies come from our own daemon and may nest deeper than requests (reports, tables). */
#define REPLY_MAX_DEPTH 64

/* Serialise obj compactly into a new NUL-terminated line ending in '\n'; the caller frees. */
static char *
line_from_json(json_object *obj, size_t *len)
{
	size_t n;
	const char *s = json_to_line(obj, &n);
	char *line = xmalloc(n + 2);

	memcpy(line, s, n);
	line[n] = '\n';
	line[n + 1] = '\0';
	if (len != NULL)
		*len = n + 1;
	return line;
}

/* Add a member holding another reference to val (so the caller keeps its own), or {}. */
static void
add_object_ref(json_object *obj, const char *key, json_object *val)
{
	if (val == NULL)
		val = json_object_new_object();
	else
		json_object_get(val);
	json_object_object_add(obj, key, val);
}

/* Check the request's "id": an integer in [0, 2^53]. Fills req->id when it is. */
static int
request_id(struct proto_request *req, json_object *val, struct nm_error *err)
{
	int64_t id;

	if (!json_object_is_type(val, json_type_int))
		goto bad;
	/* json-c clamps integers beyond int64 to INT64_MIN/MAX, outside the range below. */
	id = json_object_get_int64(val);
	if (id < 0 || id > PROTO_MAX_ID)
		goto bad;
	req->id = id;
	req->has_id = true;
	return 0;
bad:
	return nm_error_set(err, NM_ERR_BAD_REQUEST,
	                    "member \"id\": must be an integer between 0 and %lld", PROTO_MAX_ID);
}

/* Check the request's "cmd": a string of 1..PROTO_MAX_NAME bytes without NUL. */
static int
request_cmd(struct proto_request *req, json_object *val, struct nm_error *err)
{
	const char *s;
	size_t n;

	if (!json_object_is_type(val, json_type_string))
		return nm_error_set(err, NM_ERR_BAD_REQUEST, "member \"cmd\": must be a string");
	s = json_object_get_string(val);
	n = (size_t)json_object_get_string_len(val);
	if (n == 0 || n > PROTO_MAX_NAME || memchr(s, '\0', n) != NULL)
		return nm_error_set(err, NM_ERR_BAD_REQUEST,
		                    "member \"cmd\": must be a command name of 1 to %d bytes",
		                    PROTO_MAX_NAME);
	req->cmd = s;
	return 0;
}

/* Check the members of a request object in order: id (so errors can carry it), unknown
 * members, cmd, args. */
static int
request_members(struct proto_request *req, json_object *root, struct nm_error *err)
{
	json_object *val;

	if (json_object_object_get_ex(root, "id", &val) && request_id(req, val, err) < 0)
		return -1;
	json_object_object_foreach(root, key, v)
	{
		(void)v;
		if (strcmp(key, "id") != 0 && strcmp(key, "cmd") != 0 && strcmp(key, "args") != 0)
			return nm_error_set(err, NM_ERR_BAD_REQUEST,
			                    "unknown member \"%s\" in request", key);
	}
	if (!json_object_object_get_ex(root, "cmd", &val))
		return nm_error_set(err, NM_ERR_BAD_REQUEST, "missing member \"cmd\"");
	if (request_cmd(req, val, err) < 0)
		return -1;
	if (json_object_object_get_ex(root, "args", &val)) {
		if (!json_object_is_type(val, json_type_object))
			return nm_error_set(err, NM_ERR_BAD_REQUEST,
			                    "member \"args\": must be an object");
		req->args = val;
	}
	return 0;
}

/* Parse one request line. On error req holds no JSON but keeps id/has_id when usable. */
int
proto_request_parse(const char *line, size_t len, struct proto_request *req, struct nm_error *err)
{
	char errbuf[256];
	json_object *root;

	memset(req, 0, sizeof(*req));
	errbuf[0] = '\0';
	root = json_parse_bounded(line, len, PROTO_MAX_DEPTH, errbuf, sizeof(errbuf));
	/* JSON null parses to NULL too, but leaves errbuf empty. */
	if (root == NULL && errbuf[0] != '\0')
		return nm_error_set(err, NM_ERR_BAD_REQUEST, "invalid JSON: %s", errbuf);
	if (!json_object_is_type(root, json_type_object)) {
		json_object_put(root);
		return nm_error_set(err, NM_ERR_BAD_REQUEST, "request must be a JSON object");
	}
	req->root = root;
	if (request_members(req, root, err) < 0) {
		json_object_put(root);
		req->root = NULL;
		req->cmd = NULL;
		req->args = NULL;
		return -1;
	}
	return 0;
}

/* Release a parsed request; safe on a failed or already freed one. */
void
proto_request_free(struct proto_request *req)
{
	if (req->root != NULL)
		json_object_put(req->root);
	memset(req, 0, sizeof(*req));
}

/* Build {"id":ID,"cmd":CMD,"args":ARGS}\n; args is omitted when NULL and not taken over. */
char *
proto_request_format(int64_t id, const char *cmd, json_object *args, size_t *len)
{
	json_object *obj = json_object_new_object();
	char *line;

	json_add_int(obj, "id", id);
	json_add_string(obj, "cmd", cmd);
	if (args != NULL)
		add_object_ref(obj, "args", args);
	line = line_from_json(obj, len);
	json_object_put(obj);
	return line;
}

/* Build {"id":ID,"ok":true,"result":RESULT}\n; result is not taken over. */
char *
proto_reply_ok(int64_t id, bool has_id, json_object *result, size_t *len)
{
	json_object *obj = json_object_new_object();
	char *line;

	/* The protocol promises an object; anything else is a bug in a handler. */
	assert(result == NULL || json_object_is_type(result, json_type_object));
	if (has_id)
		json_add_int(obj, "id", id);
	json_add_bool(obj, "ok", true);
	add_object_ref(obj, "result", result);
	line = line_from_json(obj, len);
	json_object_put(obj);
	return line;
}

size_t
proto_reply_ok_head(int64_t id, bool has_id, char *buf, size_t size)
{
	int n = has_id ? snprintf(buf, size, "{\"id\":%lld,\"ok\":true,\"result\":", (long long)id)
	               : snprintf(buf, size, "{\"ok\":true,\"result\":");

	return n < 0 ? 0 : (size_t)n;
}

/* Build {"id":ID,"ok":false,"error":{"code":CODE,"message":MESSAGE}}\n. */
char *
proto_reply_error(int64_t id, bool has_id, enum nm_errcode code, const char *message, size_t *len)
{
	json_object *obj = json_object_new_object();
	json_object *error = json_object_new_object();
	/* A message cut at NM_ERROR_MSG_MAX mid-character, or one quoting a child or a file,
	 * still makes a valid reply line. */
	char *msg = utf8_sanitize_dup(message != NULL ? message : "",
	                              message != NULL ? strlen(message) : 0, UTF8_KEEP_NEWLINE);
	char *line;

	if (has_id)
		json_add_int(obj, "id", id);
	json_add_bool(obj, "ok", false);
	json_add_string(error, "code", nm_error_name(code));
	json_add_string(error, "message", msg);
	json_object_object_add(obj, "error", error);
	line = line_from_json(obj, len);
	json_object_put(obj);
	free(msg);
	return line;
}

/* Build {"id":ID,"event":TYPE,"data":DATA}\n; data is not taken over. */
char *
proto_event(int64_t id, const char *type, json_object *data, size_t *len)
{
	json_object *obj = json_object_new_object();
	char *line;

	json_add_int(obj, "id", id);
	json_add_string(obj, "event", type);
	add_object_ref(obj, "data", data);
	line = line_from_json(obj, len);
	json_object_put(obj);
	return line;
}

/* Fill rep from an event object: "id" and "event" required, "data" an object. */
static int
reply_event(struct proto_reply *rep, json_object *root, struct nm_error *err)
{
	json_object *event, *val;

	if (!json_object_object_get_ex(root, "id", NULL))
		return nm_error_set(err, NM_ERR_BAD_REQUEST, "event without \"id\"");
	if (!json_object_object_get_ex(root, "event", &event) ||
	    !json_object_is_type(event, json_type_string))
		return nm_error_set(err, NM_ERR_BAD_REQUEST, "member \"event\": must be a string");
	if (!json_object_object_get_ex(root, "data", &val) ||
	    !json_object_is_type(val, json_type_object))
		return nm_error_set(err, NM_ERR_BAD_REQUEST, "member \"data\": must be an object");
	rep->is_event = true;
	rep->ok = true;
	rep->event = json_object_get_string(event);
	rep->result = val;
	return 0;
}

/* Fill rep from an error object: "code" and "message" strings. */
static int
reply_error(struct proto_reply *rep, json_object *root, struct nm_error *err)
{
	json_object *error, *code, *message;

	if (!json_object_object_get_ex(root, "error", &error) ||
	    !json_object_is_type(error, json_type_object))
		return nm_error_set(err, NM_ERR_BAD_REQUEST, "member \"error\": must be an object");
	if (!json_object_object_get_ex(error, "code", &code) ||
	    !json_object_is_type(code, json_type_string))
		return nm_error_set(err, NM_ERR_BAD_REQUEST, "error \"code\": must be a string");
	if (!json_object_object_get_ex(error, "message", &message) ||
	    !json_object_is_type(message, json_type_string))
		return nm_error_set(err, NM_ERR_BAD_REQUEST, "error \"message\": must be a string");
	rep->ok = false;
	rep->code_name = json_object_get_string(code);
	rep->code = nm_error_from_name(rep->code_name);
	rep->message = json_object_get_string(message);
	return 0;
}

/* Check a reply or event object's members and fill rep; unknown members are ignored so
 * that a newer daemon may add some. */
static int
reply_members(struct proto_reply *rep, json_object *root, struct nm_error *err)
{
	json_object *val;

	if (json_object_object_get_ex(root, "id", &val)) {
		if (!json_object_is_type(val, json_type_int) || json_object_get_int64(val) < 0)
			return nm_error_set(err, NM_ERR_BAD_REQUEST,
			                    "member \"id\": must be a non-negative integer");
		rep->id = json_object_get_int64(val);
	}
	if (json_object_object_get_ex(root, "event", NULL))
		return reply_event(rep, root, err);
	if (!json_object_object_get_ex(root, "ok", &val) ||
	    !json_object_is_type(val, json_type_boolean))
		return nm_error_set(err, NM_ERR_BAD_REQUEST,
		                    "member \"ok\": must be true or false");
	if (!json_object_get_boolean(val))
		return reply_error(rep, root, err);
	if (!json_object_object_get_ex(root, "result", &val) ||
	    !json_object_is_type(val, json_type_object))
		return nm_error_set(err, NM_ERR_BAD_REQUEST,
		                    "member \"result\": must be an object");
	rep->ok = true;
	rep->code = NM_OK;
	rep->result = val;
	return 0;
}

/* Parse one reply or event line from the daemon; 0 ok, -1 with err when malformed. */
int
proto_reply_parse(const char *line, size_t len, struct proto_reply *rep, struct nm_error *err)
{
	char errbuf[256];
	json_object *root;

	memset(rep, 0, sizeof(*rep));
	errbuf[0] = '\0';
	root = json_parse_bounded(line, len, REPLY_MAX_DEPTH, errbuf, sizeof(errbuf));
	/* JSON null parses to NULL too, but leaves errbuf empty. */
	if (root == NULL && errbuf[0] != '\0')
		return nm_error_set(err, NM_ERR_BAD_REQUEST, "invalid JSON in reply: %s", errbuf);
	if (!json_object_is_type(root, json_type_object)) {
		json_object_put(root);
		return nm_error_set(err, NM_ERR_BAD_REQUEST, "reply must be a JSON object");
	}
	if (reply_members(rep, root, err) < 0) {
		json_object_put(root);
		memset(rep, 0, sizeof(*rep));
		return -1;
	}
	rep->root = root;
	return 0;
}

/* Release a parsed reply; safe on a failed or already freed one. */
void
proto_reply_free(struct proto_reply *rep)
{
	if (rep->root != NULL)
		json_object_put(rep->root);
	memset(rep, 0, sizeof(*rep));
}
