/* test-dispatch.c: the handler table against the protocol table, the permission check, and
 * the order of checks before a handler runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dispatch.h"
#include "error.h"
#include "proto.h"

/* Every command of the protocol has a handler in the daemon. */
static void
test_every_command_has_handler(void **state)
{
	(void)state;
	for (size_t i = 0; i < proto_ncommands; i++) {
		if (dispatch_handler_find(proto_commands[i].name) == NULL)
			fail_msg("command \"%s\" has no handler", proto_commands[i].name);
	}
	assert_null(dispatch_handler_find("no-such-command"));
}

/* The other way: every entry of the generated cmd_table names a command of the protocol,
 * once, with a handler (a typo in an entry's .proto would leave the command unbound). */
static void
test_every_entry_is_a_command(void **state)
{
	size_t n = 0;

	(void)state;
	for (const struct cmd_entry *const *e = cmd_table; *e != NULL; e++, n++) {
		assert_non_null((*e)->exec);
		if (proto_command_find((*e)->proto) == NULL)
			fail_msg("entry \"%s\" is no command of proto/commands.c", (*e)->proto);
		for (const struct cmd_entry *const *o = cmd_table; o != e; o++)
			if (strcmp((*o)->proto, (*e)->proto) == 0)
				fail_msg("command \"%s\" has two entries", (*e)->proto);
	}
	assert_int_equal(n, proto_ncommands);
}

/* Mutating commands need admin; read-only and streams do not. */
static void
test_permission(void **state)
{
	static const struct proto_command mutating = {.name = "apply", .flags = PROTO_MUTATING};
	static const struct proto_command ro = {.name = "look", .flags = PROTO_READONLY};
	static const struct proto_command st = {.name = "see",
	                                        .flags = PROTO_READONLY | PROTO_STREAM};
	struct nm_error err;

	(void)state;
	nm_error_clear(&err);
	assert_int_equal(dispatch_permitted(&mutating, false, &err), -1);
	assert_int_equal(err.code, NM_ERR_DENIED);
	assert_non_null(strstr(err.message, "apply"));
	assert_non_null(strstr(err.message, "admin"));
	assert_int_equal(dispatch_permitted(&mutating, true, &err), 0);
	assert_int_equal(dispatch_permitted(&ro, false, &err), 0);
	assert_int_equal(dispatch_permitted(&st, false, &err), 0);
}

/* The error reply for a line, checked for its code and id. */
static void
expect_error(const char *line, const char *code, const char *id_part)
{
	size_t len;
	char *reply = dispatch_line(NULL, NULL, line, strlen(line), &len);

	assert_non_null(reply);
	assert_int_equal(reply[len - 1], '\n');
	if (strstr(reply, code) == NULL)
		fail_msg("reply to %s: %s (wanted %s)", line, reply, code);
	assert_non_null(strstr(reply, "\"ok\":false"));
	if (id_part != NULL)
		assert_non_null(strstr(reply, id_part));
	free(reply);
}

/* Envelope, command and argument errors are answered before any handler runs (the daemon
 * pointer is NULL here: a handler would crash). */
static void
test_checks_before_handler(void **state)
{
	(void)state;
	expect_error("{", "bad_request", NULL);
	expect_error("[1]", "bad_request", NULL);
	expect_error("{\"id\":4}", "bad_request", "\"id\":4");
	expect_error("{\"id\":5,\"cmd\":\"launch\"}", "unknown_command", "\"id\":5");
	expect_error("{\"id\":6,\"cmd\":\"status\",\"args\":{\"x\":1}}", "bad_args", "\"id\":6");
	expect_error("{\"id\":7,\"cmd\":\"rates\",\"args\":{\"last\":\"ten\"}}", "bad_args",
	             "\"id\":7");
	expect_error("{\"id\":8,\"cmd\":\"cpu\",\"args\":{\"cpus\":\"3-1\"}}", "bad_args",
	             "\"id\":8");
	expect_error("{\"id\":9,\"cmd\":\"watch\",\"args\":{}}", "bad_args", "\"id\":9");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_command_has_handler),
	    cmocka_unit_test(test_every_entry_is_a_command),
	    cmocka_unit_test(test_permission),
	    cmocka_unit_test(test_checks_before_handler),
	};

	dispatch_init(cmd_table);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
