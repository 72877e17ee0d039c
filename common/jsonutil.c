/* jsonutil.c: helpers over json-c: bounded parsing, typed lookups, builders, output. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonutil.h"
#include "log.h"
#include "utf8.h"

/* Nesting above this is refused whatever the caller asks, which bounds json-c's stack and
 * the recursion in json_depth(). */
#define JSON_DEPTH_CAP 1000

/* Write a formatted message to errbuf when there is one. */
static void __attribute__((format(printf, 3, 4)))
json_error(char *errbuf, size_t errsize, const char *fmt, ...)
{
	va_list ap;

	if (errbuf == NULL || errsize == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(errbuf, errsize, fmt, ap);
	va_end(ap);
}

/* How deeply containers nest in obj: 0 for a scalar, 1 for [] or [1], 2 for [[1]]. */
static int
json_depth(json_object *obj)
{
	int d, max = 0;
	size_t i, n;

	switch (json_object_get_type(obj)) {
	case json_type_array:
		n = json_object_array_length(obj);
		for (i = 0; i < n; i++) {
			d = json_depth(json_object_array_get_idx(obj, i));
			if (d > max)
				max = d;
		}
		return max + 1;
	case json_type_object: {
		json_object_object_foreach(obj, key, val)
		{
			(void)key;
			d = json_depth(val);
			if (d > max)
				max = d;
		}
		return max + 1;
	}
	default:
		return 0;
	}
}

/* Whether a byte is JSON whitespace. */
static bool
json_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Parse exactly one JSON value (strict, valid UTF-8) from buf[0..len) whose containers nest
 * at most max_depth deep; trailing whitespace is allowed, anything else is an error. */
json_object *
json_parse_bounded(const char *buf, size_t len, int max_depth, char *errbuf, size_t errsize)
{
	struct json_tokener *tok;
	enum json_tokener_error jerr = json_tokener_continue;
	json_object *obj = NULL;
	size_t i, end = 0;

	if (len > INT_MAX - 1) {
		json_error(errbuf, errsize, "JSON text too long (%zu bytes)", len);
		return NULL;
	}
	if (max_depth < 0)
		max_depth = 0;
	if (max_depth > JSON_DEPTH_CAP)
		max_depth = JSON_DEPTH_CAP;
	/* json-c counts the values on its stack, so a scalar inside n arrays needs n + 1
	 * while n nested empty arrays need only n. Let it go one deeper and measure the
	 * container depth ourselves, so that the limit means the same for both. */
	tok = json_tokener_new_ex(max_depth + 1);
	if (tok == NULL)
		fatalx("json_tokener_new_ex: out of memory");
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	if (len > 0) {
		obj = json_tokener_parse_ex(tok, buf, (int)len);
		jerr = json_tokener_get_error(tok);
		end = json_tokener_get_parse_end(tok);
	}
	if (jerr == json_tokener_continue) {
		/* At the end of the input: a number, for one, ends only at the terminator. */
		obj = json_tokener_parse_ex(tok, "", 1);
		jerr = json_tokener_get_error(tok);
		end = len;
	}
	if (jerr == json_tokener_error_depth) {
		json_error(errbuf, errsize, "JSON nested deeper than %d", max_depth);
		goto fail;
	}
	if (jerr != json_tokener_success) {
		json_error(errbuf, errsize, "bad JSON at byte %zu: %s", end,
		           json_tokener_error_desc(jerr));
		goto fail;
	}
	for (i = end; i < len; i++) {
		if (!json_is_space(buf[i])) {
			json_error(errbuf, errsize, "unexpected data after JSON value at byte %zu",
			           i);
			goto fail;
		}
	}
	if (json_depth(obj) > max_depth) {
		json_error(errbuf, errsize, "JSON nested deeper than %d", max_depth);
		goto fail;
	}
	json_tokener_free(tok);
	return obj;

fail:
	json_object_put(obj);
	json_tokener_free(tok);
	return NULL;
}

/* The member key of obj if obj is an object and the member has the given type, else NULL. */
static json_object *
json_member(json_object *obj, const char *key, enum json_type type)
{
	json_object *val;

	if (obj == NULL || !json_object_is_type(obj, json_type_object))
		return NULL;
	if (!json_object_object_get_ex(obj, key, &val) || !json_object_is_type(val, type))
		return NULL;
	return val;
}

/* A string member (owned by obj), or def. */
const char *
json_get_string(json_object *obj, const char *key, const char *def)
{
	json_object *val = json_member(obj, key, json_type_string);

	return val != NULL ? json_object_get_string(val) : def;
}

/* An integer member, or def; a number with a fraction or exponent is not an integer. */
int64_t
json_get_int(json_object *obj, const char *key, int64_t def)
{
	json_object *val = json_member(obj, key, json_type_int);

	return val != NULL ? json_object_get_int64(val) : def;
}

/* A number member, integer or not, or def. */
double
json_get_double(json_object *obj, const char *key, double def)
{
	json_object *val = json_member(obj, key, json_type_double);

	if (val == NULL)
		val = json_member(obj, key, json_type_int);
	return val != NULL ? json_object_get_double(val) : def;
}

/* A boolean member, or def. */
bool
json_get_bool(json_object *obj, const char *key, bool def)
{
	json_object *val = json_member(obj, key, json_type_boolean);

	return val != NULL ? json_object_get_boolean(val) : def;
}

/* Add (or replace) member key, taking val's reference; a NULL val is JSON null. */
static json_object *
json_add(json_object *obj, const char *key, json_object *val)
{
	if (json_object_object_add(obj, key, val) != 0) {
		json_object_put(val);
		fatalx("json: cannot add member \"%s\"", key);
	}
	return obj;
}

/* Add a string member (copied); NULL adds null. Bytes that are not UTF-8 (a child's
 * output, a message cut mid-character) are escaped (utf8.h), so that what is sent or stored
 * always parses again. */
json_object *
json_add_string(json_object *obj, const char *key, const char *val)
{
	json_object *v = NULL;
	size_t len = val != NULL ? strlen(val) : 0;

	if (val != NULL && !utf8_valid(val, len)) {
		char *fixed = utf8_sanitize_dup(val, len, UTF8_KEEP_NEWLINE);
		v = json_object_new_string(fixed);
		free(fixed);
		if (v == NULL)
			fatalx("json: out of memory");
	} else if (val != NULL && (v = json_object_new_string(val)) == NULL)
		fatalx("json: out of memory");
	return json_add(obj, key, v);
}

/* Add a signed integer member. */
json_object *
json_add_int(json_object *obj, const char *key, int64_t val)
{
	json_object *v = json_object_new_int64(val);

	if (v == NULL)
		fatalx("json: out of memory");
	return json_add(obj, key, v);
}

/* Add an unsigned integer member, exact up to UINT64_MAX. */
json_object *
json_add_uint(json_object *obj, const char *key, uint64_t val)
{
	json_object *v = json_object_new_uint64(val);

	if (v == NULL)
		fatalx("json: out of memory");
	return json_add(obj, key, v);
}

/* Add a number member; NaN and infinities, which JSON can't hold, become null. */
json_object *
json_add_double(json_object *obj, const char *key, double val)
{
	json_object *v = NULL;

	if (isfinite(val))
		v = json_double(val);
	return json_add(obj, key, v);
}

/* Print v with at most six decimals, trailing zeros dropped, without printf's slow
 * floating-point path (rates are printed by the hundred thousand). |v| < 9e12. */
static void
format_micro(double v, char *buf, size_t size)
{
	int64_t n = (int64_t)llround(v * 1e6);
	uint64_t u = n < 0 ? (uint64_t)-n : (uint64_t)n;
	char tmp[32];
	size_t i = sizeof(tmp), o = 0;
	int frac = 6;

	/* Drop trailing zeros of the fraction. */
	while (frac > 0 && u % 10 == 0) {
		u /= 10;
		frac--;
	}
	tmp[--i] = '\0';
	do {
		tmp[--i] = (char)('0' + u % 10);
		u /= 10;
		if (--frac == 0)
			tmp[--i] = '.';
	} while (u > 0 || frac >= 0);
	if (tmp[i] == '.')
		tmp[--i] = '0';
	if (n < 0)
		buf[o++] = '-';
	snprintf(buf + o, size - o, "%s", tmp + i);
}

/* The text of json_double: six decimals at most, or 15 significant digits when large. */
size_t
json_format_double(double val, char *buf, size_t size)
{
	if (fabs(val) < 9e12)
		format_micro(val, buf, size);
	else
		snprintf(buf, size, "%.15g", val);
	return strlen(buf);
}

/* A double printed with at most six decimals (or 15 significant digits when large): exact
 * enough for epoch times in microseconds, without the 0.1+0.2 noise of 17 digits. */
json_object *
json_double(double val)
{
	char text[JSON_DOUBLE_MAX];
	json_object *v;

	json_format_double(val, text, sizeof(text));
	if ((v = json_object_new_double_s(val, text)) == NULL)
		fatalx("json: out of memory");
	return v;
}

/* Add a boolean member. */
json_object *
json_add_bool(json_object *obj, const char *key, bool val)
{
	json_object *v = json_object_new_boolean(val);

	if (v == NULL)
		fatalx("json: out of memory");
	return json_add(obj, key, v);
}

/* Serialise obj on one line without spaces or escaped slashes; the string lives as long
 * as obj and len (if not NULL) gets its length. */
const char *
json_to_line(json_object *obj, size_t *len)
{
	size_t n;
	const char *s;

	s = json_object_to_json_string_length(
	    obj, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);
	if (len != NULL)
		*len = n;
	return s;
}

/* Sanitise one string value in place when it needs it. */
static void
sanitize_value(json_object *v, unsigned flags)
{
	const char *s = json_object_get_string(v);
	size_t len = (size_t)json_object_get_string_len(v);

	if (utf8_needs_sanitize(s, len, flags)) {
		char *fixed = utf8_sanitize_dup(s, len, flags);
		json_object_set_string(v, fixed);
		free(fixed);
	}
}

/* Sanitise every string below v, member names too. */
void
json_sanitize_strings(json_object *v, unsigned flags)
{
	switch (json_object_get_type(v)) {
	case json_type_string:
		sanitize_value(v, flags);
		break;
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(v); i++)
			json_sanitize_strings(json_object_array_get_idx(v, i), flags);
		break;
	case json_type_object: {
		json_object *bad = NULL;

		json_object_object_foreach(v, k, m)
		{
			json_sanitize_strings(m, flags);
			if (utf8_needs_sanitize(k, strlen(k), flags)) {
				if (bad == NULL)
					bad = json_object_new_array();
				json_object_array_add(bad, json_object_new_string(k));
			}
		}
		/* Renamed after the walk, which must not see the object change. */
		for (size_t i = 0; bad != NULL && i < json_object_array_length(bad); i++) {
			const char *k = json_object_get_string(json_object_array_get_idx(bad, i));
			char *fixed = utf8_sanitize_dup(k, strlen(k), flags);
			json_object *m = json_object_get(json_object_object_get(v, k));

			json_object_object_del(v, k);
			json_object_object_add(v, fixed, m);
			free(fixed);
		}
		json_object_put(bad);
		break;
	}
	default:
		break;
	}
}
