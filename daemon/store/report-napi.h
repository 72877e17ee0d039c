/* report-napi.h: a window's NAPI view ("napi" of a report, beside its figures): per device its
 * queues with the NAPI instance the kernel links each to, that NAPI's IRQ, the IRQ's CPUs, its
 * thread and settings, as the NAPI and IRQ tables of the window's edges had them. */
#ifndef NM_REPORT_NAPI_H
#define NM_REPORT_NAPI_H

#include <json-c/json.h>

#include "snapshot.h"

/* The NAPI view of the window [a, b] (proto/PROTOCOL.md, report): an object with one
 * member per device (only device when not NULL) that has a queue in either edge's NAPI
 * table, or NULL when neither edge has one (no netdev family, a fixture root, drivers that
 * link nothing). New reference. */
json_object *report_napi_json(const struct snapshot *a, const struct snapshot *b,
                              const char *device);

#endif
