/* report-csv.h: a report (or any result of the results store) as CSV, one row per figure,
 * for spreadsheets and gnuplot. Used by the daemon (result-export) and the client. */
#ifndef NM_REPORT_CSV_H
#define NM_REPORT_CSV_H

#include <json-c/json.h>

/* The numbers of result's "figures" as "group,figure,key,value,unit" rows under that
 * header line (RFC 4180 quoting), named and with units as compare names them. Returns a
 * string the caller frees; never NULL. */
char *report_to_csv(json_object *result);

/* Results r[0..n) as one table: a header line "name,origin,start,duration_s,complete,"
 * then one column per figure path (compare_flatten's names, in the order they first
 * appear), and one row per result; a figure a result lacks, or null, is an empty cell.
 * Returns a string the caller frees; never NULL. */
char *report_csv_table(json_object *const *r, size_t n);

#endif
