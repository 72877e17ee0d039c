#!/usr/bin/env python3
"""Sampling on the real kernel: two network namespaces joined by a 4-queue veth pair,
iperf3 traffic between them, netmetricsd running inside the sender's namespace and read
through the real netmetricsctl. Checks that link, TCP and softirq rates agree with what
iperf3 moved, that a veth deleted mid-run is reported gone while sampling goes on, and
that per-queue totals of the host's eth0 agree with `ip -s link`.

Needs root (namespaces) and iperf3. Traffic stays between the namespaces this test
creates; they and every process started are removed even when a check fails.
Environment: NETMETRICSD, NETMETRICSCTL. Ends with "N passed, M failed".
"""
import calendar
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nsrun  # noqa: E402
from nsrun import Skip  # noqa: E402

NETMETRICSD = os.environ.get("NETMETRICSD", "")
NETMETRICSCTL = os.environ.get("NETMETRICSCTL", "")
TAG = "nmt%d" % os.getpid()
NS_A, NS_B = TAG + "a", TAG + "b"
ADDR_A, ADDR_B = "10.199.0.1", "10.199.0.2"
SCRUB = ("NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "WATCHDOG_USEC", "JOURNAL_STREAM",
         "NETMETRICS_SOCKET")


def sh(*args, check=True, ns=None, **kw):
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    return subprocess.run(cmd, check=check, capture_output=True, text=True, **kw)


def env():
    return {k: v for k, v in os.environ.items() if k not in SCRUB}


class Daemon:
    """netmetricsd in a namespace (or on the host), with a 500 ms interval."""

    def __init__(self, ns=None, extra="", prefix=(), state=None):
        """state: a state directory of the caller's (kept by stop, for a restart)."""
        self.dir = tempfile.mkdtemp(prefix="nm-sampling-")
        os.chmod(self.dir, 0o755)  # the daemon's main process runs as netmetrics
        self.sock = os.path.join(self.dir, "s.sock")
        conf = os.path.join(self.dir, "netmetricsd.conf")
        with open(conf, "w") as f:
            f.write("[sampling]\ninterval = 500ms\n" + extra)
        cmd = ([] if ns is None else ["ip", "netns", "exec", ns]) + list(prefix) + [
            NETMETRICSD, "--foreground", "--socket", self.sock, "--state-dir",
            state or os.path.join(self.dir, "state"), "--config", conf, "--log-level", "info"]
        self.log = open(os.path.join(self.dir, "log"), "w")
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, env=env())
        deadline = time.time() + 20
        while time.time() < deadline:
            if os.path.exists(self.sock) and self.ctl("status", check=False).returncode == 0:
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        text = self.logtext()
        self.stop()
        raise AssertionError("netmetricsd did not start: " + text)

    def ctl(self, *args, check=True):
        r = subprocess.run([NETMETRICSCTL, "--socket", self.sock] + list(args),
                           capture_output=True, text=True, env=env(), timeout=30)
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
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        rc = self.proc.returncode
        self.log.close()
        if rc != 0:
            # The daemon's own words are the only clue a failed CI run leaves.
            with open(self.log.name, errors="replace") as f:
                tail = f.read()[-12000:]
            sys.stderr.write("netmetricsd exited with %s; the end of its log:\n%s\n" % (rc, tail))
        shutil.rmtree(self.dir, ignore_errors=True)
        return rc


def epoch(rfc3339):
    """Seconds since the epoch of the daemon's "2026-12-03T07:05:39.123Z"."""
    return calendar.timegm(time.strptime(rfc3339[:19], "%Y-%m-%dT%H:%M:%S")) + float(
        "0" + rfc3339[19:].rstrip("Z"))


def make_pair():
    """Namespaces A and B, veth vA (A) <-> vB (B) with 4 queues each, addresses up."""
    sh("ip", "netns", "add", NS_A)
    sh("ip", "netns", "add", NS_B)
    sh("ip", "link", "add", "vA", "netns", NS_A, "numtxqueues", "4", "numrxqueues", "4",
       "type", "veth", "peer", "name", "vB", "netns", NS_B, "numtxqueues", "4",
       "numrxqueues", "4")
    for ns, dev, addr in ((NS_A, "vA", ADDR_A), (NS_B, "vB", ADDR_B)):
        sh("ip", "addr", "add", addr + "/24", "dev", dev, ns=ns)
        sh("ip", "link", "set", dev, "up", ns=ns)
        sh("ip", "link", "set", "lo", "up", ns=ns)


def remove_pair():
    nsrun.remove_netns(NS_A, NS_B)


def series_map(result):
    return {s["name"]: s for s in result["series"]}


def iperf(seconds, extra=()):
    """Run iperf3 from A to B; returns its JSON result."""
    server = subprocess.Popen(["ip", "netns", "exec", NS_B, "iperf3", "-s", "-1", "-B", ADDR_B],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(50):
            r = sh("iperf3", "-c", ADDR_B, "-t", str(seconds), "-J", *extra, ns=NS_A,
                   check=False)
            out = json.loads(r.stdout) if r.stdout.strip() else {}
            if r.returncode == 0 and "error" not in out:
                return out
            time.sleep(0.2)  # the server is not listening yet
        raise AssertionError("iperf3 client failed: " + r.stdout[-500:] + r.stderr)
    finally:
        server.kill()
        server.wait()


def test_rates_match_iperf3():
    """link bytes, TCP segments and NET_RX softirqs over the iperf3 run agree with iperf3."""
    d = Daemon(ns=NS_A)
    try:
        time.sleep(1.2)
        t0 = time.time()
        res = iperf(3)
        time.sleep(1.2)  # two more samples after the last byte
        span = time.time() - t0 + 0.5
        sent = res["end"]["sum_sent"]["bytes"]
        assert sent > 10 * 2**20, "iperf3 moved only %d bytes" % sent
        rates = d.json("rates", "--last", "%.1f" % span, "--all")
        m = series_map(rates)
        tx = m["link.vA.tx_bytes"]["delta"]
        # On the wire each 1448-byte segment carries 52-66 bytes of headers, plus the
        # handshake and the control connection: at most 110% of the payload, and at least
        # what the server read (bytes still in the send buffer when the server is stopped
        # never leave).
        recvd = res["end"]["sum_received"]["bytes"]
        assert recvd <= tx <= sent * 1.10, "link.vA.tx_bytes %d vs iperf3 %d sent, %d read" % (
            tx, sent, recvd)
        rx = m["link.vA.rx_bytes"]["delta"]
        assert rx > 0, "no acks seen on vA"
        segs = m["snmp.Tcp.OutSegs"]["delta"]
        mss = 1448
        assert sent / mss * 0.9 <= segs <= sent / mss * 1.25, \
            "Tcp.OutSegs %d vs %d bytes / %d" % (segs, sent, mss)
        ins = m["snmp.Tcp.InSegs"]["delta"]
        assert ins > 0 and ins < segs, "Tcp.InSegs %d (acks) vs OutSegs %d" % (ins, segs)
        # Rates are deltas over the time between the link source's own samples at the span's
        # edges, which may differ from span_s (every source's) by up to one interval.
        interval = 0.5
        rate = m["link.vA.tx_bytes"]["rate"]
        assert tx / (rates["span_s"] + interval) <= rate <= tx / (rates["span_s"] - interval), \
            "rate %.0f for %d bytes over %.2f s" % (rate, tx, rates["span_s"])
        netrx = sum(s["delta"] for n, s in m.items() if n.startswith("softirq.NET_RX."))
        assert netrx > 0, "no NET_RX softirqs while iperf3 ran"
        # The namespace's RetransSegs and iperf3's tcpi_total_retrans are counted at the same
        # place in the kernel (__tcp_retransmit_skb), so the namespace's figure holds every
        # retransmission iperf3 reports. It may hold a few more: the control connection's,
        # and those after iperf3's last TCP_INFO read while its buffer drains.
        retrans = m["snmp.Tcp.RetransSegs"]["delta"]
        iperf_retrans = res["end"]["sum_sent"].get("retransmits")
        if iperf_retrans is not None:
            assert iperf_retrans <= retrans <= iperf_retrans + max(50, 0.01 * segs), \
                "Tcp.RetransSegs %d vs iperf3's retransmits %d (OutSegs %d)" % (
                    retrans, iperf_retrans, segs)
        # The human table names the device and shows a non-zero rate.
        out = d.ctl("rates", "link.vA.tx_bytes", "--last", "%.1f" % span).stdout
        assert "link.vA.tx_bytes" in out and "bytes" in out, out
    finally:
        assert d.stop() == 0, "daemon exit status"


def test_device_removed_mid_run():
    """Deleting the veth while sampling: sampling goes on, the device's series are gone."""
    d = Daemon(ns=NS_A)
    try:
        time.sleep(1.2)
        before = d.json("metrics", "link.vA.*", "--live")
        assert before["count"] >= 20, before["count"]
        # veth has no per-queue packet counters (no qstats; its ethtool queue counters
        # count XDP only): queues says so rather than showing zeros.
        r = d.ctl("queues", "vA", check=False)
        assert r.returncode == 1 and "no per-queue counters" in r.stderr, r.stderr
        assert "veth has no qstats" in r.stderr and "XDP only" in r.stderr, r.stderr
        why = {x["name"]: x for x in d.json("queues")["queue_counters"]}
        assert why["vA"]["counters"] == "none" and "root mq" in why["vA"]["why"], why
        samples0 = {s["name"]: s["samples"] for s in d.json("status")["sources"]}
        d.ctl("mark", "start", "del")
        time.sleep(0.7)
        t_del = time.time()
        sh("ip", "link", "del", "vA", ns=NS_A)
        time.sleep(1.5)
        st = d.json("status")
        link = [s for s in st["sources"] if s["name"] == "link"][0]
        assert link["healthy"], link
        assert link["samples"] >= samples0["link"] + 2, (link, samples0)
        assert d.json("metrics", "link.vA.*", "--live")["count"] == 0
        gone = d.json("metrics", "link.vA.*")
        assert gone["count"] == before["count"] and not any(s["live"] for s in gone["series"])
        r = d.ctl("rates", "link.vA.*", check=False)
        assert r.returncode == 0, r.stderr
        # A new device appears without a restart.
        sh("ip", "link", "add", "vC", "type", "veth", "peer", "name", "vD", ns=NS_A)
        sh("ip", "link", "set", "vC", "up", ns=NS_A)
        time.sleep(1.2)
        assert d.json("metrics", "link.vC.rx_packets", "--live")["count"] == 1
        # A device of the same name again: the window's report says when vA went (the
        # sample that found it gone: within one 500 ms interval of the deletion) and when
        # it came back; vC, new, did not go.
        t_back = time.time()
        sh("ip", "link", "add", "vA", "type", "veth", "peer", "name", "vE", ns=NS_A)
        sh("ip", "link", "set", "vA", "up", ns=NS_A)
        time.sleep(1.2)
        d.ctl("mark", "stop", "del")
        rep = d.json("report", "del")
        start = epoch(rep["window"]["start"])
        gone = {g["device"]: g for g in rep["devices_gone"]}
        assert list(gone) == ["vA"], rep["devices_gone"]
        g = gone["vA"]
        assert t_del - 0.05 <= epoch(g["at"]) <= t_del + 0.5 + 0.3, (g, t_del)
        assert abs(g["after_s"] - (epoch(g["at"]) - start)) <= 0.002, (g, start)
        assert t_back - 0.05 <= start + g["back_after_s"] <= t_back + 0.5 + 0.3, (g, t_back)
        assert "vA" in [x["name"] for x in rep["figures"]["devices"]], rep["figures"]
        out = d.ctl("report", "del").stdout
        assert "vA went away %.3f s into the window" % g["after_s"] in out, out
        assert "back %.3f s into it" % g["back_after_s"] in out, out
        page = os.path.join(d.dir, "del.html")
        d.ctl("report", "del", "--html", page)
        with open(page) as f:
            html = f.read()
        assert "(!) vA went away %.3f s into the window" % g["after_s"] in html, html[:3000]
    finally:
        assert d.stop() == 0, "daemon exit status"


def test_labels_not_names():
    """Series carry labels from their source: a device named like a per-CPU series
    (vE.cpu3) is a device with no CPU, softirq series have their type and CPU, and
    `metrics --label` selects by them."""
    d = Daemon(ns=NS_A)
    try:
        sh("ip", "link", "add", "vE.cpu3", "type", "veth", "peer", "name", "vF", ns=NS_A)
        sh("ip", "link", "set", "vE.cpu3", "up", ns=NS_A)
        time.sleep(1.5)
        m = d.json("metrics", "link.vE.cpu3.rx_packets")
        assert m["count"] == 1, m
        assert m["series"][0]["labels"] == {
            "source": "link", "unit": "packets", "device": "vE.cpu3", "field": "rx_packets",
            "direction": "rx"}, m
        by_dev = d.json("metrics", "--label", "device=vE.cpu3", "--label", "direction=tx")
        names = {s["name"] for s in by_dev["series"]}
        assert "link.vE.cpu3.tx_bytes" in names and "link.vE.cpu3.rx_bytes" not in names, names
        assert all(s["labels"]["device"] == "vE.cpu3" for s in by_dev["series"]), by_dev
        # cpu=3 finds per-CPU series of the CPU sources, never the device's
        cpu3 = d.json("metrics", "--label", "cpu=3")
        assert cpu3["count"] > 0 or os.cpu_count() < 4, cpu3
        assert not any("vE" in s["name"] for s in cpu3["series"]), cpu3
        assert all(s["labels"]["cpu"] == 3 for s in cpu3["series"]), cpu3
        rx = d.json("metrics", "--label", "source=softirqs", "--label", "type=NET_RX",
                    "--label", "cpu=0")
        assert [s["name"] for s in rx["series"]] == ["softirq.NET_RX.cpu0"], rx
        assert rx["series"][0]["labels"] == {"source": "softirqs", "unit": "softirqs",
                                             "type": "NET_RX", "cpu": 0}, rx
        # every series has a unit
        every = d.json("metrics")
        assert every["count"] > 100 and all(s["unit"] for s in every["series"]), [
            s["name"] for s in every["series"] if not s["unit"]][:5]
        ser = d.json("series", "softirq.NET_RX.cpu0", "--from", "-2")
        assert ser["series"][0]["labels"]["type"] == "NET_RX", ser
        # the softirqs view takes its CPUs and types from the labels
        v = d.json("softirqs", "--all")
        assert "NET_RX" in v["types"] and [c["cpu"] for c in v["cpus"]] == sorted(
            c["cpu"] for c in v["cpus"]), v
        assert len(v["cpus"]) == os.cpu_count(), (len(v["cpus"]), os.cpu_count())
        r = d.ctl("metrics", "--label", "colour=red", check=False)
        assert r.returncode != 0 and "no such label" in r.stderr, r.stderr
    finally:
        subprocess.run(["ip", "netns", "exec", NS_A, "ip", "link", "del", "vE.cpu3"],
                       capture_output=True)
        assert d.stop() == 0, "daemon exit status"


def test_host_queues_match_ip_link():
    """Per-queue totals of the host's eth0 (qstats) agree with `ip -s link` totals."""
    r = subprocess.run(["ip", "-s", "-j", "link", "show", "eth0"], capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise Skip("this host has no eth0")
    d = Daemon()
    try:
        now = d.json("now", "queue.eth0.*")
        link = json.loads(subprocess.run(["ip", "-s", "-j", "link", "show", "eth0"],
                                         capture_output=True, text=True).stdout)[0]
        names = series_map(now)
        rx = sum(s["raw"] for n, s in names.items() if n.endswith(".packets") and ".rx" in n)
        tx = sum(s["raw"] for n, s in names.items() if n.endswith(".packets") and ".tx" in n)
        if not names:
            src = [s for s in d.json("status")["sources"] if s["name"] == "queues"][0]
            raise Skip("eth0 has no per-queue counters here: %s" % (src.get("reason") or
                                                                   "driver reports none"))
        lrx, ltx = link["stats64"]["rx"]["packets"], link["stats64"]["tx"]["packets"]
        # Read a few ms apart on a quiet interface: within 1% or 200 packets.
        assert abs(rx - lrx) <= max(200, lrx // 100), "rx queues %d vs ip %d" % (rx, lrx)
        assert abs(tx - ltx) <= max(200, ltx // 100), "tx queues %d vs ip %d" % (tx, ltx)
        out = d.ctl("queues", "eth0").stdout
        assert "eth0" in out and "IRQ" in out, out
    finally:
        assert d.stop() == 0, "daemon exit status"


def test_queues_mq_classes():
    """vA with an mq root qdisc: queues shows its 4 tx queues from mq's classes (class :N is
    tx queue N-1), marked as such, and the daemon's counts equal tc -s class once the
    traffic has stopped."""
    sh("tc", "qdisc", "add", "dev", "vA", "root", "handle", "7:", "mq", ns=NS_A)
    d = Daemon(ns=NS_A)
    try:
        iperf(2, ("-P", "4"))
        time.sleep(1.2)  # two samples after the last packet

        def classes():
            out = sh("tc", "-s", "class", "show", "dev", "vA", ns=NS_A).stdout
            return {int(m.group(1), 16) - 1: (int(m.group(3)), int(m.group(2))) for m in
                    re.finditer(r"^class mq 7:([0-9a-f]+) root.*\n\s*Sent (\d+) bytes (\d+) pkt",
                                out, re.M)}
        # tc before and after the daemon's own sample (now): a stray IPv6 packet may pass.
        before = classes()
        now = series_map(d.json("now", "queue.vA.*"))
        after = classes()
        got = {i: (now["queue.vA.tx%d.packets" % i]["raw"], now["queue.vA.tx%d.bytes" % i]["raw"])
               for i in range(4)}
        assert sorted(before) == [0, 1, 2, 3], before
        assert all(before[i][k] <= got[i][k] <= after[i][k] for i in range(4) for k in (0, 1)), \
            (before, got, after)
        assert sum(p for p, _ in got.values()) > 1000, got
        assert not any(".rx" in n for n in now), sorted(now)
        q = d.json("queues", "vA", "--last", "3")
        dev = q["devices"][0]
        assert dev["name"] == "vA" and dev["counters"] == "mq-class", dev
        assert sorted(x["queue"] for x in dev["queues"]) == [0, 1, 2, 3], dev
        why = q["queue_counters"][0]
        assert why["counters"] == "mq-class" and "mq qdisc's classes" in why["why"], why
        text = d.ctl("queues", "vA").stdout
        assert "vA: tx queues from mq classes" in text, text
    finally:
        assert d.stop() == 0, "daemon exit status"
        sh("tc", "qdisc", "del", "dev", "vA", "root", ns=NS_A, check=False)


TESTS = [test_rates_match_iperf3, test_device_removed_mid_run, test_labels_not_names,
         test_host_queues_match_ip_link, test_queues_mq_classes]


def main():
    return nsrun.run(TESTS, "sampling", make_pair, remove_pair, need_iperf3=True)

if __name__ == "__main__":
    sys.exit(main())
