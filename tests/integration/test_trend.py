#!/usr/bin/env python3
"""trend and series --plot/--csv through the real netmetricsd and netmetricsctl, on a fixture
tree (--root) whose counters a writer thread advances at chosen rates: eth0 forwards
100,000 packets/s, then 30,000/s while nf_conntrack starts dropping and CPU 0 squeezes,
then 95,000/s again. Checks the plateau, the onset (within a step of the switch), the
decayed level, the recovery and the movers that trend finds, over a window and over
--from/--to; the human lines; the refusals; and the CSV and chart formats of series.

One daemon for the file (the run takes ~20 s), stopped even when a check fails. Python
standard library only; no root needed (when not root, the admin group is the caller's).
Environment: NETMETRICSD, NETMETRICSCTL. Usage: test_trend.py [NAME_SUBSTRING ...].
Ends with "N passed, M failed".
"""
import calendar
import grp
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

NETMETRICSD = os.environ.get("NETMETRICSD", "")
NETMETRICSCTL = os.environ.get("NETMETRICSCTL", "")
SCRUB = ("NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "WATCHDOG_USEC",
         "WATCHDOG_PID", "JOURNAL_STREAM", "NETMETRICS_SOCKET", "COLUMNS")
OFF = ("interrupts", "softirqs", "cpu", "snmp", "queues", "ethtool", "sysctl")
# The timeline: (seconds, eth0 rx packets/s, conntrack drop/s, insert_failed/s, squeeze/s).
PHASES = [(7.0, 100000, 0, 0, 0), (6.0, 30000, 5000, 2000, 200), (6.0, 95000, 0, 0, 0)]
CT_HEADER = ("entries  clashres found new invalid ignore delete chainlength insert "
             "insert_failed drop early_drop icmp_error  expect_new expect_create expect_delete "
             "search_restart")


def env(**extra):
    e = {k: v for k, v in os.environ.items() if k not in SCRUB}
    e.update(extra)
    return e


class Host:
    """A fixture tree whose counters follow PHASES from start(): each file rewritten in
    place (the daemon keeps its fds) every 10 ms with the integral of the rates so far."""

    def __init__(self, root):
        self.root = root
        os.makedirs(os.path.join(root, "proc/net/stat"), exist_ok=True)
        self.t0 = None
        self.stop = threading.Event()
        self.write(0, 0, 0, 0)
        self.thread = threading.Thread(target=self.run, daemon=True)

    def start(self):
        self.t0 = time.time()
        self.thread.start()

    def switch_times(self):
        """Wall-clock times at which each phase after the first begins."""
        t, out = self.t0, []
        for secs, *_ in PHASES[:-1]:
            t += secs
            out.append(t)
        return out

    def totals(self, now):
        """Counters at wall time now: packets, drop, insert_failed, squeeze."""
        left, acc = now - self.t0, [0.0, 0.0, 0.0, 0.0]
        for k, (secs, *rates) in enumerate(PHASES):
            # The last phase goes on until the writer stops.
            span = left if k == len(PHASES) - 1 else min(left, secs)
            for i, r in enumerate(rates):
                acc[i] += r * max(span, 0)
            left -= secs
            if left <= 0:
                break
        return [int(x) for x in acc]

    def put(self, rel, text):
        path = os.path.join(self.root, rel)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            os.pwrite(fd, text.encode(), 0)
            os.ftruncate(fd, len(text))
        finally:
            os.close(fd)

    def write(self, pkts, drop, failed, squeeze):
        head = ("Inter-|   Receive                                                |  Transmit\n"
                " face |bytes    packets errs drop fifo frame compressed multicast|bytes    "
                "packets errs drop fifo colls carrier compressed\n")
        line = "  eth0: %20d %20d    0    0    0     0          0         0 %20d %20d    0" \
               "    0    0     0       0          0\n" % (pkts * 64, pkts, pkts * 60, pkts)
        self.put("proc/net/dev", head + line)
        row0 = ["%08x" % 0] * 17
        row0[9] = "%08x" % (failed % (1 << 32))
        row0[10] = "%08x" % (drop % (1 << 32))
        row1 = ["%08x" % 0] * 17
        self.put("proc/net/stat/nf_conntrack",
                 CT_HEADER + "\n" + " ".join(row0) + "\n" + " ".join(row1) + "\n")
        rows = []
        for cpu in range(2):
            cols = [0] * 13
            cols[0] = pkts // 2
            cols[2] = squeeze if cpu == 0 else 0
            cols[12] = cpu
            rows.append(" ".join("%08x" % (c % (1 << 32)) for c in cols))
        self.put("proc/net/softnet_stat", "\n".join(rows) + "\n")

    def run(self):
        while not self.stop.is_set():
            self.write(*self.totals(time.time()))
            time.sleep(0.01)


class Daemon:
    """netmetricsd on the fixture root, sampling every 200 ms."""

    def __init__(self, root):
        self.dir = tempfile.mkdtemp(prefix="nm-trend-")
        os.chmod(self.dir, 0o755)  # the daemon's main process runs as netmetrics
        self.sock = os.path.join(self.dir, "s.sock")
        conf = os.path.join(self.dir, "netmetricsd.conf")
        with open(conf, "w") as f:
            # lnstat's per-CPU cells too (test_trend_from_to_decay's movers glob takes them).
            f.write("[sampling]\ninterval = 200ms\n[source.lnstat]\nper-cpu = yes\n")
            if os.geteuid() != 0:
                f.write("[daemon]\nadmin_group = %s\n" % grp.getgrgid(os.getegid()).gr_name)
            for s in OFF:
                f.write("[source.%s]\nenable = no\n" % s)
        self.log = open(os.path.join(self.dir, "log"), "w")
        self.proc = subprocess.Popen(
            [NETMETRICSD, "--foreground", "--socket", self.sock, "--state-dir",
             os.path.join(self.dir, "state"), "--config", conf, "--root", root,
             "--log-level", "info"], stdout=self.log, stderr=subprocess.STDOUT, env=env())
        deadline = time.time() + 20
        while time.time() < deadline:
            if os.path.exists(self.sock) and self.ctl("status", check=False).returncode == 0:
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError("netmetricsd did not start: " + self.logtext())

    def ctl(self, *args, check=True, **extra):
        r = subprocess.run([NETMETRICSCTL, "--socket", self.sock] + list(args),
                           capture_output=True, text=True, env=env(**extra), timeout=30)
        if check and r.returncode != 0:
            raise AssertionError("netmetricsctl %s: exit %d: %s" % (" ".join(args),
                                                                    r.returncode, r.stderr))
        return r

    def json(self, *args):
        return json.loads(self.ctl("--json", *args).stdout)

    def logtext(self):
        self.log.flush()
        with open(self.log.name) as f:
            return f.read()[-3000:]

    def stop(self):
        rc = 0
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                rc = self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                rc = -1
        log = self.logtext()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        return rc, log


def epoch(rfc3339):
    """Seconds since the epoch of "2026-11-30T12:00:31.123Z"."""
    m = re.match(r"(\d+)-(\d+)-(\d+)T(\d+):(\d+):(\d+)(\.\d+)?Z$", rfc3339)
    assert m, rfc3339
    secs = calendar.timegm(tuple(int(x) for x in m.groups()[:6]))
    return secs + float(m.group(7) or 0)


def near(value, want, rel):
    return abs(value - want) <= rel * want


# The state the tests share: the daemon, the host and the switch times.
W = {}


def setup():
    root = tempfile.mkdtemp(prefix="nm-trend-root-")
    os.chmod(root, 0o755)  # the daemon's main process runs as netmetrics
    host = Host(root)
    host.start()
    d = Daemon(root)
    W.update(root=root, host=host, d=d)
    # Two windows over the same span: "stored" is forgotten later, leaving its result.
    d.ctl("mark", "start", "run")
    d.ctl("mark", "start", "stored")
    total = sum(p[0] for p in PHASES)
    time.sleep(max(0, host.t0 + total - time.time()))
    d.ctl("mark", "stop", "run")
    d.ctl("mark", "stop", "stored")
    W["switch"] = host.switch_times()


def teardown():
    host, d = W.get("host"), W.get("d")
    if host is not None:
        host.stop.set()
    rc, log = d.stop() if d is not None else (0, "")
    shutil.rmtree(W.get("root", "/nonexistent"), ignore_errors=True)
    if rc != 0:
        raise AssertionError("netmetricsd exited with %d: %s" % (rc, log))


def check_shape(t):
    for k in ("metric", "unit", "kind", "values", "window", "from", "to", "clipped", "step",
              "points", "threshold", "recover", "sustain_s", "plateau_s", "verdict",
              "plateau", "onset", "decayed", "recovery", "decays", "movers"):
        assert k in t, (k, t)
    assert t["metric"] == "link.eth0.rx_packets" and t["unit"] == "packets", t
    assert t["kind"] == "counter" and t["values"] == "rate", t
    assert set(t["plateau"]) == {"start", "end", "level"}, t["plateau"]
    assert set(t["onset"]) == {"time", "level", "fraction"}, t["onset"]
    assert set(t["decayed"]) == {"start", "end", "level", "fraction"}, t["decayed"]


def test_trend_window_decay_recovered():
    d, (down, up) = W["d"], W["switch"]
    t = d.json("trend", "link.eth0.rx_packets", "--window", "run", "--step", "1",
               "--plateau", "3", "--sustain", "2", "--movers", "4")
    check_shape(t)
    assert t["window"] == "run" and t["step"] == 1, t
    assert t["points"] >= 15, t
    assert t["verdict"] == "decay-recovered", t
    assert t["decays"] == 1, t
    assert near(t["plateau"]["level"], 100000, 0.1), t["plateau"]
    assert abs(epoch(t["onset"]["time"]) - down) <= 2.0, (t["onset"], down)
    assert epoch(t["plateau"]["end"]) == epoch(t["onset"]["time"]), t
    assert near(t["onset"]["level"], 30000, 0.1), t["onset"]
    assert near(t["onset"]["fraction"], 0.3, 0.1), t["onset"]
    assert near(t["decayed"]["level"], 30000, 0.1), t["decayed"]
    assert t["recovery"] is not None, t
    assert abs(epoch(t["recovery"]["time"]) - up) <= 2.0, (t["recovery"], up)
    assert epoch(t["decayed"]["end"]) == epoch(t["recovery"]["time"]), t
    assert near(t["recovery"]["level"], 95000, 0.1), t["recovery"]
    # Drops from nothing first (the larger rate first), then the squeeze, then the bytes.
    # Then one of the counters that fell with the rate (by 70%, give or take the noise).
    names = [m["series"] for m in t["movers"]]
    assert names[:3] == ["lnstat.nf_conntrack.drop", "lnstat.nf_conntrack.insert_failed",
                         "softnet.cpu0.time_squeeze"], t["movers"]
    assert names[3] in ("link.eth0.rx_bytes", "link.eth0.tx_bytes", "link.eth0.tx_packets",
                        "softnet.cpu0.processed", "softnet.cpu1.processed"), t["movers"]
    drop = t["movers"][0]
    # The steps where the rate changed are left out: no drops before, 5,000/s after.
    assert drop["before_rate"] == 0 and near(drop["after_rate"], 5000, 0.1), drop
    assert epoch(t["movers_before"][1]) == epoch(t["onset"]["time"]) - 1, t
    assert epoch(t["movers_after"][0]) == epoch(t["onset"]["time"]) + 1, t
    assert epoch(t["movers_after"][1]) - epoch(t["movers_after"][0]) == 2, t
    assert drop["change"] > 100, drop
    assert -0.75 < t["movers"][3]["change"] < -0.65, t["movers"][3]
    assert t["movers_span_s"] == 2 and t["candidates"] >= 10, t


def test_trend_from_to_decay():
    d, (down, up) = W["d"], W["switch"]
    t = d.json("trend", "link.eth0.rx_pack*", "--from", str(W["host"].t0),
               "--to", str(up - 0.5), "--step", "1", "--plateau", "3", "--sustain", "2",
               "--movers-glob", "lnstat.*", "--movers-glob", "softnet.*")
    check_shape(t)
    assert t["window"] is None, t
    assert t["verdict"] == "decay" and t["recovery"] is None, t
    assert abs(epoch(t["onset"]["time"]) - down) <= 2.0, (t["onset"], down)
    assert near(t["decayed"]["level"], 30000, 0.1), t["decayed"]
    # The glob given is taken as it is: per-CPU rows of lnstat too (ties go by name).
    names = [m["series"] for m in t["movers"]]
    assert names[:5] == ["lnstat.nf_conntrack.cpu0.drop", "lnstat.nf_conntrack.drop",
                         "lnstat.nf_conntrack.cpu0.insert_failed",
                         "lnstat.nf_conntrack.insert_failed", "softnet.cpu0.time_squeeze"], names
    assert all(not n.startswith("link.") for n in names), names
    # A stricter threshold than the decay: steady, no movers.
    t = d.json("trend", "link.eth0.rx_packets", "--window", "run", "--step", "1",
               "--plateau", "3", "--sustain", "2", "--threshold", "0.2", "--recover", "0.5")
    assert t["verdict"] == "steady" and t["onset"] is None and t["movers"] == [], t
    assert t["decayed"] is None and t["recovery"] is None, t


def test_trend_stored_result():
    """The span of a window the daemon forgot comes from its stored result."""
    d = W["d"]
    args = ("--step", "1", "--plateau", "3", "--sustain", "2")
    kept = d.json("trend", "link.eth0.rx_packets", "--window", "stored", *args)
    d.ctl("window", "delete", "stored")
    assert "stored" not in [w["name"] for w in d.json("windows")["windows"]]
    t = d.json("trend", "link.eth0.rx_packets", "--window", "stored", *args)
    assert t["window"] == "stored" and t["verdict"] == "decay-recovered", t
    # The same span to the millisecond (results keep milliseconds): the same steps, unless
    # an edge falls within that millisecond.
    assert abs(epoch(t["from"]) - epoch(kept["from"])) <= 1.001, (t, kept)
    assert abs(t["points"] - kept["points"]) <= 1, (t, kept)
    assert abs(epoch(t["onset"]["time"]) - epoch(kept["onset"]["time"])) <= 1.001, (t, kept)
    assert [m["series"] for m in t["movers"][:3]] == [m["series"] for m in kept["movers"][:3]]


def test_trend_human():
    d = W["d"]
    out = d.ctl("trend", "link.eth0.rx_packets", "--window", "run", "--step", "1",
                "--plateau", "3", "--sustain", "2").stdout
    lines = out.splitlines()
    assert lines[0].startswith("link.eth0.rx_packets: rate from "), out
    assert re.search(r"^plateau \d+(\.\d+)? kpps from \d\d:\d\d:\d\d to \d\d:\d\d:\d\d; "
                     r"decay at \d\d:\d\d:\d\d \(\d\d\.\d kpps, \d\d% of plateau\); "
                     r"recovered at \d\d:\d\d:\d\d \(\d+(\.\d+)? kpps\)$", out, re.M), out
    assert re.search(r"^decayed level \d\d\.\d kpps \(\d\d% of plateau\) from ", out, re.M), out
    assert "verdict: decay-recovered" in out, out
    assert "counters that moved most at the onset (2.0s before vs 2.0s after):" in out, out
    row = [l for l in lines if l.startswith("lnstat.nf_conntrack.drop ")]
    assert row and row[0].split()[-1] == "new", out
    assert re.search(r"^link\.eth0\.rx_bytes\s.*\s-[67]\d%$", out, re.M), out
    # --csv: the movers table alone.
    out = d.ctl("trend", "link.eth0.rx_packets", "--window", "run", "--step", "1",
                "--plateau", "3", "--sustain", "2", "--csv").stdout
    assert out.splitlines()[0] == "SERIES,BEFORE/S,AFTER/S,CHANGE", out


def test_trend_refusals():
    d = W["d"]
    r = d.ctl("trend", check=False)
    assert r.returncode == 2 and "metric" in r.stderr, r.stderr
    r = d.ctl("trend", "link.eth0.*", check=False)
    assert r.returncode == 2 and "matches" in r.stderr and "name one" in r.stderr, r.stderr
    r = d.ctl("trend", "link.nope.rx_packets", check=False)
    assert r.returncode == 1 and "not_found" in r.stderr, r.stderr
    r = d.ctl("trend", "link.eth0.rx_packets", "--window", "nope", check=False)
    assert r.returncode == 1 and "no window or result named nope" in r.stderr, r.stderr
    r = d.ctl("trend", "link.eth0.rx_packets", "--window", "run", "--from", "-5",
              check=False)
    assert r.returncode == 2 and "not both" in r.stderr, r.stderr
    r = d.ctl("trend", "link.eth0.rx_packets", "--threshold", "0.8", "--recover", "0.5",
              check=False)
    assert r.returncode == 2 and "recover" in r.stderr, r.stderr
    # Too short to tell; a step below the interval is raised to it.
    t = d.json("trend", "link.eth0.rx_packets", "--from", "-2", "--step", "0.05")
    assert t["verdict"] == "too-short" and t["plateau"] is None, t
    assert t["step"] == 0.2, t
    # Other steps are rounded to whole intervals.
    t = d.json("trend", "link.eth0.rx_packets", "--from", "-5", "--step", "0.65")
    assert abs(t["step"] - 0.6) < 1e-9, t


def test_series_csv():
    d = W["d"]
    j = d.json("series", "link.eth0.rx_*", "--from", "-5", "--step", "1")
    names = [m["name"] for m in j["series"]]
    assert len(names) == 7 and "link.eth0.rx_packets" in names, names
    out = d.ctl("series", "link.eth0.rx_*", "--from", "-5", "--step", "1", "--csv").stdout
    lines = out.splitlines()
    assert lines[0] == "epoch_s," + ",".join(names), (lines[0], names)
    assert 4 <= len(lines) - 1 <= 6, out
    now = time.time()
    for l in lines[1:]:
        f = l.split(",")
        assert len(f) == 8, l
        assert re.match(r"^\d{10}\.\d{3}$", f[0]) and now - 30 < float(f[0]) <= now + 1, l
        for v in f[1:]:
            float(v)
    # The CSV holds the JSON's points (two requests: the wall clock may have moved a bit).
    j = d.json("series", "link.eth0.rx_packets", "--from", str(W["host"].t0 + 2), "--to",
               str(W["host"].t0 + 12), "--step", "1")
    out = d.ctl("series", "link.eth0.rx_packets", "--from", str(W["host"].t0 + 2), "--to",
                str(W["host"].t0 + 12), "--step", "1", "--csv").stdout.splitlines()
    assert out[0] == "epoch_s,link.eth0.rx_packets", out
    pts = j["series"][0]["points"]
    assert len(out) - 1 == len(pts) == 10, (out, j)
    for l, (t, v) in zip(out[1:], pts):
        f = l.split(",")
        assert abs(float(f[0]) - t) < 0.05 and abs(float(f[1]) - v) <= 1e-6 * v, (l, t, v)


def test_series_step_of_one_interval():
    """Steps of one sampling interval hold one sample each: no zeros and doubles by turns
    (the step edges fall half an interval from the samples)."""
    d = W["d"]
    j = d.json("series", "link.eth0.rx_packets", "--from", "-6", "--step", "0.2")
    vals = [v for _, v in j["series"][0]["points"]]
    assert len(vals) >= 25, vals
    odd = [v for v in vals if not near(v, 95000, 0.3)]
    # The fault this catches makes every other point odd; a stall of the fixture's writer
    # on a busy machine makes a low step and a high one.
    assert len(odd) <= max(2, len(vals) // 10), vals


def test_series_step_below_the_interval():
    """Steps finer than the sampling (a quarter of it): a step with no sample between its
    edges has the rate between the samples around it, not 0. The points' mean is the
    counter's rate (it was a quarter of it: three steps in four were 0)."""
    d = W["d"]
    j = d.json("series", "link.eth0.rx_packets", "--from", "-6", "--step", "0.05")
    vals = [v for _, v in j["series"][0]["points"]]
    assert j["step"] == 0.05 and len(vals) >= 100, j
    assert 0 not in vals, vals
    odd = [v for v in vals if not near(v, 95000, 0.3)]
    assert len(odd) <= max(8, len(vals) // 10), vals
    assert near(sum(vals) / len(vals), 95000, 0.1), vals
    # Each step holds the rate of the sampling interval it lies in. A step of one interval
    # (its edges half an interval from the samples) has the rate from the sample before it
    # to the one in its middle: so have the fine steps of its first half (two of them; the
    # second may end on the sample, and take it or wait for the next step, the same rate).
    to = j["to"]
    c = d.json("series", "link.eth0.rx_packets", "--from", str(to - 2), "--to", str(to),
               "--step", "0.2")
    # A late timer and the next one on time put two samples in one interval now and then:
    # the coarse step then spans both and the fine ones each side; a fill from the wrong
    # side would miss in every step (no two intervals' rates are the same to 1e-6).
    fine = j["series"][0]["points"]
    coarse = c["series"][0]["points"]
    miss = []
    for t, v in coarse:
        half = [fv for ft, fv in fine if t - 0.19 < ft <= t - 0.09]
        assert len(half) == 2, (t, fine)
        if not all(abs(fv - v) <= 1e-6 * max(v, 1) for fv in half):
            miss.append((t, v, half))
    assert len(coarse) >= 9 and len(miss) <= 3, (len(coarse), miss)


def test_series_plot():
    d = W["d"]
    r = d.ctl("series", "link.eth0.rx_packets", "--window", "x", check=False)
    assert r.returncode == 1 and "no window or result named x" in r.stderr, r.stderr
    out = d.ctl("series", "link.eth0.rx_packets", "--from", "-25", "--step", "0.5",
                "--plot", COLUMNS="80").stdout
    lines = out.splitlines()
    assert lines[0] == "link.eth0.rx_packets (packets/s)", out
    assert len(lines) == 1 + 8 + 2, out
    assert re.match(r"^ *1\d\dk \u2524", lines[1]) and re.match(r"^ *0 \u2524", lines[8]), out
    assert all(len(l) <= 80 for l in lines), out
    assert any("\u2800" <= ch <= "\u28ff" for ch in out), out
    assert "\u2514" in lines[9] and re.match(r"^ +\d\d:\d\d:\d\d +\d\d:\d\d:\d\d$", lines[10]), out
    # Narrow: sparklines, on two lines; asked for on a wide terminal: one line.
    out = d.ctl("series", "link.eth0.rx_*ets", "--from", "-25", "--plot", COLUMNS="40").stdout
    lines = out.splitlines()
    assert len(lines) == 2 and all(len(l) <= 40 for l in lines), out
    assert lines[0] == "link.eth0.rx_packets  0..1%sk" % lines[0][-3:-1], out
    assert re.match(r"^  \d\d:\d\d:\d\d [\u2581-\u2588]{8,} \d\d:\d\d:\d\d$", lines[1]), out
    out = d.ctl("series", "link.eth0.rx_*ets", "--from", "-25", "--plot=spark",
                COLUMNS="100").stdout
    lines = out.splitlines()
    assert len(lines) == 1 and len(lines[0]) <= 100, out
    assert re.match(r"^link\.eth0\.rx_packets \d\d:\d\d:\d\d [\u2581-\u2588]{16,} "
                    r"\d\d:\d\d:\d\d  0\.\.1\d\dk$", lines[0]), out
    r = d.ctl("series", "link.eth0.rx_packets", "--plot=pie", check=False)
    assert r.returncode == 2 and "pie" in r.stderr, r.stderr
    r = d.ctl("rates", "--plot", check=False)
    assert r.returncode == 2 and "only series" in r.stderr, r.stderr
    h = d.ctl("series", "--help").stdout
    assert "--plot[=braille|spark]" in h and "--csv" in h, h


def main(argv):
    for name, val in (("NETMETRICSD", NETMETRICSD), ("NETMETRICSCTL", NETMETRICSCTL)):
        if not val or not os.access(val, os.X_OK):
            print("%s is not set to an executable (got %r)" % (name, val))
            print("0 passed, 1 failed")
            return 1
    tests = [(n, f) for n, f in sorted(globals().items())
             if n.startswith("test_") and callable(f)]
    if argv:
        tests = [(n, f) for n, f in tests if any(a in n for a in argv)]
    passed = failed = 0
    try:
        start = time.monotonic()
        setup()
        print("setup (%.1fs)" % (time.monotonic() - start), flush=True)
        for name, fn in tests:
            start = time.monotonic()
            try:
                fn()
            except Exception:
                failed += 1
                print("FAIL %s (%.1fs)" % (name, time.monotonic() - start), flush=True)
                traceback.print_exc(file=sys.stdout)
                continue
            passed += 1
            print("ok   %s (%.1fs)" % (name, time.monotonic() - start), flush=True)
    except Exception:
        failed += 1
        print("FAIL setup", flush=True)
        traceback.print_exc(file=sys.stdout)
    finally:
        try:
            teardown()
        except Exception:
            failed += 1
            traceback.print_exc(file=sys.stdout)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not tests else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
