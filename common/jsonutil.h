/* jsonutil.h: helpers over json-c. */
#ifndef NM_JSONUTIL_H
#define NM_JSONUTIL_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parse exactly one JSON value from buf[0..len) with a nesting limit. Trailing whitespace is
 * allowed; anything else after the value is an error. Returns a new reference (caller puts)
 * or NULL with a message in errbuf. */
json_object *json_parse_bounded(const char *buf, size_t len, int max_depth, char *errbuf,
                                size_t errsize);

/* Typed lookups: return the member or the default when absent or of another type. */
const char *json_get_string(json_object *obj, const char *key, const char *def);
int64_t json_get_int(json_object *obj, const char *key, int64_t def);
double json_get_double(json_object *obj, const char *key, double def);
bool json_get_bool(json_object *obj, const char *key, bool def);

/* Builders that take ownership of nothing and add a member; return obj for chaining. */
json_object *json_add_string(json_object *obj, const char *key, const char *val);
json_object *json_add_int(json_object *obj, const char *key, int64_t val);
json_object *json_add_uint(json_object *obj, const char *key, uint64_t val);
json_object *json_add_double(json_object *obj, const char *key, double val);
json_object *json_add_bool(json_object *obj, const char *key, bool val);

/* A new double that prints with 15 significant digits (new reference). */
json_object *json_double(double val);
/* The text json_double prints for val, into buf (at least JSON_DOUBLE_MAX bytes); returns
 * its length. For replies written as text a part at a time. */
#define JSON_DOUBLE_MAX 40
size_t json_format_double(double val, char *buf, size_t size);

/* Serialise compactly without escaping '/'; the string lives as long as obj. */
const char *json_to_line(json_object *obj, size_t *len);

/* Make every string below v, values and member names, valid UTF-8 with its control
 * characters escaped (utf8_sanitize with flags), in place: for text shown to people. */
void json_sanitize_strings(json_object *v, unsigned flags);

#endif
