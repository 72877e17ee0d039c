#!/usr/bin/env python3
"""The series stored with a result (daemon/sample/seriesblock.c) on the real kernel: a test sends
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
import json
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
from test_tests import NETMETRICSCTL, SENDER, Daemon, run_test  # noqa: E402

PACE = "NETMETRICS_TEST_COLLECT_PACE"

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


def sender():
    """SENDER in namespace A (2000 packets/s to B for 13 s, then 400/s)."""
    return subprocess.Popen(["ip", "netns", "exec", NS_A, "python3", "-c", SENDER, ADDR_B],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def test_short_window():
    """A window of less than a sampling interval (500 ms) while A sends: series --window
    gives its two edges, from its start to its end, both the window's rate as its report
    has it (the ring's answer and, after a restart, the stored series'); its SVG draws that
    line, and a reply of fewer than 2 points says "too short to draw" instead of a line."""
    d = Daemon()
    base = d.dir
    snd = sender()
    try:
        time.sleep(1.5)
        d.ctl("mark", "start", "blip")
        time.sleep(0.2)
        rep = d.json("mark", "stop", "blip")
        dev = [x for x in rep["figures"]["devices"] if x["name"] == "vA"][0]
        want = dev["tx_packets_per_s"]
        assert want > 100, dev

        def check(r):
            assert abs(r["from"] - epoch(rep["window"]["start"])) < 2e-3, (r, rep["window"])
            assert abs(r["to"] - epoch(rep["window"]["end"])) < 2e-3, (r, rep["window"])
            pts = r["series"][0]["points"]
            assert len(pts) == 2, r
            # Points are at the edges (to the ms, as every point's time).
            assert abs(pts[0][0] - r["from"]) < 1e-3 and abs(pts[1][0] - r["to"]) < 1e-3, r
            for p in pts:
                assert abs(p[1] - want) <= 0.05 * want, (p, want)

        ring = d.json("series", "link.vA.tx_packets", "--window", "blip")
        check(ring)
        svg = os.path.join(d.dir, "blip.svg")
        d.ctl("series", "link.vA.tx_packets", "--window", "blip", "--svg", svg)
        with open(svg) as f:
            text = f.read()
        assert 'data-series="link.vA.tx_packets" data-points="2"' in text, text[:1500]
        mean = float(attr(text, '<polyline fill="none"', "data-mean"))
        assert abs(mean - ring["series"][0]["points"][0][1]) <= 1e-5 * mean, (mean, ring)
        # Less than a step: no line, but words.
        short = d.json("series", "link.vA.tx_packets", "--from", "-0.3")
        assert len(short["series"][0]["points"]) < 2, short
        d.ctl("series", "link.vA.tx_packets", "--from", "-0.3", "--svg", svg)
        with open(svg) as f:
            text = f.read()
        assert "too short to draw" in text and "<polyline" not in text, text[:1500]
        assert 'data-too-short="true" data-series="link.vA.tx_packets"' in text, text[:1500]
        # The stored series answer the same once the ring has no such span (a restart).
        assert d.stop(keep=True) == 0
        d = Daemon(base)
        stored = d.json("series", "link.vA.tx_packets", "--window", "blip")
        assert stored == ring, (stored, ring)
    finally:
        snd.kill()
        snd.wait()
        d.stop()


def window_state(d, name):
    return [w for w in d.json("windows")["windows"] if w["name"] == name][0]["state"]


def test_block_read_off_the_loop():
    """After a restart the stored series answer `series --window` and `trend --window`; the
    block is read and decoded on the store's reader thread, slowed here by 1.5 s a read (the
    test hook): each reply takes that long while status is answered at once meanwhile; a
    client gone before its block is read costs nothing (a sanitizer build aborts on a use
    after free), and the next request is answered."""
    d = Daemon()
    base = d.dir
    snd = sender()
    delay = 1.5
    try:
        d.ctl("mark", "start", "late")
        time.sleep(3)
        d.ctl("mark", "stop", "late")
        before = d.json("series", "link.vA.tx_packets", "--window", "late")
        assert before["series"] and len(before["series"][0]["points"]) >= 2, before
        assert d.stop(keep=True) == 0
        os.environ["NETMETRICS_TEST_READ_DELAY_MS"] = str(int(delay * 1000))
        try:
            d = Daemon(base)
        finally:
            del os.environ["NETMETRICS_TEST_READ_DELAY_MS"]
        for cmd in (["series", "link.vA.tx_packets", "--window", "late"],
                    ["trend", "link.vA.tx_packets", "--window", "late"]):
            t0 = time.monotonic()
            p = subprocess.Popen([NETMETRICSCTL, "--socket", d.sock, "--json"] + cmd,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            worst = 0.0
            while p.poll() is None and time.monotonic() - t0 < delay - 0.3:
                t = time.monotonic()
                assert d.json("status") is not None
                worst = max(worst, time.monotonic() - t)
                time.sleep(0.1)
            out, err = p.communicate(timeout=60)
            took = time.monotonic() - t0
            assert p.returncode == 0, (cmd, err, d.logtext()[-2000:])
            print("  %s: %.2f s; status meanwhile within %.0f ms" % (cmd[0], took, worst * 1e3))
            # Off the loop: the reply waited for the reader thread, status did not.
            assert took >= delay, (cmd, took)
            assert worst < 1.0, (cmd, worst)
            got = json.loads(out)
            if cmd[0] == "series":
                assert got == before, (before, got)
            else:
                assert got["metric"] == "link.vA.tx_packets" and got["points"] >= 2, got
        # A client that leaves before its block is read.
        p = subprocess.Popen([NETMETRICSCTL, "--socket", d.sock, "series", "link.vA.tx_packets",
                              "--window", "late"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        time.sleep(0.3)
        p.kill()
        p.wait()
        time.sleep(delay + 0.5)
        assert d.json("series", "link.vA.tx_packets", "--window", "late") == before
        assert d.json("status") is not None
    finally:
        snd.kill()
        snd.wait()
        d.stop()


def test_stop_during_copy():
    """The series of a close copied a record a slice, 100 ms apart (the test hook): the
    window is "storing" meanwhile, another mark stop and a window delete get busy, other
    requests are answered; a SIGTERM in the middle finishes the copy at once and stores the
    result with its series, which answer after a restart."""
    os.environ[PACE] = "1,100"  # a record a slice, 100 ms apart: seconds
    try:
        d = Daemon()
    finally:
        del os.environ[PACE]
    base = d.dir
    snd = sender()
    stopper = None
    try:
        d.ctl("mark", "start", "slow")
        time.sleep(4)
        stopper = subprocess.Popen(
            [NETMETRICSCTL, "--socket", d.sock, "--json", "mark", "stop", "slow"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 30
        while window_state(d, "slow") != "storing":
            assert time.time() < deadline and stopper.poll() is None, d.logtext()
            time.sleep(0.05)
        t = time.time()
        assert d.json("status") is not None
        assert time.time() - t < 5
        r = d.ctl("mark", "stop", "slow", check=False)
        assert r.returncode != 0 and "being stored" in r.stderr, (r.returncode, r.stderr)
        r = d.ctl("window", "delete", "slow", check=False)
        assert r.returncode != 0 and "being stored" in r.stderr, (r.returncode, r.stderr)
        assert stopper.poll() is None, "the copy was over at once: the hook did not pace it"
        assert d.stop(keep=True) == 0
        stopper.communicate(timeout=30)
        log = open(os.path.join(base, "log")).read()
        assert "the rest of its series copied at once (the loop stopped)" in log, log[-3000:]
        res = os.path.join(base, "state", "results", "slow")
        assert os.path.getsize(res + ".series") > 100 and os.path.exists(res + ".json")
        d = Daemon(base)
        rep = d.json("result", "show", "slow")
        assert rep["window"]["closed_by"] == "hand", rep["window"]
        pts = d.json("series", "link.vA.tx_packets", "--window", "slow")["series"][0]["points"]
        # About 4 s at 1 s steps, every step sent at 2000/s.
        assert len(pts) >= 3 and min(p[1] for p in pts) > 500, pts
    finally:
        if stopper is not None and stopper.poll() is None:
            stopper.kill()
            stopper.wait()
        snd.kill()
        snd.wait()
        d.stop()


def test_evicted_during_copy():
    """A 1 MiB ring sampled every 10 ms (a segment about every 10 s, eight of them) and a
    window of 1 s opened in its first segment, its series copied a record a slice, 150 ms
    apart: the ring evicts that segment before the copy is over. The copy keeps what it
    had, the result is stored with it (the log says the series end early), the daemon
    reads nothing freed (a sanitizer build aborts on that) and answers from the stored
    series once the ring has moved on: points up to where the copy stopped."""
    os.environ[PACE] = "1,150"
    try:
        d = Daemon(sampling="interval = 10ms\nring_memory = 1M\n")
    finally:
        del os.environ[PACE]
    snd = sender()
    stopper = None
    try:
        time.sleep(1)
        d.ctl("mark", "start", "gone")
        time.sleep(1)
        stopper = subprocess.Popen(
            [NETMETRICSCTL, "--socket", d.sock, "--json", "mark", "stop", "gone"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err = stopper.communicate(timeout=400)
        assert stopper.returncode == 0, (err, d.logtext())
        rep = json.loads(out)
        log = d.logtext()
        assert "evicted the span's records before they were copied" in log, log
        r = d.json("series", "link.vA.tx_packets", "--window", "gone", "--step", "0.1")
        pts = r["series"][0]["points"]
        assert pts and r["to"] < epoch(rep["window"]["end"]) - 0.05, (r, rep["window"])
        assert abs(r["from"] - epoch(rep["window"]["start"])) < 0.02, (r, rep["window"])
        assert d.json("status") is not None
    finally:
        if stopper is not None and stopper.poll() is None:
            stopper.kill()
            stopper.wait()
        snd.kill()
        snd.wait()
        assert d.stop() == 0


def main():
    if os.geteuid() == 0 and shutil.which("ip") is None:
        print("ip (iproute2) is missing")
        return 1
    return nsrun.run([test_series_after_restart, test_series_after_eviction, test_short_window,
                      test_block_read_off_the_loop,
                      test_stop_during_copy, test_evicted_during_copy],
                     "stored series", make_pair, remove_pair)


if __name__ == "__main__":
    sys.exit(main())
