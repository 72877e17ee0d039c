/* Unit tests for the netperf driver's figures (run/driver-netperf.c): what a test whose
 * netperf said nothing usable of a figure stores. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "jsonutil.h"
#include "parse-netperf.h"
#include "runner.h"

/* A TCP_RR whose one netperf finished with no transaction (a rate of 0, as netperf prints
 * when every transaction timed out): its latency, 1e6 / rate, is infinite, which JSON
 * can't hold: the figure is null and the figures still print as JSON. */
static void
test_rr_zero_rate(void **state)
{
	const struct driver *drv = driver_find("netperf");
	struct netperf_out np;
	struct test_proc proc;
	struct test t;
	json_object *figs = json_object_new_object(), *procs = json_object_new_array();
	json_object *back, *v;
	char why[256] = "";
	const char *line;
	size_t len;

	(void)state;
	assert_non_null(drv);
	memset(&t, 0, sizeof(t));
	memset(&proc, 0, sizeof(proc));
	parse_netperf_init(&np);
	np.final = true;
	np.throughput = 0;
	np.transaction_rate = 0;
	snprintf(np.units, sizeof(np.units), "Trans/s");
	proc.priv = &np;
	proc.test = &t;
	snprintf(t.spec.type, sizeof(t.spec.type), "TCP_RR");
	t.procs = &proc;
	t.nprocs = 1;
	json_object_array_add(procs, json_object_new_object());
	assert_int_equal(drv->figures(&t, figs, procs, why, sizeof(why)), 0);

	line = json_to_line(figs, &len);
	back = json_tokener_parse(line);
	assert_non_null(back); /* "latency_us":inf is not JSON */
	assert_true(json_object_object_get_ex(back, "latency_us", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(back, "transactions_per_s", &v));
	assert_non_null(v);
	assert_true(json_object_get_double(v) == 0);
	json_object_put(back);

	line = json_to_line(json_object_array_get_idx(procs, 0), &len);
	back = json_tokener_parse(line);
	assert_non_null(back);
	assert_true(json_object_object_get_ex(back, "latency_us", &v));
	assert_null(v);
	json_object_put(back);
	json_object_put(figs);
	json_object_put(procs);
}

/* Run every test in this file. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rr_zero_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
