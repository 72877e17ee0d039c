/* manifest-read.h: what the parts of the manifest share (manifest.c, manifest-sysctl.c):
 * reading a small file below the root, and its sysctls. Not for other modules. */
#ifndef NM_MANIFEST_READ_H
#define NM_MANIFEST_READ_H

#include <json-c/json.h>
#include <stddef.h>

/* Read ROOT/rel (rel absolute: "/proc/cmdline") into buf, runs of whitespace as one space,
 * trailing ones cut; -1 when it cannot be read. At most size - 1 bytes: a longer file is
 * cut. */
int manifest_read_small(const char *root, const char *rel, char *buf, size_t size);
/* settings[name] = the file's value, or null. */
void manifest_add_file(json_object *o, const char *name, const char *root, const char *rel);

/* The fixed net sysctls: "sysctl.NAME", null when unreadable (manifest-sysctl.c). */
void manifest_sysctls_fixed(json_object *o, const char *root);
/* The other net sysctls that differ from the snapshot in state_dir (NULL: none), as
 * "sysctl.NAME": "VALUE (boot OLD)", at most MANIFEST_SYSCTL_CHANGED (manifest-sysctl.c). */
void manifest_sysctls_changed(json_object *o, const char *root, const char *state_dir);

#endif
