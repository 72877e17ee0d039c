#!/usr/bin/env python3
"""Bursts inside the second on the real kernel (issue 33): two namespaces joined by a veth
pair (test_sampling's), netmetricsd in the receiver's namespace B with fine sampling as it
ships (link, queues and softnet every 10 ms while the window is open, into the fine history), and a sender in A (burst_sender.py, pinned to CPU 0) that
sends 20 ms bursts of UDP datagrams at its full rate once a second, 5 of them, inside a
window. The window's stored report must show, for the receiving device vB (rx_packets) and
for the CPU that received them (softnet processed, CPU 0: veth hands a packet to the backlog
of the CPU that sent it), a peak within 15 % of the rate the sender measured in that burst,
at the sender's burst times (each burst listed starts within one sampled interval of a
sender's burst start), and for vB peak-to-mean about 50 (not for the CPU: softnet_stat is
the host's, and other traffic on the machine counts in its mean). veth has no per-queue receive counters
(no qstats; its ethtool queue counters are XDP-only: KERNEL-NOTES), so no queue is checked
here; the queue series go through the same code (tests/unit/test-bursts.c).

The bound on peak-to-mean: the mean is the packets of 5 bursts over the window's seconds T
(about 5 s: 0.5 s before the first burst, 0.5 s after the last), the peak the burst rate, so
peak/mean = T / (5 x 0.02 s) = 10 T, about 50; the bursts are placed from the window's
start edge and the stop follows the last by 0.5 s, so T is 5 s and what the stop takes (tens
of ms); the peak is within 15 % of the burst rate. The sender's bursts are not equal on a
loaded machine (rates 20-25 % apart seen), and the peak is the fastest one's, so the ratio
is normalised by the sender's spread (x the bursts' mean rate / the peak burst's rate) and
that is asserted in [40, 60]; the raw ratio within 15 % of what the sender's own counts give
(its peak burst's rate x T / the packets vB received).

Run under `flock /tmp/nm-netns.lock` (namespaces). Needs root; cleans up even on failure.
"""
import calendar
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nsrun  # noqa: E402
import test_sampling as ts  # noqa: E402

SENDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "burst_sender.py")
# Fine sampling as it ships ([sampling] fine = link queues softnet every 10 ms while a window
# is open): the window's figures come out of the fine history; every source keeps its 1 s.
FINE = "[sampling]\nfine_when = window\nfine_interval = 10ms\n"
PORT = 9099
NBURSTS, PERIOD, BURST, LEAD = 5, 1.0, 0.020, 0.5
MS = 1000000
# The daemon at a real-time priority where allowed: on a shared, loaded machine its 10 ms
# timer is otherwise starved for tens of ms at a time (seen: 348 intervals in 6.8 s), and a
# late sample hides the burst it covers (by design: it is not a burst). The figures are what
# this test checks, not the scheduler.
RT = (("chrt", "-f", "5")
      if subprocess.run(["chrt", "-f", "5", "true"], capture_output=True).returncode == 0
      else ())


def rfc3339_ns(s):
    """Epoch ns of "2026-12-02T04:10:11.123Z" (milliseconds)."""
    base, frac = s.rstrip("Z").split(".")
    t = time.strptime(base, "%Y-%m-%dT%H:%M:%S")
    return (calendar.timegm(t) * 1000 + int(frac)) * MS


def send_bursts(first_ns, n=NBURSTS, cpu=0):
    """Run the sender in A on CPU cpu, its first of n bursts at first_ns (CLOCK_REALTIME),
    with SCHED_FIFO when allowed (the machine is shared: a preemption inside a burst would
    make its rate uneven); its bursts."""
    cmd = ["ip", "netns", "exec", ts.NS_A, "taskset", "-c", str(cpu)]
    if subprocess.run(["chrt", "-f", "10", "true"], capture_output=True).returncode == 0:
        cmd += ["chrt", "-f", "10"]
    cmd += [sys.executable, SENDER, ts.ADDR_B, str(PORT), str(n), str(PERIOD),
            str(BURST), str(first_ns)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=True)
    return [Burst(b) for b in json.loads(r.stdout)["bursts"]]


class Burst(dict):
    """A sender's burst; shown without its marks (hundreds of them) in a failure."""

    def __repr__(self):
        return repr({k: v for k, v in self.items() if k != "marks"})


def entry(bursts, series):
    for e in bursts["series"]:
        if e["series"] == series:
            return e
    raise AssertionError("no burst figures of %s in %s" %
                         (series, [e["series"] for e in bursts["series"]]))


def near(sent, t_ns, slack_ns):
    """The sender's burst whose start is within slack_ns of t_ns, or None."""
    for b in sent:
        if abs(t_ns - b["start_ns"]) <= slack_ns:
            return b
    return None


def fastest(b, length_ns):
    """The sender's highest rate over any length_ns of burst b (its marks), per second: what
    a sampled interval of that length inside the burst may rightly show; at least the
    burst's mean rate."""
    m, best, j = b["marks"], b["rate"], 0
    for i in range(len(m)):
        while j < len(m) and m[j][0] - m[i][0] < length_ns:
            j += 1
        if j == len(m):
            break
        best = max(best, (m[j][1] - m[i][1]) * 1e9 / (m[j][0] - m[i][0]))
    return best


def peak_ok(e, b):
    """e's peak against burst b: not under 85 % of the burst's mean rate, not over 115 % of
    the sender's fastest rate over an interval as long as the peak's (a burst is not even:
    the sender stalls on a loaded machine, and an interval inside the burst then rightly
    shows more than the burst's mean)."""
    top = fastest(b, int(e["peak_interval_ms"] * MS))
    return 0.85 * b["rate"] <= e["peak"] <= 1.15 * top, (e["peak"], b["rate"], top)


def check_series(e, sent, window_s, received, ratio=True):
    """e's peak, its time, its bursts and (ratio) its peak-to-mean against the sender's
    bursts."""
    iv = e["interval_ms"] * MS
    assert e["interval_ms"] == 10, e
    # The peak interval lies in a burst: it starts at most one interval before the burst
    # starts and ends at most one interval after its end.
    p0 = rfc3339_ns(e["peak_at"])
    p1 = p0 + int(e["peak_interval_ms"] * MS)
    b = [b for b in sent if b["start_ns"] - iv - MS <= p0 and p1 <= b["end_ns"] + iv + MS]
    assert b, ("peak at %s not in a burst" % e["peak_at"], e, sent)
    rate = b[0]["rate"]
    ok, why = peak_ok(e, b[0])
    assert ok, ("peak vs the sender's mean and fastest rate", why, e)
    # Every burst listed is one of the sender's, at its time (the run's first interval
    # starts within one interval of the burst's first send; +1 ms: the report's times are
    # whole milliseconds), and every sender's burst at 90 % of the peak or more is listed
    # (the threshold is 80 %; the sender's rates vary by up to 25 % from burst to burst on
    # the loaded machine, so a weaker burst may rightly be below it).
    for r in e["bursts"]:
        assert near(sent, rfc3339_ns(r["start"]), iv + MS) is not None, (r, sent)
        assert 0.005 <= r["duration_s"] <= 0.045, r
    starts = [rfc3339_ns(r["start"]) for r in e["bursts"]]
    for b in sent:
        if b["rate"] >= 0.9 * e["peak"]:
            assert any(abs(t - b["start_ns"]) <= iv + MS for t in starts), (b, e)
    assert e["late"] <= e["intervals"] // 10, e
    if not ratio:
        return
    # peak/mean = 10 T x (the peak burst's rate / the bursts' mean rate): normalised by
    # the sender's own spread, about 50.
    ratio = e["peak_to_mean"]
    mean_rate = sum(x["rate"] for x in sent) / len(sent)
    normalised = ratio * mean_rate / rate
    assert 40 <= normalised <= 60, ("peak-to-mean %.1f, normalised %.1f" % (ratio, normalised),
                                    e, sent)
    predicted = rate * window_s / received
    assert abs(ratio - predicted) <= 0.15 * predicted, (ratio, predicted, e)


def check_watch(views, sent):
    """The watch's views: one a second, each over the last second; a view whose second held
    a whole burst shows vB's rx peak within 15 % of that burst's rate, and a mean of the
    burst's packets over the view's span (within 15 %: a few packets of the next or last
    burst at most); CPUs are in the view (dev filters devices and queues only), tx of vB
    that did not move is not (nor other devices)."""
    assert len(views) >= 4, views
    checked = 0
    for i, v in enumerate(views):
        assert v["what"] == "bursts", v
        view = v["view"]
        # The first view may be shorter: the ring holds less than a second yet.
        assert view["span_s"] <= 1.1 and (i == 0 or view["span_s"] >= 0.9), view
        names = [e["series"] for e in view["series"]]
        assert all(not n.startswith("link.") or n.startswith("link.vB.") for n in names), names
        t1 = rfc3339_ns(view["to"])
        t0 = t1 - int(view["span_s"] * 1e9)
        inside = [b for b in sent
                  if t0 + 10 * MS <= b["start_ns"] and b["end_ns"] <= t1 - 10 * MS]
        if len(inside) != 1:
            continue
        b = inside[0]
        e = [e for e in view["series"] if e["series"] == "link.vB.rx_packets"]
        assert e, view
        e = e[0]
        ok, why = peak_ok(e, b)
        assert ok, (why, e)
        mean = b["packets"] / view["span_s"]
        assert abs(e["mean"] - mean) <= 0.15 * mean, (e, b, view["span_s"])
        assert any(n.startswith("softnet.cpu0.") for n in names), names
        checked += 1
    assert checked >= 2, (checked, views, sent)


def burst_rects(path):
    """The burst marks of an HTML page: each rect's data-* members as a dict."""
    with open(path) as f:
        page = f.read()
    return [dict(re.findall(r'data-([a-z]+)="([^"]*)"', m))
            for m in re.findall(r'<rect class="burst"[^>]*>', page)]


def check_html(d, top, rep):
    """report --html marks the window's top bursts on the time series at their times (epoch
    s), compare --html on each run's overlaid line (seconds from its first point)."""
    out = tempfile.mkdtemp(prefix="nm-bursts-html-")
    try:
        page = os.path.join(out, "r.html")
        d.ctl("report", "bursts", "--html", page)
        marks = burst_rects(page)
        assert len(marks) == len(top), (marks, top)
        for m, t in zip(marks, top):
            assert m["series"] == t["series"], (m, t)
            assert abs(float(m["start"]) - rfc3339_ns(t["start"]) / 1e9) < 0.002, (m, t)
            assert abs(float(m["duration"]) - t["duration_s"]) < 1e-3, (m, t)
        page = os.path.join(out, "c.html")
        d.ctl("compare", "bursts", "bursts", "--html", page)
        marks = burst_rects(page)
        assert [m["run"] for m in marks] == ["A"] * len(top) + ["B"] * len(top), marks
        # Seconds from each run's first point (a series step of 1 s after the window's
        # start, give or take the steps' alignment to the 1 s samples' beat, query_align: up
        # to one more step): the same shift from the bursts' offsets in the window for every
        # mark.
        for run in ("A", "B"):
            shift = [float(m["start"]) - t["offset_s"]
                     for m, t in zip([m for m in marks if m["run"] == run], top)]
            assert all(abs(x - shift[0]) < 0.002 for x in shift), (shift, marks, top)
            assert -2.1 <= shift[0] <= 0.001, (shift, marks, top)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def series_bursts(d, window):
    """series link.vB.rx_packets --window WINDOW --bursts: its three entries' points as
    (time, mean, peak, ratio)."""
    r = d.json("series", "link.vB.rx_packets", "--window", window, "--bursts")
    assert r["step"] == 0.5, r["step"]  # the sampling interval (test_sampling's daemon)
    names = [e["name"] for e in r["series"]]
    assert names == ["link.vB.rx_packets", "peak.link.vB.rx_packets",
                     "peak_to_mean.link.vB.rx_packets"], names
    assert r["series"][2]["unit"] == "ratio", r["series"][2]
    pts = [e["points"] for e in r["series"]]
    assert len(pts[0]) == len(pts[1]) == len(pts[2]), pts
    return [(m[0], m[1], p[1], q[1]) for m, p, q in zip(*pts)]


def check_second_bursts(rows, b):
    """Per record (series --bursts: one step per sampling interval, 500 ms here) of a window
    holding one burst b: the records holding it (one, or two when a sample fell inside it)
    show a peak-to-mean far above 1 (over 10: about 25 for a whole 20 ms burst in 500 ms)
    and the highest of their peaks within 20 % of the sender's rate; the quiet ones (at
    least 2) no peak: at most 1 % of the burst's rate (0, with peak-to-mean 0, when nothing
    arrived; an ARP packet at most)."""
    burst = [r for r in rows if r[2] >= 0.3 * b["rate"]]
    quiet = [r for r in rows if r[2] < 0.3 * b["rate"]]
    assert 1 <= len(burst) <= 2, (rows, b)
    assert all(r[3] > 10 for r in burst), (burst, b)
    top = max(r[2] for r in burst)
    assert 0.8 * b["rate"] <= top <= 1.2 * fastest(b, 10 * MS), (top, b)
    assert len(quiet) >= 2, (rows, b)
    for t, mean, peak, ratio in quiet:
        assert peak <= 0.01 * b["rate"], (t, mean, peak, ratio, b)
        if mean == 0:
            assert peak == 0 and ratio == 0, (t, mean, peak, ratio)


def test_bursts():
    """5 bursts of 20 ms once a second: peaks, times and ratios of vB and CPU 0."""
    state = tempfile.mkdtemp(prefix="nm-bursts-state-")
    os.chmod(state, 0o777)
    sink = subprocess.Popen(["ip", "netns", "exec", ts.NS_B, sys.executable, "-c",
                             "import socket,time; s=socket.socket(2,2); "
                             "s.bind(('%s',%d)); time.sleep(60)" % (ts.ADDR_B, PORT)])
    d = ts.Daemon(ns=ts.NS_B, extra=FINE, state=state, prefix=RT)
    try:
        time.sleep(0.5)
        # The bursts at fixed times from the window's start edge, and the stop LEAD after the
        # last: the window's span is NBURSTS x PERIOD, plus what the stop takes.
        start = rfc3339_ns(d.json("mark", "start", "bursts")["start"])
        # watch bursts vB meanwhile: a view a second, JSON lines.
        watch = subprocess.Popen([ts.NETMETRICSCTL, "--socket", d.sock, "--json", "watch",
                                  "bursts", "vB"], stdout=subprocess.PIPE, text=True,
                                 env=ts.env())
        sent = send_bursts(start + int(LEAD * 1e9))
        time.sleep(max(0, (start + int((LEAD + (NBURSTS - 1) * PERIOD + LEAD) * 1e9) -
                           time.time_ns()) / 1e9))
        d.ctl("mark", "stop", "bursts")
        watch.terminate()
        views = [json.loads(x) for x in watch.communicate(timeout=10)[0].splitlines() if x]
        check_watch(views, sent)
        rep = d.json("report", "bursts")
        window_s = rep["window"]["duration_s"]
        devs = {x["name"]: x for x in rep["figures"]["devices"]}
        received = devs["vB"]["rx_packets"]
        total = sum(b["packets"] for b in sent)
        # What the sender sent arrived (a few more: ARP and the like).
        assert total <= received <= total + 20, (total, received)
        rates = [b["rate"] for b in sent]
        sys.stderr.write("sender: %s pkt/s over %s packets; window %.3f s\n" %
                         ([round(r) for r in rates], [b["packets"] for b in sent], window_s))
        bursts = rep["bursts"]
        dev_mean = entry(bursts, "link.vB.rx_packets")["mean"]
        for name in ("link.vB.rx_packets", "softnet.cpu0.processed"):
            e = entry(bursts, name)
            if name.startswith("softnet.") and e["mean"] > 1.2 * dev_mean:
                # softnet_stat is the host's: another test's traffic on CPU 0 (seen when
                # tests ran side by side) makes its figures another's. Said, not failed.
                sys.stderr.write("CPU 0 not checked: its mean %.0f/s is over vB's %.0f/s "
                                 "(other traffic on the host)\n" % (e["mean"], dev_mean))
                continue
            sys.stderr.write("%s: peak %.0f at %s, mean %.0f, ratio %.1f, late %d/%d, "
                             "bursts %s\n" %
                             (name, e["peak"], e["peak_at"], e["mean"], e["peak_to_mean"],
                              e["late"], e["intervals"],
                              [(r["start"], r["duration_s"], round(r["peak"]))
                               for r in e["bursts"]]))
            # softnet_stat is the host's, not the namespace's: other traffic on the machine
            # counts in CPU 0's mean, so its ratio is not the sender's to predict.
            check_series(e, sent, window_s, received, ratio=name.startswith("link."))
        top = bursts["top"]
        assert 1 <= len(top) <= 5, top
        # (CPU 0's may be another test's: softnet_stat is the host's; and with fewer than
        # five bursts over 80 % of the peak, as when the sender slows on a loaded machine,
        # a blip of another series, an ARP reply on vB's tx, rightly fills the top.)
        assert all(near(sent, rfc3339_ns(t["start"]), 11 * MS) for t in top
                   if t["series"] == "link.vB.rx_packets"), (top, sent)
        # The table.
        text = d.ctl("report", "bursts").stdout
        assert "\nBursts (peak: the highest rate over one sampled interval" in text, text
        assert "vB rx_packets" in text and "cpu0 processed" in text, text
        assert "Top bursts of the window" in text, text
        check_html(d, top, rep)
        # Each record's figures (series --bursts): a window of 4.5 s holding one burst at
        # 2 s, the records around it quiet.
        start = rfc3339_ns(d.json("mark", "start", "quiet")["start"])
        one = send_bursts(start + 2 * 10**9, n=1)[0]
        time.sleep(max(0, (start + int(4.5e9) - time.time_ns()) / 1e9))
        d.ctl("mark", "stop", "quiet")
        rows = series_bursts(d, "quiet")
        sys.stderr.write("series --bursts of one burst at %.0f pkt/s: %s\n" %
                         (one["rate"], [(round(m), round(p), round(q, 1))
                                        for _, m, p, q in rows]))
        check_second_bursts(rows, one)
        text = d.ctl("series", "link.vB.rx_packets", "--window", "quiet", "--bursts").stdout
        assert "peak_to_mean.link.vB.rx_packets" in text and "/s/s" not in text, text
        # Stored with the result: the same after a restart (each second's from the stored
        # series: the ring has none of the window, nor the fine history).
        assert d.stop() == 0
        d = ts.Daemon(ns=ts.NS_B, extra=FINE, state=state, prefix=RT)
        again = d.json("report", "bursts")
        assert again["bursts"] == bursts
        stored = series_bursts(d, "quiet")
        assert len(stored) == len(rows), (stored, rows)
        for a, b in zip(stored, rows):
            assert all(abs(x - y) <= 1e-6 * max(1, abs(y)) for x, y in zip(a, b)), (a, b)
    finally:
        d.stop()
        sink.kill()
        sink.wait()
        shutil.rmtree(state, ignore_errors=True)


def watch_views(d, *args, seconds=2.6):
    """The views `watch bursts ARGS` sends in seconds, as JSON."""
    w = subprocess.Popen([ts.NETMETRICSCTL, "--socket", d.sock, "--json", "watch", "bursts"] +
                         list(args), stdout=subprocess.PIPE, text=True, env=ts.env())
    time.sleep(seconds)
    w.terminate()
    return [json.loads(x)["view"] for x in w.communicate(timeout=10)[0].splitlines() if x]


def test_watch_cap():
    """watch bursts keeps every device's entry and, of the queues' and CPUs', the [bursts]
    max_series of the highest peak (here 1), saying how many it left out; --all keeps every
    one. Bursts from A to B the while, from a sender on CPU 0 and one on CPU 1, so that two
    CPUs' softnet moves (a veth's receive runs on the sending CPU) every second."""
    if os.cpu_count() < 2:
        sys.stderr.write("test_watch_cap: skipped, one CPU (it needs two CPUs' softnet to "
                         "move)\n")
        return
    state = tempfile.mkdtemp(prefix="nm-bursts-cap-")
    os.chmod(state, 0o777)
    sink = subprocess.Popen(["ip", "netns", "exec", ts.NS_B, sys.executable, "-c",
                             "import socket,time; s=socket.socket(2,2); "
                             "s.bind(('%s',%d)); time.sleep(60)" % (ts.ADDR_B, PORT)])
    extra = ("[sampling]\nfine_when = always\nfine_interval = 10ms\n"
             "[bursts]\nmax_series = 1\n")
    d = ts.Daemon(ns=ts.NS_B, extra=extra, state=state, prefix=RT)
    try:
        # Half a second apart: one CPU busy at a time (two senders at SCHED_FIFO at once
        # would hold both CPUs of a 2-CPU machine, the daemon's sampling with them).
        first = time.time_ns() + int(0.3e9)
        senders = [threading.Thread(target=send_bursts, args=(first + cpu * int(0.5e9),),
                                    kwargs={"n": 6, "cpu": cpu}) for cpu in (0, 1)]
        for t in senders:
            t.start()
        capped = watch_views(d)
        every = watch_views(d, "--all")
        for t in senders:
            t.join()
        omitted = 0
        for v in capped:
            others = [e for e in v["series"] if e["kind"] != "device"]
            assert len(others) <= 1, v
            assert v["bursts_omitted"] == 0 or len(others) == 1, v
            omitted = max(omitted, v["bursts_omitted"])
        most = max(len([e for e in v["series"] if e["kind"] != "device"]) for v in every)
        assert all(v["bursts_omitted"] == 0 for v in every), every
        sys.stderr.write("watch bursts: up to %d queue and CPU entries with --all, %d left "
                         "out at max_series = 1\n" % (most, omitted))
        # A second with bursts moves CPU 0's softnet and CPU 1's.
        assert most >= 2 and omitted >= 1, (capped, every)
        text = subprocess.run([ts.NETMETRICSCTL, "--socket", d.sock, "watch", "bursts"],
                              capture_output=True, text=True, env=ts.env(), timeout=3)
    except subprocess.TimeoutExpired as e:
        text = e
    finally:
        d.stop()
        sink.kill()
        sink.wait()
        shutil.rmtree(state, ignore_errors=True)
    out = text.stdout if isinstance(text.stdout, str) else (text.stdout or b"").decode()
    assert "mean and peak over one sampled interval" in out, out


TESTS = [test_bursts, test_watch_cap]


def main():
    return nsrun.run(TESTS, "bursts", ts.make_pair, ts.remove_pair)


if __name__ == "__main__":
    sys.exit(main())
