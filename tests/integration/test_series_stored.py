#!/usr/bin/env python3
"""The series stored with a result (daemon/seriesblock.c) on the real kernel: a test sends
UDP from namespace A to B at 2000 packets/s, then 400/s (test_tests.SENDER); its
`series --window` and `trend --window` replies are taken while the ring holds the test, and
again once it does not: after a restart of the daemon, and (without a restart) once a
1 MiB ring sampled every 10 ms has evicted the test's samples. The replies must be
identical, member for member (whatever the sender managed on a shared host): the stored block keeps the records the ring answered from.
A damaged block is skipped with a warning: the reply is the ring's "holds no samples" one
again, and the daemon keeps running.

Needs root (namespaces). Environment: NETMETRICSD, NETMETRICSCTL. Ends with
"N passed, M failed".
"""
import base64
import calendar
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nsrun  # noqa: E402
from test_sampling import ADDR_B, NS_A, make_pair, remove_pair, sh  # noqa: E402
from test_tests import SENDER, Daemon, run_test  # noqa: E402

HOSTILE = "<i>\"&'x"
GLOBS = ("link.vA.tx_packets", "link.vA.*", "cpu.all.*", "snmp.Udp.*")


def views(d, name):
    """The replies that must survive: series of a few globs, and the trend."""
    out = {}
    for g in GLOBS:
        out["series " + g] = d.json("series", g, "--window", name)
    out["series step 2"] = d.json("series", "link.vA.tx_packets", "--window", name,
                                  "--step", "2")
    out["trend"] = d.json("trend", "link.vA.tx_packets", "--window", name)
    return out


def same(a, b):
    for k in a:
        assert a[k] == b[k], "%s differs:\n%s\n%s" % (k, a[k], b[k])


def start_test(d, name):
    rep = run_test(d, "--driver", "exec", "--name", name, "--duration", "24", "--warmup",
                   "0.5", "--cooldown", "0.5", "--", "python3", "-c", SENDER, ADDR_B)
    return rep


def chromium_dom(html, shot):
    """The DOM headless Chromium makes of file html, and a screenshot of it in shot.
    Skips (nsrun.Skip) only when chromium cannot start at all."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        raise nsrun.Skip("chromium is not installed (tools/install-deps installs it)")
    prof = tempfile.mkdtemp(prefix="nm-chromium-")
    try:
        common = [exe, "--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--user-data-dir=" + prof]
        try:
            r = subprocess.run(common + ["--screenshot=" + shot, "--window-size=1200,2000",
                                         "file://" + html], capture_output=True, text=True,
                               timeout=120)
        except OSError as e:
            raise nsrun.Skip("chromium cannot start: %s" % e)
        if not os.path.exists(shot):
            if r.returncode != 0 and "error while loading shared libraries" in r.stderr:
                raise nsrun.Skip("chromium cannot start: %s" % r.stderr[-300:])
            raise AssertionError("no screenshot: %d %s" % (r.returncode, r.stderr[-2000:]))
        with open(shot, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n", "not a PNG"
        r = subprocess.run(common + ["--dump-dom", "file://" + html], capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 0 and "<svg" in r.stdout, (r.returncode, r.stderr[-2000:])
        return r.stdout
    finally:
        shutil.rmtree(prof, ignore_errors=True)


def attr(dom, tag_start, name):
    """The value of attribute name in the first element whose text starts with tag_start."""
    i = dom.index(tag_start)
    m = re.compile(r'%s="([^"]*)"' % name).search(dom, i, dom.index(">", i))
    assert m, (tag_start, name, dom[i:i + 300])
    return html.unescape(m.group(1))


def check_pictures(d, name, rep, before):
    """report --html, compare --html and series --svg of the test, rendered by Chromium:
    the DOM has the charts, carrying the test's own figures."""
    out = os.path.join(d.dir, "pictures")
    os.makedirs(out, exist_ok=True)
    page = os.path.join(out, "report.html")
    d.ctl("report", name, "--html", page)
    with open(page) as f:
        text = f.read()
    assert "<script" not in text and "http://" not in text.replace(
        "http://www.w3.org/2000/svg", ""), "the page fetches or runs something"
    dom = chromium_dom(page, os.path.join(out, "report.png"))
    # The headline: the device's rate as the result has it.
    dev = [x for x in rep["figures"]["devices"] if x["name"] == "vA"][0]
    got = float(attr(dom, '<div class="fig" data-figure="vA tx packets/s"', "data-value"))
    assert abs(got - dev["tx_packets_per_s"]) <= 1e-5 * dev["tx_packets_per_s"], (got, dev)
    assert float(attr(dom, '<div class="fig" data-figure="cpu.all.busy"', "data-value")) == \
        float("%.6g" % rep["figures"]["cpu"]["all"]["busy"])
    # The rates chart: the metric's line with the series' own mean, the trend marked.
    pts = [p[1] for p in before["series link.vA.tx_packets"]["series"][0]["points"]]
    mean = float(attr(dom, '<polyline fill="none" stroke="#1f77b4"', "data-mean"))
    assert attr(dom, '<polyline fill="none" stroke="#1f77b4"', "data-series") == \
        "link.vA.tx_packets"
    assert abs(mean - sum(pts) / len(pts)) <= 1e-4 * mean, (mean, sum(pts) / len(pts))
    if before["trend"].get("plateau"):
        plateau = float(attr(dom, '<rect class="plateau"', "data-level"))
        assert abs(plateau - before["trend"]["plateau"]["level"]) <= 1e-4 * plateau
    if before["trend"].get("onset"):
        assert '<line class="onset"' in dom, "no onset marked"
    for chart in ("rates", "cpu", "softirqs", "irqs"):
        assert 'data-chart="%s"' % chart in dom, chart
    # Both runs overlaid; one chart of a series.
    page = os.path.join(out, "compare.html")
    d.ctl("compare", name, name, "--html", page)
    dom = chromium_dom(page, os.path.join(out, "compare.png"))
    assert 'data-chart="overlay"' in dom and 'data-run="A"' in dom and 'data-run="B"' in dom
    assert '<tr data-figure="span_s">' in dom, dom[:2000]
    svg = os.path.join(out, "series.svg")
    d.ctl("series", "link.vA.tx_packets", "--window", name, "--svg", svg)
    with open(svg) as f:
        text = f.read()
    assert 'data-series="link.vA.tx_packets" data-points="%d"' % len(pts) in text, text[:800]
    # A hostile device name (a veth pair of the namespace's own) is text, never markup.
    sh("ip", "link", "add", HOSTILE, "type", "veth", "peer", "name", "hpeer", ns=NS_A)
    try:
        sh("ip", "link", "set", HOSTILE, "up", ns=NS_A)
        time.sleep(1.5)
        d.ctl("series", "link.<i>*.tx_bytes", "--from", "-1", "--svg", svg)
        with open(svg) as f:
            text = f.read()
        assert "link.&lt;i&gt;&quot;&amp;&#39;x.tx_bytes" in text, text[:1500]
        assert HOSTILE not in text, text[:1500]
    finally:
        sh("ip", "link", "del", HOSTILE, ns=NS_A, check=False)


def test_series_after_restart():
    d = Daemon()
    base = d.dir
    try:
        rep = start_test(d, "falls")
        before = views(d, "falls")
        print("  " + "".join(x for x in d.logtext().splitlines(True) if "copied from" in x))
        check_pictures(d, "falls", rep, before)
        # What the sender did (a shared host may stall it: no rates asserted here).
        rates = [p[1] for p in before["series link.vA.tx_packets"]["series"][0]["points"]]
        assert max(rates) > 1000 and len(rates) >= 20, rates
        blk = os.path.join(base, "state", "results", "falls.series")
        assert os.path.getsize(blk) > 100, os.path.getsize(blk)
        # Export carries the block as stored, base64.
        with open(blk, "rb") as f:
            stored = f.read()
        exp = d.json("result", "export", "falls", "--series")
        assert base64.b64decode(exp["series_block"]) == stored, len(exp.get("series_block", ""))
        assert "series_block" not in d.json("result", "export", "falls")
        exp = d.json("result", "export", "fal*", "--series")
        assert base64.b64decode(exp["results"][0]["series_block"]) == stored
        assert "series_block" not in d.json("result", "show", "falls")
        assert d.stop(keep=True) == 0
        d = Daemon(base)
        after = views(d, "falls")
        same(before, after)
        # A damaged block: skipped with a warning, the ring's answer again.
        assert d.stop(keep=True) == 0
        with open(blk, "r+b") as f:
            f.seek(30)
            f.write(b"\xff" * 40)
        d = Daemon(base)
        r = d.ctl("series", "link.vA.tx_packets", "--window", "falls", check=False)
        assert r.returncode != 0 and "holds no samples" in r.stderr, (r.returncode, r.stderr)
        r = d.ctl("trend", "link.vA.tx_packets", "--window", "falls", check=False)
        assert r.returncode != 0 and "holds no samples" in r.stderr, (r.returncode, r.stderr)
        assert "stored series skipped" in d.logtext(), d.logtext()
        assert d.json("status") is not None
        # The result itself is whole.
        assert d.json("result", "show", "falls")["test"]["status"] == "passed"
        # Deleting the result deletes its series.
        d.ctl("result", "delete", "falls")
        assert not os.path.exists(blk) and not os.path.exists(blk[:-7] + ".json")
    finally:
        d.stop()


def epoch(x):
    """Seconds since the epoch of an RFC 3339 UTC time."""
    return calendar.timegm(time.strptime(x[:19], "%Y-%m-%dT%H:%M:%S")) + float(
        "0" + x[19:].rstrip("Z"))


def ring_oldest(d):
    st = d.json("status")
    ring = st.get("ring") or st.get("sampler", {}).get("ring")
    return epoch(ring["oldest"])


def test_series_after_eviction():
    d = Daemon(sampling="interval = 10ms\nring_memory = 1M\n")
    try:
        rep = start_test(d, "evicted")
        before = views(d, "evicted")
        print("  " + "".join(x for x in d.logtext().splitlines(True) if "copied from" in x))
        # The ring moves on until the test's start is gone from it.
        deadline = time.time() + 240
        while ring_oldest(d) <= epoch(rep["window"]["start"]):
            assert time.time() < deadline, ("not evicted", ring_oldest(d), rep["window"])
            time.sleep(2)
        after = views(d, "evicted")
        same(before, after)
    finally:
        d.stop()


def main():
    if os.geteuid() == 0 and shutil.which("ip") is None:
        print("ip (iproute2) is missing")
        return 1
    return nsrun.run([test_series_after_restart, test_series_after_eviction],
                     "stored series", make_pair, remove_pair)


if __name__ == "__main__":
    sys.exit(main())
