#!/usr/bin/env python3
"""The packet generator driver (--driver pktgen) on the real kernel: a generator namespace
(GEN, vA 172.31.77.1/24, a route to 10.0.0.0/11 via the receiver) and a receiver namespace
(RCV, vB 172.31.77.2/24, forwarding off: the frames are counted on vB and dropped), joined
by a veth pair; netmetricsd runs in RCV and starts the generator in GEN (--netns GEN).
This kernel has no pktgen, so the driver runs trafgen; the kernel's pktgen path is only
tested through its pure parts (tests/unit/test-driver-pktgen.c) and through
netmetrics-pktgen on a directory of plain files standing in for /proc/net/pktgen.

Checks: a paced test (--rate 20000) sends at that rate and the daemon's window on vB saw
the same rate (within 10%: the tbf qdisc's first burst and the span differ), every frame
sent arrived on vB (rx packets, plus what veth counted as dropped), the frames are right
(captured with an AF_PACKET socket in RCV: IPv4 and UDP checksums, TTL 64, port 9, the
next hop's MAC resolved from the neighbour table, destinations inside the range, each
destination 8 times: 256 flows of 8), --count N sends exactly N (one and two threads), a
stopped test keeps its figures, the tbf qdisc and the configuration file are gone after
each test, and bad arguments are refused with the reason. IPv6 is off on the veths so
that nothing else crosses them.

Needs root and trafgen (netsniff-ng). Environment: NETMETRICSD, NETMETRICSCTL. Ends with
"N passed, M failed".
"""
import ipaddress
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nsrun  # noqa: E402
from test_sampling import sh  # noqa: E402
from test_tests import Daemon  # noqa: E402
from test_control import Client  # noqa: E402

NETMETRICSD = os.environ.get("NETMETRICSD", "")
HELPER = os.path.join(os.path.dirname(NETMETRICSD), "netmetrics-pktgen")
TAG = "nmpg%d" % os.getpid()
GEN, RCV = TAG + "g", TAG + "r"
ADDR_GEN, ADDR_RCV = "172.31.77.1", "172.31.77.2"

# Runs in RCV: capture up to N IPv4 frames arriving on vB for at most T seconds and check
# them; prints a JSON summary.
CAPTURE = r"""
import json, socket, struct, sys, time
n, limit, dev = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)  # SO_RCVBUFFORCE: room for the first burst
s.bind((dev, 0))
s.settimeout(0.5)
print("ready", flush=True)
def csum(b):
    if len(b) % 2:
        b += b"\0"
    t = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while t >> 16:
        t = (t & 0xffff) + (t >> 16)
    return t
out = {"frames": 0, "bad_ip": 0, "bad_udp": 0, "no_udp_csum": 0, "ttl": [], "len": [],
       "ports": [], "macs": [], "src": [], "dsts": {}}
end = time.time() + limit
while out["frames"] < n and time.time() < end:
    try:
        f, addr = s.recvfrom(2048)
    except socket.timeout:
        continue
    if addr[2] == socket.PACKET_OUTGOING or f[23] != 17:
        continue
    ip = f[14:34]
    ihl = (ip[0] & 15) * 4
    tot = struct.unpack("!H", f[16:18])[0]
    udp = f[14 + ihl:14 + tot]
    out["frames"] += 1
    out["bad_ip"] += csum(f[14:14 + ihl]) != 0xffff
    if struct.unpack("!H", udp[6:8])[0] == 0:
        out["no_udp_csum"] += 1
    elif csum(ip[12:20] + b"\0\x11" + struct.pack("!H", len(udp)) + udp) != 0xffff:
        out["bad_udp"] += 1
    for k, v in (("ttl", ip[8]), ("len", len(f)), ("ports", struct.unpack("!HH", udp[:4])),
                 ("macs", f[:6].hex(":")), ("src", socket.inet_ntoa(ip[12:16]))):
        if v not in out[k]:
            out[k].append(v)
    d = socket.inet_ntoa(ip[16:20])
    out["dsts"][d] = out["dsts"].get(d, 0) + 1
# PACKET_STATISTICS: frames the socket had no room for (the capture's, not the link's).
out["capture_drops"] = struct.unpack("II", s.getsockopt(263, 6, 8))[1]
print(json.dumps(out), flush=True)
"""


def mac(ns, dev):
    return json.loads(sh("ip", "-j", "link", "show", dev, ns=ns).stdout)[0]["address"]


def counter(ns, dev, name):
    return int(sh("cat", "/sys/class/net/%s/statistics/%s" % (dev, name), ns=ns).stdout)


def make_pair():
    remove_pair()
    for ns in (GEN, RCV):
        sh("ip", "netns", "add", ns)
        sh("ip", "-n", ns, "link", "set", "lo", "up")
        sh("sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", ns=ns)
        sh("sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1", ns=ns)
    sh("ip", "link", "add", "vA", "netns", GEN, "type", "veth", "peer", "name", "vB", "netns",
       RCV)
    sh("ip", "-n", GEN, "addr", "add", ADDR_GEN + "/24", "dev", "vA")
    sh("ip", "-n", RCV, "addr", "add", ADDR_RCV + "/24", "dev", "vB")
    sh("ip", "-n", GEN, "link", "set", "vA", "up")
    sh("ip", "-n", RCV, "link", "set", "vB", "up")
    sh("ip", "-n", GEN, "route", "add", "10.0.0.0/11", "via", ADDR_RCV)
    # The next hop, known without ARP: the driver resolves --dst-mac from this entry.
    sh("ip", "-n", GEN, "neigh", "replace", ADDR_RCV, "lladdr", mac(RCV, "vB"), "dev", "vA",
       "nud", "permanent")


def remove_pair():
    for ns in (GEN, RCV):
        sh("ip", "netns", "del", ns, check=False)


class Capture:
    """The CAPTURE script in RCV, started before a test."""

    def __init__(self, frames, seconds):
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", RCV, sys.executable, "-c", CAPTURE, str(frames),
             str(seconds), "vB"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline().strip() == "ready", self.proc.stderr.read()

    def result(self):
        out, err = self.proc.communicate(timeout=30)
        assert self.proc.returncode == 0, err
        return json.loads(out)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def need_tools():
    if shutil.which("trafgen") is None:
        raise AssertionError("trafgen is missing: tools/install-deps installs netsniff-ng")
    if not os.access(HELPER, os.X_OK):
        raise AssertionError("%s is missing (built beside netmetricsd)" % HELPER)


def qdisc_root(ns, dev):
    return json.loads(sh("tc", "-j", "qdisc", "show", "dev", dev, ns=ns).stdout)[0]


def run_test(d, *args):
    """test start --wait; returns the stored result."""
    name = args[args.index("--name") + 1]
    r = d.ctl("test", "start", "--wait", *args, check=False, timeout=120)
    assert r.returncode == 0, "test %s: exit %d\n%s%s%s" % (name, r.returncode, r.stdout,
                                                            r.stderr, d.logtext())
    return d.json("result", "show", name)


def left_behind(t):
    """The tbf qdisc is gone and the configuration's directory removed."""
    assert qdisc_root(GEN, "vA")["handle"] == "0:", qdisc_root(GEN, "vA")
    argv = t["processes"][0]["argv"]
    if "-i" in argv:
        cfg = argv[argv.index("-i") + 1]
        assert not os.path.exists(os.path.dirname(cfg)), cfg


def sent_and_received(before, after):
    """Frames that left vA, and those that arrived on vB or that veth dropped."""
    rx = after["rx"] - before["rx"]
    dropped = after["drop"] - before["drop"]
    return rx, dropped


def snapshot():
    return {"rx": counter(RCV, "vB", "rx_packets"),
            "drop": counter(GEN, "vA", "tx_dropped") + counter(RCV, "vB", "rx_dropped")}


def test_rate_and_frames():
    """--rate 20000 for 4 s: the rate, the window's rate on vB, every frame arrived, and the
    frames themselves."""
    need_tools()
    d = Daemon(ns=RCV)
    cap = None
    try:
        before = snapshot()
        cap = Capture(4000, 6)
        rep = run_test(d, "--driver", "pktgen", "--netns", GEN, "--dev", "vA", "--name",
                       "pg-rate", "--duration", "4", "--warmup", "1", "--cooldown", "1",
                       "--rate", "20000")
        frames = cap.result()
        after = snapshot()
        t = rep["test"]
        f = t["figures"]
        assert t["status"] == "passed", t
        assert t["generator"] in ("trafgen", "pktgen"), t
        assert t["dst_mac"] == mac(RCV, "vB") and t["src"] == ADDR_GEN, t
        assert t["flows"] == 256 and t["flowlen"] == 8 and t["size"] == 64, t
        pps = f["pps"]
        assert 18000 <= pps <= 22000, f
        assert f["bytes_sent"] == f["packets_sent"] * 60, f
        # The daemon's window (the middle 2 s) saw the rate the generator reports.
        vb = {x["name"]: x for x in rep["figures"]["devices"]}["vB"]
        assert 0.9 * pps <= vb["rx_packets_per_s"] <= 1.1 * pps, (vb, f)
        rx, dropped = sent_and_received(before, after)
        assert rx + dropped == f["packets_sent"] and dropped <= 0.01 * rx, (rx, dropped, f)
        print("  %s: %d packets, %.0f pps; vB %.0f pps in the window, %d received, "
              "%d dropped" % (t["generator"], f["packets_sent"], pps,
                              vb["rx_packets_per_s"], rx, dropped))
        # The frames.
        n = frames["frames"]
        assert n >= 2000, frames["frames"]
        assert frames["bad_ip"] == 0 and frames["bad_udp"] == 0, frames
        assert frames["no_udp_csum"] == 0, frames
        assert frames["ttl"] == [64] and frames["len"] == [60], frames
        assert frames["ports"] == [[9, 9]], frames["ports"]
        assert frames["macs"] == [mac(RCV, "vB")] and frames["src"] == [ADDR_GEN], frames
        lo, hi = ipaddress.ip_address("10.0.0.0"), ipaddress.ip_address("10.18.255.255")
        dsts = frames["dsts"]
        assert all(lo <= ipaddress.ip_address(x) <= hi for x in dsts), dsts
        # 256 flows of 8: each destination 8 times, but those the capture cut: the rounds
        # of 2048 frames start with the first frame, so only the last round is cut (and any
        # round where the capture itself lost frames).
        lost = frames["capture_drops"]
        cut = 256 * (1 + (n + lost) // 2048 if lost else 1)
        eight = sum(1 for c in dsts.values() if c == 8)
        assert max(dsts.values()) == 8 and eight >= len(dsts) - cut, \
            (eight, len(dsts), lost)
        assert n / 8 <= len(dsts) <= n / 8 + cut, (n, len(dsts), lost)
        print("  %d frames captured (%d lost by the capture): checksums right, %d "
              "destinations, %d of them 8 times" % (n, lost, len(dsts), eight))
        left_behind(t)
        assert d.children() == [], d.children()
    finally:
        if cap:
            cap.kill()
        assert d.stop() == 0


def test_count():
    """--count N sends exactly N, on one thread and on two."""
    need_tools()
    d = Daemon(ns=RCV)
    try:
        runs = [("pg-count", "5000", "1")]
        if (os.cpu_count() or 1) >= 2:
            runs.append(("pg-count2", "3001", "2"))
        for name, count, threads in runs:
            before = snapshot()
            rep = run_test(d, "--driver", "pktgen", "--netns", GEN, "--dev", "vA", "--name",
                           name, "--count", count, "--threads", threads, "--rate", "20000")
            after = snapshot()
            t = rep["test"]
            assert t["status"] == "passed" and t["duration_s"] is None, t
            assert t["count"] == int(count) and t["threads"] == int(threads), t
            assert t["figures"]["packets_sent"] == int(count), t["figures"]
            rx, dropped = sent_and_received(before, after)
            assert rx + dropped == int(count), (rx, dropped, count)
            argv = t["processes"][0]["argv"]
            if t["generator"] == "trafgen":
                assert argv[argv.index("-n") + 1] == count, argv
                assert argv[argv.index("-P") + 1] == threads, argv
                assert sum(w["packets_sent"] for w in t["processes"][0]["workers"]) == \
                    int(count), t["processes"][0]
            left_behind(t)
            print("  %s x %s thread(s): %d sent, %d received" % (count, threads,
                                                               t["figures"]["packets_sent"],
                                                               rx))
    finally:
        assert d.stop() == 0


def test_stopped():
    """A test stopped by hand ends the generator, keeps its figures and its pacing goes."""
    need_tools()
    d = Daemon(ns=RCV)
    try:
        d.ctl("test", "start", "--driver", "pktgen", "--netns", GEN, "--dev", "vA", "--name",
              "pg-stop", "--duration", "60", "--warmup", "0.5", "--rate", "5000",
              "--flowlen", "1")
        assert qdisc_root(GEN, "vA")["kind"] == "tbf", qdisc_root(GEN, "vA")
        time.sleep(2)
        d.ctl("test", "stop", "pg-stop")
        deadline = time.time() + 15
        while time.time() < deadline and d.json("test", "status", "pg-stop")["tests"][0][
                "state"] != "stopped":
            time.sleep(0.2)
        t = d.json("result", "show", "pg-stop")["test"]
        assert t["status"] == "stopped", t
        assert t["figures"]["packets_sent"] > 5000, t["figures"]
        assert 4000 <= t["figures"]["pps"] <= 7000, t["figures"]
        left_behind(t)
        assert d.children() == [], d.children()
    finally:
        assert d.stop() == 0


def test_bad_args():
    """Arguments that cannot work are refused before anything starts."""
    need_tools()
    d = Daemon(ns=RCV)
    try:
        sh("ip", "-n", GEN, "route", "add", "192.168.200.0/24", "via", "172.31.77.9")
        common = ["--driver", "pktgen", "--netns", GEN, "--name", "bad"]
        cases = [
            ([], "needs --dev"),
            (["--dev", "nope"], "does not exist"),
            (["--dev", "vA", "--dst-min", "10.0.0.5", "--dst-max", "10.0.0.1"], "above"),
            (["--dev", "vA", "--dst-min", "10.0.0"], "not an IPv4 address"),
            (["--dev", "vA", "--src", "x"], "not an IPv4 address"),
            (["--dev", "vA", "--dst-mac", "02:00:00:00:00"], "six hex bytes"),
            (["--dev", "vA", "--rate", "100", "--delay", "1000"], "give one"),
            (["--dev", "vA", "--dst-min", "192.168.200.1", "--dst-max", "192.168.200.9",
              "--flows", "4"], "no neighbour entry for 172.31.77.9"),
            (["--dev", "vA", "--size", "20000"], "--size"),
            (["--dev", "vA", "--procs", "2"], "--threads"),
            (["--dev", "vA", "--host", "10.0.0.1"], "--host"),
            (["--dev", "vA", "--threads", "200"], "--threads 200"),
        ]
        if not os.path.exists("/proc/net/pktgen/pgctrl"):
            cases += [
                (["--dev", "vA", "--clone-skb", "4"], "no pktgen"),
                (["--dev", "vA", "--dst-min", "10.0.0.0", "--dst-max", "10.0.0.9",
                  "--flows", "11"], "more flows"),
            ]
        for args, msg in cases:
            r = d.ctl("test", "start", *(common + args), check=False)
            assert r.returncode == 2 and msg in r.stderr, (args, r.returncode, r.stderr)
        # The user's own root qdisc is never replaced: pacing trafgen is refused.
        if not os.path.exists("/proc/net/pktgen/pgctrl"):
            sh("tc", "-n", GEN, "qdisc", "add", "dev", "vA", "root", "pfifo", "limit", "100")
            r = d.ctl("test", "start", *(common + ["--dev", "vA", "--rate", "1000"]),
                      check=False)
            assert r.returncode == 2 and "root qdisc of its own (pfifo)" in r.stderr, r.stderr
            assert qdisc_root(GEN, "vA")["kind"] == "pfifo"
            sh("tc", "-n", GEN, "qdisc", "del", "dev", "vA", "root")
        r = d.ctl("test", "start", "--driver", "pktgen", "--netns", TAG + "none", "--dev",
                  "vA", "--name", "bad", check=False)
        assert r.returncode == 2 and TAG + "none" in r.stderr, r.stderr
        r = d.ctl("test", "start", "--driver", "netperf", "--host", "10.0.0.1", "--dev", "vA",
                  "--name", "bad", check=False)
        assert r.returncode == 2 and "is for --driver pktgen" in r.stderr, r.stderr
        assert d.ctl("result", "show", "bad", check=False).returncode == 1
        assert d.children() == []
    finally:
        assert d.stop() == 0


STAND_IN = """#!/bin/sh
echo "$0 $*" >> %s
sleep 3
exec %s "$@"
"""


def test_slow_tools_do_not_stall():
    """ip and tc that take 3 s each (stand-ins first in the children's PATH, [daemon]
    child_path, which then run the real ones): a paced --count test runs through all of them (the lookups, the tbf on and off),
    while another client's status, asked every 100 ms, is always answered within 100 ms
    (150 ms allowed: the machine is shared)."""
    need_tools()
    tmp = tempfile.mkdtemp(prefix="nm-slow-")
    os.chmod(tmp, 0o755)  # the daemon's main process runs as netmetrics
    calls = os.path.join(tmp, "calls")
    for tool in ("ip", "tc"):
        path = os.path.join(tmp, tool)
        with open(path, "w") as f:
            f.write(STAND_IN % (calls, shutil.which(tool)))
        os.chmod(path, 0o755)
    # The children's PATH (child_path), not the daemon's, is where tools are looked up.
    d = Daemon(ns=RCV, extra="[daemon]\nchild_path = %s:%s\n" % (
        tmp, "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"))
    try:
        c = Client(d.sock)
        start = subprocess.Popen(
            [os.environ["NETMETRICSCTL"], "--socket", d.sock, "test", "start", "--wait",
             "--driver", "pktgen", "--netns", GEN, "--dev", "vA", "--name", "pg-slow",
             "--count", "2000", "--rate", "20000"], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        worst, n, rid = 0.0, 0, 0
        while start.poll() is None:
            rid += 1
            t0 = time.monotonic()
            rep = c.call("status", rid, timeout=10)
            took = time.monotonic() - t0
            assert rep["ok"], rep
            worst = max(worst, took)
            n += 1
            time.sleep(0.1)
        out, err = start.communicate()
        assert start.returncode == 0, (start.returncode, out, err, d.logtext())
        t = d.json("result", "show", "pg-slow")["test"]
        assert t["status"] == "passed" and t["figures"]["packets_sent"] == 2000, t
        left_behind(t)
        with open(calls) as f:
            ran = f.read().splitlines()
        assert sum(" addr show " in x for x in ran) == 1, ran
        assert sum(" qdisc add " in x for x in ran) == 1, ran
        assert sum(" qdisc del " in x for x in ran) == 1, ran
        assert len(ran) >= 5 and n >= 10, (ran, n)
        print("  %d tool runs of 3 s; %d status replies meanwhile, the slowest %.1f ms" % (
            len(ran), n, worst * 1000))
        assert worst < 0.150, "status took %.0f ms while a tool ran" % (worst * 1000)
        c.close()
        # The daemon stopping while a start waits for its tools: they are killed, the
        # start is dropped, and the daemon exits 0 (nothing leaked: ASan would say).
        start = subprocess.Popen(
            [os.environ["NETMETRICSCTL"], "--socket", d.sock, "test", "start", "--driver",
             "pktgen", "--netns", GEN, "--dev", "vA", "--name", "pg-gone", "--count",
             "100"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1)
        assert start.poll() is None, start.communicate()
        rc = d.stop(keep=True)
        with open(os.path.join(d.dir, "log")) as f:
            log = f.read()
        assert rc == 0, log[-3000:]
        shutil.rmtree(d.dir, ignore_errors=True)
        start.communicate(timeout=20)
        assert start.returncode != 0
        with open(calls) as f:
            later = f.read().splitlines()[len(ran):]
        assert later and not [x for x in later if "trafgen" in x], later
    finally:
        assert d.stop() == 0
        shutil.rmtree(tmp, ignore_errors=True)


def test_admin_not_root():
    """An admin-group user who is not root runs the generator: every command line the
    driver builds (ip's addr, route and neighbour lookups and tc's qdisc show, the tbf on
    and off, trafgen) passes the privileged process's allow-list and runs as root there,
    and the test sends what it should (issue 29: the allow-list must not refuse the
    driver's own lines)."""
    need_tools()
    for tool in ("useradd", "groupadd", "userdel", "groupdel", "setpriv"):
        if shutil.which(tool) is None:
            raise AssertionError("%s not found" % tool)
    name, group = "nmpa%d" % os.getpid(), "nmpb%d" % os.getpid()
    made_user = made_group = False
    d = None
    try:
        subprocess.run(["groupadd", group], check=True)
        made_group = True
        subprocess.run(["useradd", "-M", "-N", "-g", group, "-s", "/usr/sbin/nologin", name],
                       check=True)
        made_user = True
        pw = __import__("pwd").getpwnam(name)
        # test_env reaches a user's benchmarks; an admin's root command lines get the
        # privileged process's own environment (TC_LIB_DIR would make tc load a library).
        d = Daemon(ns=RCV, extra="[daemon]\nsocket_mode = 0666\nadmin_group = %s\n"
                   "[limits]\ntest_env = TC_LIB_DIR=/nonexistent-nm PATH=/nonexistent-nm\n"
                   % group)
        client = os.path.join(d.dir, "netmetricsctl")
        shutil.copy2(os.environ["NETMETRICSCTL"], client)
        os.chmod(client, 0o755)
        before = snapshot()
        r = subprocess.run(["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid,
                            "--init-groups", client, "--socket", d.sock, "test", "start",
                            "--wait", "--driver", "pktgen", "--netns", GEN, "--dev", "vA",
                            "--name", "pg-admin", "--count", "2000", "--rate", "20000"],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, (r.returncode, r.stdout, r.stderr, d.logtext()[-3000:])
        t = d.json("result", "show", "pg-admin")["test"]
        assert t["status"] == "passed" and t["figures"]["packets_sent"] == 2000, t
        rx, dropped = sent_and_received(before, snapshot())
        assert rx + dropped == 2000, (rx, dropped)
        # A longer run, to read trafgen's environment while it sends.
        r2 = subprocess.Popen(
            ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid, "--init-groups",
             client, "--socket", d.sock, "test", "start", "--wait", "--driver", "pktgen",
             "--netns", GEN, "--dev", "vA", "--name", "pg-admin-env", "--duration", "3",
             "--warmup", "0", "--cooldown", "0", "--rate", "1000"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        env = None
        deadline = time.time() + 10
        while env is None and time.time() < deadline:
            for p in os.listdir("/proc"):
                try:
                    if p.isdigit() and open("/proc/%s/comm" % p).read().strip() == "trafgen":
                        cwd = os.readlink("/proc/%s/cwd" % p)
                        with open("/proc/%s/environ" % p, "rb") as f:
                            env = dict(x.decode().split("=", 1)
                                       for x in f.read().split(b"\0") if x)
                except OSError:
                    continue
            time.sleep(0.05)
        out, err = r2.communicate(timeout=60)
        assert r2.returncode == 0, (out, err, d.logtext()[-3000:])
        assert env == {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                       "LANG": "C", "HOME": "/root"}, env
        # Its working directory is the daemon's for children (the socket's), where it makes
        # its .tmp_mmap file: not the daemon's own (issue 26: "/" is read-only under the
        # unit).
        assert cwd == os.path.realpath(os.path.dirname(d.sock)), cwd
        left_behind(t)
        log = d.logtext()
        assert "spawn refused" not in log, log[-3000:]
        prog = t["processes"][0]["argv"][0]
        assert "privsep: %s as uid 0 for a client of uid %d" % (prog, pw.pw_uid) in log, \
            log[-3000:]
        print("  %s, ip and tc ran as root for uid %d" % (os.path.basename(prog), pw.pw_uid))
    finally:
        if d is not None:
            assert d.stop() == 0
        if made_user:
            subprocess.run(["userdel", name])
        if made_group:
            subprocess.run(["groupdel", group])


def test_helper_script():
    """netmetrics-pktgen on plain files standing in for /proc/net/pktgen: the writes in
    order, the start, the reports; and a start that blocks (a FIFO) ended by SIGTERM."""
    need_tools()
    tmp = tempfile.mkdtemp(prefix="nm-pktgen-helper-")
    os.chmod(tmp, 0o755)  # the daemon's main process runs as netmetrics
    try:
        for name in ("kpktgend_0", "vA@0", "pgctrl"):
            with open(os.path.join(tmp, name), "w") as f:
                f.write("Result: OK: ready\n" if name != "pgctrl" else "")
        r = subprocess.run([HELPER, "-r", tmp, "-w", "kpktgend_0", "rem_device_all", "-w",
                            "kpktgend_0", "add_device vA@0", "-w", "vA@0", "count 10", "-s",
                            "-p", "vA@0", "-w", "kpktgend_0", "rem_device_all"],
                           capture_output=True, text=True, timeout=10)
        assert r.returncode == 0, r.stderr
        with open(os.path.join(tmp, "kpktgend_0")) as f:
            assert f.read() == ("Result: OK: ready\nrem_device_all\nadd_device vA@0\n"
                                "rem_device_all\n")
        with open(os.path.join(tmp, "pgctrl")) as f:
            assert f.read() == "start\n"
        assert r.stdout == "== vA@0\nResult: OK: ready\ncount 10\n", r.stdout
        # A refused write: its Result goes to stderr, the run ends with status 1.
        with open(os.path.join(tmp, "vA@0"), "w") as f:
            f.write("Result: No such parameter \"bogus\"\n")
        r = subprocess.run([HELPER, "-r", tmp, "-w", "vA@0", "bogus 1", "-s"],
                           capture_output=True, text=True, timeout=10)
        assert r.returncode == 1 and "No such parameter" in r.stderr, r.stderr
        r = subprocess.run([HELPER, "-r", tmp, "-w", "../x", "y"], capture_output=True,
                           text=True, timeout=10)
        assert r.returncode == 1 and "not a pktgen file name" in r.stderr, r.stderr
        # "start" that blocks until stopped: SIGTERM to the group, the reports still come.
        os.unlink(os.path.join(tmp, "pgctrl"))
        os.mkfifo(os.path.join(tmp, "pgctrl"))
        with open(os.path.join(tmp, "vA@0"), "w") as f:
            f.write("Result: OK: 5000000(c4999000+d1000) usec, 100000 (60byte,0frags)\n"
                    "  20000pps 9Mb/sec (9600000bps) errors: 0\n")
        p = subprocess.Popen([HELPER, "-r", tmp, "-s", "-p", "vA@0"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
        time.sleep(0.5)
        assert p.poll() is None, p.communicate()
        os.killpg(p.pid, signal.SIGTERM)
        out, err = p.communicate(timeout=10)
        assert p.returncode == 0, (p.returncode, err)
        assert out.startswith("== vA@0\nResult: OK: 5000000") and "20000pps" in out, out
        assert stat.S_ISFIFO(os.stat(os.path.join(tmp, "pgctrl")).st_mode)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    if os.geteuid() == 0 and shutil.which("ip") is None:
        print("ip (iproute2) is missing")
        return 1
    return nsrun.run([test_rate_and_frames, test_count, test_stopped, test_bad_args,
                      test_slow_tools_do_not_stall, test_admin_not_root, test_helper_script],
                     "packet generator", make_pair, remove_pair)


if __name__ == "__main__":
    sys.exit(main())
