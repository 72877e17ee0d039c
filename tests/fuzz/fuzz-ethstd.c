/* fuzz-ethstd.c: an ETHTOOL_MSG_STATS_GET reply (ethstd_parse, sample/ethstd.c), on arbitrary
 * input of at most 64 KiB: the bytes of a DEV.std fixture file, taken as the ethtool source
 * takes them (a message whose nlmsg_len lies within the input; anything else is not a
 * reply). Every value parsed must be of a group the reply has a nest for and that counts as
 * given, a bucket's field must be its range, the count of values is bounded by the bytes,
 * and parsing the same bytes again gives the same values. The same bytes are also taken as
 * an ETHTOOL_MSG_STRSET_GET reply (a DEV.strset, ethstd_parse_names) for string sets 17-21:
 * every name kept is short and NUL-terminated, and names the values above. */
#include <linux/netlink.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ethstd.h"
#include "fuzz.h"

#define FUZZ_MAX_INPUT (64u << 10)

/* Check one parsed value. */
static void
check_stat(const struct ethstd_reply *r, const struct ethstd_names *kn, const struct ethstd_stat *s)
{
	char name[48];
	const char *field, *unit;
	size_t flen;
	uint8_t dir;

	fuzz_check(s->group < 32);
	fuzz_check(r->listed & (1u << s->group));
	fuzz_check(r->given & (1u << s->group));
	ethstd_stat_name(s, kn, name, sizeof(name), &field, &flen, &dir, &unit);
	fuzz_check(strlen(name) < sizeof(name));
	fuzz_check(flen == strlen(field) && unit != NULL);
	if (s->kind != ETHSTD_STAT) {
		fuzz_check(field == name + 3 && strchr(field, '-') != NULL);
		fuzz_check(s->kind == ETHSTD_HIST_RX || s->kind == ETHSTD_HIST_TX);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ethstd_reply r, again;
	static const uint32_t ss_id[ETHSTD_NGROUPS] = {17, 18, 19, 20, 21};
	struct ethstd_names kn = {0};
	const struct nlmsghdr *h;
	uint8_t *buf;

	if (size < NLMSG_HDRLEN || size > FUZZ_MAX_INPUT)
		return 0;
	buf = malloc(size); /* aligned, as the source's read buffer is */
	fuzz_check(buf != NULL);
	memcpy(buf, data, size);
	h = (const struct nlmsghdr *)buf;
	if (h->nlmsg_len >= NLMSG_HDRLEN && h->nlmsg_len <= size &&
	    ethstd_parse_names(h, ss_id, &kn) == 0) {
		for (unsigned g = 0; g < ETHSTD_NGROUPS; g++) {
			fuzz_check(kn.count[g] <= ETHSTD_MAX_NAMES);
			fuzz_check(kn.count[g] == 0 || (kn.got & (1u << g)));
			for (uint32_t i = 0; i < kn.count[g]; i++) {
				const char *v = ethstd_names_get(&kn, g, i);
				fuzz_check(v == NULL || (strlen(v) > 0 && strlen(v) < 64));
			}
		}
		fuzz_check(kn.len <= h->nlmsg_len);
	}
	if (h->nlmsg_len >= NLMSG_HDRLEN && h->nlmsg_len <= size && ethstd_parse(h, &r) == 0) {
		fuzz_check((r.given & ~r.listed) == 0);
		fuzz_check(r.n <=
		           h->nlmsg_len / 8); /* a value takes an 8-byte attribute at least */
		for (size_t i = 0; i < r.n; i++)
			check_stat(&r, &kn, &r.v[i]);
		fuzz_check(ethstd_parse(h, &again) == 0);
		fuzz_check(again.n == r.n && again.listed == r.listed && again.given == r.given);
		fuzz_check(r.n == 0 || memcmp(again.v, r.v, r.n * sizeof(r.v[0])) == 0);
	}
	ethstd_names_free(&kn);
	free(buf);
	return 0;
}
