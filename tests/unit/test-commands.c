/* test-commands.c: the command table is well formed, findable, exported and documented. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

#define PROTOCOL_MD TEST_SRCDIR "/../../proto/PROTOCOL.md"
#define PROTO_H     TEST_SRCDIR "/../../proto/proto.h"

/* Number of arguments in cmd's schema. */
static size_t
nargs(const struct proto_command *cmd)
{
	size_t n = 0;

	while (n < PROTO_MAX_ARGS && cmd->args[n].name != NULL)
		n++;
	return n;
}

/* True when s is a non-empty run of [a-z-] not starting or ending with '-'. */
static bool
valid_name(const char *s, size_t max)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > max || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (i = 0; i < n; i++) {
		if (!((s[i] >= 'a' && s[i] <= 'z') || s[i] == '-'))
			return false;
	}
	return true;
}

/* Names unique and well formed, summaries present, flags consistent. */
static void
test_table_well_formed(void **state)
{
	size_t i, j, k;

	(void)state;
	assert_true(proto_ncommands >= 3);
	for (i = 0; i < proto_ncommands; i++) {
		const struct proto_command *c = &proto_commands[i];

		assert_non_null(c->name);
		if (!valid_name(c->name, PROTO_MAX_NAME))
			fail_msg("bad command name \"%s\"", c->name);
		for (j = i + 1; j < proto_ncommands; j++) {
			if (strcmp(c->name, proto_commands[j].name) == 0)
				fail_msg("command \"%s\" twice", c->name);
		}
		if (c->summary == NULL || c->summary[0] == '\0' || strchr(c->summary, '\n'))
			fail_msg("command \"%s\" needs a one-line summary", c->name);
		assert_non_null(c->usage);
		/* Exactly one of readonly and mutating. */
		if (!(c->flags & PROTO_READONLY) == !(c->flags & PROTO_MUTATING))
			fail_msg("command \"%s\" must be READONLY or MUTATING", c->name);
		for (j = 0; j < nargs(c); j++) {
			const struct proto_arg *a = &c->args[j];

			if (a->help == NULL || a->help[0] == '\0')
				fail_msg("%s: argument \"%s\" needs help", c->name, a->name);
			assert_true(a->min <= a->max);
			for (k = j + 1; k < nargs(c); k++)
				assert_string_not_equal(a->name, c->args[k].name);
		}
	}
}

/* The commands of the first protocol version, with their access. */
static void
test_known_commands(void **state)
{
	const struct proto_command *c;

	(void)state;
	c = proto_command_find("hello");
	assert_non_null(c);
	assert_string_equal(c->name, "hello");
	assert_int_equal(nargs(c), 0);
	assert_string_equal(proto_command_access(c), "readonly");

	c = proto_command_find("status");
	assert_non_null(c);
	assert_int_equal(nargs(c), 0);
	assert_string_equal(proto_command_access(c), "readonly");

	c = proto_command_find("cancel");
	assert_non_null(c);
	assert_int_equal(nargs(c), 1);
	assert_string_equal(c->args[0].name, "id");
	assert_int_equal(c->args[0].type, PROTO_ARG_INT);
	assert_true(c->args[0].required);
	assert_true(c->args[0].min == 0);
	assert_true(c->args[0].max == 9007199254740992.0);

	assert_null(proto_command_find("nope"));
	assert_null(proto_command_find(""));
	assert_null(proto_command_find("HELLO"));
	assert_null(proto_command_find("hello "));
	assert_null(proto_command_find(NULL));
}

/* Every entry's address is what find returns. */
static void
test_find_all(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < proto_ncommands; i++)
		assert_ptr_equal(proto_command_find(proto_commands[i].name), &proto_commands[i]);
}

/* Access names: mutating wins over stream, stream over readonly. */
static void
test_access(void **state)
{
	struct proto_command c = {.name = "x", .summary = "x", .usage = ""};

	(void)state;
	c.flags = PROTO_READONLY;
	assert_string_equal(proto_command_access(&c), "readonly");
	c.flags = PROTO_READONLY | PROTO_STREAM;
	assert_string_equal(proto_command_access(&c), "stream");
	c.flags = PROTO_MUTATING;
	assert_string_equal(proto_command_access(&c), "mutating");
	c.flags = PROTO_MUTATING | PROTO_STREAM;
	assert_string_equal(proto_command_access(&c), "mutating");
}

/* The table as JSON for hello mirrors the C table. */
static void
test_json(void **state)
{
	json_object *arr = proto_commands_json();
	json_object *cmd, *args, *arg, *v;
	size_t i;

	(void)state;
	assert_true(json_object_is_type(arr, json_type_array));
	assert_int_equal(json_object_array_length(arr), proto_ncommands);
	for (i = 0; i < proto_ncommands; i++) {
		cmd = json_object_array_get_idx(arr, i);
		assert_string_equal(json_object_get_string(json_object_object_get(cmd, "name")),
		                    proto_commands[i].name);
		assert_string_equal(json_object_get_string(json_object_object_get(cmd, "access")),
		                    proto_command_access(&proto_commands[i]));
		assert_string_equal(json_object_get_string(json_object_object_get(cmd, "summary")),
		                    proto_commands[i].summary);
		assert_true(json_object_object_get_ex(cmd, "usage", NULL));
		assert_true(json_object_object_get_ex(cmd, "args", &args));
		assert_int_equal(json_object_array_length(args), nargs(&proto_commands[i]));
	}

	/* cancel's one argument, in full. */
	cmd =
	    json_object_array_get_idx(arr, (size_t)(proto_command_find("cancel") - proto_commands));
	json_object_object_get_ex(cmd, "args", &args);
	arg = json_object_array_get_idx(args, 0);
	assert_string_equal(json_object_to_json_string_ext(arg, JSON_C_TO_STRING_PLAIN),
	                    "{\"name\":\"id\",\"type\":\"int\",\"required\":true,"
	                    "\"help\":\"id of the streaming request to stop\",\"min\":0,"
	                    "\"max\":9007199254740992}");
	assert_true(json_object_object_get_ex(arg, "max", &v));
	assert_true(json_object_is_type(v, json_type_int));

	/* hello has an empty args array and no min/max anywhere. */
	cmd = json_object_array_get_idx(arr, 0);
	assert_string_equal(json_object_to_json_string_ext(cmd, JSON_C_TO_STRING_PLAIN),
	                    "{\"name\":\"hello\",\"access\":\"readonly\",\"summary\":\"protocol "
	                    "version, daemon version and the command table\",\"usage\":\"\","
	                    "\"args\":[]}");
	json_object_put(arr);
}

/* Read the whole of a file of the source tree; the caller frees. */
static char *
read_source_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (f == NULL)
		fail_msg("cannot open %s", path);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* True when text has a line that is exactly line. */
static bool
has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line)) != NULL) {
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return true;
		p += n;
	}
	return false;
}

/* Every command in the table has a "## name" section in PROTOCOL.md. */
static void
test_documented(void **state)
{
	char *md = read_source_file(PROTOCOL_MD);
	char heading[PROTO_MAX_NAME + 8];
	size_t i;

	(void)state;
	for (i = 0; i < proto_ncommands; i++) {
		snprintf(heading, sizeof(heading), "## %s", proto_commands[i].name);
		if (!has_line(md, heading))
			fail_msg("%s has no \"%s\" section", PROTOCOL_MD, heading);
	}
	/* The error codes are all listed too. */
	for (i = NM_ERR_BAD_REQUEST; i < NM_ERR__COUNT; i++) {
		snprintf(heading, sizeof(heading), "`%s`", nm_error_name((enum nm_errcode)i));
		if (strstr(md, heading) == NULL)
			fail_msg("%s does not list error code %s", PROTOCOL_MD, heading);
	}
	free(md);
}

/* Every command in the table is named in proto.h's version history, which says in which
 * version each came: a word of the comment between "Protocol version history" and
 * PROTO_VERSION's definition. */
static void
test_in_version_history(void **state)
{
	char *h = read_source_file(PROTO_H);
	char *start = strstr(h, "Protocol version history"), *end;

	(void)state;
	assert_non_null(start);
	end = strstr(start, "#define PROTO_VERSION");
	assert_non_null(end);
	*end = '\0';
	for (size_t i = 0; i < proto_ncommands; i++) {
		const char *name = proto_commands[i].name, *p = start;
		size_t n = strlen(name);
		bool found = false;

		while (!found && (p = strstr(p, name)) != NULL) {
			found = p[-1] == ' ' && (p[n] == ',' || p[n] == ' ' || p[n] == ';');
			p += n;
		}
		if (!found)
			fail_msg("%s: the version history does not name %s", PROTO_H, name);
	}
	free(h);
}

/* Run every test in this file. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table_well_formed),
	    cmocka_unit_test(test_known_commands),
	    cmocka_unit_test(test_find_all),
	    cmocka_unit_test(test_access),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_documented),
	    cmocka_unit_test(test_in_version_history),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
