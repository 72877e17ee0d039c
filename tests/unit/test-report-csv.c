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
/* Results as one table: a row each, a column per figure of any of them in the order they
 * first appear, empty where a result lacks the figure or has null. */
static void
test_table(void **state)
{
	json_object *r[3];
	char *s;

	(void)state;
	r[0] = json_tokener_parse("{\"window\":{\"name\":\"s/1\",\"origin\":\"test\","
	                          "\"start\":\"T1\",\"duration_s\":2.5,\"complete\":true},"
	                          "\"span_s\":2,\"figures\":{\"tcp\":{\"retrans_segs\":3}},"
	                          "\"test\":{\"figures\":{\"throughput_mbps\":940.5}}}");
	r[1] = json_tokener_parse("{\"window\":{\"name\":\"s,2\",\"origin\":\"hand\","
	                          "\"start\":\"T2\",\"duration_s\":1,\"complete\":false},"
	                          "\"span_s\":1,\"figures\":{\"tcp\":{\"retrans_segs\":null,"
	                          "\"in_segs\":7}}}");
	r[2] = json_tokener_parse("{\"figures\":{}}");
	s = report_csv_table(r, 3);
	assert_string_equal(s, "name,origin,start,duration_s,complete,span_s,tcp.retrans_segs,"
	                       "test.throughput_mbps,tcp.in_segs\n"
	                       "s/1,test,T1,2.5,true,2,3,940.5,\n"
	                       "\"s,2\",hand,T2,1,false,1,,,7\n"
	                       ",,,,,,,,\n");
	free(s);
	s = report_csv_table(r, 0);
	assert_string_equal(s, "name,origin,start,duration_s,complete\n");
	free(s);
	for (int i = 0; i < 3; i++)
		json_object_put(r[i]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_flatten),
	    cmocka_unit_test(test_no_figures),
	    cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
