#!/usr/bin/env python3
"""Measurement windows and the results store, through the real netmetricsd and
netmetricsctl: mark start/stop around loopback traffic, listings, overlapping and nested
windows, refusals, deletes, CSV export, live and recomputed reports, and restart safety:
a result stored before `mark stop` answers survives kill -9 byte for byte, a window open
across kill -9 comes back as an incomplete result, and one open at SIGTERM is closed and
stored by the daemon.

Each test starts its own daemon on a temporary socket and state directory and always
stops it. Python standard library only. Mutating commands need root or the admin group:
when not run as root, the daemon's admin group is set to the caller's group.
Environment: NETMETRICSD, NETMETRICSCTL. Usage: test_windows.py [NAME_SUBSTRING ...].
Ends with "N passed, M failed".
"""
import grp
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

NETMETRICSD = os.environ.get("NETMETRICSD", "")
NETMETRICSCTL = os.environ.get("NETMETRICSCTL", "")
SCRUB = ("NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "WATCHDOG_USEC",
         "WATCHDOG_PID", "JOURNAL_STREAM", "NETMETRICS_SOCKET")
START_TIMEOUT = 20.0  # seconds (ASan builds start slower)
REASON = "the daemon stopped without closing it (crash or kill)"

_live = []  # every daemon started, so a failing test still stops them


def env():
    return {k: v for k, v in os.environ.items() if k not in SCRUB}


class Daemon:
    """netmetricsd on a temporary socket and state directory, which survive restarts
    (start() again after kill9() or term()) until cleanup()."""

    def __init__(self, root=None, conf=""):
        self.dir = tempfile.mkdtemp(prefix="nm-windows-")
        os.chmod(self.dir, 0o755)  # the daemon's main process runs as netmetrics
        self.sock = os.path.join(self.dir, "s.sock")
        self.state = os.path.join(self.dir, "state")
        self.conf = os.path.join(self.dir, "netmetricsd.conf")
        self.root = root
        with open(self.conf, "w") as f:
            f.write("[sampling]\ninterval = 500ms\n" + conf)
            if os.geteuid() != 0:
                f.write("[daemon]\nadmin_group = %s\n" % grp.getgrgid(os.getegid()).gr_name)
        self.log = open(os.path.join(self.dir, "log"), "a")
        self.proc = None
        _live.append(self)
        self.start()

    def start(self):
        self.proc = subprocess.Popen(
            [NETMETRICSD, "--foreground", "--socket", self.sock, "--state-dir", self.state,
             "--config", self.conf, "--log-level", "info"]
            + (["--root", self.root] if self.root else []),
            stdout=self.log, stderr=subprocess.STDOUT, env=env())
        deadline = time.time() + START_TIMEOUT
        while time.time() < deadline:
            if os.path.exists(self.sock) and self.ctl("status", check=False).returncode == 0:
                self.wait_index(deadline)
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError("netmetricsd did not start: " + self.logtext())

    def wait_index(self, deadline):
        """Until the results index is checked (at each start, on the writer thread):
        before that, `results` lists names only ("index": "rebuilding")."""
        while time.time() < deadline:
            r = self.ctl("--json", "results", "--limit", "1", check=False)
            if r.returncode == 0 and json.loads(r.stdout).get("index") == "ready":
                return
            time.sleep(0.05)
        raise AssertionError("results index not ready: " + self.logtext())

    def ctl(self, *args, check=True):
        r = subprocess.run([NETMETRICSCTL, "--socket", self.sock] + list(args),
                           capture_output=True, text=True, env=env(), timeout=30)
        if check and r.returncode != 0:
            raise AssertionError("netmetricsctl %s: exit %d: %s" % (" ".join(args),
                                                                    r.returncode, r.stderr))
        return r

    def json(self, *args):
        return json.loads(self.ctl("--json", *args).stdout)

    def refused(self, code, *args):
        """Run a command the daemon must refuse; returns stderr."""
        r = self.ctl(*args, check=False)
        assert r.returncode == code, (args, r.returncode, r.stdout, r.stderr)
        assert r.stderr.startswith("netmetricsctl: "), r.stderr
        return r.stderr

    def raw_call(self, cmd, args, rid=1):
        """Send one request on a raw connection; returns the reply line (bytes)."""
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(30)
        s.connect(self.sock)
        s.sendall((json.dumps({"id": rid, "cmd": cmd, "args": args}) + "\n").encode())
        buf = b""
        while b"\n" not in buf:
            data = s.recv(1 << 20)
            assert data, "connection closed before the reply"
            buf += data
        s.close()
        return buf.split(b"\n", 1)[0]

    def logtext(self):
        self.log.flush()
        with open(self.log.name) as f:
            return f.read()[-3000:]

    def kill9(self):
        self.proc.kill()
        self.proc.wait()

    def term(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("netmetricsd did not stop on SIGTERM")

    def result_path(self, name):
        return os.path.join(self.state, "results", name + ".json")

    def window_path(self, name):
        return os.path.join(self.state, "windows", name + ".json")

    def cleanup(self):
        """Stop the daemon with SIGTERM and remove its files. A daemon that then exits
        with an error (under ASan: a leak) fails the test, unless it is failing already."""
        rc = 0
        if self.proc is not None and self.proc.poll() is None:
            try:
                rc = self.term()
            except AssertionError:
                rc = -1
        log = self.logtext()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        if self in _live:
            _live.remove(self)
        if rc != 0 and sys.exc_info()[0] is None:
            raise AssertionError("netmetricsd exited with %d at SIGTERM: %s" % (rc, log))


def udp_traffic(count=2000):
    """Send count small datagrams to a receiver on 127.0.0.1, reading them as they come;
    returns how many arrived."""
    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rx.bind(("127.0.0.1", 0))
    rx.setblocking(False)
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    got = 0

    def drain():
        n = 0
        try:
            while True:
                rx.recv(64)
                n += 1
        except BlockingIOError:
            return n

    try:
        for i in range(count):
            tx.sendto(b"netmetrics %d" % i, rx.getsockname())
            if i % 64 == 63:
                got += drain()
        time.sleep(0.05)
        got += drain()
    finally:
        tx.close()
        rx.close()
    return got


def files_below(top, suffix):
    out = []
    for d, _, names in os.walk(top):
        out += [os.path.join(d, n) for n in names if n.endswith(suffix)]
    return out


def reply_result_bytes(line):
    """The bytes of "result" in a reply line {"id":N,"ok":true,"result":...}."""
    head = line.split(b'"result":', 1)
    assert line.startswith(b'{"id":') and len(head) == 2 and line.endswith(b"}"), line[:200]
    assert b'"ok":true' in head[0], line[:300]
    return head[1][:-1]


def read(path):
    with open(path, "rb") as f:
        return f.read()


def test_mark_around_traffic():
    """start/stop around loopback traffic: the result is on disk when the reply comes,
    byte for byte what the reply says; windows and results list it."""
    d = Daemon()
    try:
        r = d.ctl("mark", "start", "traffic1")
        assert "traffic1" in r.stdout, r.stdout
        assert os.path.exists(d.window_path("traffic1"))
        sent = udp_traffic()
        assert sent > 1000, sent
        line = d.raw_call("mark-stop", {"name": "traffic1"})
        # Checked at once: the daemon stored the file before it answered.
        path = d.result_path("traffic1")
        assert os.path.exists(path), "no %s right after the reply" % path
        stored = read(path)
        assert stored == reply_result_bytes(line) + b"\n", (stored[:200], line[:200])
        assert not os.path.exists(d.window_path("traffic1"))
        assert files_below(d.state, ".tmp") == []
        res = json.loads(stored)
        w = res["window"]
        assert w["name"] == "traffic1" and w["origin"] == "hand", w
        assert w["closed_by"] == "hand" and w["complete"] is True, w
        assert 0 < w["duration_s"] < 60, w
        assert w["start"] < w["end"], w
        # The edges are exact: every datagram crossed lo inside the window.
        devs = {x["name"]: x for x in res["figures"]["devices"]}
        assert devs["lo"]["rx_packets"] >= sent, (sent, devs.get("lo"))

        wins = d.json("windows")
        assert [x["name"] for x in wins["windows"]] == ["traffic1"], wins
        x = wins["windows"][0]
        assert x["state"] == "closed" and x["closed_by"] == "hand" and x["stored"], x
        assert x["duration_s"] == w["duration_s"], (x, w)
        human = d.ctl("windows").stdout
        assert "traffic1" in human and "closed (hand)" in human, human

        lst = d.json("results")
        assert lst["count"] == 1, lst
        e = lst["results"][0]
        assert e["name"] == "traffic1" and e["complete"] is True, e
        assert e["start"] == w["start"] and e["duration_s"] == w["duration_s"], e
        human = d.ctl("results").stdout
        assert "traffic1" in human and "yes" in human, human
        assert d.ctl("result", "show", "traffic1", "--json").stdout.encode() == stored
    finally:
        d.cleanup()


def test_short_window_series():
    """A window shorter than two steps: `series --window` gives its two edges, each the
    rate over the whole window (the result's count over its duration), and the text says
    so instead of showing two rows that read like two seconds."""
    d = Daemon()
    try:
        d.ctl("mark", "start", "brief")
        sent = udp_traffic(300)
        assert sent > 100, sent
        d.ctl("mark", "stop", "brief")
        res = d.json("result", "show", "brief")
        dur = res["window"]["duration_s"]
        assert 0 < dur < 1.0, res["window"]  # under two steps of 500 ms
        rx = {x["name"]: x for x in res["figures"]["devices"]}["lo"]["rx_packets"]
        j = d.json("series", "link.lo.rx_packets", "--window", "brief")
        assert abs(j["step"] - (j["to"] - j["from"])) < 1e-3, j
        assert abs(j["step"] - dur) < 0.002, (j["step"], dur)
        pts = j["series"][0]["points"]
        assert len(pts) == 2 and pts[0][1] == pts[1][1], pts
        assert abs(pts[0][1] * j["step"] - rx) <= 0.01 * rx, (pts, j["step"], rx)
        out = d.ctl("series", "link.lo.rx_packets", "--window", "brief").stdout
        assert "(both rows are the rate over the whole window, %.3f s" % j["step"] in out, out
        # A window of many steps has no such line.
        out = d.ctl("series", "link.lo.rx_packets", "--from", "-3").stdout
        assert "whole window" not in out, out
    finally:
        d.cleanup()


def test_overlapping_and_nested():
    """Windows that overlap and nest each keep their own exact edges."""
    d = Daemon()
    try:
        d.ctl("mark", "start", "outer")
        time.sleep(0.1)
        d.ctl("mark", "start", "suite/inner")
        time.sleep(0.1)
        d.ctl("mark", "start", "overlap")
        udp_traffic(200)
        inner = d.json("mark", "stop", "suite/inner")["window"]
        time.sleep(0.1)
        res = d.json("mark", "stop", "outer", "--tcpext", "TCPLostRetransmit", "--tcpext",
                     "DelayedACKs")
        outer = res["window"]
        # Asked-for TcpExt fields are reported (total and per second) and remembered.
        tx = res["figures"]["tcp"]["tcpext"]
        assert set(tx) == {"TCPLostRetransmit", "TCPLostRetransmit_per_s", "DelayedACKs",
                           "DelayedACKs_per_s"}, tx
        assert outer["tcpext"] == ["TCPLostRetransmit", "DelayedACKs"], outer
        time.sleep(0.1)
        overlap = d.json("mark", "stop", "overlap")["window"]
        assert outer["start"] < inner["start"] < overlap["start"], (outer, inner, overlap)
        assert inner["end"] < outer["end"] < overlap["end"], (outer, inner, overlap)
        assert inner["duration_s"] < outer["duration_s"], (inner, outer)
        names = [x["name"] for x in d.json("windows")["windows"]]
        assert names == ["outer", "suite/inner", "overlap"], names
        # Newest start first.
        names = [x["name"] for x in d.json("results")["results"]]
        assert names == ["overlap", "suite/inner", "outer"], names
        assert os.path.exists(d.result_path("suite/inner"))
        names = [x["name"] for x in d.json("results", "suite/*")["results"]]
        assert names == ["suite/inner"], names
        assert d.json("results", "nothing*")["count"] == 0
    finally:
        d.cleanup()


def test_refusals():
    """A name in use gets exit 1 (exists); a bad name exit 2 (bad_args)."""
    d = Daemon()
    try:
        d.ctl("mark", "start", "dup")
        err = d.refused(1, "mark", "start", "dup")
        assert "exists" in err and "dup" in err, err
        d.ctl("mark", "stop", "dup")
        err = d.refused(1, "mark", "start", "dup")  # a kept window and a stored result
        assert "exists" in err, err
        err = d.refused(1, "mark", "stop", "dup")
        assert "not_found" in err, err
        err = d.refused(1, "mark", "stop", "never")
        assert "not_found" in err and "never" in err, err
        for bad in ("../x", "a//b", "/a", "a/", "a b", "x" * 201, "a/./b"):
            err = d.refused(2, "mark", "start", bad)
            assert "bad_args" in err, (bad, err)
        d.ctl("mark", "start", "x" * 200)
        d.refused(2, "mark", "start")
        d.refused(1, "report", "nothing")
        d.refused(1, "result", "show", "nothing")
        d.refused(2, "result", "show", "../../etc/passwd")
        d.refused(2, "result", "export", "dup", "--format", "xml")
        assert files_below(d.state, ".tmp") == []
    finally:
        d.cleanup()


def test_window_and_result_delete():
    """window delete forgets the window, not its result; result delete removes the file;
    then the name is free again."""
    d = Daemon()
    try:
        d.ctl("mark", "start", "w/one")
        d.ctl("mark", "stop", "w/one")
        r = d.json("window", "delete", "w/one")
        assert r == {"deleted": "w/one", "state": "closed", "result_kept": True}, r
        assert d.json("windows")["count"] == 0
        assert d.json("results")["count"] == 1
        err = d.refused(1, "window", "delete", "w/one")
        assert "not_found" in err and "result" in err, err
        err = d.refused(1, "mark", "start", "w/one")  # the stored result holds the name
        assert "a stored result named w/one exists" in err and "--replace" in err, err
        r = d.ctl("result", "delete", "w/one")
        assert "deleted w/one" in r.stdout, r.stdout
        assert not os.path.exists(d.result_path("w/one"))
        assert not os.path.exists(os.path.join(d.state, "results", "w"))
        d.refused(1, "result", "delete", "w/one")
        d.ctl("mark", "start", "w/one")  # free again
        # An open window deleted: dropped without a result, its file gone.
        assert os.path.exists(d.window_path("w/one"))
        r = d.json("window", "delete", "w/one")
        assert r["state"] == "open" and r["result_kept"] is False, r
        assert not os.path.exists(d.window_path("w/one"))
        assert d.json("results")["count"] == 0
        d.refused(1, "mark", "stop", "w/one")
    finally:
        d.cleanup()


def test_replace():
    """mark start --replace takes a name a kept window and a stored result hold: both go
    once the new window is open, and the hint of the refusal without it names --replace (the
    one step that works). An open window is not replaced."""
    d = Daemon()
    try:
        d.ctl("mark", "start", "again")
        first = d.json("mark", "stop", "again")["window"]["start"]
        err = d.refused(1, "mark", "start", "again")
        assert "a closed window and a stored result named again exist" in err, err
        assert "--replace" in err, err
        # The hint works: one command, and the old result is gone only now.
        r = d.json("mark", "start", "again", "--replace")
        assert sorted(r["replaced"]) == ["result", "window"], r
        assert [w["state"] for w in d.json("windows")["windows"]] == ["open"]
        assert d.json("results")["count"] == 0
        assert not os.path.exists(d.result_path("again"))
        # An open window is refused, --replace or not, and stays open.
        err = d.refused(1, "mark", "start", "again", "--replace")
        assert "window again is open" in err, err
        rep = d.json("mark", "stop", "again")
        assert rep["window"]["start"] != first, (rep["window"]["start"], first)
        assert d.json("result", "show", "again")["window"]["start"] == rep["window"]["start"]
        # A stored result alone (its window forgotten): replaced the same way.
        d.ctl("window", "delete", "again")
        r = d.json("mark", "start", "again", "--replace")
        assert r["replaced"] == ["result"], r
        # A name nothing holds: nothing to replace.
        assert d.json("mark", "start", "fresh", "--replace")["replaced"] == []
    finally:
        d.cleanup()


def test_export_csv():
    """result export: CSV with its header (from the daemon and from the client), JSON
    unchanged."""
    d = Daemon()
    try:
        d.ctl("mark", "start", "exp")
        udp_traffic(200)
        d.ctl("mark", "stop", "exp")
        stored = read(d.result_path("exp"))
        daemon_csv = d.ctl("result", "export", "exp", "--format", "csv").stdout
        client_csv = d.ctl("result", "export", "exp", "--csv").stdout
        assert daemon_csv.startswith("group,figure,key,value,unit\n"), daemon_csv[:200]
        assert daemon_csv == client_csv, (daemon_csv[:300], client_csv[:300])
        for row in daemon_csv.splitlines()[1:]:
            assert row.count(",") >= 4, row
        assert d.ctl("result", "export", "exp", "--json").stdout.encode() == stored
        assert d.ctl("result", "export", "exp").stdout.encode() == stored
        r = d.json("result", "export", "exp", "--format", "csv")
        assert r == {"csv": daemon_csv}, r
    finally:
        d.cleanup()


def test_reports_live_stored_recomputed():
    """report: live while open, stored once closed, recomputed with other CPU sets while
    the snapshots are in memory, refused with a reason after a restart."""
    d = Daemon()
    try:
        d.ctl("mark", "start", "rep")
        live = d.json("report", "rep")
        assert live["stored"] is False and live["window"]["state"] == "open", live["window"]
        assert live["window"]["complete"] is False, live["window"]
        assert d.json("windows")["windows"][0]["state"] == "open"  # still open
        d.ctl("mark", "stop", "rep", "--cpus", "first=0")
        stored = read(d.result_path("rep"))
        r = d.json("report", "rep")
        assert r["stored"] is True and r["window"]["cpus"] == ["first=0"], r["window"]
        del r["stored"]
        assert json.dumps(r) == json.dumps(json.loads(stored)), r
        r = d.json("report", "rep", "--cpus", "first=0")  # the same options: stored
        assert r["stored"] is True, r
        r = d.json("report", "rep", "--cpus", "all=0", "--cpus", "none=0")
        assert r["stored"] is False and r["window"]["cpus"] == ["all=0", "none=0"], r
        assert r["window"]["start"] == json.loads(stored)["window"]["start"]
        assert read(d.result_path("rep")) == stored  # a recomputed report is not stored
        d.term()
        d.start()
        r = d.json("report", "rep")
        assert r["stored"] is True, r
        err = d.refused(1, "report", "rep", "--cpus", "all=0")
        assert "snapshots" in err, err
    finally:
        d.cleanup()


def gen_host(root, step):
    """A gen-host.py fixture of a 16-CPU host with an 8-queue mlx5 eth0 at step, in place;
    its --json summary."""
    srcdir = os.environ.get("SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
    out = subprocess.run(
        [sys.executable, "-S", os.path.join(srcdir, "tests", "fixtures", "gen-host.py"), root,
         "--cpus", "16", "--queues", "8", "--irqs", "120", "--step", str(step), "--json"],
        check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def by_irq(rep):
    return {s["name"]: s["by_irq_cpu"]["rx_packets"]
            for s in rep["figures"]["queues"]["cpusets"]}


def queue_of(rep, dev, queue):
    """Queue QUEUE of device DEV in a report's queue figures; the figures when absent."""
    devs = [x for x in rep["figures"]["queues"]["devices"] if x["name"] == dev]
    assert len(devs) == 1, json.dumps(rep["figures"]["queues"])[:4000]
    qs = [q for q in devs[0]["queues"] if q["queue"] == queue]
    assert len(qs) == 1, json.dumps(devs[0])[:4000]
    return qs[0]


def test_recomputed_report_keeps_irq_table():
    """A kept window recomputed with other CPU sets joins with the IRQ table of its edges:
    with the interrupts source disabled (the table is read from the files, and traffic is
    credited by effective affinity), eth0 queue 5's IRQ moves to the other set after the
    window; `report NAME --cpus ...` still credits it where it was. The stored result keeps
    the table: queue IRQs with their affinities."""
    root = tempfile.mkdtemp(prefix="nm-windows-root-")
    os.chmod(root, 0o755)  # the daemon's main process reads it as netmetrics
    try:
        summary = gen_host(root, 0)
        d = Daemon(root=root, conf="[source.interrupts]\nenable = no\n")
        r = d.ctl("interrupts", check=False)
        assert r.returncode != 0 and "interrupts source is disabled" in r.stderr, r
        d.ctl("mark", "start", "irqs")
        gen_host(root, 1)
        rep = d.json("mark", "stop", "irqs", "--cpus", "a=0-7", "--cpus", "b=8-15")
        pci = summary["mlx5"]["eth0"]["pci"]
        kept = [e for e in rep["irq_table"] if e["device"] == pci and e["queue"] == 5]
        assert len(kept) == 1 and kept[0]["queue_kind"] == "txrx", rep["irq_table"]
        irq = kept[0]["irq"]
        eff = summary["affinity"][str(irq)][1]
        assert kept[0]["effective"] == eff, (kept, eff)
        assert 0 <= int(eff) <= 7, eff
        old = by_irq(rep)
        q5 = queue_of(rep, "eth0", 5)
        assert q5["rx_packets"] > 0 and old["a"] >= q5["rx_packets"], (q5, old)
        for f in ("effective_affinity_list", "smp_affinity_list"):
            with open(os.path.join(root, "proc", "irq", str(irq), f), "w") as fp:
                fp.write("12\n")
        again = d.json("report", "irqs", "--cpus", "a=0-7", "--cpus", "b=8-15",
                       "--cpus", "all=0-15")
        assert again["stored"] is False, again
        assert by_irq(again)["a"] == old["a"] and by_irq(again)["b"] == old["b"], \
            (by_irq(again), old)
        # A window whose end edge sees the IRQ moved joins with the moved IRQ (each step of
        # the generator writes the affinities again: move it once more after step 2).
        d.ctl("mark", "start", "moved")
        gen_host(root, 2)
        for f in ("effective_affinity_list", "smp_affinity_list"):
            with open(os.path.join(root, "proc", "irq", str(irq), f), "w") as fp:
                fp.write("12\n")
        now = by_irq(d.json("mark", "stop", "moved", "--cpus", "a=0-7", "--cpus", "b=8-15"))
        q5n = queue_of(d.json("report", "moved"), "eth0", 5)
        assert now["b"] >= q5n["rx_packets"] > 0, (now, q5n)
        d.cleanup()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_restart_safety_kill9():
    """kill -9 after mark stop returned: after a restart the result is there, and `result
    show --json` and the file are byte-identical to what they were."""
    d = Daemon()
    try:
        d.ctl("mark", "start", "safe/a")
        udp_traffic(500)
        d.ctl("mark", "stop", "safe/a")
        shown = d.ctl("result", "show", "safe/a", "--json").stdout
        before = read(d.result_path("safe/a"))
        assert shown.encode() == before
        # The second window is killed the instant its reply arrives.
        d.ctl("mark", "start", "safe/b")
        udp_traffic(500)
        line = d.raw_call("mark-stop", {"name": "safe/b"})
        d.kill9()
        b_bytes = read(d.result_path("safe/b"))
        assert b_bytes == reply_result_bytes(line) + b"\n"
        d.start()
        assert read(d.result_path("safe/a")) == before
        assert d.ctl("result", "show", "safe/a", "--json").stdout == shown
        assert read(d.result_path("safe/b")) == b_bytes
        assert d.ctl("result", "show", "safe/b", "--json").stdout.encode() == b_bytes
        lst = d.json("results")
        assert [x["name"] for x in lst["results"]] == ["safe/b", "safe/a"], lst
        assert all(x["complete"] for x in lst["results"]), lst
        assert files_below(d.state, ".tmp") == []
    finally:
        d.cleanup()


def test_open_window_across_kill9():
    """A window open when the daemon is killed comes back as an incomplete result."""
    d = Daemon()
    try:
        started = d.json("mark", "start", "crashed/run")["start"]
        d.ctl("mark", "start", "other")
        d.kill9()
        assert os.path.exists(d.window_path("crashed/run"))
        d.start()
        assert files_below(os.path.join(d.state, "windows"), ".json") == []
        lst = d.json("results")
        by = {x["name"]: x for x in lst["results"]}
        assert set(by) == {"crashed/run", "other"}, lst
        e = by["crashed/run"]
        assert e["complete"] is False and e["reason"] == REASON, e
        assert e["start"] == started, (e, started)
        human = d.ctl("results").stdout
        assert "crashed/run: " + REASON in human, human
        r = d.json("result", "show", "crashed/run")
        assert r["window"]["complete"] is False and r["figures"] == {}, r
        assert d.json("windows")["count"] == 0
        d.refused(1, "mark", "start", "crashed/run")
        csv = d.ctl("result", "export", "crashed/run", "--csv").stdout
        assert csv == "group,figure,key,value,unit\n", csv
        # Recovery happens once: a second restart lists the same.
        d.term()
        d.start()
        assert d.json("results") == lst
    finally:
        d.cleanup()


def test_open_window_at_sigterm():
    """A window open at SIGTERM is closed by the daemon and stored, closed_by shutdown."""
    d = Daemon()
    try:
        d.ctl("mark", "start", "at-term")
        udp_traffic(200)
        assert d.term() == 0, d.logtext()
        assert not os.path.exists(d.window_path("at-term"))
        r = json.loads(read(d.result_path("at-term")))
        assert r["window"]["closed_by"] == "shutdown", r["window"]
        assert r["window"]["complete"] is True, r["window"]
        d.start()
        e = d.json("results")["results"][0]
        assert e["name"] == "at-term" and e["closed_by"] == "shutdown" and e["complete"], e
    finally:
        d.cleanup()


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
    for name, fn in tests:
        start = time.monotonic()
        try:
            fn()
        except BaseException:
            failed += 1
            print("FAIL %s (%.1fs)" % (name, time.monotonic() - start), flush=True)
            traceback.print_exc(file=sys.stdout)
            sys.stdout.flush()
            if sys.exc_info()[0] is KeyboardInterrupt:
                break
            continue
        finally:
            for d in list(_live):
                d.cleanup()
        passed += 1
        print("ok   %s (%.1fs)" % (name, time.monotonic() - start), flush=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not tests else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
