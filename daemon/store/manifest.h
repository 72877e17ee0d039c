/* manifest.h: the host's configuration a result keeps at both edges of its window, so that
 * a comparison can name the setting that differs (compare-manifest.h). A setting is a flat
 * name, its group first ("kernel.release", "device.vA.offload.tso", "cpu.governor",
 * "sysctl.net.core.rmem_max", "host.irqbalance", "benchmark.argv"), and a string value. */
#ifndef NM_MANIFEST_H
#define NM_MANIFEST_H

#include <json-c/json.h>
#include <stdbool.h>

#define MANIFEST_MAX_DEVICES     16   /* devices of one edge (the first by ifindex) */
#define MANIFEST_VALUE_MAX       1024 /* bytes of a value kept (the kernel's command line) */
#define MANIFEST_MAX_QDISCS      8    /* qdiscs of a device listed */
#define MANIFEST_MAX_IRQS        256  /* IRQs of a device whose affinity is read */
#define MANIFEST_MAX_NAPI_QUEUES 64   /* rx queues of a device whose NAPI is asked */
#define MANIFEST_SYSCTL_FILES    4096 /* files of /proc/sys/net walked, at most */
#define MANIFEST_SYSCTL_CHANGED  64   /* sysctls that differ from the snapshot listed */
#define MANIFEST_SNAPSHOT_FILE   "sysctl-boot.json" /* in the state directory */

/* The settings of the host below root now: a new object {NAME: "VALUE" | null}. What cannot
 * be read is null ("cpu.governor" is null without cpufreq, as in most VMs). Reads a few
 * small files per device and CPU, a few ethtool ioctls per device and one rtnetlink
 * RTM_GETQDISC dump: milliseconds, never on the loop (window.c reads it on the results
 * writer thread). Under a root other than "/" the devices are those of ROOT/sys/class/net
 * and no ioctl or netlink reaches the host (their settings are null). With state_dir
 * (may be NULL), the net sysctls that differ from its snapshot (manifest_snapshot) are
 * listed too. */
json_object *manifest_read(const char *root, const char *state_dir);

/* Take this boot's snapshot of the net sysctls below root (every readable file of
 * /proc/sys/net but keys and moving counts) into STATE_DIR/sysctl-boot.json, unless the file
 * already holds this boot's (/proc/sys/kernel/random/boot_id): the daemon's start calls it,
 * so the snapshot is of the first start after a boot. manifest_read then lists the net
 * sysctls whose value differs from it. 0, or -1 (logged). */
int manifest_snapshot(const char *root, const char *state_dir);

/* The manifest of a result from the settings read at its start edge and at its end edge
 * (manifest_read; either may be NULL: not read) and its benchmark (NULL: not a test;
 * {"program", "version", "argv": [...], "procs"}, whose values are the same at both edges).
 * Borrows its arguments. Returns a new object:
 *   {"edges": ["start", "end"] (those read),
 *    "settings": {NAME: {"start": V|null, "end": V|null, "changed": bool}},
 *    "changed": [NAME, ...] (settings whose value differs between the edges)}
 * settings in name order. */
json_object *manifest_build(json_object *start, json_object *end, json_object *bench);

/* A setting's group: the part of its name before the first dot ("device", "cpu",
 * "kernel", "sysctl", "host", "benchmark"). Into buf, always NUL-terminated. */
void manifest_group(const char *name, char *buf, size_t size);

/* The value of a setting in a manifest as a comparison takes it: the end edge's, else the
 * start's. NULL when the manifest lacks it or it is null at both edges. Borrowed. */
const char *manifest_value(json_object *manifest, const char *name);

/* Is name an offload that changes the size of packets (tso, gso, gro, lro, gro-hw,
 * gro-list, uso)? Then *short_name points at its last component. */
bool manifest_is_size_offload(const char *name, const char **short_name);

#endif
