/* test-parse-iperf3.c: iperf3's --json client output, on documents captured from iperf3 3.12
 * on loopback (tests/fixtures/iperf3/) and on broken ones.
 *
 * The fixtures:
 *   client-p2.json  iperf3 -c 127.0.0.1 -p 5299 -t 1 -P 2 -J -i 0, against iperf3 -s -1
 *   refused.json    the same with no server listening: "end" is empty, "error" says why */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parse-iperf3.h"
#include "xmalloc.h"

#define NOT_JSON "iperf3 output is not JSON: "
#define NO_END   "iperf3 reported no end summary"

/* Read a fixture into a NUL-terminated buffer the caller frees. */
static char *
slurp(const char *name, size_t *len)
{
	char path[1024];
	FILE *fp;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/iperf3/%s", FIXTURE_DIR, name);
	if ((fp = fopen(path, "rb")) == NULL)
		fail_msg("cannot open %s", path);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	buf = xmalloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	buf[n] = '\0';
	fclose(fp);
	*len = (size_t)n;
	return buf;
}

/* Parse a NUL-terminated document. */
static int
parse(const char *s, struct iperf3_out *out)
{
	return parse_iperf3_json(s, strlen(s), out);
}

/* Exact comparison of doubles: the parser must give what strtod gives for the text. */
#define assert_double_equal(a, b)                                                                  \
	do {                                                                                       \
		double a_ = (a), b_ = (b);                                                         \
		if (!(a_ == b_))                                                                   \
			fail_msg("%s == %.17g, want %.17g", #a, a_, b_);                           \
	} while (0)
#define assert_nan(a)                                                                              \
	do {                                                                                       \
		double a_ = (a);                                                                   \
		if (!isnan(a_))                                                                    \
			fail_msg("%s == %.17g, want NAN", #a, a_);                                 \
	} while (0)

/* No figures at all. */
static void
assert_no_figures(const struct iperf3_out *o)
{
	assert_nan(o->sent_bps);
	assert_nan(o->received_bps);
	assert_nan(o->sent_bytes);
	assert_nan(o->received_bytes);
	assert_nan(o->retransmits);
	assert_nan(o->seconds);
	assert_nan(o->cpu_host_pct);
	assert_nan(o->cpu_remote_pct);
	assert_int_equal(o->streams, 0);
}

/* Refused as not JSON, with a reason after the prefix. */
static void
assert_not_json(const char *text, size_t len)
{
	struct iperf3_out o;

	if (parse_iperf3_json(text, len, &o) != -1)
		fail_msg("\"%.*s\" (%zu bytes) was taken", (int)(len > 80 ? 80 : len), text, len);
	assert_no_figures(&o);
	assert_non_null(memchr(o.error, '\0', sizeof(o.error)));
	if (strncmp(o.error, NOT_JSON, strlen(NOT_JSON)) != 0 ||
	    strlen(o.error) == strlen(NOT_JSON))
		fail_msg("error \"%s\" for \"%.*s\"", o.error, (int)(len > 80 ? 80 : len), text);
}

/* The figures of client-p2.json. */
static void
assert_client_p2(const struct iperf3_out *o)
{
	assert_double_equal(o->sent_bps, 4420522414.33867);
	assert_double_equal(o->received_bps, 4364218107.53744);
	assert_double_equal(o->sent_bytes, 557056000);
	assert_double_equal(o->received_bytes, 555483136);
	assert_double_equal(o->retransmits, 2);
	assert_double_equal(o->seconds, 1.008127);
	assert_double_equal(o->cpu_host_pct, 22.838205269625629);
	assert_double_equal(o->cpu_remote_pct, 20.6842105775815);
	assert_int_equal(o->streams, 2);
}

/* A two-stream run: the end summary's figures, no error. */
static void
test_client(void **state)
{
	struct iperf3_out o;
	size_t len;
	char *text = slurp("client-p2.json", &len);

	(void)state;
	assert_int_equal(parse_iperf3_json(text, len, &o), 0);
	assert_client_p2(&o);
	assert_string_equal(o.error, "");
	free(text);
}

/* A refused connection: a document with iperf3's error and no figures. */
static void
test_refused(void **state)
{
	struct iperf3_out o;
	size_t len;
	char *text = slurp("refused.json", &len);

	(void)state;
	memset(&o, 0x5a, sizeof(o));
	assert_int_equal(parse_iperf3_json(text, len, &o), 0);
	assert_string_equal(o.error, "unable to connect to server: Connection refused");
	assert_no_figures(&o);
	free(text);
}

/* An error member next to the figures (a run interrupted after it ended): both kept. */
static void
test_error_with_figures(void **state)
{
	static const char err[] = ",\n\t\"error\":\t\"interrupt - the client has terminated\"\n}\n";
	struct iperf3_out o;
	size_t len;
	char *text = slurp("client-p2.json", &len), *last;

	(void)state;
	text = xreallocarray(text, 1, len + sizeof(err));
	last = strrchr(text, '}');
	assert_non_null(last);
	/* Replace the closing "\n}\n" with the member and a new closing brace. */
	while (last > text && last[-1] == '\n')
		last--;
	memcpy(last, err, sizeof(err));
	assert_int_equal(parse(text, &o), 0);
	assert_client_p2(&o);
	assert_string_equal(o.error, "interrupt - the client has terminated");
	free(text);
}

/* A document cut before its closing brace is refused: every cut of refused.json, and of
 * client-p2.json the first and last 300 cuts and every 7th one between (all of them take
 * ten seconds under ASan). */
static void
test_truncated(void **state)
{
	static const char *const names[] = {"client-p2.json", "refused.json"};

	(void)state;
	for (size_t f = 0; f < sizeof(names) / sizeof(names[0]); f++) {
		size_t len, cut;
		char *text = slurp(names[f], &len);

		cut = (size_t)(strrchr(text, '}') - text);
		for (size_t n = 0; n <= cut; n++)
			if (n < 300 || n + 300 > cut || n % 7 == 0)
				assert_not_json(text, n);
		free(text);
	}
}

/* Whitespace after the document is fine; anything else, a second document included, not. */
static void
test_trailing(void **state)
{
	struct iperf3_out o;
	size_t len;
	char *text = slurp("client-p2.json", &len), *two = xmalloc(2 * len + 8);

	(void)state;
	memcpy(two, text, len);
	memcpy(two + len, " \t\r\n\n", 5);
	assert_int_equal(parse_iperf3_json(two, len + 5, &o), 0);
	assert_client_p2(&o);
	memcpy(two + len, "x", 1);
	assert_not_json(two, len + 1);
	memcpy(two + len, "\0", 1);
	assert_not_json(two, len + 1);
	memcpy(two + len, text, len);
	assert_not_json(two, 2 * len);
	free(two);
	free(text);
}

/* Text that is not JSON, or not a JSON object. */
static void
test_not_json(void **state)
{
	static const char *const text[] = {
	    "iperf3: error - unable to connect to server: Connection refused\n",
	    "-----------------------------------------------------------\n"
	    "Server listening on 5201 (test #1)\n",
	    "\n",
	    "   ",
	    "<html><body>502</body></html>",
	    "{'error':'x'}",
	    "{\"error\":\"x\",}",
	    "{\"error\":\"\xff\"}",
	    "{\"error\" \"x\"}",
	    "}{",
	};
	static const char binary[] = "\x7f"
	                             "ELF\x02\x01\x01\0\0\0",
	                  nul_in[] = "{\"error\":\0\"x\"}";

	(void)state;
	assert_not_json("", 0);
	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++)
		assert_not_json(text[i], strlen(text[i]));
	assert_not_json(binary, sizeof(binary) - 1);
	assert_not_json(nul_in, sizeof(nul_in) - 1);
}

/* A JSON value that is not an object. */
static void
test_not_object(void **state)
{
	static const char *const text[] = {"[]", "[{\"end\":{}}]", "1", "\"end\"", "true"};
	struct iperf3_out o;

	(void)state;
	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++) {
		assert_not_json(text[i], strlen(text[i]));
		parse(text[i], &o);
		assert_string_equal(o.error, NOT_JSON "not an object");
	}
}

static void scrub_stack(void) __attribute__((noinline));

/* Zero the stack below the caller, so that a buffer left unwritten reads as "". */
static void
scrub_stack(void)
{
	volatile char junk[16384];

	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = '\0';
}

/* The document "null" is refused with a reason like any other non-object. */
static void
test_null(void **state)
{
	(void)state;
	scrub_stack();
	assert_not_json("null", 4);
}

/* A JSON object without a usable end summary: no figures, and an error saying so. */
static void
test_no_end(void **state)
{
	static const char *const text[] = {
	    "{}",
	    "{\"end\":{}}",
	    "{\"end\":null}",
	    "{\"end\":5}",
	    "{\"end\":[]}",
	    "{\"end\":{\"sum_sent\":[]}}",
	    "{\"end\":{\"sum_sent\":{}}}",
	    "{\"end\":{\"sum_sent\":{\"bits_per_second\":\"5\"}}}",
	    "{\"end\":{\"sum_sent\":{\"bits_per_second\":true}}}",
	    "{\"end\":{\"sum_sent\":{\"bits_per_second\":null}}}",
	    "{\"sum_sent\":{\"bits_per_second\":5}}",
	    "{\"error\":5}",
	    "{\"error\":null}",
	    "{\"error\":\"\"}",
	};
	struct iperf3_out o;

	(void)state;
	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++) {
		if (parse(text[i], &o) != 0)
			fail_msg("\"%s\" was refused: %s", text[i], o.error);
		assert_no_figures(&o);
		assert_string_equal(o.error, NO_END);
	}
}

/* Members of other types are skipped, integers are numbers, the last duplicate wins. */
static void
test_odd_members(void **state)
{
	struct iperf3_out o;

	(void)state;
	assert_int_equal(parse("{\"end\":{\"sum_sent\":{\"bits_per_second\":1000,\"bytes\":5,"
	                       "\"retransmits\":\"2\",\"seconds\":[1]},\"streams\":{}}}",
	                       &o),
	                 0);
	assert_string_equal(o.error, "");
	assert_double_equal(o.sent_bps, 1000);
	assert_double_equal(o.sent_bytes, 5);
	assert_nan(o.retransmits);
	assert_nan(o.seconds);
	assert_nan(o.received_bps);
	assert_int_equal(o.streams, 0);

	assert_int_equal(parse("{\"end\":{\"sum_sent\":{\"bits_per_second\":1},"
	                       "\"sum_sent\":{\"bits_per_second\":2},\"streams\":[1,{},[]]}}",
	                       &o),
	                 0);
	assert_double_equal(o.sent_bps, 2);
	assert_int_equal(o.streams, 3);
}

/* A long error message is cut to fit, NUL-terminated; one holding \u0000 stops there. */
static void
test_long_error(void **state)
{
	struct iperf3_out o;
	char *doc = xmalloc(20000);
	size_t n;

	(void)state;
	memcpy(doc, "{\"error\":\"", 10);
	memset(doc + 10, 'e', 10000);
	memcpy(doc + 10010, "\"}", 2);
	n = 10012;
	assert_int_equal(parse_iperf3_json(doc, n, &o), 0);
	assert_int_equal(strlen(o.error), sizeof(o.error) - 1);
	assert_int_equal(strspn(o.error, "e"), sizeof(o.error) - 1);
	assert_int_equal(parse("{\"error\":\"a\\u0000b\"}", &o), 0);
	assert_string_equal(o.error, "a");
	free(doc);
}

/* Nesting far deeper than iperf3's output is refused, not recursed into. */
static void
test_deep(void **state)
{
	const size_t depth = 100000;
	char *doc = xmalloc(2 * depth + 16);
	struct iperf3_out o;
	size_t n = 0;

	(void)state;
	n += (size_t)sprintf(doc, "{\"end\":");
	for (size_t i = 0; i < depth; i++)
		doc[n++] = '[';
	for (size_t i = 0; i < depth; i++)
		doc[n++] = ']';
	doc[n++] = '}';
	assert_not_json(doc, n);
	/* As deep as iperf3 goes (end.streams[].sender): fine. */
	assert_int_equal(parse("{\"end\":{\"streams\":[{\"sender\":{\"bytes\":[[1]]}}]}}", &o), 0);
	assert_int_equal(o.streams, 1);
	free(doc);
}

/* A figure out of double's range is not a figure (NAN), as parse-netperf.c has it. */
static void
test_not_finite(void **state)
{
	static const char *const text[] = {
	    "{\"end\":{\"sum_sent\":{\"bits_per_second\":NaN}}}",
	    "{\"end\":{\"sum_sent\":{\"bits_per_second\":1e400}}}",
	    "{\"end\":{\"sum_sent\":{\"bits_per_second\":-1e400}}}",
	    "{\"end\":{\"sum_sent\":{\"bits_per_second\":Infinity}}}",
	};
	struct iperf3_out o;

	(void)state;
	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++) {
		int rc = parse(text[i], &o);

		if (rc == 0) {
			assert_nan(o.sent_bps);
			assert_string_equal(o.error, NO_END);
		} else {
			assert_not_json(text[i], strlen(text[i]));
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_client),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_error_with_figures),
	    cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_trailing),
	    cmocka_unit_test(test_not_json),
	    cmocka_unit_test(test_not_object),
	    cmocka_unit_test(test_null),
	    cmocka_unit_test(test_no_end),
	    cmocka_unit_test(test_odd_members),
	    cmocka_unit_test(test_long_error),
	    cmocka_unit_test(test_deep),
	    cmocka_unit_test(test_not_finite),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
