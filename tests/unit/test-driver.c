/* test-driver.c: driver.c's table of benchmark drivers is what the rest reads: the names in
 * messages and in test-start's usage (proto/commands.c, which the client shares and so
 * cannot take from the daemon: this test keeps it true), each driver's server on a peer and
 * the arguments only it takes, with the replies that refuse them to another driver. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "error.h"
#include "jsonutil.h"
#include "proto.h"
#include "runner.h"

/* The names of the table, joined by sep. */
static void
table_names(const char *sep, char *buf, size_t size)
{
	const struct driver *d;

	buf[0] = '\0';
	for (size_t i = 0; (d = driver_at(i)) != NULL; i++)
		snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? sep : "", d->name);
}

/* driver_names comes from the table, in its order; the reply names them as before. */
static void
test_names(void **state)
{
	char names[256];

	(void)state;
	table_names(", ", names, sizeof(names));
	assert_string_equal(driver_names(), names);
	assert_string_equal(driver_names(), "netperf, iperf3, exec, pktgen");
	for (size_t i = 0; driver_at(i) != NULL; i++)
		assert_ptr_equal(driver_find(driver_at(i)->name), driver_at(i));
	assert_null(driver_find("nonesuch"));
}

/* test-start's usage "[--driver A|B|...]" names exactly the table's drivers (in any order),
 * and its "driver" argument's help names each of them. */
static void
test_usage_names_the_table(void **state)
{
	const struct proto_command *c = proto_command_find("test-start");
	const char *u, *end, *help = NULL;
	char list[256], *save = NULL;
	size_t n = 0, ntable = 0;

	(void)state;
	assert_non_null(c);
	u = strstr(c->usage, "[--driver ");
	assert_non_null(u);
	u += strlen("[--driver ");
	end = strchr(u, ']');
	assert_non_null(end);
	snprintf(list, sizeof(list), "%.*s", (int)(end - u), u);
	for (char *w = strtok_r(list, "|", &save); w != NULL; w = strtok_r(NULL, "|", &save)) {
		if (driver_find(w) == NULL)
			fail_msg("test-start's usage names driver %s, not in driver.c's table", w);
		n++;
	}
	while (driver_at(ntable) != NULL)
		ntable++;
	if (n != ntable)
		fail_msg("test-start's usage names %zu drivers, driver.c's table has %zu (%s)", n,
		         ntable, driver_names());
	for (size_t i = 0; i < PROTO_MAX_ARGS && c->args[i].name != NULL; i++)
		if (strcmp(c->args[i].name, "driver") == 0)
			help = c->args[i].help;
	assert_non_null(help);
	for (size_t i = 0; i < ntable; i++)
		if (strstr(help, driver_at(i)->name) == NULL)
			fail_msg("test-start's --driver help does not name %s", driver_at(i)->name);
}

/* Each driver's server on a peer: netserver -D, iperf3 -s; exec and pktgen have none. */
static void
test_server_argv(void **state)
{
	const struct driver *np = driver_find("netperf"), *ip = driver_find("iperf3");

	(void)state;
	assert_non_null(np->server_argv);
	assert_string_equal(np->server_argv[0], "netserver");
	assert_string_equal(np->server_argv[1], "-D");
	assert_null(np->server_argv[2]);
	assert_non_null(ip->server_argv);
	assert_string_equal(ip->server_argv[0], "iperf3");
	assert_string_equal(ip->server_argv[1], "-s");
	assert_null(ip->server_argv[2]);
	assert_null(driver_find("exec")->server_argv);
	assert_null(driver_find("pktgen")->server_argv);
}

/* Every argument a driver lists is one test-start takes. */
static void
test_args_in_schema(void **state)
{
	const struct proto_command *c = proto_command_find("test-start");
	const struct driver *d;

	(void)state;
	for (size_t i = 0; (d = driver_at(i)) != NULL; i++)
		for (const char *const *a = d->args; a != NULL && *a != NULL; a++) {
			bool found = false;
			for (size_t k = 0; k < PROTO_MAX_ARGS && c->args[k].name != NULL; k++)
				found = found || strcmp(c->args[k].name, *a) == 0;
			if (!found)
				fail_msg("driver %s takes \"%s\", not a test-start argument",
				         d->name, *a);
		}
	assert_true(driver_takes(driver_find("netperf"), "rcvbuf"));
	assert_false(driver_takes(driver_find("iperf3"), "rcvbuf"));
	assert_true(driver_takes(driver_find("pktgen"), "dev"));
	assert_false(driver_takes(driver_find("exec"), "generator_on"));
}

/* The reply of runner_spec_parse for args (a JSON object): "" when it parses. */
static const char *
parse(const char *json)
{
	static struct nm_error err;
	json_object *args = json_tokener_parse(json);
	struct test_spec spec;
	int rc;

	assert_non_null(args);
	memset(&err, 0, sizeof(err));
	rc = runner_spec_parse(NULL, args, &spec, &err);
	json_object_put(args);
	if (rc == 0) {
		runner_spec_free(&spec);
		return "";
	}
	return err.message;
}

/* Another driver's argument is refused with the replies test-start gave before the table
 * said which driver takes what. */
static void
test_refusals(void **state)
{
	(void)state;
	assert_string_equal(parse("{\"driver\": \"iperf3\", \"rcvbuf\": 65536}"),
	                    "argument \"rcvbuf\" is for --driver netperf");
	assert_string_equal(
	    parse("{\"driver\": \"exec\", \"argv\": [\"true\"], \"cpu_util\": true}"),
	    "argument \"cpu_util\" is for --driver netperf (netperf's -c -C; the "
	    "report's cpu figures cover every driver)");
	assert_string_equal(parse("{\"driver\": \"netperf\", \"generator_on\": \"b\"}"),
	                    "--generator-on is for --driver pktgen (netperf and iperf3 start their "
	                    "server on the first --peer)");
	assert_string_equal(parse("{\"driver\": \"netperf\", \"flows\": 4}"),
	                    "argument \"flows\" is for --driver pktgen");
	assert_string_equal(parse("{\"driver\": \"iperf3\", \"rate\": 1000}"),
	                    "argument \"rate\" is for --driver pktgen");
	/* The zero values are not refused, as before. */
	assert_string_equal(parse("{\"driver\": \"iperf3\", \"host\": \"127.0.0.1\", \"rcvbuf\": "
	                          "0, \"cpu_util\": false}"),
	                    "");
	assert_string_equal(parse("{\"driver\": \"netperf\", \"host\": \"127.0.0.1\", \"rcvbuf\": "
	                          "65536, \"cpu_util\": true}"),
	                    "");
	assert_string_equal(parse("{\"driver\": \"nonesuch\"}"),
	                    "unknown driver \"nonesuch\" (drivers: netperf, iperf3, exec, pktgen)");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names),       cmocka_unit_test(test_usage_names_the_table),
	    cmocka_unit_test(test_server_argv), cmocka_unit_test(test_args_in_schema),
	    cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
