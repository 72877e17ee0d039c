/* qpattern.h: which `ethtool -S` counters of a driver are per-queue packets and bytes.
 * The syntax of a pattern and the built-in table are described in qpattern.c. */
#ifndef NM_QPATTERN_H
#define NM_QPATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nm_error;

enum qpattern_dir { QPATTERN_RX = 0, QPATTERN_TX = 1 };
enum qpattern_kind { QPATTERN_PACKETS = 0, QPATTERN_BYTES = 1 };

#define QPATTERN_MAX_TERMS 4
#define QPATTERN_TERM_LEN  48
#define QPATTERN_MAX_QUEUE 65535 /* a larger index is not a queue */

/* One naming convention for one direction and kind: queue N's value is the sum of the
 * counters its terms name with N. */
struct qpattern {
	uint8_t dir;  /* enum qpattern_dir */
	uint8_t kind; /* enum qpattern_kind */
	uint8_t nterms;
	int16_t driver; /* the built-in table's row it came from (qpattern_driver_at); -1 for
	                   a configured pattern */
	char terms[QPATTERN_MAX_TERMS][QPATTERN_TERM_LEN]; /* each holds one "%u" */
};

/* One driver's per-queue naming in the built-in table (qpattern.c). */
struct qpattern_driver {
	const char *driver; /* as `ethtool -i` names it: "mlx5_core" */
	const char *source; /* the kernel file that makes the names */
	const char *rx_packets, *rx_bytes, *tx_packets, *tx_bytes; /* terms; NULL: none */
	const char *note; /* what its figures lack ("gve counts bytes per queue, not packets"),
	                     or NULL */
};

/* Row row of the built-in table, or NULL. */
const struct qpattern_driver *qpattern_driver_at(int row);
/* The first row for a driver by its ethtool -i name, or NULL. */
const struct qpattern_driver *qpattern_driver_find(const char *driver);
/* The whole built-in table (n rows). */
const struct qpattern_driver *qpattern_drivers_all(size_t *n);

/* An ordered list of patterns: earlier ones win. */
struct qpattern_table {
	struct qpattern *v;
	size_t n, cap;
};

/* One counter that belongs to a queue. */
struct qpattern_hit {
	uint32_t counter; /* index in the device's counter list */
	uint32_t queue;
	uint32_t pattern; /* its index in the table */
	uint8_t dir, kind;
};

/* Empty table. */
void qpattern_table_init(struct qpattern_table *t);
void qpattern_table_free(struct qpattern_table *t);
/* Append the built-in driver conventions. */
void qpattern_table_add_builtin(struct qpattern_table *t);
/* Append every pattern of src. */
void qpattern_table_append(struct qpattern_table *t, const struct qpattern_table *src);
/* Append one pattern written "DIR KIND TERM [+ TERM ...]" ("rx packets rx_queue_%u_packets").
 * 0 ok; -1 with err saying what is wrong. */
int qpattern_table_add(struct qpattern_table *t, const char *spec, struct nm_error *err);

/* Does name match term exactly, with digits where term has "%u"? Sets *queue. (An occurrence
 * term, "NAME#%u", needs the names before it: qpattern_map alone reads those.) */
bool qpattern_term_match(const char *term, const char *name, uint32_t *queue);

/* Map a device's counter names (n names, name i at names + i * stride, NUL-terminated) to
 * queues. For each direction and kind only the first pattern of t that names at least one of
 * the counters is used, so a driver whose names fit two conventions is not counted twice.
 * Fills *hits (grown with xreallocarray; the caller frees it) and returns their number. */
size_t qpattern_map(const struct qpattern_table *t, const char *names, size_t stride, size_t n,
                    struct qpattern_hit **hits, size_t *cap);

#endif
