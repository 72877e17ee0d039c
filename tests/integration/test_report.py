#!/usr/bin/env python3
"""Reports on the real kernel: a window (mark start / mark stop) around iperf3 traffic
between two network namespaces joined by a 4-queue veth pair, netmetricsd running in the
sender's namespace. Checks that the report's device bytes and TCP segments agree with
iperf3's own counts, that its rates are its increments over the window, and that compare
of two such windows (and of a glob of them) answers with every figure side by side.

Tolerances, as in test_sampling.py: on the wire each 1448-byte segment carries 52-66
bytes of headers, plus the handshake and iperf3's control connection, so vA's tx bytes
are 100-110% of iperf3's sent bytes; TCP OutSegs are 90-125% of sent bytes / 1448 (the
MSS of a 1500-byte MTU with timestamps); RetransSegs are iperf3's retransmits, up to 10
more. (Seen here: 100.15-100.19% of the bytes, 100.07-100.09% of the segments, the
retransmits exact.)

Needs root (namespaces) and iperf3. Environment: NETMETRICSD, NETMETRICSCTL. Ends with
"N passed, M failed".
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nsrun  # noqa: E402
from test_sampling import NS_A, Daemon, iperf, make_pair, remove_pair  # noqa: E402

MSS = 1448


def window(d, name, seconds, *opts):
    """A window around an iperf3 run of seconds: its report (mark-stop's reply) and the
    iperf3 result."""
    d.ctl("mark", "start", name)
    t0 = time.time()
    res = iperf(seconds)
    # iperf3 counts bytes written to its socket; the last of them leave the socket buffer a
    # moment after it exits. Close the window once they are on the wire.
    time.sleep(0.5)
    rep = d.json("mark", "stop", name, *opts)
    return rep, res, time.time() - t0


def test_report_matches_iperf3():
    """Device bytes, TCP segments and their rates in a report agree with iperf3."""
    d = Daemon(ns=NS_A)
    try:
        time.sleep(1.2)
        rep, res, wall = window(d, "ipr", 3, "--cpus", "first=0", "--cpus", "others=1-8191")
        f = rep["figures"]
        sent = res["end"]["sum_sent"]["bytes"]
        assert sent > 10 * 2**20, "iperf3 moved only %d bytes" % sent
        assert rep["window"]["name"] == "ipr" and rep["window"]["complete"], rep["window"]
        assert 3 <= rep["span_s"] <= wall + 0.5, (rep["span_s"], wall)

        devs = {x["name"]: x for x in f["devices"]}
        assert "vA" in devs, list(devs)
        va = devs["vA"]
        # Headers add 52-66 bytes per 1448-byte segment: at most 110% of the payload, and
        # at least what the server read (what was still queued when the window closed, or
        # when the server stopped, never left).
        recvd = res["end"]["sum_received"]["bytes"]
        assert recvd <= va["tx_bytes"] <= sent * 1.10, \
            "report vA tx_bytes %d vs iperf3 %d sent, %d read" % (va["tx_bytes"], sent, recvd)
        assert va["rx_bytes"] > 0 and va["rx_packets"] > 0, va
        # The rates are the increments over the time between the link source's samples.
        assert abs(va["tx_bytes_per_s"] * rep["span_s"] - va["tx_bytes"]) < 0.05 * va["tx_bytes"]

        tcp = f["tcp"]
        out = tcp["out_segs"]
        assert sent / MSS * 0.9 <= out <= sent / MSS * 1.25, \
            "report Tcp.OutSegs %d vs %d bytes / %d" % (out, sent, MSS)
        assert 0 < tcp["in_segs"] < out, tcp
        assert abs(tcp["retrans_ratio"] - tcp["retrans_segs"] / out) < 1e-6, tcp
        # The namespace's TCP is iperf3's alone: its retransmits, give or take the
        # control connection's.
        retrans = res["end"]["sum_sent"].get("retransmits", tcp["retrans_segs"])
        assert retrans <= tcp["retrans_segs"] <= retrans + 10, (tcp, retrans)
        # A GSO skb is one packet on the veth but several TCP segments.
        assert 0 < va["tx_packets"] <= out * 1.1 + 100, (va["tx_packets"], out)

        si = f["softirqs"]
        assert si["net_rx"] > 0, si
        assert si["rx_packets"] >= va["rx_packets"], si
        assert si["packets_per_net_rx"] > 0, si
        cpu = f["cpu"]
        assert 0 < cpu["all"]["busy"] <= 100, cpu["all"]
        online = os.sysconf("SC_NPROCESSORS_ONLN")
        assert sum(s["count"] for s in cpu["sets"]) == online, (cpu["sets"], online)
        assert [s["name"] for s in f["queues"]["cpusets"]] == ["first", "others"]
        # veth has no per-queue packet counters: no queue moved.
        assert f["queues"]["devices"] == [], f["queues"]["devices"]
        irq = f["interrupts"]
        assert irq["ipi_all"] >= irq["ipi_cal"] >= irq["ipi_tlb"] >= 0, irq
        # Each IPI once: TLB shootdowns are function-call IPIs, CAL holds them already.
        lines = {x["line"]: x for x in irq["ipis"]}
        assert irq["ipi_all"] == sum(x["total"] for x in irq["ipis"] if x["in_ipi_all"]), irq
        if "TLB" in lines:
            assert not lines["TLB"]["in_ipi_all"] and irq["ipi_tlb"] == lines["TLB"]["total"]
            assert irq["ipi_all"] == lines["RES"]["total"] + lines["CAL"]["total"], irq

        # The same report again, stored, and for people.
        shown = d.json("result-show", "ipr")
        assert shown["figures"]["tcp"]["out_segs"] == out
        text = d.ctl("report", "ipr").stdout
        assert "window ipr:" in text and "vA" in text and "out_segs" in text, text
        if "TLB" in lines:
            assert "IPI all lines (TLB once, in CAL)" in text, text
            assert "TLB (part of CAL, not added)" in text, text
        csv = d.ctl("--csv", "report", "ipr").stdout.splitlines()
        assert csv[0] == "group,figure,key,value,unit", csv[:2]
        assert any(l.startswith("tcp,out_segs,,%d" % out) for l in csv), csv[:40]
    finally:
        assert d.stop() == 0, "daemon exit status"


def test_compare_windows():
    """compare of two windows, and of a glob (iterations) against one window."""
    d = Daemon(ns=NS_A)
    try:
        time.sleep(1.2)
        a, _, _ = window(d, "cmp/1", 2)
        b, _, _ = window(d, "cmp/2", 2)
        c = d.json("compare", "cmp/1", "cmp/2")
        figs = {x["figure"]: x for x in c["figures"]}
        out = figs["tcp.out_segs"]
        assert out["a"]["mean"] == a["figures"]["tcp"]["out_segs"], out
        assert out["b"]["mean"] == b["figures"]["tcp"]["out_segs"], out
        assert out["better"] is None and out["unit"] == "segments", out
        assert abs(out["change"] - (out["b"]["mean"] - out["a"]["mean"])) < 1e-6, out
        assert figs["tcp.retrans_segs"]["better"] == "lower"
        assert "devices.vA.tx_bytes" in figs, sorted(figs)[:20]
        assert c["a"]["names"] == ["cmp/1"] and c["b"]["names"] == ["cmp/2"], c["a"]

        g = d.json("compare", "cmp/*", "cmp/2")
        out = {x["figure"]: x for x in g["figures"]}["tcp.out_segs"]
        assert g["a"]["n"] == 2 and out["a"]["n"] == 2, (g["a"], out)
        want = (a["figures"]["tcp"]["out_segs"] + b["figures"]["tcp"]["out_segs"]) / 2
        assert abs(out["a"]["mean"] - want) < 1e-6, (out, want)
        assert out["a"]["min"] <= out["a"]["mean"] <= out["a"]["max"], out

        r = d.ctl("compare", "cmp/1", "nothing/*", check=False)
        assert r.returncode == 1 and "not_found" in r.stderr and "side B" in r.stderr, r.stderr
        text = d.ctl("compare", "cmp/1", "cmp/2").stdout
        assert "tcp.out_segs" in text and "CHANGE" in text and "\033[" not in text, text[:500]
        csv = d.ctl("--csv", "compare", "cmp/1", "cmp/2").stdout.splitlines()
        assert csv[0].startswith("figure,unit,better,a_mean"), csv[0]
        assert any(l.startswith("tcp.out_segs,segments,,") for l in csv), csv[:5]
        assert any(l.startswith("tcp.retrans_segs,segments,lower,") for l in csv), csv[:5]
    finally:
        assert d.stop() == 0, "daemon exit status"


TESTS = [test_report_matches_iperf3, test_compare_windows]


def main():
    return nsrun.run(TESTS, "report", make_pair, remove_pair, need_iperf3=True)

if __name__ == "__main__":
    sys.exit(main())
