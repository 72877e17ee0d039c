/* prom-config.c: the [prometheus] section of the configuration applied to an exporter. */
#include "config.h"
#include "error.h"
#include "log.h"
#include "prom.h"

/* The length of a NULL-terminated list (NULL: 0). */
static size_t
strv_len(char *const *v)
{
	size_t n = 0;

	while (v != NULL && v[n] != NULL)
		n++;
	return n;
}

int
prom_configure_from(struct prom *p, const struct config *c, struct nm_error *err)
{
	struct prom_options o = {
	    .select = (const char *const *)c->prom_select,
	    .nselect = strv_len(c->prom_select),
	    .rollup = (const char *const *)c->prom_rollup,
	    .nrollup = strv_len(c->prom_rollup),
	    .cpusets = (const char *const *)c->prom_cpuset,
	    .ncpusets = strv_len(c->prom_cpuset),
	    .unmoved = (const char *const *)c->prom_unmoved,
	    .nunmoved = strv_len(c->prom_unmoved),
	    .max_family_series = c->prom_max_family_series,
	};

	prom_configure(p, (const char *const *)c->prom_export, strv_len(c->prom_export),
	               c->prom_max_series);
	return prom_set_options(p, &o, err);
}
