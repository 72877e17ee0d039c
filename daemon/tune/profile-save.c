/* profile-save.c: a device's current tuning as the text of a profile (profile save, the
 * kit's save_arfs.sh): per queue its IRQ affinity ([irq] queue.N), XPS (tx-N) and RPS (rx-N)
 * CPUs, the RFS flow count and rps_sock_flow_entries, the ntuple feature. What a profile
 * cannot say (queues whose flow counts differ, an empty mask among set ones) is said in a
 * comment. Applying the file puts the device back as it was. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "error.h"
#include "knob.h"
#include "profile.h"
#include "strbuf.h"
#include "timeutil.h"

/* The per-queue masks of one knob ([xps], [rps]): policy none when all are empty, else
 * explicit keys. */
void
profile_save_masks(struct profile_host *h, struct strbuf *sb, enum plan_kind kind, unsigned nq,
                   const char *section, const char *qprefix)
{
	struct strbuf keys = STRBUF_INIT;
	unsigned set = 0, empty = 0;
	struct cpuset cs;
	char list[4096];

	for (unsigned q = 0; q < nq; q++) {
		char *v = plan_read_live(h, kind, (int)q, NULL);
		if (v == NULL)
			continue;
		if (cpuset_parse_mask(&cs, v, NULL) == 0 && !cpuset_empty(&cs)) {
			cpuset_format_list(&cs, list, sizeof(list));
			strbuf_addf(&keys, "%s%u = %s\n", qprefix, q, list);
			set++;
		} else
			empty++;
		free(v);
	}
	if (set == 0 && empty == 0) {
		strbuf_free(&keys);
		return; /* no such files: a device without the knob */
	}
	strbuf_addf(sb, "\n[%s]\n", section);
	if (set == 0)
		strbuf_addf(sb, "policy = none\n");
	else {
		strbuf_addf(sb, "policy = explicit\n");
		if (empty > 0)
			strbuf_addf(
			    sb,
			    "# %u more %s queue%s had no CPUs: applying leaves them as they "
			    "are then\n",
			    empty, qprefix, empty == 1 ? "" : "s");
		strbuf_addstr(sb, keys.buf);
	}
	strbuf_free(&keys);
}

/* Every knob's section as the host has it, in section order (knobs[]). */
int
profile_save_text(struct profile_host *h, const char *name, struct strbuf *sb, struct nm_error *err)
{
	char when[40];

	time_format_rfc3339(time_real_ns(), when, sizeof(when));
	strbuf_addf(sb,
	            "# %s: the tuning of %s as it was at %s (netmetricsctl profile save %s %s).\n"
	            "# \"netmetricsctl profile apply %s\" puts it back.\n\n"
	            "[profile]\ndescription = %s's tuning as saved at %s\ndevice = %s\n",
	            name, h->dev, when, h->dev, name, name, h->dev, when, h->dev);
	for (size_t i = 0; i < knobs_n; i++)
		if (knobs[i]->save != NULL)
			knobs[i]->save(h, sb);
	for (size_t i = 0; i < knobs_n; i++) {
		char head[64];
		snprintf(head, sizeof(head), "\n[%s]", knobs[i]->section);
		if (knobs[i]->save != NULL && strstr(sb->buf, head) != NULL)
			return 0;
	}
	return nm_error_set(err, NM_ERR_NOT_FOUND,
	                    "%s: no tuning file could be read (no queues, IRQs or features)",
	                    h->dev);
}
