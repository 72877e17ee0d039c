#!/usr/bin/env python3
"""Fine sampling on the real kernel: two network namespaces joined by a veth pair, a sender
in A that sends 20 ms bursts of UDP at its full rate once a second, netmetricsd in B (the
receiver) with [sampling] fine at 10 ms while a window is open. Checks that fine sampling
turns on with the window and off after it, that the receiving device's peak series shows
each burst at about the rate the sender measured, far above the per-second mean, and that
after a restart (the ring, and the fine history, gone) `series --window` still shows the
peaks from the window's stored series.

Needs root (namespaces). Traffic stays between the namespaces this test creates; they and
every process started are removed even when a check fails. Run under
flock /tmp/nm-netns.lock. Environment: NETMETRICSD, NETMETRICSCTL. Ends with "N passed,
M failed".
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nsrun  # noqa: E402

NETMETRICSD = os.environ.get("NETMETRICSD", "")
NETMETRICSCTL = os.environ.get("NETMETRICSCTL", "")
TAG = "nmf%d" % os.getpid()
NS_A, NS_B = TAG + "a", TAG + "b"
ADDR_A, ADDR_B = "10.198.0.1", "10.198.0.2"
SCRUB = ("NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "WATCHDOG_USEC", "JOURNAL_STREAM",
         "NETMETRICS_SOCKET")
BURSTS = 6

# Sends BURSTS bursts of 20 ms, each starting 0.3 s past a second of the wall clock, as fast
# as one socket can; prints [[start_epoch_s, packets, seconds, max_10ms_rate], ...]: the
# burst's mean rate is packets / seconds; max_10ms_rate is its highest rate over any 10 ms
# of it (the clock read every 32 sends), what a receiver's 10 ms interval may see at most.
SENDER = r"""
import json, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22)
dst = (sys.argv[1], 9)
payload = b"x" * 18
out = []
for i in range(int(sys.argv[2])):
    t = time.time()
    time.sleep((int(t) + 1.3 - t) if t - int(t) > 0.3 else (int(t) + 0.3 - t))
    n = 0
    t0 = time.perf_counter()
    w0 = time.time()
    end = t0 + 0.020
    marks = [(t0, 0)]
    while True:
        for _ in range(32):
            try:
                s.sendto(payload, dst)
                n += 1
            except OSError:
                pass
        now = time.perf_counter()
        marks.append((now, n))
        if now >= end:
            break
    best, j = 0.0, 0
    for i in range(len(marks)):
        while j < len(marks) and marks[j][0] - marks[i][0] < 0.010:
            j += 1
        if j == len(marks):
            break
        best = max(best, (marks[j][1] - marks[i][1]) / (marks[j][0] - marks[i][0]))
    out.append([w0, n, marks[-1][0] - t0, best])
print(json.dumps(out))
"""


def env():
    return {k: v for k, v in os.environ.items() if k not in SCRUB}


def sh(*args, check=True, ns=None, **kw):
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    return subprocess.run(cmd, check=check, capture_output=True, text=True, **kw)


class Daemon:
    """netmetricsd in namespace B on a state directory of the test's."""

    def __init__(self, state):
        self.dir = tempfile.mkdtemp(prefix="nm-fine-")
        os.chmod(self.dir, 0o755)
        self.sock = os.path.join(self.dir, "s.sock")
        conf = os.path.join(self.dir, "netmetricsd.conf")
        with open(conf, "w") as f:
            f.write("[sampling]\nfine_interval = 10ms\nfine_when = window\n")
        cmd = ["ip", "netns", "exec", NS_B, NETMETRICSD, "--foreground", "--socket", self.sock,
               "--state-dir", state, "--config", conf, "--user", "root", "--log-level", "info"]
        self.log = open(os.path.join(self.dir, "log"), "w")
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, env=env())
        deadline = time.time() + 20
        while time.time() < deadline:
            if os.path.exists(self.sock) and self.ctl("status", check=False).returncode == 0:
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        self.stop()
        raise AssertionError("netmetricsd did not start")

    def ctl(self, *args, check=True):
        r = subprocess.run([NETMETRICSCTL, "--socket", self.sock] + list(args),
                           capture_output=True, text=True, env=env(), timeout=60)
        if check and r.returncode != 0:
            raise AssertionError("netmetricsctl %s: exit %d: %s" % (" ".join(args),
                                                                    r.returncode, r.stderr))
        return r

    def json(self, *args):
        return json.loads(self.ctl("--json", *args).stdout)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        rc = self.proc.returncode
        if rc != 0:
            with open(self.log.name, errors="replace") as f:
                sys.stderr.write("netmetricsd exited with %s:\n%s\n" % (rc, f.read()[-6000:]))
        shutil.rmtree(self.dir, ignore_errors=True)
        return rc


def make_pair():
    sh("ip", "netns", "add", NS_A)
    sh("ip", "netns", "add", NS_B)
    sh("ip", "link", "add", "vA", "netns", NS_A, "type", "veth", "peer", "name", "vB",
       "netns", NS_B)
    for ns, dev, addr in ((NS_A, "vA", ADDR_A), (NS_B, "vB", ADDR_B)):
        sh("ip", "addr", "add", addr + "/24", "dev", dev, ns=ns)
        sh("ip", "link", "set", dev, "up", ns=ns)
        sh("ip", "link", "set", "lo", "up", ns=ns)
    # A static neighbour: no ARP exchange inside the first burst.
    mac = json.loads(sh("ip", "-j", "link", "show", "vB", ns=NS_B).stdout)[0]["address"]
    sh("ip", "neigh", "replace", ADDR_B, "lladdr", mac, "dev", "vA", ns=NS_A)


def remove_pair():
    nsrun.remove_netns(NS_A, NS_B)


def points(result, name):
    for s in result["series"]:
        if s["name"] == name:
            return [(t, v) for t, v in s["points"]]
    raise AssertionError("no series %s in %s" % (name, [s["name"] for s in result["series"]]))


def fine_of(status):
    return {s["name"]: s.get("fine") for s in status["sources"] if s.get("fine")}


def check_peaks(result, bursts, what):
    """Each burst shows in the peak series of its second at the sender's rate (between its
    mean over the burst and its highest over 10 ms), far above the per-second mean."""
    mean = dict(points(result, "link.vB.rx_packets"))
    peak = points(result, "peak.link.vB.rx_packets")
    got = []
    for w0, n, secs, max10 in bursts:
        rate = n / secs
        # A point at t is its step (t - 1, t], whose edges fall half an interval after the
        # samples (PROTOCOL.md, series): its value is the sample at about t - 0.5's, which
        # covers (t - 1.5, t - 0.5]. The one whose sample covers the burst's middle.
        near = [(t, v) for t, v in peak if t - 1.5 < w0 + 0.01 <= t - 0.5]
        assert len(near) == 1, "%s: no peak point for the burst at %.2f" % (what, w0)
        t, p = near[0]
        m = mean.get(t, 0)
        got.append((rate, max10, p, m))
        print("  %s: burst %.2f: sender %.0f packets/s (%.0f at most over 10 ms), peak %.0f/s "
              "(%.2f of the sender's mean), per-second mean %.0f/s (peak/mean %.1f)"
              % (what, w0, rate, max10, p, p / rate, m, p / max(m, 1)))
    # The daemon's 10 ms intervals are not the sender's: a peak lies between the burst's mean
    # and its highest 10 ms (15 % either way for the clocks). A loaded host makes a tick late
    # (and, before the fine timer was a timerfd, libevent's coarse clock made the ticks 8 and
    # 12 ms apart): a 20 ms burst whose best interval straddles its edge shows short (two of
    # six at 0.83 of the sender's mean in one CI run). Never above the sender's highest; at
    # most two short, none below half.
    close = [g for g in got if 0.85 * g[0] <= g[2] <= 1.15 * g[1]]
    assert len(close) >= len(got) - 2, "%s: peaks vs sender rates: %s" % (what, got)
    for rate, max10, p, m in got:
        assert 0.5 * rate <= p <= 1.15 * max(max10, rate), \
            "%s: peak %.0f against the sender's %.0f (%.0f over 10 ms)" % (what, p, rate, max10)
    for rate, max10, p, m in got:
        assert p > 10 * m, "%s: peak %.0f is not far above the mean %.0f" % (what, p, m)
    return [g[2] for g in got]


def check_coarse(d, fine, what):
    """series at a 3 s step: each point of the peak series is the highest of the 1 s peaks
    inside its step (not the last one's), the mean series the mean of the 1 s means."""
    coarse = d.json("series", "*link.vB.rx_packets", "--window", "fineburst", "--step", "3")
    p1, p3 = points(fine, "peak.link.vB.rx_packets"), points(coarse, "peak.link.vB.rx_packets")
    m1, m3 = dict(points(fine, "link.vB.rx_packets")), dict(points(coarse, "link.vB.rx_packets"))
    assert len(p3) >= 3, (what, p3)
    bursts = 0
    for n, (t, v) in enumerate(p3):
        # A step ends at its point and starts at the one before (the window's last step is
        # cut short by its end).
        lo = p3[n - 1][0] if n > 0 else t - 3
        inside = [(t1, v1) for t1, v1 in p1 if lo + 0.01 < t1 <= t + 0.01]
        top = max(v1 for _, v1 in inside)
        assert abs(v - top) <= 1e-6 * max(top, 1), (what, t, v, inside, p1, p3)
        if n == 0 or n == len(p3) - 1 or len(inside) != 3:
            continue  # the window's first or last step: shorter, its mean over less
        mean = sum(m1[t1] for t1, _ in inside) / 3
        assert abs(m3[t] - mean) <= 0.05 * max(mean, 1), (what, t, m3[t], mean)
        bursts += top > 10 * mean
    assert bursts >= 1, (what, p3, p1)
    print("  %s: at a 3 s step, %d points, each the highest of the 1 s peaks inside it "
          "(%d with a burst)" % (what, len(p3), bursts))


def test_burst_peaks():
    state = tempfile.mkdtemp(prefix="nm-fine-state-")
    d = Daemon(state)
    try:
        st = d.json("status")
        assert st["fine"]["on"] is False, st["fine"]
        assert "no window" in st["fine"]["why"], st["fine"]
        assert sorted(st["fine"]["sources"]) == ["link", "queues", "softnet"], st["fine"]
        assert st["fine"]["ring"]["capacity_bytes"] + st["ring"]["capacity_bytes"] == \
            st["config"]["ring_memory"], (st["fine"], st["ring"])
        d.ctl("mark", "start", "fineburst")
        time.sleep(0.5)
        st = d.json("status")
        assert st["fine"]["on"] is True and "window" in st["fine"]["why"], st["fine"]
        r = sh(sys.executable, "-c", SENDER, ADDR_B, str(BURSTS), ns=NS_A)
        bursts = json.loads(r.stdout)
        # Long enough past the last burst that the window holds at least 7 of the 1 s
        # records whatever the phase of its edges against theirs: check_coarse needs a 3 s
        # step with a whole step on either side (with 1.5 s, a CI run's window held 6).
        time.sleep(2.5)
        st = d.json("status")
        f = fine_of(st)["link"]
        print("  link fine: %d samples, late median %.3f ms, max %.1f ms, %.1f us each; "
              "fine ring %s" % (f["samples"], f["late_median_ms"], f["late_max_ms"],
                                f["cost_us"], st["fine"]["ring"]))
        assert f["samples"] > 300, f
        # The fine ticks come from a periodic timerfd, one wake-up a tick, 10 ms apart.
        assert st["fine"]["timer"] == "timerfd" and st["fine"]["ticks_missed"] >= 0, st["fine"]
        d.ctl("mark", "stop", "fineburst")
        st = d.json("status")
        assert st["fine"]["on"] is False, st["fine"]
        live = d.json("series", "*link.vB.rx_packets", "--window", "fineburst")
        peaks = check_peaks(live, bursts, "from the ring")
        check_coarse(d, live, "from the ring")
    finally:
        assert d.stop() == 0
    # A restart: the ring and the fine history are gone; the stored series answer.
    d = Daemon(state)
    try:
        stored = d.json("series", "*link.vB.rx_packets", "--window", "fineburst")
        again = check_peaks(stored, bursts, "stored")
        assert again == peaks, (again, peaks)
        check_coarse(d, stored, "stored")
    finally:
        assert d.stop() == 0
        shutil.rmtree(state, ignore_errors=True)


TESTS = [test_burst_peaks]


def main():
    return nsrun.run(TESTS, "fine sampling", make_pair, remove_pair)


if __name__ == "__main__":
    sys.exit(main())
