/* source-harness.h: what the unit tests of the sources share. A test double of the sampler's
 * sink (sink_put and sink_gone are defined here); a struct world that sets a source up on a
 * root as the sampler does; fixture trees in a temporary directory, from gen-host.py or
 * copied from tests/fixtures; and checks of what a sample put. Failures fail the running
 * cmocka test. Include after <cmocka.h>. */
#ifndef NM_SOURCE_HARNESS_H
#define NM_SOURCE_HARNESS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "series.h"
#include "source.h"

/* The test double of the sampler's sink, by series id. After a sample the arrays cover every
 * id of the registry. */
struct sink {
	uint64_t *val;      /* the last value put */
	uint8_t *put;       /* put in the last sample */
	uint8_t *gone;      /* declared gone in the last sample */
	unsigned *count;    /* times put since harness_init */
	uint8_t *dead;      /* declared gone and not put since */
	size_t cap;         /* length of each array */
	size_t nput, ngone; /* puts and gones in the last sample */
};

/* One test's world: a fixture dir, a registry, the source and the sink. */
struct world {
	char *dir; /* the temporary fixture dir, removed by harness_free; NULL on a given root */
	struct series_registry reg;
	struct source src;
	struct sink sink;
	json_object *js; /* the last gen-host.py summary */
};

/* Set w up for a source of ops on root (NULL: a new empty w->dir), at index 3: not 0, so
 * that the series' source shows the source passing its index on. */
void harness_init(struct world *w, const struct source_ops *ops, const char *root);
/* Set w up for a source of ops on an empty root, whose init must fail with an error message
 * holding want (the file it names, "No such file or directory"). Free w with
 * harness_free. */
void harness_init_missing(struct world *w, const struct source_ops *ops, const char *want);
/* Set w up for a source of ops on this machine ("/"), init it and sample it once; each
 * format of fmts[0..n) (one %ld, a CPU number) must name a series for every online CPU.
 * Returns the number of online CPUs. Free w with harness_free. */
long harness_init_host_cpus(struct world *w, const struct source_ops *ops, const char *const *fmts,
                            size_t n);
/* Give the source one option it must accept. */
void harness_configure(struct world *w, const char *key, const char *val);
/* Init the source; it must succeed. */
void harness_start(struct world *w);
/* Clear the last sample's marks and sample once; it must succeed. */
void harness_sample(struct world *w);
/* Free the source (which must leave no priv or opts), the registry and the sink; remove
 * w->dir. */
void harness_free(struct world *w);

/* The id of a series that must exist. */
series_id harness_find(struct world *w, const char *name);
/* Whether a series exists (whatever its state). */
bool harness_exists(struct world *w, const char *name);
/* The last value of a series that must exist, have been put and not be gone since. */
uint64_t harness_value(struct world *w, const char *name);
/* A series put in the last sample with value val, of kind, with the source's index and a
 * unit. */
void harness_check(struct world *w, const char *name, uint64_t val, enum series_kind kind);

/* The series name has exactly the labels of spec, blank-separated key=value pairs
 * ("source=softirqs type=NET_RX cpu=1 unit=softirqs"): those given match, those not given
 * (but source and unit) are none. */
void harness_labels(struct world *w, const char *name, const char *spec);

/* Run gen-host.py with args into w->dir and keep its summary in w->js. */
void harness_gen(struct world *w, const char *args);
/* The member key of a summary object, which must be there. */
json_object *harness_js(json_object *o, const char *key);
/* A summary number as 64 bits (json-c keeps values past 2^63 as unsigned, negative ones as
 * signed). */
uint64_t harness_js_u64(json_object *v);
/* The number w->js holds at key (and sub, when not NULL). */
int64_t harness_js_int(struct world *w, const char *key, const char *sub);
/* Every summary value of a series whose name starts with prefix is the value last put. */
void harness_check_values(struct world *w, const char *prefix);
/* Every summary absent series of prefix exists nowhere, is not live, or was declared gone in
 * the last sample. */
void harness_check_absent(struct world *w, const char *prefix);

/* A new empty temporary directory; harness_rmtree removes it. */
char *harness_tempdir(void);
/* Remove dir and all below it, and free its name. */
void harness_rmtree(char *dir);
/* Copy the tree tests/fixtures/name into dir. */
void harness_copy_fixture(const char *name, const char *dir);
/* Make the directory rel below w->dir. */
void harness_mkdir(struct world *w, const char *rel);
/* Write text as the file rel below w->dir, in place (a kept fd sees it); NULL removes it. */
void harness_write(struct world *w, const char *rel, const char *text);
/* Replace the first old in the file rel below w->dir by new, in place. */
void harness_edit(struct world *w, const char *rel, const char *old, const char *new);

#endif
