#!/usr/bin/env python3
"""Spans of the query commands, on the real kernel through netmetricsd and netmetricsctl.

- `rates --last N` covers the span its header states: fifty consecutive `rates cpu.all.*
  --last 3` on a daemon sampling CPUs every second never give more idle time than nproc x
  3 s (plus one USER_HZ tick per CPU, the rounding of /proc/stat), every series' own span is
  the one the header states, and the CPU time of all modes is at most nproc times that
  span (plus the steal in it, which a guest's kernel may count twice): the delta is the
  difference of the values at exactly the two samples named.
- `cpu --window`, `softirqs --window` and `queues --window` over a window around iperf3
  traffic between two namespaces agree with `report` of the same window: same edges, same
  figures.

Needs root (namespaces) and iperf3. Environment: NETMETRICSD, NETMETRICSCTL. Ends with
"N passed, M failed".
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nsrun  # noqa: E402
from test_sampling import NS_A, Daemon, iperf, make_pair, remove_pair, sh  # noqa: E402

TICK = 1.0 / os.sysconf("SC_CLK_TCK")
JITTER = 0.05  # s: the read of /proc/stat after its sample's time, under load
MODES = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest",
         "guest_nice")


def close(a, b, what, tol=1e-6):
    assert abs(a - b) <= tol * max(1.0, abs(a), abs(b)), (what, a, b)


def test_rates_last_span():
    """50 x `rates cpu.all.* --last 3`: idle within nproc x 3 s, all modes nproc x span."""
    nproc = os.sysconf("SC_NPROCESSORS_ONLN")
    d = Daemon(extra="[source.cpu]\ninterval = 1s\n")
    try:
        time.sleep(4.5)
        worst = 0.0
        for i in range(50):
            r = d.json("rates", "cpu.all.*", "--last", "3", "--all")
            s = {m["name"][8:]: m for m in r["series"]}
            idle = s["idle"]["delta"]
            total = sum(s[m]["delta"] for m in MODES if m in s)
            span = r["span_s"]
            assert r["source"] == "cpu", r
            # The nearest record to 3 s back: off by timer jitter only.
            assert 2.5 < span < 3.5, (i, r)
            for m in s.values():
                close(m["span_s"], span, "series span", 1e-9)
            assert idle <= nproc * 3 + nproc * TICK + 1e-9, (i, idle, r)
            # The CPU time of all modes is at most nproc x the span (to a tick of rounding
            # each side per CPU): a delta over one sample more would be a third more. (It
            # may be less: a virtual machine's kernel loses the ticks of a descheduled
            # vCPU; seen here 14 % less while the host was busy.) Each sample's time is taken
            # just before /proc/stat is read: on a loaded machine the read may come tens of
            # ms later (seen: 6.05 s over 2 x 2.997 s), so allow JITTER per CPU as well.
            # And a guest's kernel adds stolen time at its next tick, all of it at once
            # (steal_account_process_time), though the time it stood for may have been
            # counted already, or fall before the first sample (a nohz idle CPU's idle time
            # is read up to the moment of reading): the modes may add up to more than nproc
            # x the span by as much as the steal in the delta (seen in CI: 6.18 s over
            # 2 x 2.999 s, 0.32 s of it steal). A delta over one sample more would still be
            # about nproc s too much.
            steal = s["steal"]["delta"] if "steal" in s else 0.0
            assert total <= nproc * (span + JITTER) + 2 * nproc * TICK + steal + 1e-9, (
                i, total, span, steal, r)
            assert total - steal < nproc * (span + 0.5), (i, total, span, steal, r)
            worst = max(worst, idle / nproc)
            time.sleep(0.1)
        print("  idle per CPU at most %.3f s of --last 3" % worst)
    finally:
        d.stop()


def test_window_views_match_report():
    """cpu, softirqs and queues --window W agree with report W, edges and figures."""
    # veth has no per-queue counters; ifb has (ethtool -S rx_queue_N_packets): the ACKs
    # that come back to vA are redirected through ifbA.
    for cmd in (("ip", "link", "add", "ifbA", "numtxqueues", "2", "numrxqueues", "2",
                 "type", "ifb"),
                ("ip", "link", "set", "ifbA", "up"),
                ("tc", "qdisc", "add", "dev", "vA", "handle", "ffff:", "ingress"),
                ("tc", "filter", "add", "dev", "vA", "parent", "ffff:", "protocol", "all", "u32",
                 "match", "u32", "0", "0", "action", "mirred", "egress", "redirect", "dev",
                 "ifbA")):
        sh(*cmd, ns=NS_A)
    d = Daemon(ns=NS_A)
    try:
        time.sleep(1.2)
        d.ctl("mark", "start", "spans")
        iperf(2)
        time.sleep(0.3)
        d.ctl("mark", "stop", "spans")
        rep = d.json("report", "spans")
        fig = rep["figures"]
        cpu = d.json("cpu", "--window", "spans")
        sirq = d.json("softirqs", "--window", "spans")
        queues = d.json("queues", "ifbA", "--window", "spans")
        for v in (cpu, sirq, queues):
            assert v["window"] == "spans", v
            close(v["span_s"], rep["span_s"], "span", 1e-9)
        for k, want in fig["cpu"]["all"].items():
            close(cpu["all"][k], want, "cpu all " + k)
        # Ten values printed to 6 decimals.
        assert abs(sum(cpu["all"][m] for m in MODES) - 100) < 1e-5, cpu["all"]
        for c in cpu["cpus"]:
            assert abs(sum(c[m] for m in MODES) - 100) < 1e-5, c
        close(sirq["total"]["NET_RX"], fig["softirqs"]["net_rx_per_s"], "NET_RX/s")
        close(sirq["total"]["NET_TX"], fig["softirqs"]["net_tx_per_s"], "NET_TX/s")
        by_cpu = {c["cpu"]: c["rates"] for c in sirq["cpus"]}
        for c in fig["softirqs"]["per_cpu"]:
            close(by_cpu[c["cpu"]]["NET_RX"], c["net_rx_per_s"], "NET_RX/s cpu%d" % c["cpu"])
        rdev = {x["name"]: x for x in fig["queues"]["devices"]}["ifbA"]
        qdev = {x["name"]: x for x in queues["devices"]}["ifbA"]
        rq = {q["queue"]: q for q in rdev["queues"]}
        moved = 0
        for q in qdev["queues"]:
            # The report lists only the queues that moved.
            want = rq.get(q["queue"], {"tx_packets": 0, "rx_packets": 0, "tx_pps": 0,
                                       "rx_pps": 0})
            for k in ("tx_packets", "rx_packets", "tx_pps", "rx_pps"):
                close(q[k], want[k], "ifbA queue %d %s" % (q["queue"], k))
            moved += q["rx_packets"] + q["tx_packets"]
        assert moved > 1000, qdev
    finally:
        d.stop()


TESTS = [test_rates_last_span, test_window_views_match_report]


def main():
    return nsrun.run(TESTS, "query spans", make_pair, remove_pair, need_iperf3=True)


if __name__ == "__main__":
    sys.exit(main())
