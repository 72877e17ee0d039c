/* knob.c: the table of tuning knobs (knob.h). A new knob is its file and one line here. */
#include <stdio.h>
#include <string.h>

#include "knob.h"

/* Each defined in its file, profile-<knob>.c. */
extern const struct knob_ops knob_irq, knob_xps, knob_rps, knob_rfs, knob_arfs, knob_sysctl,
    knob_napi, knob_offloads, knob_channels, knob_napi_queue, knob_rings, knob_coalesce, knob_rss;

/* In section order: messages, sections lists and saved profiles name them so. */
const struct knob_ops *const knobs[] = {
    &knob_irq,    &knob_xps,      &knob_rps,        &knob_rfs,      &knob_arfs,
    &knob_sysctl, &knob_channels, &knob_rings,      &knob_coalesce, &knob_offloads,
    &knob_rss,    &knob_napi,     &knob_napi_queue,
};
const size_t knobs_n = sizeof(knobs) / sizeof(knobs[0]);

/* The knob of a section. */
const struct knob_ops *
knob_by_section(const char *section)
{
	for (size_t i = 0; i < knobs_n; i++)
		if (strcmp(knobs[i]->section, section) == 0)
			return knobs[i];
	return NULL;
}

/* The knob that writes a kind. */
const struct knob_ops *
knob_of_kind(enum plan_kind kind)
{
	for (size_t i = 0; i < knobs_n; i++)
		if (knobs[i]->kind == kind)
			return knobs[i];
	return NULL;
}

/* Append s to buf (cut at size). */
static void
append(char *buf, size_t size, size_t *off, const char *sep, const char *open, const char *s,
       const char *close)
{
	if (*off >= size)
		return;
	*off +=
	    (size_t)snprintf(buf + *off, size - *off, "%s%s%s%s", *off ? sep : "", open, s, close);
}

/* "irq, xps, rps, rfs, arfs, sysctl" or "[irq], [xps], ...". */
void
knob_list_sections(char *buf, size_t size, bool brackets)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < knobs_n; i++)
		append(buf, size, &off, ", ", brackets ? "[" : "", knobs[i]->section,
		       brackets ? "]" : "");
}

/* "irq, xps, rps, rfs, ntuple": the knobs of KNOB=VALUE words. */
void
knob_list_settings(char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < knobs_n; i++)
		if (knobs[i]->setting != NULL)
			append(buf, size, &off, ", ", "", knobs[i]->setting, "");
}

/* A decimal without sign or leading zeros, at most 9 digits. */
bool
knob_allow_number(const char *s, const char **end)
{
	size_t n = strspn(s, "0123456789");

	if (n == 0 || n > 9 || (n > 1 && s[0] == '0'))
		return false;
	*end = s + n;
	return true;
}

/* Every byte of s in set, 1..max bytes. */
bool
knob_allow_only(const char *s, const char *set, size_t max)
{
	size_t n = strlen(s);

	return n > 0 && n <= max && strspn(s, set) == n;
}

/* queues/DIR-N/FILE. */
int
knob_allow_queue_file(const char *rel, const char *dir, const char *file)
{
	size_t n = strlen(dir);
	const char *end;

	if (strncmp(rel, "queues/", 7) != 0 || strncmp(rel + 7, dir, n) != 0 || rel[7 + n] != '-' ||
	    !knob_allow_number(rel + 8 + n, &end) || *end != '/')
		return 0;
	return strcmp(end + 1, file) == 0;
}

/* A hex CPU mask in comma groups. */
int
knob_allow_mask(const char *rel, const char *val, char *why, size_t size)
{
	if (!knob_allow_only(val, "0123456789abcdefABCDEF,", KNOB_VALUE_MAX) || val[0] == ',')
		return snprintf(why, size, "%s: not a hex CPU mask", rel), -1;
	return 1;
}
