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
#include "irqtable.h"
#include "profile.h"
#include "strbuf.h"
#include "timeutil.h"

/* The per-queue masks of one knob: policy none when all are empty, else explicit keys. */
static void
save_masks(struct profile_host *h, struct strbuf *sb, enum plan_kind kind, unsigned nq,
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

/* [irq]: the affinity of each queue's first IRQ. */
static void
save_irqs(struct profile_host *h, struct strbuf *sb)
{
	size_t n;
	struct profile_irq *irqs = profile_irq_list(h, &n);
	bool header = false;
	int last = -1;

	for (size_t i = 0; i < n; i++) {
		char *v;
		if ((int)irqs[i].queue == last)
			continue;
		if ((v = plan_read_live(h, PLAN_IRQ, irqs[i].irq->irq, NULL)) == NULL)
			continue;
		if (!header) {
			strbuf_addf(sb, "\n[irq]\npolicy = explicit\n");
			header = true;
		}
		strbuf_addf(sb, "queue.%u = %s\n", irqs[i].queue, v);
		last = (int)irqs[i].queue;
		free(v);
	}
	free(irqs);
}

/* [rfs] and [arfs]. */
static void
save_rfs(struct profile_host *h, struct strbuf *sb)
{
	unsigned long long max = 0, min = ~0ull;
	char *v, *sock, *nt;
	unsigned seen = 0;

	for (unsigned q = 0; q < h->nrx; q++) {
		if ((v = plan_read_live(h, PLAN_FLOW_CNT, (int)q, NULL)) == NULL)
			continue;
		unsigned long long c = strtoull(v, NULL, 10);
		max = c > max ? c : max;
		min = c < min ? c : min;
		seen++;
		free(v);
	}
	sock = plan_read_live(h, PLAN_SYSCTL, -1, "net.core.rps_sock_flow_entries");
	if (seen > 0) {
		strbuf_addf(sb, "\n[rfs]\n");
		if (max == 0)
			strbuf_addf(sb, "enable = off\n");
		else {
			if (min != max)
				strbuf_addf(sb, "# the rx queues' flow counts were %llu to %llu\n",
				            min, max);
			strbuf_addf(sb, "flow_cnt = %llu\n", max);
		}
		if (sock != NULL)
			strbuf_addf(sb, "sock_flow_entries = %s\n", sock);
		else
			strbuf_addf(sb, "# rps_sock_flow_entries is not visible here\n"
			                "sock_flow_entries = keep\n");
	}
	free(sock);
	if ((nt = plan_read_live(h, PLAN_NTUPLE, -1, NULL)) != NULL) {
		if (strcmp(nt, "on") == 0 && (seen == 0 || max == 0))
			strbuf_addf(sb, "\n# ntuple filters were on, without RFS\n");
		else
			strbuf_addf(sb, "\n[arfs]\nntuple = %s\n", nt);
		free(nt);
	}
}

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
	save_irqs(h, sb);
	save_masks(h, sb, PLAN_XPS, h->ntx > 1 ? h->ntx : 0, "xps", "tx-");
	save_masks(h, sb, PLAN_RPS, h->nrx, "rps", "rx-");
	save_rfs(h, sb);
	if (strstr(sb->buf, "\n[irq]") == NULL && strstr(sb->buf, "\n[xps]") == NULL &&
	    strstr(sb->buf, "\n[rps]") == NULL && strstr(sb->buf, "\n[rfs]") == NULL &&
	    strstr(sb->buf, "\n[arfs]") == NULL)
		return nm_error_set(
		    err, NM_ERR_NOT_FOUND,
		    "%s: no tuning file could be read (no queues, IRQs or features)", h->dev);
	return 0;
}
