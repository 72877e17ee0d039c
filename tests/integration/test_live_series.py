#!/usr/bin/env python3
"""A test's live figures kept with its result (daemon/store/testseries.c, seriesblock-test.c): two
netperf TCP_STREAM processes run 5 s from namespace A to netserver in B with interim results
(-D 1). The stored result's series block has the source "test": test.throughput_mbps (the
sum) and test.throughput_mbps.proc0, .proc1, which `series --window` answers although the ring
has no such series; their rate over the whole window is netperf's own final figure (within
15 %: the window's last second may have no record yet, and under load netperf's rate moves by
a third from one second to the next); `trend --window` takes them; `report --html` draws them
(rendered by headless Chromium) with the mean `series` gives; and after a restart of the daemon
the replies, read from NAME.series, are the same. A TCP_RR test then keeps
test.transactions_per_s the same way.

Needs root (namespaces), netperf/netserver. Environment: NETMETRICSD, NETMETRICSCTL. Ends with
"N passed, M failed".
"""
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nsrun  # noqa: E402
from test_sampling import ADDR_B, make_pair, remove_pair  # noqa: E402
from test_series_stored import attr, chromium_dom  # noqa: E402
from test_tests import Daemon, Servers, need_tools, run_test, window_rate  # noqa: E402

NAME = "np-live"


def points(reply, name):
    got = {s["name"]: s for s in reply["series"]}
    assert name in got, (name, list(got))
    return [p[1] for p in got[name]["points"]]


def mean(v):
    return sum(v) / len(v)


def check_html(d, want):
    """report --html: the chart of the test's own figures, its sum's mean as series says."""
    out = os.path.join(d.dir, "pictures")
    os.makedirs(out, exist_ok=True)
    page = os.path.join(out, "report.html")
    d.ctl("report", NAME, "--html", page)
    try:
        dom = chromium_dom(page, os.path.join(out, "report.png"))
    except nsrun.Skip as e:
        print("  (no Chromium: %s; the page's text checked instead)" % e)
        with open(page) as f:
            dom = f.read()
    assert 'data-chart="test"' in dom, dom[:3000]
    tag = '<polyline fill="none" stroke="#1f77b4" stroke-width="1.5" ' \
          'data-series="test.throughput_mbps"'
    got = float(attr(dom, tag, "data-mean"))
    assert abs(got - want) <= 0.005 * want, (got, want)
    assert 'data-series="test.throughput_mbps.proc1"' in dom


def test_live_figures_stored():
    need_tools()
    srv = Servers()
    d = Daemon()
    base = d.dir
    try:
        rep = run_test(d, "--driver", "netperf", "--name", NAME, "--host", ADDR_B,
                       "--duration", "5", "--warmup", "0", "--cooldown", "0", "--procs", "2")
        final = rep["test"]["figures"]["throughput_mbps"]
        assert final > 0, rep["test"]["figures"]
        blk = os.path.join(base, "state", "results", NAME + ".series")
        assert os.path.getsize(blk) > 100, os.path.getsize(blk)
        # The ring has no series of the test: the stored block answers.
        assert d.json("series", "test.*", "--from", "-30")["series"] == []
        before = d.json("series", "test.*", "--window", NAME)
        names = sorted(s["name"] for s in before["series"])
        assert names == ["test.throughput_mbps", "test.throughput_mbps.proc0",
                         "test.throughput_mbps.proc1"], names
        assert all(s["unit"] == "Mbit" and s["labels"]["source"] == "test"
                   for s in before["series"]), before["series"]
        tput = points(before, "test.throughput_mbps")
        whole = window_rate(d, NAME, "test.throughput_mbps")
        print("  final %.1f Mbit/s; interim points %s; over the window %+.1f %%" % (
            final, ["%.0f" % x for x in tput], 100 * (whole - final) / final))
        assert len(tput) >= 3, tput
        assert abs(whole - final) <= 0.15 * final, (whole, final, tput)
        # The sum is the processes' sum, point by point.
        p0, p1 = (points(before, "test.throughput_mbps.proc%d" % i) for i in (0, 1))
        for s, a, b in zip(tput, p0, p1):
            assert abs(s - (a + b)) <= 1e-6 * max(s, 1), (s, a, b)
        tr = d.json("trend", "test.throughput_mbps", "--window", NAME)
        assert tr["metric"] == "test.throughput_mbps" and tr["points"] >= 3, tr
        check_html(d, mean(tput))
        # A restart: the same replies, from NAME.series.
        assert d.stop(keep=True) == 0
        d = Daemon(base)
        after = d.json("series", "test.*", "--window", NAME)
        assert after == before, (before, after)
        tr2 = d.json("trend", "test.throughput_mbps", "--window", NAME)
        assert tr2 == tr, (tr, tr2)
        # A request/response test: transactions per second, counted as transactions.
        rep = run_test(d, "--driver", "netperf", "--name", NAME + "-rr", "--type", "TCP_RR",
                       "--host", ADDR_B, "--duration", "5", "--warmup", "0", "--cooldown",
                       "0")
        final = rep["test"]["figures"]["transactions_per_s"]
        rr = d.json("series", "test.*", "--window", NAME + "-rr")
        assert sorted(s["name"] for s in rr["series"]) == [
            "test.transactions_per_s", "test.transactions_per_s.proc0"], rr["series"]
        assert rr["series"][0]["unit"] == "transactions", rr["series"][0]
        trans = points(rr, "test.transactions_per_s")
        whole = window_rate(d, NAME + "-rr", "test.transactions_per_s")
        print("  final %.0f transactions/s; interim points %s; over the window %+.1f %%" % (
            final, ["%.0f" % x for x in trans], 100 * (whole - final) / final))
        assert len(trans) >= 3 and abs(whole - final) <= 0.15 * final, (final, whole, trans)
    finally:
        d.stop()
        srv.stop()


def test_live_figures_while_running():
    """While a netperf test runs, `series 'test.*' --window NAME` and `trend --window` answer
    from its figures so far (kept with the test, not yet stored); once stored, the points of
    the steps that were whole then are the same."""
    need_tools()
    srv = Servers()
    d = Daemon()
    name = "np-running"
    try:
        d.ctl("test", "start", "--driver", "netperf", "--name", name, "--host", ADDR_B,
              "--duration", "7", "--warmup", "0", "--cooldown", "0")
        time.sleep(4.5)
        st = d.json("test", "status", name)["tests"][0]
        assert st["state"] in ("running", "measuring"), st
        live = d.json("series", "test.*", "--window", name)
        names = sorted(x["name"] for x in live["series"])
        assert names == ["test.throughput_mbps", "test.throughput_mbps.proc0"], (names, live)
        pts = points(live, "test.throughput_mbps")
        print("  while running: %s" % ["%.0f" % x for x in pts])
        assert len(pts) >= 2 and all(x > 0 for x in pts), pts
        tr = d.json("trend", "test.throughput_mbps", "--window", name)
        assert tr["metric"] == "test.throughput_mbps" and tr["points"] >= 2, tr
        deadline = time.time() + 60
        while d.json("test", "status", name)["tests"][0]["state"] not in ("passed", "failed"):
            assert time.time() < deadline, d.logtext()[-2000:]
            time.sleep(0.3)
        after = {p[0]: p[1] for s in d.json("series", "test.throughput_mbps", "--window",
                                             name)["series"] for p in s["points"]}
        # The last live step ended at the newest sample then, between two reports.
        for t, v in live["series"][0]["points"][:-1]:
            assert t in after and abs(after[t] - v) <= 1e-6 * v, (t, v, after)
    finally:
        d.stop()
        srv.stop()


def main():
    if os.geteuid() == 0 and shutil.which("ip") is None:
        print("ip (iproute2) is missing")
        return 1
    return nsrun.run([test_live_figures_stored, test_live_figures_while_running], "live series",
                     make_pair, remove_pair)


if __name__ == "__main__":
    sys.exit(main())
