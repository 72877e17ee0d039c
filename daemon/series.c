/* series.c: the series registry: names to dense ids through an open-addressing hash. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "series.h"
#include "xmalloc.h"

/* FNV-1a over the name. */
static uint32_t
hash_name(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

void
series_registry_init(struct series_registry *reg)
{
	memset(reg, 0, sizeof(*reg));
	reg->hcap = 1024;
	reg->hash = xcalloc(reg->hcap, sizeof(*reg->hash));
}

void
series_registry_free(struct series_registry *reg)
{
	for (size_t i = 0; i < reg->n; i++)
		free(reg->v[i].name);
	free(reg->v);
	free(reg->hash);
	memset(reg, 0, sizeof(*reg));
}

/* The hash slot holding name, or the empty slot where it would go. */
static size_t
slot_of(const struct series_registry *reg, const char *name, size_t len)
{
	size_t mask = reg->hcap - 1;
	size_t i = hash_name(name, len) & mask;

	while (reg->hash[i] != 0) {
		const char *n = reg->v[reg->hash[i] - 1].name;
		if (strncmp(n, name, len) == 0 && n[len] == '\0')
			return i;
		i = (i + 1) & mask;
	}
	return i;
}

/* Double the hash table when it is half full. */
static void
grow_hash(struct series_registry *reg)
{
	free(reg->hash);
	reg->hcap *= 2;
	reg->hash = xcalloc(reg->hcap, sizeof(*reg->hash));
	for (size_t id = 0; id < reg->n; id++) {
		const char *n = reg->v[id].name;
		reg->hash[slot_of(reg, n, strlen(n))] = (uint32_t)id + 1;
	}
}

series_id
series_intern(struct series_registry *reg, const char *name, size_t len, enum series_kind kind,
              uint8_t source, const char *unit, double scale)
{
	const char *nul = memchr(name, '\0', len);
	struct series_info *si;
	size_t slot;

	/* A name is a C string: bytes read from a file past a NUL are not part of it. */
	if (nul != NULL)
		len = (size_t)(nul - name);
	slot = slot_of(reg, name, len);
	if (reg->hash[slot] != 0) {
		si = &reg->v[reg->hash[slot] - 1];
		si->live = true;
		return reg->hash[slot] - 1;
	}
	if (reg->n == reg->cap) {
		reg->cap = reg->cap ? reg->cap * 2 : 1024;
		reg->v = xreallocarray(reg->v, reg->cap, sizeof(*reg->v));
	}
	si = &reg->v[reg->n];
	si->name = xstrndup(name, len);
	si->kind = (uint8_t)kind;
	si->source = source;
	si->live = true;
	si->scale = scale;
	si->unit = unit ? unit : "";
	reg->hash[slot] = (uint32_t)reg->n + 1;
	reg->n++;
	if (reg->n * 2 > reg->hcap)
		grow_hash(reg);
	return (series_id)(reg->n - 1);
}

series_id
series_internf(struct series_registry *reg, enum series_kind kind, uint8_t source, const char *unit,
               double scale, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	return series_intern(reg, buf, (size_t)n, kind, source, unit, scale);
}

series_id
series_find(const struct series_registry *reg, const char *name)
{
	size_t slot = slot_of(reg, name, strlen(name));

	return reg->hash[slot] ? reg->hash[slot] - 1 : SERIES_NONE;
}

const char *
series_kind_name(enum series_kind kind)
{
	switch (kind) {
	case SERIES_COUNTER32:
		return "counter32";
	case SERIES_GAUGE:
		return "gauge";
	default:
		return "counter";
	}
}
