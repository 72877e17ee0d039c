#!/usr/bin/env python3
"""compare's statistics and views on real stored results: two sets of three exec tests
whose benchmark prints known transactions/s, and windows around UDP traffic between two
network namespaces, netmetricsd running in the sender's namespace (test_tests.py's
Daemon).

- The sets' means, 95 % confidence intervals and Welch's p are checked against values
  computed here with an independent method: the t density integrated by Simpson's rule
  (daemon/base/stats.c uses the incomplete beta function's continued fraction); sets far apart
  are "better, significant", sets that overlap "within noise".
- `compare --summary` gives the kit's rows, each equal to the sum computed here from the
  stored result (`result show`).
- `result export GLOB` gives every matched result, as a JSON array, JSON lines or a CSV
  table a row per result.
- Each stored result records the tuning: vA's 4 rx and 4 tx queues; in a namespace the
  host-wide rps_sock_flow_entries is not visible (null), so no RFS warning is made.
- On a fixture root (test_trend.py's Daemon) whose rps_sock_flow_entries is 0, windows
  under RFS profiles that keep the global table (flow_cnt 512 against 1024) are both
  warned "rfs_inactive"; a profile that sets the table is not; XPS on a device left with
  one tx queue is warned "xps_one_queue".

Needs root (namespaces). Environment: NETMETRICSD, NETMETRICSCTL. Ends with "N passed, M
failed".
"""
import csv
import io
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nsrun  # noqa: E402
from test_sampling import ADDR_B, NS_A, make_pair, remove_pair, sh  # noqa: E402
from test_tests import Daemon, run_test  # noqa: E402
import test_trend  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")

SET_A = [1000, 1020, 980]
SET_B = [2000, 2040, 1960]  # far above A: significant
SET_C = [1010, 990, 1030]   # within A's spread: noise


def t_pdf(x, df):
    return math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi) \
        * (1 + x * x / df) ** (-(df + 1) / 2)


def t_mass(t, df, steps=20000):
    """P(0 <= T <= t) by Simpson's rule."""
    h = t / steps
    s = t_pdf(0, df) + t_pdf(t, df)
    for i in range(1, steps):
        s += (4 if i % 2 else 2) * t_pdf(i * h, df)
    return s * h / 3


def t_quantile_975(df):
    lo, hi = 0.0, 100.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if 0.5 + t_mass(mid, df, 4000) < 0.975:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def describe(v):
    n = len(v)
    m = sum(v) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in v) / (n - 1))
    half = t_quantile_975(n - 1) * sd / math.sqrt(n)
    return m, sd, m - half, m + half


def welch(a, b):
    ma, sa = describe(a)[:2]
    mb, sb = describe(b)[:2]
    va, vb = sa * sa / len(a), sb * sb / len(b)
    t = (mb - ma) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va * va / (len(a) - 1) + vb * vb / (len(b) - 1))
    return t, df, 1 - 2 * t_mass(abs(t), df)


def close(got, want, rel=1e-6, what=""):
    assert abs(got - want) <= rel * max(1.0, abs(want)), "%s: got %r, want %r" % (what, got, want)


def figures(cmp):
    return {f["figure"]: f for f in cmp["figures"]}


def run_set(d, prefix, values):
    for i, v in enumerate(values, 1):
        rep = run_test(d, "--driver", "exec", "--name", "%s/%d" % (prefix, i),
                       "--duration", "1.5", "--warmup", "0.2", "--cooldown", "0.2",
                       "--figure", "transactions_per_s=tps ([0-9]+)", "--",
                       "sh", "-c", "echo tps %d; sleep 1.5" % v)
        assert rep["test"]["figures"]["transactions_per_s"] == v, rep["test"]


def test_significance():
    """Welch's t-test, CIs and the words, on three exec tests a side."""
    d = Daemon()
    try:
        run_set(d, "a", SET_A)
        run_set(d, "b", SET_B)
        run_set(d, "c", SET_C)
        cmp = d.json("compare", "a/*", "b/*", "--figures", "test.*")
        f = figures(cmp)["test.transactions_per_s"]
        assert f["better"] == "higher" and f["verdict"] == "better", f
        t, df, p = welch(SET_A, SET_B)
        # JSON carries six decimals of t and df, six significant digits of p.
        close(f["t"], t, 1e-6, "t")
        close(f["df"], df, 1e-6, "df")
        assert abs(f["p"] - p) <= 1e-5 * p, (f["p"], p)
        assert f["p"] < 0.05 and f["significance"] == "significant", f
        for side, vals in (("a", SET_A), ("b", SET_B)):
            m, sd, lo, hi = describe(vals)
            close(f[side]["mean"], m, 1e-12, side + " mean")
            close(f[side]["stddev"], sd, 1e-9, side + " sd")
            close(f[side]["ci95_low"], lo, 1e-6, side + " ci low")
            close(f[side]["ci95_high"], hi, 1e-6, side + " ci high")
        text = d.ctl("compare", "a/*", "b/*", "--figures", "test.*").stdout
        line = [l for l in text.splitlines() if l.startswith("test.transactions_per_s")]
        assert line and line[0].rstrip().endswith("better, significant"), text

        cmp = d.json("compare", "a/*", "c/*", "--figures", "test.*")
        f = figures(cmp)["test.transactions_per_s"]
        t, df, p = welch(SET_A, SET_C)
        assert abs(f["p"] - p) <= 1e-5 * p and p > 0.05, (f["p"], p)
        assert f["verdict"] == "better" and f["significance"] == "within noise", f
        text = d.ctl("compare", "a/*", "c/*", "--figures", "test.*").stdout
        assert "better, within noise" in text, text
        rows = list(csv.DictReader(io.StringIO(
            d.ctl("--csv", "compare", "c/*", "a/*", "--figures", "test.*").stdout)))
        row = [r for r in rows if r["figure"] == "test.transactions_per_s"][0]
        assert row["verdict"] == "worse" and row["significance"] == "within noise", row
        assert abs(float(row["p"]) - p) < 1e-6, row

        # Each result recorded the tuning of vA (4 rx and 4 tx queues in make_pair).
        r = d.json("result", "show", "a/1")
        devs = {x["name"]: x for x in r["tuning"]["devices"]}
        nrx = len([q for q in sh("ls", "/sys/class/net/vA/queues", ns=NS_A).stdout.split()
                   if q.startswith("rx-")])
        assert "vA" in devs and devs["vA"]["rx_queues"] == nrx == 4, r["tuning"]
        assert devs["vA"]["tx_queues"] == 4, r["tuning"]
        assert r["tuning"]["rps_sock_flow_entries"] is None, r["tuning"]
        assert "warnings" not in cmp, cmp.get("warnings")

        # Export of a glob: every result, as an array, as lines, as one table.
        arr = json.loads(d.ctl("result", "export", "a/*").stdout)
        assert [x["window"]["name"] for x in arr] == ["a/1", "a/2", "a/3"], arr
        lines = d.ctl("result", "export", "b/*", "--format", "jsonl").stdout.splitlines()
        assert [json.loads(l)["test"]["figures"]["transactions_per_s"] for l in lines] == SET_B
        rows = list(csv.DictReader(io.StringIO(d.ctl("--csv", "result", "export",
                                                     "c/*").stdout)))
        assert [r["name"] for r in rows] == ["c/1", "c/2", "c/3"], rows
        assert [int(r["test.transactions_per_s"]) for r in rows] == SET_C, rows
        r = d.ctl("result", "export", "zz/*", check=False)
        assert r.returncode == 1 and "not_found" in r.stderr and "zz/*" in r.stderr, r.stderr
        daemon_csv = d.json("result", "export", "c/*", "--format", "csv")
        assert daemon_csv["count"] == 3 and daemon_csv["skipped"] == [], daemon_csv
        assert daemon_csv["csv"].splitlines()[0] == d.ctl(
            "--csv", "result", "export", "c/*").stdout.splitlines()[0]
    finally:
        assert d.stop() == 0


SEND = "import socket,sys\ns=socket.socket(socket.AF_INET,socket.SOCK_DGRAM)\n" \
       "for i in range(int(sys.argv[2])): s.sendto(b'x'*64,(sys.argv[1],9))\n"


def summary_of(r):
    """The kit's rows computed from a stored result."""
    f = r["figures"]
    rows = {}
    for s in f["queues"]["cpusets"][:2]:
        by = s["by_irq_cpu"]
        rows["summary.queue_packets." + s["name"]] = by["rx_packets"] + by["tx_packets"]
    rows["cpu.all.busy"] = f["cpu"]["all"]["busy"]
    rows["interrupts.ipi_all_per_s"] = f["interrupts"]["ipi_all_per_s"]
    rows["summary.packets_sent"] = sum(x["tx_packets"] for x in f["devices"])
    rows["summary.packets_received"] = sum(x["rx_packets"] for x in f["devices"])
    rows["summary.packets_dropped"] = sum(x["rx_dropped"] + x["tx_dropped"]
                                          for x in f["devices"]) + f["softnet"]["dropped"]
    if "tcp" in f:
        rows["tcp.retrans_segs"] = f["tcp"]["retrans_segs"]
    rows["summary.softirqs"] = f["softirqs"]["net_rx"] + f["softirqs"]["net_tx"]
    for k, v in f.get("sysctl", {}).items():
        if "arfs" in k:
            rows["sysctl." + k] = v
    return rows


def test_summary():
    """compare --summary of two windows around UDP traffic: the kit's rows, in order,
    with the values summed from the stored results."""
    d = Daemon()
    try:
        time.sleep(1.2)
        for name, count in (("w/1", 2000), ("w/2", 5000)):
            # Windows of one length (3 s): their totals are judged (compare.h's
            # COMPARE_SPAN_TOLERANCE_PCT).
            t0 = time.monotonic()
            d.ctl("mark", "start", name)
            sh("python3", "-c", SEND, ADDR_B, str(count), ns=NS_A)
            time.sleep(max(0.1, t0 + 3.0 - time.monotonic()))
            d.ctl("mark", "stop", name, "--cpus", "first=0", "--cpus", "rest=1-8191")
        ra, rb = d.json("result", "show", "w/1"), d.json("result", "show", "w/2")
        want_a, want_b = summary_of(ra), summary_of(rb)
        assert want_b["summary.packets_sent"] >= 5000, want_b
        cmp = d.json("compare", "w/1", "w/2", "--summary")
        assert cmp["summary"] is True
        got = [f["figure"] for f in cmp["figures"]]
        order = ["summary.queue_packets.first", "summary.queue_packets.rest", "cpu.all.busy",
                 "interrupts.ipi_all_per_s", "summary.packets_sent",
                 "summary.packets_received", "summary.packets_dropped", "tcp.retrans_segs",
                 "summary.softirqs"]
        assert got[:len(order)] == [o for o in order if o in want_a or o in want_b], got
        assert all(g.startswith("sysctl.") and "arfs" in g for g in got[len(order):]), got
        for f in cmp["figures"]:
            close(f["a"]["mean"], want_a.get(f["figure"], 0), 1e-9, "A " + f["figure"])
            close(f["b"]["mean"], want_b.get(f["figure"], 0), 1e-9, "B " + f["figure"])
        assert cmp["windows"]["totals_judged"] is True, cmp["windows"]
        # More packets sent is not better by itself (their size decides); fewer dropped is.
        sent = figures(cmp)["summary.packets_sent"]
        assert sent["verdict"] is None and sent["better"] is None, sent
        dropped = figures(cmp)["summary.packets_dropped"]
        assert dropped["better"] == "lower" and dropped["verdict"] in ("better", "worse",
                                                                       "same"), dropped
        text = d.ctl("compare", "w/1", "w/2", "--summary").stdout
        shown = [l.split()[0] for l in text.splitlines()[4:] if l.strip()]
        assert shown == got, (shown, got, text)
        rows = {l.split()[0]: l.rstrip() for l in text.splitlines()[4:] if l.strip()}
        assert not rows["summary.packets_sent"].endswith(("better", "worse")), text
        assert rows["summary.packets_dropped"].endswith(dropped["verdict"]), text
        # Without --summary, many more rows.
        assert len(d.json("compare", "w/1", "w/2")["figures"]) > 3 * len(got)
        # A third window of 6 s: against w/2 its totals are not judged
        # (each says why, and its per-second change); its rates and ratios are. Packets
        # dropped is a total with a direction (packets sent has none: see above).
        t0 = time.monotonic()
        d.ctl("mark", "start", "w/3")
        sh("python3", "-c", SEND, ADDR_B, "10000", ns=NS_A)
        time.sleep(max(0.1, t0 + 6.0 - time.monotonic()))
        d.ctl("mark", "stop", "w/3")
        cmp = d.json("compare", "w/2", "w/3", "--summary")
        assert cmp["windows"]["totals_judged"] is False, cmp["windows"]
        assert 40 < cmp["windows"]["difference_pct"] < 60, cmp["windows"]
        sent = figures(cmp)["summary.packets_dropped"]
        assert sent["verdict"] is None and "unjudged" in sent, sent
        assert sent["per_s"]["verdict"] in ("better", "worse", "same"), sent
        per_s = [sent["b"]["mean"] / cmp["windows"]["b_span_s"],
                 sent["a"]["mean"] / cmp["windows"]["a_span_s"]]
        close(sent["per_s"]["b"]["mean"], per_s[0], 1e-6, "per_s B")
        close(sent["per_s"]["a"]["mean"], per_s[1], 1e-6, "per_s A")
        text = d.ctl("compare", "w/2", "w/3", "--summary").stdout
        assert "summary.packets_dropped" in text and "total not judged; per s" in text, text
        assert "(totals are not judged: the windows last " in text, text
        rows = list(csv.DictReader(io.StringIO(
            d.ctl("--csv", "compare", "w/2", "w/3", "--summary").stdout)))
        row = [r for r in rows if r["figure"] == "summary.packets_dropped"][0]
        assert row["verdict"] == "" and row["per_s_verdict"] == sent["per_s"]["verdict"], row
        close(float(row["per_s_b_mean"]), per_s[0], 1e-6, "csv per_s B")
        # compare --html: the same rule, in words, and why.
        page = os.path.join(d.dir, "cmp.html")
        d.ctl("compare", "w/2", "w/3", "--html", page)
        with open(page) as f:
            html = f.read()
        assert "total not judged; per second " in html, html[:3000]
        assert "Totals (counts over the window) are not judged: the windows last" in html
    finally:
        assert d.stop() == 0


def profile_window(d, base, name, text):
    """A window under the profile text (applied from a file, reverted after)."""
    path = os.path.join(base, name.replace("/", "-") + ".conf")
    with open(path, "w") as f:
        f.write(text)
    d.ctl("profile", "apply", path)
    try:
        d.ctl("mark", "start", name)
        time.sleep(0.3)
        d.ctl("mark", "stop", name)
    finally:
        d.ctl("profile", "revert")
    return d.json("result", "show", name)


def codes(cmp):
    return sorted((w["code"], w["side"]) for w in cmp.get("warnings", []))


def test_tuning_warnings():
    """RFS with rps_sock_flow_entries 0, and XPS on one tx queue, through profile apply,
    windows and compare on a fixture root."""
    base = tempfile.mkdtemp(prefix="nm-cmp-")
    os.chmod(base, 0o755)  # the daemon's main process reads the root as netmetrics
    root = os.path.join(base, "root")
    d = None
    try:
        subprocess.run(["python3", os.path.join(FIXTURES, "gen-host.py"), root, "--cpus", "4",
                        "--queues", "4", "--irqs", "40"], check=True, capture_output=True)
        # Profiles write a fixture root as the daemon's main process, user netmetrics.
        subprocess.run(["chown", "-R", "netmetrics:", root], check=True)
        # eth1 keeps one tx queue.
        for q in (1, 2, 3):
            shutil.rmtree(os.path.join(root, "sys/class/net/eth1/queues/tx-%d" % q))
        with open(os.path.join(root, "proc/sys/net/core/rps_sock_flow_entries")) as f:
            assert f.read().strip() == "0"
        d = test_trend.Daemon(root)
        rfs = "[profile]\ndevice = eth0\n[rfs]\nflow_cnt = %d\nsock_flow_entries = %s\n"
        r512 = profile_window(d, base, "rfs/512", rfs % (512, "keep"))
        profile_window(d, base, "rfs/1024", rfs % (1024, "keep"))
        t = r512["tuning"]
        assert t["rps_sock_flow_entries"] == 0, t
        assert "flow_cnt" in t["profile"]["kinds"] and t["profile"]["device"] == "eth0", t
        eth0 = {x["name"]: x for x in t["devices"]}["eth0"]
        assert eth0["flow_cnt"] == 4 * 512 and eth0["rx_queues"] == 4, eth0
        cmp = d.json("compare", "rfs/512", "rfs/1024")
        assert codes(cmp) == [("rfs_inactive", "A"), ("rfs_inactive", "B")], cmp.get("warnings")
        msg = {w["side"]: w["message"] for w in cmp["warnings"]}
        assert "rps_sock_flow_entries is 0" in msg["A"] and "rps_flow_cnt 2048" in msg["A"], msg
        assert "rps_flow_cnt 4096" in msg["B"], msg
        text = d.ctl("compare", "rfs/512", "rfs/1024").stdout
        assert "(!) A: RFS could not take effect" in text, text
        assert "(!) B: RFS could not take effect" in text, text

        # With the global table set, RFS works: no warning.
        on = profile_window(d, base, "rfs/on", rfs % (512, "4096"))
        assert on["tuning"]["rps_sock_flow_entries"] == 4096, on["tuning"]
        assert codes(d.json("compare", "rfs/on", "rfs/on")) == []
        # XPS on a device with one tx queue; tx-0's mask is set, nothing else to steer.
        xps = profile_window(d, base, "xps/1", "[profile]\ndevice = eth1\n[xps]\n"
                             "policy = one-to-one\ncpus = 0-3\n")
        eth1 = {x["name"]: x for x in xps["tuning"]["devices"]}["eth1"]
        assert eth1["tx_queues"] == 1 and eth1["xps_queues"] == 1, eth1
        cmp = d.json("compare", "rfs/on", "xps/1")
        assert codes(cmp) == [("xps_one_queue", "B")], cmp.get("warnings")
        assert "eth1 has one tx queue" in cmp["warnings"][0]["message"], cmp["warnings"]
    finally:
        if d is not None:
            rc, log = d.stop()
            assert rc == 0, log
        shutil.rmtree(base, ignore_errors=True)


def main():
    return nsrun.run([test_significance, test_summary, test_tuning_warnings], "compare", make_pair, remove_pair)


if __name__ == "__main__":
    sys.exit(main())
