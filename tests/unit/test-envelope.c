/* test-envelope.c: request parsing, reply and event building, reply parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

/* Parse s as a request and check it succeeds. */
static void
parse_ok(const char *s, struct proto_request *req)
{
	struct nm_error err;

	nm_error_clear(&err);
	if (proto_request_parse(s, strlen(s), req, &err) != 0)
		fail_msg("%s: %s", s, err.message);
	assert_non_null(req->root);
	assert_non_null(req->cmd);
}

/* Parse s as a request, check it fails with bad_request and a message containing want. */
static void
parse_bad(const char *s, const char *want, struct proto_request *req)
{
	struct nm_error err;

	nm_error_clear(&err);
	assert_int_equal(proto_request_parse(s, strlen(s), req, &err), -1);
	assert_int_equal(err.code, NM_ERR_BAD_REQUEST);
	if (strstr(err.message, want) == NULL)
		fail_msg("%s: message \"%s\" lacks \"%s\"", s, err.message, want);
	assert_null(req->root);
	assert_null(req->cmd);
	assert_null(req->args);
}

/* Well-formed requests, with and without id and args. */
static void
test_request_good(void **state)
{
	struct proto_request req;

	(void)state;
	parse_ok("{\"id\":7,\"cmd\":\"delta\",\"args\":{\"window\":\"run1\"}}", &req);
	assert_true(req.has_id);
	assert_int_equal(req.id, 7);
	assert_string_equal(req.cmd, "delta");
	assert_non_null(req.args);
	assert_string_equal(json_object_get_string(json_object_object_get(req.args, "window")),
	                    "run1");
	proto_request_free(&req);
	assert_null(req.root);

	parse_ok("{\"cmd\":\"status\"}", &req);
	assert_false(req.has_id);
	assert_int_equal(req.id, 0);
	assert_string_equal(req.cmd, "status");
	assert_null(req.args);
	proto_request_free(&req);

	parse_ok(" {\"args\":{},\"cmd\":\"hello\",\"id\":0} \t", &req);
	assert_true(req.has_id);
	assert_int_equal(req.id, 0);
	assert_non_null(req.args);
	proto_request_free(&req);

	parse_ok("{\"id\":9007199254740992,\"cmd\":\"hello\"}", &req);
	assert_int_equal(req.id, 9007199254740992LL);
	proto_request_free(&req);

	/* A name of exactly PROTO_MAX_NAME bytes. */
	{
		char line[200], name[PROTO_MAX_NAME + 1];

		memset(name, 'a', PROTO_MAX_NAME);
		name[PROTO_MAX_NAME] = '\0';
		snprintf(line, sizeof(line), "{\"cmd\":\"%s\"}", name);
		parse_ok(line, &req);
		assert_string_equal(req.cmd, name);
		proto_request_free(&req);
	}
	proto_request_free(&req); /* twice is harmless */
}

/* A missing or malformed cmd; the id is still reported when usable. */
static void
test_request_bad_cmd(void **state)
{
	struct proto_request req;
	char line[200], name[PROTO_MAX_NAME + 2];

	(void)state;
	parse_bad("{\"id\":3}", "missing member \"cmd\"", &req);
	assert_true(req.has_id);
	assert_int_equal(req.id, 3);
	parse_bad("{\"id\":4,\"cmd\":5}", "member \"cmd\": must be a string", &req);
	assert_true(req.has_id);
	assert_int_equal(req.id, 4);
	parse_bad("{\"cmd\":null}", "member \"cmd\"", &req);
	assert_false(req.has_id);
	parse_bad("{\"cmd\":[\"hello\"]}", "member \"cmd\"", &req);
	parse_bad("{\"cmd\":\"\"}", "member \"cmd\"", &req);
	parse_bad("{\"cmd\":\"hel\\u0000lo\"}", "member \"cmd\"", &req);
	memset(name, 'a', PROTO_MAX_NAME + 1);
	name[PROTO_MAX_NAME + 1] = '\0';
	snprintf(line, sizeof(line), "{\"id\":5,\"cmd\":\"%s\"}", name);
	parse_bad(line, "member \"cmd\"", &req);
	assert_int_equal(req.id, 5);
}

/* Ids that are negative, fractional, too large or not numbers. */
static void
test_request_bad_id(void **state)
{
	static const char *const lines[] = {
	    "{\"id\":-1,\"cmd\":\"hello\"}",
	    "{\"id\":1.5,\"cmd\":\"hello\"}",
	    "{\"id\":7.0,\"cmd\":\"hello\"}",
	    "{\"id\":1e3,\"cmd\":\"hello\"}",
	    "{\"id\":9007199254740993,\"cmd\":\"hello\"}",
	    "{\"id\":9223372036854775808,\"cmd\":\"hello\"}",
	    "{\"id\":99999999999999999999999,\"cmd\":\"hello\"}",
	    "{\"id\":\"7\",\"cmd\":\"hello\"}",
	    "{\"id\":true,\"cmd\":\"hello\"}",
	    "{\"id\":null,\"cmd\":\"hello\"}",
	};
	struct proto_request req;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		parse_bad(lines[i],
		          "member \"id\": must be an integer between 0 and "
		          "9007199254740992",
		          &req);
		assert_false(req.has_id);
		assert_int_equal(req.id, 0);
	}
}

/* Members other than id, cmd and args are refused by name. */
static void
test_request_extra_member(void **state)
{
	struct proto_request req;

	(void)state;
	parse_bad("{\"id\":8,\"cmd\":\"hello\",\"verbose\":true}", "unknown member \"verbose\"",
	          &req);
	assert_true(req.has_id);
	assert_int_equal(req.id, 8);
	parse_bad("{\"cmd\":\"hello\",\"ID\":1}", "unknown member \"ID\"", &req);
}

/* args must be an object when present. */
static void
test_request_bad_args(void **state)
{
	static const char *const lines[] = {
	    "{\"id\":2,\"cmd\":\"hello\",\"args\":[]}",
	    "{\"id\":2,\"cmd\":\"hello\",\"args\":\"x\"}",
	    "{\"id\":2,\"cmd\":\"hello\",\"args\":3}",
	    "{\"id\":2,\"cmd\":\"hello\",\"args\":null}",
	};
	struct proto_request req;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		parse_bad(lines[i], "member \"args\": must be an object", &req);
		assert_true(req.has_id);
		assert_int_equal(req.id, 2);
	}
}

/* JSON that is not an object, or not JSON at all. */
static void
test_request_not_object(void **state)
{
	struct proto_request req;

	(void)state;
	parse_bad("[]", "must be a JSON object", &req);
	parse_bad("3", "must be a JSON object", &req);
	parse_bad("\"x\"", "must be a JSON object", &req);
	parse_bad("null", "must be a JSON object", &req);
	parse_bad("  null ", "must be a JSON object", &req);
	parse_bad("", "invalid JSON", &req);
	parse_bad("{\"cmd\":\"hello\"", "invalid JSON", &req);
	parse_bad("{\"cmd\":\"hello\"} {}", "invalid JSON", &req);
	parse_bad("{cmd:\"hello\"}", "invalid JSON", &req);
	assert_false(req.has_id);
}

/* A request nested n levels deep, the request object being the first. */
static char *
nested_request(int n)
{
	size_t cap = 64 + (size_t)n * 8;
	char *s = malloc(cap);
	size_t len;
	int i;

	assert_non_null(s);
	len = (size_t)snprintf(s, cap, "{\"cmd\":\"hello\",\"args\":");
	for (i = 2; i < n; i++)
		len += (size_t)snprintf(s + len, cap - len, "{\"a\":");
	len += (size_t)snprintf(s + len, cap - len, "{}");
	for (i = 1; i < n; i++)
		s[len++] = '}';
	s[len] = '\0';
	return s;
}

/* Depth 16 is accepted and 17 refused. */
static void
test_request_depth(void **state)
{
	struct proto_request req;
	char *s;

	(void)state;
	s = nested_request(PROTO_MAX_DEPTH);
	parse_ok(s, &req);
	proto_request_free(&req);
	free(s);
	s = nested_request(PROTO_MAX_DEPTH + 1);
	parse_bad(s, "invalid JSON", &req);
	free(s);
	s = nested_request(1000);
	parse_bad(s, "invalid JSON", &req);
	free(s);
}

/* Check a built line byte for byte and free it. */
static void
expect_bytes(char *got, const size_t *len, const char *want)
{
	assert_non_null(got);
	assert_string_equal(got, want);
	assert_int_equal(*len, strlen(want));
	free(got);
}

/* Replies and events, byte for byte. */
static void
test_reply_format(void **state)
{
	json_object *res = json_object_new_object();
	size_t len = 0;

	(void)state;
	json_object_object_add(res, "pid", json_object_new_int(123));
	json_object_object_add(res, "root", json_object_new_string("/"));
	expect_bytes(proto_reply_ok(7, true, res, &len), &len,
	             "{\"id\":7,\"ok\":true,\"result\":{\"pid\":123,\"root\":\"/\"}}\n");
	expect_bytes(proto_reply_ok(0, false, res, &len), &len,
	             "{\"ok\":true,\"result\":{\"pid\":123,\"root\":\"/\"}}\n");
	expect_bytes(proto_reply_ok(0, true, NULL, &len), &len,
	             "{\"id\":0,\"ok\":true,\"result\":{}}\n");
	/* The result still belongs to the caller. */
	assert_int_equal(json_object_object_length(res), 2);
	expect_bytes(proto_reply_error(7, true, NM_ERR_NOT_FOUND, "no window named run1", &len),
	             &len,
	             "{\"id\":7,\"ok\":false,\"error\":{\"code\":\"not_found\",\"message\":"
	             "\"no window named run1\"}}\n");
	expect_bytes(proto_reply_error(0, false, NM_ERR_TOO_LONG, "request over 65536 bytes", &len),
	             &len,
	             "{\"ok\":false,\"error\":{\"code\":\"too_long\",\"message\":"
	             "\"request over 65536 bytes\"}}\n");
	/* Quotes, control characters and a character cut in half stay valid JSON and UTF-8:
	 * the lone byte is escaped (utf8.h), ESC too. */
	expect_bytes(proto_reply_error(1, true, NM_ERR_BAD_ARGS, "a \"b\"\n\x1b\xc3", &len), &len,
	             "{\"id\":1,\"ok\":false,\"error\":{\"code\":\"bad_args\",\"message\":"
	             "\"a \\\"b\\\"\\n\\\\x1B\\\\xC3\"}}\n");
	expect_bytes(proto_event(9, "queues", res, &len), &len,
	             "{\"id\":9,\"event\":\"queues\",\"data\":{\"pid\":123,\"root\":\"/\"}}\n");
	expect_bytes(proto_event(9, "end", NULL, &len), &len,
	             "{\"id\":9,\"event\":\"end\",\"data\":{}}\n");
	expect_bytes(proto_request_format(7, "delta", res, &len), &len,
	             "{\"id\":7,\"cmd\":\"delta\",\"args\":{\"pid\":123,\"root\":\"/\"}}\n");
	expect_bytes(proto_request_format(1, "hello", NULL, &len), &len,
	             "{\"id\":1,\"cmd\":\"hello\"}\n");
	json_object_put(res);
}

/* A formatted request parses back to the same id, command and arguments. */
static void
test_request_round_trip(void **state)
{
	json_object *args = json_object_new_object();
	struct proto_request req;
	size_t len;
	char *line;

	(void)state;
	json_object_object_add(args, "id", json_object_new_int(42));
	line = proto_request_format(12, "cancel", args, &len);
	assert_int_equal(line[len - 1], '\n');
	parse_ok(line, &req);
	assert_int_equal(req.id, 12);
	assert_string_equal(req.cmd, "cancel");
	assert_int_equal(json_object_get_int(json_object_object_get(req.args, "id")), 42);
	proto_request_free(&req);
	free(line);
	json_object_put(args);
}

/* Replies built here parse back to the same values. */
static void
test_reply_round_trip(void **state)
{
	json_object *res = json_object_new_object();
	struct proto_reply rep;
	struct nm_error err;
	size_t len;
	char *line;

	(void)state;
	json_object_object_add(res, "protocol", json_object_new_int(PROTO_VERSION));
	line = proto_reply_ok(5, true, res, &len);
	assert_int_equal(proto_reply_parse(line, len, &rep, &err), 0);
	assert_true(rep.ok);
	assert_false(rep.is_event);
	assert_int_equal(rep.id, 5);
	assert_int_equal(rep.code, NM_OK);
	assert_int_equal(json_object_get_int(json_object_object_get(rep.result, "protocol")),
	                 PROTO_VERSION);
	proto_reply_free(&rep);
	free(line);

	line = proto_reply_error(6, true, NM_ERR_DENIED, "mutating commands need root", &len);
	assert_int_equal(proto_reply_parse(line, len, &rep, &err), 0);
	assert_false(rep.ok);
	assert_int_equal(rep.id, 6);
	assert_int_equal(rep.code, NM_ERR_DENIED);
	assert_string_equal(rep.code_name, "denied");
	assert_string_equal(rep.message, "mutating commands need root");
	proto_reply_free(&rep);
	free(line);

	/* Every code survives the trip. */
	for (int c = NM_ERR_BAD_REQUEST; c < NM_ERR__COUNT; c++) {
		line = proto_reply_error(1, false, (enum nm_errcode)c, "x", &len);
		assert_int_equal(proto_reply_parse(line, len, &rep, &err), 0);
		assert_int_equal(rep.code, c);
		assert_int_equal(rep.id, 0);
		proto_reply_free(&rep);
		free(line);
	}

	line = proto_event(8, "cpu", res, &len);
	assert_int_equal(proto_reply_parse(line, len, &rep, &err), 0);
	assert_true(rep.is_event);
	assert_int_equal(rep.id, 8);
	assert_string_equal(rep.event, "cpu");
	assert_int_equal(json_object_get_int(json_object_object_get(rep.result, "protocol")),
	                 PROTO_VERSION);
	proto_reply_free(&rep);
	free(line);
	json_object_put(res);
}

/* Reply parsing: unknown codes keep their name, bad shapes are refused. */
static void
test_reply_parse_shapes(void **state)
{
	static const char *const bad[] = {
	    "[]",
	    "{}",
	    "{\"id\":1}",
	    "{\"id\":1,\"ok\":1,\"result\":{}}",
	    "{\"id\":1,\"ok\":true}",
	    "{\"id\":1,\"ok\":true,\"result\":[]}",
	    "{\"id\":1,\"ok\":false}",
	    "{\"id\":1,\"ok\":false,\"error\":{\"code\":\"x\"}}",
	    "{\"id\":1,\"ok\":false,\"error\":{\"code\":3,\"message\":\"m\"}}",
	    "{\"id\":-1,\"ok\":true,\"result\":{}}",
	    "{\"id\":\"1\",\"ok\":true,\"result\":{}}",
	    "{\"event\":\"cpu\",\"data\":{}}",
	    "{\"id\":1,\"event\":3,\"data\":{}}",
	    "{\"id\":1,\"event\":\"cpu\"}",
	    "not json",
	};
	const char *s;
	struct proto_reply rep;
	struct nm_error err;
	size_t i;

	(void)state;
	s = "{\"id\":3,\"ok\":false,\"error\":{\"code\":\"from_the_future\",\"message\":\"m\"},"
	    "\"extra\":1}";
	assert_int_equal(proto_reply_parse(s, strlen(s), &rep, &err), 0);
	assert_int_equal(rep.code, NM_ERR_INTERNAL);
	assert_string_equal(rep.code_name, "from_the_future");
	assert_string_equal(rep.message, "m");
	proto_reply_free(&rep);
	proto_reply_free(&rep);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (proto_reply_parse(bad[i], strlen(bad[i]), &rep, &err) != -1)
			fail_msg("accepted %s", bad[i]);
		assert_int_equal(err.code, NM_ERR_BAD_REQUEST);
		assert_null(rep.root);
	}
}

/* Run every test in this file. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_request_good),       cmocka_unit_test(test_request_bad_cmd),
	    cmocka_unit_test(test_request_bad_id),     cmocka_unit_test(test_request_extra_member),
	    cmocka_unit_test(test_request_bad_args),   cmocka_unit_test(test_request_not_object),
	    cmocka_unit_test(test_request_depth),      cmocka_unit_test(test_reply_format),
	    cmocka_unit_test(test_request_round_trip), cmocka_unit_test(test_reply_round_trip),
	    cmocka_unit_test(test_reply_parse_shapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
