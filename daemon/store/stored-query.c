/* stored-query.c: a window's series from the results store (stored-query.h). */
#include <stddef.h>

#include "daemon.h"
#include "error.h"
#include "query.h"
#include "results.h"
#include "ring.h"
#include "sampler.h"
#include "seriesblock.h"
#include "stored-query.h"

bool
stored_first(struct daemon *d, uint64_t t0)
{
	struct ring_stats st;

	ring_get_stats(sampler_ring(d->sampler), &st);
	return d->results != NULL && !(st.newest_ns != 0 && t0 >= st.oldest_ns);
}

bool
stored_wanted(struct daemon *d, uint64_t t0, const char *glob)
{
	if (d->results == NULL)
		return false;
	return stored_first(d, t0) ||
	       (glob != NULL && query_match(d->query, glob, false, &d->ids, &d->ids_cap) == 0);
}

struct query *
stored_query(struct daemon *d, const char *name, uint64_t t0, const char *glob,
             struct seriesblock **blk)
{
	struct nm_error e;

	*blk = NULL;
	if (!stored_wanted(d, t0, glob))
		return NULL;
	if ((*blk = results_series_get(d->results, name, sampler_mono_to_real(d->sampler), &e)) ==
	    NULL)
		return NULL;
	return query_new_block(d->sampler, *blk);
}
