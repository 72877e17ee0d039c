/* stored-query.h: a window's series read from the results store when the ring cannot
 * answer (a restart, eviction) or does not hold them (a test's own series): the choice and
 * the query over the stored block. The query commands and the trend of a window use it. */
#ifndef NM_STORED_QUERY_H
#define NM_STORED_QUERY_H
#include <stdbool.h>
#include <stdint.h>

struct daemon;
struct query;
struct seriesblock;

/* The ring no longer holds t0 (a restart, eviction) and there is a store: a window's series
 * are its stored ones whatever the glob. */
bool stored_first(struct daemon *d, uint64_t t0);
/* The window's series are its stored ones: stored_first, or glob (NULL: any) matches no
 * series of the ring (matched at once, on the loop: for one name, or a few). */
bool stored_wanted(struct daemon *d, uint64_t t0, const char *glob);
/* When stored_wanted and window name's result has stored series (seriesblock.h): a query
 * over them (new; query_free) and the block in *blk (seriesblock_free after the query), at
 * once on the loop (the glob matched and the block read and decoded there): for callers
 * that run whole (a report's trend); replies read the block with blockload.h. NULL
 * otherwise (the ring answers; a damaged block is skipped). */
struct query *stored_query(struct daemon *d, const char *name, uint64_t t0, const char *glob,
                           struct seriesblock **blk);
#endif
