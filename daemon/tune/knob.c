/* knob.c: the table of tuning knobs (knob.h). A new knob is its file and one line here. */
#include <stdio.h>
#include <string.h>

#include "knob.h"

/* Each defined in its file, profile-<knob>.c. */
extern const struct knob_ops knob_irq, knob_xps, knob_rps, knob_rfs, knob_arfs, knob_sysctl;

/* In section order: messages, sections lists and saved profiles name them so. */
const struct knob_ops *const knobs[] = {
    &knob_irq, &knob_xps, &knob_rps, &knob_rfs, &knob_arfs, &knob_sysctl,
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
