/* test-report-csv.c: a report's figures flattened to "group,figure,key,value,unit" rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "report-csv.h"

/* The CSV of a result given as JSON text. */
static char *
csv_of(const char *json)
{
	json_object *r = json_tokener_parse(json);
	char *s;

	assert_non_null(r);
	s = report_to_csv(r);
	json_object_put(r);
	return s;
}

/* Numbers become rows named by group, figure and key; labels (strings, booleans) are no
 * figures; null is an empty value; units come from compare's table. */
static void
test_flatten(void **state)
{
	char *s;

	(void)state;
	s = csv_of("{\"window\":{\"name\":\"w\"},\"span_s\":2,\"figures\":{"
	           "\"queues\":{\"min_rate\":0,\"devices\":[{\"name\":\"eth0\",\"queues\":["
	           "{\"queue\":7,\"rx_pps\":10,\"irq_cpus\":\"0\"}],\"hidden\":0}],"
	           "\"ratio\":{\"sets\":[\"a\",\"b\"],\"by_irq_cpu\":null}},"
	           "\"cpu\":{\"all\":{\"user\":2.5,\"busy_cpus\":0.25}},"
	           "\"tcp\":{\"retrans_segs\":3,\"ok\":true},"
	           "\"sysctl\":{\"net.core.arfs_add_count\":75},"
	           "\"lnstat\":{\"rt_cache\":{\"in_hit\":720}},"
	           "\"odd\":{\"a,b\":1},\"count\":4}}");
	assert_string_equal(s, "group,figure,key,value,unit\n"
	                       "queues,min_rate,,0,packets/s\n"
	                       "queues,devices,eth0.queues.7.rx_pps,10,packets/s\n"
	                       "queues,devices,eth0.hidden,0,queues\n"
	                       "queues,ratio,by_irq_cpu,,ratio\n"
	                       "cpu,all,user,2.5,%\n"
	                       "cpu,all,busy_cpus,0.25,CPUs\n"
	                       "tcp,retrans_segs,,3,segments\n"
	                       "sysctl,net.core.arfs_add_count,,75,\n"
	                       "lnstat,rt_cache,in_hit,720,\n"
	                       "odd,\"a,b\",,1,\n"
	                       "count,,,4,\n");
	free(s);
}

/* No figures (an incomplete result): the header alone. */
static void
test_no_figures(void **state)
{
	char *s;

	(void)state;
	s = csv_of("{\"window\":{\"complete\":false},\"figures\":{}}");
	assert_string_equal(s, "group,figure,key,value,unit\n");
	free(s);
	s = csv_of("{\"figures\":[1]}");
	assert_string_equal(s, "group,figure,key,value,unit\n");
	free(s);
}

/* Run every test in this file. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_flatten),
	    cmocka_unit_test(test_no_figures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
