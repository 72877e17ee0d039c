/* parse-iperf3.c: iperf3 --json: the client's end summary. */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jsonutil.h"
#include "parse-iperf3.h"

/* A finite number at obj.key, or NAN (json-c takes 1e400 and Infinity: they would come
 * out as invalid JSON). */
static double
num(json_object *obj, const char *key)
{
	double d = json_get_double(obj, key, NAN);

	return isfinite(d) ? d : NAN;
}

/* Parse the document. */
int
parse_iperf3_json(const char *text, size_t len, struct iperf3_out *out)
{
	json_object *root, *end = NULL, *sent = NULL, *recv = NULL, *cpu = NULL, *streams;
	char why[128] = "";

	memset(out, 0, sizeof(*out));
	out->sent_bps = out->received_bps = out->sent_bytes = out->received_bytes = NAN;
	out->retransmits = out->seconds = out->cpu_host_pct = out->cpu_remote_pct = NAN;
	if ((root = json_parse_bounded(text, len, 64, why, sizeof(why))) == NULL ||
	    !json_object_is_type(root, json_type_object)) {
		/* "null" parses to NULL without a message. */
		snprintf(out->error, sizeof(out->error), "iperf3 output is not JSON: %s",
		         root || why[0] == '\0' ? "not an object" : why);
		json_object_put(root);
		return -1;
	}
	snprintf(out->error, sizeof(out->error), "%s", json_get_string(root, "error", ""));
	json_object_object_get_ex(root, "end", &end);
	json_object_object_get_ex(end, "sum_sent", &sent);
	json_object_object_get_ex(end, "sum_received", &recv);
	json_object_object_get_ex(end, "cpu_utilization_percent", &cpu);
	out->sent_bps = num(sent, "bits_per_second");
	out->sent_bytes = num(sent, "bytes");
	out->retransmits = num(sent, "retransmits");
	out->seconds = num(sent, "seconds");
	out->received_bps = num(recv, "bits_per_second");
	out->received_bytes = num(recv, "bytes");
	out->cpu_host_pct = num(cpu, "host_total");
	out->cpu_remote_pct = num(cpu, "remote_total");
	if (json_object_object_get_ex(end, "streams", &streams) &&
	    json_object_is_type(streams, json_type_array))
		out->streams = (unsigned)json_object_array_length(streams);
	if (out->error[0] == '\0' && isnan(out->sent_bps))
		snprintf(out->error, sizeof(out->error), "iperf3 reported no end summary");
	json_object_put(root);
	return 0;
}
