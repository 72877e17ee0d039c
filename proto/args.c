/* args.c: checks a request's arguments against its command's schema before any handler
 * runs, so that handlers receive arguments of the right type and range. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cpulist.h"
#include "proto.h"

/* The schema entry for name, or NULL when cmd has no such argument. */
static const struct proto_arg *
arg_find(const struct proto_command *cmd, const char *name)
{
	const struct proto_arg *arg;

	for (arg = cmd->args; arg < cmd->args + PROTO_MAX_ARGS && arg->name != NULL; arg++) {
		if (strcmp(arg->name, name) == 0)
			return arg;
	}
	return NULL;
}

/* True when the argument has a range (both bounds 0 means unbounded). */
static bool
arg_bounded(const struct proto_arg *arg)
{
	return arg->min != 0 || arg->max != 0;
}

/* Format a bound for a message: integers without a fraction, others as %g would. */
static void
format_bound(char *buf, size_t size, double v)
{
	if (v == floor(v) && fabs(v) < 1e18)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.15g", v);
}

/* Fill err with "argument NAME: must be <what>[ between MIN and MAX]"; returns -1. */
static int
range_error(const struct proto_arg *arg, const char *what, struct nm_error *err)
{
	char lo[32], hi[32];

	if (!arg_bounded(arg))
		return nm_error_set(err, NM_ERR_BAD_ARGS, "argument \"%s\": must be %s", arg->name,
		                    what);
	format_bound(lo, sizeof(lo), arg->min);
	format_bound(hi, sizeof(hi), arg->max);
	return nm_error_set(err, NM_ERR_BAD_ARGS, "argument \"%s\": must be %s between %s and %s",
	                    arg->name, what, lo, hi);
}

/* An integer bound as int64, clamped to the int64 range. */
static int64_t
int_bound(double v, bool upper)
{
	v = upper ? floor(v) : ceil(v);
	if (v >= 9223372036854775807.0)
		return INT64_MAX;
	if (v <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)v;
}

/* Check a JSON integer within [min, max]. Compared as integers so 2^53 + 1 is not 2^53. */
static int
check_int(const struct proto_arg *arg, json_object *val, struct nm_error *err)
{
	int64_t v;

	if (!json_object_is_type(val, json_type_int))
		return range_error(arg, "an integer", err);
	/* json-c clamps integers beyond int64 to INT64_MIN/MAX, which no sane bound admits. */
	v = json_object_get_int64(val);
	if (arg_bounded(arg) && (v < int_bound(arg->min, false) || v > int_bound(arg->max, true)))
		return range_error(arg, "an integer", err);
	return 0;
}

/* Check a finite JSON number (integer or not) within [min, max]. */
static int
check_number(const struct proto_arg *arg, json_object *val, struct nm_error *err)
{
	double v;

	if (!json_object_is_type(val, json_type_int) && !json_object_is_type(val, json_type_double))
		return range_error(arg, "a number", err);
	v = json_object_get_double(val);
	/* json-c accepts NaN and Infinity literals; they are not JSON and not numbers here. */
	if (!isfinite(v))
		return range_error(arg, "a number", err);
	if (arg_bounded(arg) && (v < arg->min || v > arg->max))
		return range_error(arg, "a number", err);
	return 0;
}

/* The longest string the argument accepts. */
static size_t
arg_max_len(const struct proto_arg *arg)
{
	return arg->max_len != 0 ? arg->max_len : PROTO_MAX_STRING;
}

/* Check one string's length and that it holds no NUL byte; what names it in the message. */
static int
check_string_value(const struct proto_arg *arg, const char *what, json_object *val,
                   struct nm_error *err)
{
	const char *s = json_object_get_string(val);
	size_t len = (size_t)json_object_get_string_len(val);

	/* "\u0000" is legal JSON but would silently cut C strings (paths, names) short. */
	if (memchr(s, '\0', len) != NULL)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "argument \"%s\": %s contains a NUL byte",
		                    arg->name, what);
	if (len > arg_max_len(arg))
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "argument \"%s\": %s must be at most %zu bytes", arg->name,
		                    what, arg_max_len(arg));
	return 0;
}

/* Check a JSON string. */
static int
check_string(const struct proto_arg *arg, json_object *val, struct nm_error *err)
{
	if (!json_object_is_type(val, json_type_string))
		return nm_error_set(err, NM_ERR_BAD_ARGS, "argument \"%s\": must be a string",
		                    arg->name);
	return check_string_value(arg, "the string", val, err);
}

/* Check an array of strings, each within the length limit. */
static int
check_strings(const struct proto_arg *arg, json_object *val, struct nm_error *err)
{
	char what[32];
	size_t i, n;

	if (!json_object_is_type(val, json_type_array))
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "argument \"%s\": must be an array of strings", arg->name);
	n = json_object_array_length(val);
	for (i = 0; i < n; i++) {
		json_object *item = json_object_array_get_idx(val, i);

		if (!json_object_is_type(item, json_type_string))
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "argument \"%s\": item %zu must be a string", arg->name,
			                    i);
		snprintf(what, sizeof(what), "item %zu", i);
		if (check_string_value(arg, what, item, err) < 0)
			return -1;
	}
	return 0;
}

/* Check a string that parses as a CPU list or a hex mask. */
static int
check_cpulist(const struct proto_arg *arg, json_object *val, struct nm_error *err)
{
	struct cpuset set;
	struct nm_error perr;

	if (!json_object_is_type(val, json_type_string))
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "argument \"%s\": must be a string with a CPU list or mask",
		                    arg->name);
	if (check_string_value(arg, "the string", val, err) < 0)
		return -1;
	nm_error_clear(&perr);
	if (cpuset_parse_any(&set, json_object_get_string(val), &perr) < 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "argument \"%s\": %s", arg->name,
		                    perr.message);
	return 0;
}

/* Check one present argument against its schema entry. */
static int
check_value(const struct proto_arg *arg, json_object *val, struct nm_error *err)
{
	switch (arg->type) {
	case PROTO_ARG_STRING:
		return check_string(arg, val, err);
	case PROTO_ARG_INT:
		return check_int(arg, val, err);
	case PROTO_ARG_NUMBER:
		return check_number(arg, val, err);
	case PROTO_ARG_BOOL:
		if (!json_object_is_type(val, json_type_boolean))
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "argument \"%s\": must be true or false", arg->name);
		return 0;
	case PROTO_ARG_STRINGS:
		return check_strings(arg, val, err);
	case PROTO_ARG_CPULIST:
		return check_cpulist(arg, val, err);
	case PROTO_ARG_OBJECT:
		if (!json_object_is_type(val, json_type_object))
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "argument \"%s\": must be an object", arg->name);
		return 0;
	}
	return nm_error_set(err, NM_ERR_INTERNAL, "argument \"%s\": unknown type in schema",
	                    arg->name);
}

/* Check args (an object or NULL for {}) against cmd's schema: unknown members first, then
 * each schema entry in table order, so the first problem found is reported. */
int
proto_args_check(const struct proto_command *cmd, json_object *args, struct nm_error *err)
{
	const struct proto_arg *arg;
	json_object *val;

	if (args != NULL && !json_object_is_type(args, json_type_object))
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "arguments of command \"%s\" must be an object", cmd->name);
	if (args != NULL) {
		json_object_object_foreach(args, key, v)
		{
			(void)v;
			if (arg_find(cmd, key) == NULL)
				return nm_error_set(err, NM_ERR_BAD_ARGS,
				                    "unknown argument \"%s\" for command \"%s\"",
				                    key, cmd->name);
		}
	}
	for (arg = cmd->args; arg < cmd->args + PROTO_MAX_ARGS && arg->name != NULL; arg++) {
		if (args == NULL || !json_object_object_get_ex(args, arg->name, &val)) {
			if (arg->required)
				return nm_error_set(err, NM_ERR_BAD_ARGS,
				                    "missing required argument \"%s\"", arg->name);
			continue;
		}
		if (check_value(arg, val, err) < 0)
			return -1;
	}
	return 0;
}
