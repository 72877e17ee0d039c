#!/usr/bin/env python3
"""The bpf source on the real kernel (issue 30, first slice): softirq and hard IRQ counts from
the eBPF programs against /proc/softirqs and /proc/interrupts over one window, both read by
the daemon itself in the same sampling rounds (the bpf source is sampled right after the
softirqs source).

netmetricsd runs as root, so the privileged process loads and attaches the programs and
hands the map fds to the main process, which runs without capabilities: the test checks
both (the main process's fdinfo shows the maps; its CapEff is 0). Traffic: iperf3 between
two namespaces joined by a veth pair, and a few fsync'd writes for the disk's IRQ.

What is asserted:
- every softirq type on every CPU: the window delta of bpf.softirq.TYPE.cpuC against
  that of softirq.TYPE.cpuC: never more than 3 over, never short by more than 3 and a
  tenth of the cell, and short in all by at most 10 a second and 0.1 %; the cells equal
  exactly are counted and the others printed. Not exact, for two reasons on this machine:
  the edges (the two sources read a few microseconds apart, while TIMER, HRTIMER and RCU
  run thousands of times a second), and a loss measured here that is not the daemon's:
  tp_btf, raw_tp and perf tracepoint programs attached side by side (and a global atomic
  counter in the program) miss the very same runs, one to a few softirqs a second of every
  type, in bursts of up to ~1,000 of a million when other work loads the machine (14 of
  47,691 NET_RX once), with no recursion miss counted, while ftrace's softirq_entry on
  the same tracepoint over the same span, bracketed by trace_marker, counts exactly
  /proc/softirqs' delta (TIMER 662 /proc, 662 ftrace, 659 BPF; RCU 930, 930, 925). Hard IRQ handler runs
  are lost the same way (IRQ 36, the disk, short by 2 with its BLOCK softirqs short by the
  same 2). The test prints every cell that differs;
- hard IRQs: for each numbered IRQ that fired in the window with a single action (not a
  shared line, whose handlers each count), bpf.irq.N.cpuC against irq.N.cpuC on every CPU:
  never more than 2 over, short by at most half (IRQ 42, virtio3-tx, once lost 5 of 16);
  the busiest cell (the disk's, from the fsyncs) within 1 % and 3. The IRQs that fired are
  printed with both counts; when none fired here, that is said;
- the programs' own cost: run count and run time per program, in status and as series.

Skips, printing why, only when the daemon was built without the programs or the kernel
has no BTF. Needs root and iperf3. Ends with "N passed, M failed".
"""
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
TAG = "nmb%d" % os.getpid()
NS_A, NS_B = TAG + "a", TAG + "b"
ADDR_A, ADDR_B = "10.198.0.1", "10.198.0.2"
SCRUB = ("NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "WATCHDOG_USEC", "JOURNAL_STREAM",
         "NETMETRICS_SOCKET")
BTF = "/sys/kernel/btf/vmlinux"


def sh(*args, check=True, ns=None, **kw):
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    return subprocess.run(cmd, check=check, capture_output=True, text=True, **kw)


def env():
    return {k: v for k, v in os.environ.items() if k not in SCRUB}


class Daemon:
    """netmetricsd in namespace A, 500 ms interval, started as root (privilege split)."""

    def __init__(self, ns, extra_conf=""):
        self.dir = tempfile.mkdtemp(prefix="nm-bpf-")
        os.chmod(self.dir, 0o755)  # the daemon's main process runs as netmetrics
        self.sock = os.path.join(self.dir, "s.sock")
        conf = os.path.join(self.dir, "netmetricsd.conf")
        with open(conf, "w") as f:
            f.write("[sampling]\ninterval = 500ms\n" + extra_conf)
        cmd = ["ip", "netns", "exec", ns, NETMETRICSD, "--foreground", "--socket", self.sock,
               "--state-dir", os.path.join(self.dir, "state"), "--config", conf,
               "--log-level", "info"]
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

    def main_pid(self):
        """The daemon's main process: the one whose socket this is (ip netns exec execs)."""
        return self.proc.pid

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
            with open(self.log.name, errors="replace") as f:
                sys.stderr.write("netmetricsd exited with %s; the end of its log:\n%s\n"
                                 % (rc, f.read()[-12000:]))
        shutil.rmtree(self.dir, ignore_errors=True)
        return rc


def make_pair():
    sh("ip", "netns", "add", NS_A)
    sh("ip", "netns", "add", NS_B)
    sh("ip", "link", "add", "bA", "netns", NS_A, "type", "veth", "peer", "name", "bB",
       "netns", NS_B)
    for ns, dev, addr in ((NS_A, "bA", ADDR_A), (NS_B, "bB", ADDR_B)):
        sh("ip", "addr", "add", addr + "/24", "dev", dev, ns=ns)
        sh("ip", "link", "set", dev, "up", ns=ns)
        sh("ip", "link", "set", "lo", "up", ns=ns)


def remove_pair():
    nsrun.remove_netns(NS_A, NS_B)


def iperf(seconds, *extra):
    server = subprocess.Popen(["ip", "netns", "exec", NS_B, "iperf3", "-s", "-1", "-B", ADDR_B],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(50):
            r = sh("iperf3", "-c", ADDR_B, "-t", str(seconds), "-J", *extra, ns=NS_A,
                   check=False)
            out = json.loads(r.stdout) if r.stdout.strip() else {}
            if r.returncode == 0 and "error" not in out:
                return out
            time.sleep(0.2)
        raise AssertionError("iperf3 client failed: " + r.stdout[-500:] + r.stderr)
    finally:
        server.kill()
        server.wait()


def disk_writes(n):
    """n small writes, each fsync'd: block IRQs and BLOCK softirqs on a VM's disk."""
    fd, path = tempfile.mkstemp(prefix="nm-bpf-io-", dir="/var/tmp")
    try:
        for i in range(n):
            os.pwrite(fd, os.urandom(4096), i * 4096)
            os.fsync(fd)
    finally:
        os.close(fd)
        os.unlink(path)


def source_status(d, name):
    return [s for s in d.json("status")["sources"] if s["name"] == name][0]


def need_programs(d):
    """Skip (saying why) where the programs cannot run: not built, or no BTF."""
    st = source_status(d, "bpf")
    if not os.path.exists(BTF):
        raise Skip("the kernel has no BTF (%s); the bpf source says: %s" % (BTF,
                                                                           st.get("reason")))
    if "built without" in (st.get("reason") or ""):
        raise Skip("netmetricsd was built without the eBPF programs (meson -Dbpf); "
                   "the bpf source says: %s" % st.get("reason"))
    return st


def window_deltas(d, window, glob):
    r = d.json("rates", glob, "--window", window, "--all")
    return {s["name"]: s["delta"] for s in r["series"]}, r


def single_action_irqs():
    """Numbered IRQs of /proc/interrupts with one action (no ',' in the action list)."""
    out = set()
    with open("/proc/interrupts") as f:
        ncpu = len(f.readline().split())
        for line in f:
            label, _, rest = line.partition(":")
            if not label.strip().isdigit():
                continue
            words = rest.split()
            actions = " ".join(words[ncpu + 2:]) if len(words) > ncpu + 2 else ""
            if actions and "," not in actions:
                out.add(int(label))
    return out


def wait_attached(d, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        st = source_status(d, "bpf")
        desc = st.get("details", {})
        if st["healthy"] and desc.get("via") not in (None, "none", "waiting"):
            return st
        time.sleep(0.25)
    raise AssertionError("the bpf source did not attach: %s" % st)


def test_counts_match_proc():
    """Over a window with iperf3 traffic and disk writes, the bpf softirq and hard IRQ counts
    per CPU against /proc/softirqs' and /proc/interrupts' deltas of the same rounds."""
    d = Daemon(NS_A)
    try:
        need_programs(d)
        st = wait_attached(d)
        desc = st.get("details", {})
        assert desc["via"] == "privileged process", desc
        # The main process holds the maps (read-only) and has no capability.
        pid = d.main_pid()
        with open("/proc/%d/status" % pid) as f:
            caps = dict(l.split(":", 1) for l in f if l.startswith("Cap"))
        assert int(caps["CapEff"], 16) == 0, caps
        maps = []
        for fd in os.listdir("/proc/%d/fd" % pid):
            try:
                with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                    info = f.read()
            except OSError:
                continue
            m = re.search(r"map_type:\s*(\d+)", info)
            if m:
                maps.append((int(m.group(1)), info))
        # softirq_stats and irq_stats (set irq), drop_stats (set drop), napi_stats (napi).
        assert len(maps) == 4, "the main process should hold the four maps: %s" % maps
        for _, info in maps:
            # O_RDONLY at the fd (flags in octal; the maps are BPF_F_RDONLY).
            flags = int(re.search(r"flags:\s*(\d+)", info).group(1), 8)
            assert flags & 3 == 0, info

        d.ctl("mark", "start", "w")
        time.sleep(0.6)
        iperf(3)
        disk_writes(40)
        time.sleep(0.6)
        d.ctl("mark", "stop", "w")

        proc, r1 = window_deltas(d, "w", "softirq.*")
        bpf, r2 = window_deltas(d, "w", "bpf.softirq.*")
        span = r1["span_s"]
        assert proc and bpf, (r1, r2)
        exact, off = 0, []
        for name, pd in sorted(proc.items()):
            m = re.match(r"softirq\.(\w+)\.cpu(\d+)$", name)
            assert m, name
            bd = bpf.get("bpf." + name)
            assert bd is not None, "no bpf series for %s" % name
            if bd == pd:
                exact += 1
                continue
            off.append("%s: /proc %d, bpf %d" % (name, pd, bd))
            # Never more than the edges allow; short by the runs no BPF program sees (see
            # the docstring), a small part of the cell: a wrong join of types or CPUs is not.
            assert -3 <= pd - bd <= 3 + pd // 10, "%s: /proc %d, bpf %d over %.2fs" % (
                name, pd, bd, span)
        short = sum(proc.values()) - sum(bpf.get("bpf." + k, 0) for k in proc)
        assert -6 <= short <= 10 * span + sum(proc.values()) // 1000, (
            "bpf short of /proc/softirqs by %d of %d over %.2fs" % (
                short, sum(proc.values()), span))
        netrx = sum(v for k, v in bpf.items() if ".NET_RX." in k)
        assert netrx > 100, "only %d NET_RX softirqs during iperf3" % netrx
        print("softirqs over %.2fs: %d of %d cells equal exactly (NET_RX total %d); "
              "differing: %s" % (span, exact, len(proc), netrx, off or "none"))

        # Hard IRQs: the numbered IRQs that fired, single action.
        pirq, _ = window_deltas(d, "w", "irq.*")
        birq, _ = window_deltas(d, "w", "bpf.irq.*")
        single = single_action_irqs()
        fired = {}
        for name, pd in pirq.items():
            m = re.match(r"irq\.(\d+)\.cpu(\d+)$", name)
            if m and pd > 0:
                fired.setdefault(int(m.group(1)), []).append((name, pd))
        checked = []
        busiest = (0, 0, "")
        for irq, cells in sorted(fired.items()):
            if irq not in single:
                continue
            for name, pd in cells:
                bd = birq.get("bpf." + name, 0)
                assert -2 <= pd - bd <= 2 + pd // 2, "%s: /proc/interrupts %d, bpf %d" % (
                    name, pd, bd)
                checked.append("%s %d/%d" % (name, pd, bd))
                busiest = max(busiest, (pd, bd, name))
        if not fired:
            print("no numbered IRQ fired on this machine during the window")
        else:
            print("hard IRQs (/proc/bpf): %s" % ", ".join(checked))
            # The busiest (the disk's, from the fsyncs): within 1 % and the edges.
            pd, bd, name = busiest
            assert pd - 3 - pd // 100 <= bd <= pd + 2, busiest

        # softirqs --time: each type's share of each CPU's time, beside the counts.
        v = d.json("softirqs", "--window", "w", "--time")
        assert v["time"] == "bpf", v
        pct = [c["time_pct"].get("NET_RX", 0) for c in v["cpus"]]
        assert all(0 <= p <= 100 for c in v["cpus"] for p in c["time_pct"].values()), v
        # The per-CPU shares sum to the total: each is rounded to 6 decimals in the reply, so
        # within half a millionth per CPU and half for the total (17.031485 against
        # 8.719492 + 8.311992 once).
        assert sum(pct) > 0 and abs(sum(pct) - v["time_total_pct"]["NET_RX"]) <= (
            (len(pct) + 1) * 5e-7 + 1e-9), v
        text = d.ctl("softirqs", "--window", "w", "--time").stdout
        assert "NET_RX%" in text and "softirq time" in text, text
        print(text)

        # The programs' own cost: counted, and timed (the kernel's BPF stats are on).
        st = source_status(d, "bpf")
        progs = {p["name"]: p for p in st.get("details", {})["programs"]}
        assert set(progs) == {"softirq_entry", "softirq_exit", "irq_handler_entry",
                              "irq_handler_exit", "kfree_skb", "napi_poll"}, progs
        for name in ("softirq_entry", "softirq_exit"):
            assert progs[name]["run_cnt"] > netrx and progs[name]["run_time_ns"] > 0, progs
        cost, _ = window_deltas(d, "w", "bpf.prog.*")
        runs = cost["bpf.prog.softirq_entry.runs"]
        assert runs >= sum(bpf.values()) - 5, (runs, sum(bpf.values()))
        # Where the runs that /proc/softirqs counts and the maps do not went (the docstring):
        # the kernel's own count of the program's runs (run_cnt, read in the same sample as
        # the maps) against the maps' sum and /proc's, and the runs the kernel refused the
        # program for recursion (recursion_misses, since the programs were attached).
        print("softirq_entry over the window: /proc/softirqs %d, program runs (kernel) %d, "
              "map counts %d; recursion_misses since attach: %s" % (
                  sum(proc.values()), runs, sum(bpf.values()),
                  ", ".join("%s %d" % (k, p["recursion_misses"])
                            for k, p in sorted(progs.items()))))
        print("program cost in the window: %s" % ", ".join(
            "%s %d" % (k, v) for k, v in sorted(cost.items())))
        print("ns per run: %s" % ", ".join("%s %.0f" % (k, p["ns_per_run"])
                                           for k, p in sorted(progs.items())))
    finally:
        assert d.stop() == 0, "daemon exit status"


SENDER = r"""
import socket, sys, time
addr, port, n, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(n):
    s.sendto(b"x" * size, (addr, port))
    if i % 50 == 49:
        time.sleep(0.002)  # let the receiving side's backlog drain: no CPU_BACKLOG drops
"""


def send_udp(ns, addr, port, n, size=64):
    """n UDP datagrams from namespace ns to addr:port."""
    sh(sys.executable, "-c", SENDER, addr, str(port), str(n), str(size), ns=ns)


def udp_mib(ns):
    """The Udp line of /proc/net/snmp in namespace ns, as a dict."""
    lines = [l.split() for l in sh("cat", "/proc/net/snmp", ns=ns).stdout.splitlines()
             if l.startswith("Udp:")]
    return dict(zip(lines[0][1:], map(int, lines[1][1:])))


def nft_counter(ns):
    """Packets the test's nftables drop rule counted."""
    out = sh("nft", "list", "chain", "inet", "nmt", "in", ns=ns).stdout
    return int(re.search(r"counter packets (\d+)", out).group(1))


def drops_attached(d):
    st = wait_attached(d)
    desc = st.get("details", {})
    if not desc.get("drops"):
        raise AssertionError("the drop set is not there: %s" % desc)
    return desc


def test_drops_by_reason():
    """Packets dropped for three reasons, sent from B to the daemon's namespace A (so that
    their device, bA, is one of the daemon's): each reason's series on bA over a window
    equals, packet for packet, the kernel's own counter for it in namespace A (Udp NoPorts,
    the nftables rule's counter, Udp RcvbufErrors) and the number sent where every packet
    drops. Exact, not with a margin: namespace A has no other traffic, and the per-device
    series count only its devices (the key carries the device's namespace; the host's other
    drops have other devices or none). The reason-only series (every namespace's) is at least
    as large."""
    d = Daemon(NS_A)
    recv = None
    try:
        need_programs(d)
        desc = drops_attached(d)
        assert desc["drop_reasons"] > 50, desc  # 6.18 names 131; 5.17 had 67
        # 1. UDP to a port nobody listens on: NO_SOCKET, and Udp NoPorts.
        n1 = 500
        mib0 = udp_mib(NS_A)
        d.ctl("mark", "start", "w1")
        send_udp(NS_B, ADDR_A, 9, n1)
        time.sleep(0.7)
        d.ctl("mark", "stop", "w1")
        mib1 = udp_mib(NS_A)
        dl, _ = window_deltas(d, "w1", "bpf.drop.*")
        noports = mib1["NoPorts"] - mib0["NoPorts"]
        print("NO_SOCKET: sent %d, Udp NoPorts %d, bpf.drop.NO_SOCKET.bA %s, all %s" % (
            n1, noports, dl.get("bpf.drop.NO_SOCKET.bA"), dl.get("bpf.drop.NO_SOCKET")))
        assert noports == n1, (noports, n1)
        assert dl.get("bpf.drop.NO_SOCKET.bA") == noports, dl
        assert dl.get("bpf.drop.NO_SOCKET", 0) >= noports, dl
        # The drops view: the reason beside the socket counter that counts the same drops.
        v = d.json("drops", "--window", "w1")
        groups = {g["where"]: {c["name"]: c for c in g["counters"]} for g in v["groups"]}
        assert v["reasons"] == "bpf", v
        assert groups["reason"]["bpf.drop.NO_SOCKET.bA"]["delta"] == n1, groups["reason"]
        assert groups["reason"]["bpf.drop.NO_SOCKET.bA"]["labels"]["device"] == "bA"
        assert groups["socket"]["snmp.Udp.NoPorts"]["delta"] == n1, groups["socket"]
        text = d.ctl("drops", "--window", "w1").stdout
        assert re.search(r"reason\s+bpf\.drop\.NO_SOCKET\.bA\s+bA\s+500\b", text), text
        print(text)

        # The window's report: drops by reason, per device, and the programs' cost.
        rep = d.json("report", "w1")["figures"]["bpf"]
        assert rep["drops"]["devices"]["bA"]["NO_SOCKET"] == n1, rep["drops"]
        assert rep["drops"]["reasons"]["NO_SOCKET"] >= n1, rep["drops"]
        assert rep["programs"]["kfree_skb"]["runs"] >= n1, rep["programs"]
        assert rep["programs"]["kfree_skb"]["ns_per_run"] > 0, rep["programs"]
        assert rep["softirq_time"]["total_s"]["NET_RX"] > 0, rep["softirq_time"]
        text = d.ctl("report", "w1").stdout
        assert "Drops by reason" in text and "Softirq time per CPU" in text, text
        assert re.search(r"NO_SOCKET\s+bA\s+500\b", text), text
        assert re.search(r"kfree_skb\s+[\d,]+\s+\d+", text), text

        # 2. An nftables rule that drops: NETFILTER_DROP, and the rule's counter.
        n2 = 300
        nft = ("table inet nmt {\n chain in {\n  type filter hook input priority 0;\n"
               "  udp dport 9999 counter drop\n }\n}\n")
        sh("nft", "-f", "-", ns=NS_A, input=nft)
        d.ctl("mark", "start", "w2")
        send_udp(NS_B, ADDR_A, 9999, n2)
        time.sleep(0.7)
        d.ctl("mark", "stop", "w2")
        rule = nft_counter(NS_A)
        sh("nft", "delete", "table", "inet", "nmt", ns=NS_A)
        dl, _ = window_deltas(d, "w2", "bpf.drop.*")
        print("NETFILTER_DROP: sent %d, rule counter %d, bpf.drop.NETFILTER_DROP.bA %s" % (
            n2, rule, dl.get("bpf.drop.NETFILTER_DROP.bA")))
        assert rule == n2, (rule, n2)
        assert dl.get("bpf.drop.NETFILTER_DROP.bA") == rule, dl
        assert dl.get("bpf.drop.NO_SOCKET.bA", 0) == 0, dl

        # 3. A receiver that never reads, its buffer small: SOCKET_RCVBUFF, RcvbufErrors.
        n3 = 2000
        recv = subprocess.Popen(
            ["ip", "netns", "exec", NS_A, sys.executable, "-c",
             "import socket, sys, time\n"
             "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
             "s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)\n"
             "s.bind(('%s', 7777))\nprint('ready', flush=True)\ntime.sleep(60)\n" % ADDR_A],
            stdout=subprocess.PIPE, text=True)
        assert recv.stdout.readline().strip() == "ready"
        mib0 = udp_mib(NS_A)
        d.ctl("mark", "start", "w3")
        send_udp(NS_B, ADDR_A, 7777, n3, 1000)
        time.sleep(0.7)
        d.ctl("mark", "stop", "w3")
        mib1 = udp_mib(NS_A)
        dl, _ = window_deltas(d, "w3", "bpf.drop.*")
        rcvbuf = mib1["RcvbufErrors"] - mib0["RcvbufErrors"]
        print("SOCKET_RCVBUFF: sent %d, Udp RcvbufErrors %d, InDatagrams %d, "
              "bpf.drop.SOCKET_RCVBUFF.bA %s" % (
                  n3, rcvbuf, mib1["InDatagrams"] - mib0["InDatagrams"],
                  dl.get("bpf.drop.SOCKET_RCVBUFF.bA")))
        assert rcvbuf > n3 // 2, (rcvbuf, n3)
        assert dl.get("bpf.drop.SOCKET_RCVBUFF.bA") == rcvbuf, dl
        # A few fit in the buffer (InDatagrams counts them only when read: never here).
        assert rcvbuf < n3, (rcvbuf, n3)

        # compare: the drops of w1 (NO_SOCKET on bA) against those of w2 (none there). The
        # totals are judged when the windows' lengths are within 5 %, else (a loaded
        # machine's marks come late: once in CI) their per-second figures are.
        cmp = d.json("compare", "w1", "w2")
        figs = {f["figure"]: f for f in cmp["figures"]}

        def verdict(f):
            if f["verdict"] is None:
                assert f["unjudged"] == "total over windows of unequal length", f
                return f["per_s"]["verdict"]
            return f["verdict"]
        f = figs["bpf.drops.devices.bA.NO_SOCKET"]
        assert f["a"]["mean"] == n1 and f["b"]["mean"] == 0, f
        assert f["better"] == "lower" and verdict(f) == "better", f
        f = figs["bpf.drops.devices.bA.NETFILTER_DROP"]
        assert f["a"]["mean"] == 0 and f["b"]["mean"] == n2 and verdict(f) == "worse", f
        assert figs["bpf.programs.kfree_skb.ns_per_run"]["unit"] == "ns", figs

        # Labels: the reason as field, the device, unit packets; the program's cost.
        r = d.json("rates", "bpf.drop.SOCKET_RCVBUFF.bA", "--window", "w3", "--all")
        st = source_status(d, "bpf")
        progs = {p["name"]: p for p in st["details"]["programs"]}
        assert progs["kfree_skb"]["run_cnt"] >= n1 + n2 + n3, progs
        cost, _ = window_deltas(d, "w3", "bpf.prog.kfree_skb.*")
        assert cost["bpf.prog.kfree_skb.runs"] >= rcvbuf, cost
        print("kfree_skb: %.0f ns per run; series %s" % (progs["kfree_skb"]["ns_per_run"],
                                                         r["series"][0]))
    finally:
        if recv is not None:
            recv.kill()
            recv.wait()
        assert d.stop() == 0, "daemon exit status"


def tc_qdisc(ns, dev):
    """{handle: (kind, dropped)} of `tc -s qdisc show dev DEV` in namespace ns."""
    out = sh("tc", "-s", "qdisc", "show", "dev", dev, ns=ns).stdout
    res = {}
    for m in re.finditer(r"^qdisc (\S+) (\S+) .*?\n Sent \d+ bytes \d+ pkt \(dropped (\d+),",
                         out, re.M | re.S):
        res[m.group(2)] = (m.group(1), int(m.group(3)))
    return res


def test_qdisc_drops():
    """A tbf qdisc with a tiny queue on bA (rate 1 Mbit/s, limit 3,000 bytes; netem is not
    there on a kernel without modules), 5,000 UDP datagrams sent from A through it faster
    than that: the qdisc source's qdisc.bA.<HANDLE>.drops over the window equals the dropped
    delta of `tc -s qdisc show dev bA` read just outside the window's edges (no traffic
    between those reads and the edges: exact), most of what was sent; the
    drops view shows it in its qdisc group with the bpf drop reasons on bA beside it (the same
    packets, freed with reason QDISC_DROP: equal), and the window's report lists it under
    drops by reason."""
    d = Daemon(NS_A)
    try:
        need_programs(d)
        drops_attached(d)
        qs = source_status(d, "qdisc")
        assert qs["healthy"] and qs["enabled"], qs
        send_udp(NS_A, ADDR_B, 9, 1)  # B's neighbour entry, before the loss
        time.sleep(0.2)
        sh("tc", "qdisc", "add", "dev", "bA", "root", "tbf", "rate", "1mbit", "burst", "10k",
           "limit", "3000", ns=NS_A)
        handle = [h for h, (k, _) in tc_qdisc(NS_A, "bA").items() if k == "tbf"][0]
        name = "qdisc.bA.%s.drops" % handle
        time.sleep(1.2)  # a sample with the new qdisc: its series from there
        n = 5000
        tc0 = tc_qdisc(NS_A, "bA")[handle][1]
        d.ctl("mark", "start", "wq")
        send_udp(NS_A, ADDR_B, 9, n)
        time.sleep(0.7)
        d.ctl("mark", "stop", "wq")
        tc1 = tc_qdisc(NS_A, "bA")[handle][1]
        dl, _ = window_deltas(d, "wq", "qdisc.*")
        v = d.json("drops", "--window", "wq")
        groups = {g["where"]: g for g in v["groups"]}
        rows = {c["name"]: c for c in groups["qdisc"]["counters"]}
        print("tbf on bA (%s): sent %d, tc dropped %d, %s %s, drops view %s" % (
            handle, n, tc1 - tc0, name, dl.get(name), rows.get(name)))
        assert dl.get(name) == tc1 - tc0, (dl, tc1 - tc0)
        assert 0.5 * n < tc1 - tc0 < n, (tc1 - tc0, n)
        row = rows[name]
        assert row["delta"] == tc1 - tc0 and row["labels"]["device"] == "bA", row
        assert row["labels"]["type"] == "tbf" and row["labels"]["field"] == "drops", row
        assert groups["qdisc"]["total"] >= tc1 - tc0, groups["qdisc"]
        reasons = row["device_reasons"]
        qreasons = {r: c for r, c in reasons.items() if "QDISC" in r}
        assert sum(qreasons.values()) == tc1 - tc0, reasons
        text = d.ctl("drops", "--window", "wq").stdout
        assert re.search(r"qdisc\s+%s\s+bA\s+%s\s+\S+\s+.*QDISC" % (
            re.escape(name), "{:,}".format(tc1 - tc0)), text), text
        print(text)
        rep = d.json("report", "wq")["figures"]["bpf"]["drops"]
        assert rep["qdisc"]["bA"][handle] == tc1 - tc0, rep
        text = d.ctl("report", "wq").stdout
        assert re.search(r"qdisc %s\s+bA\s+%s\b" % (re.escape(handle),
                                                     "{:,}".format(tc1 - tc0)), text), text
    finally:
        sh("tc", "qdisc", "del", "dev", "bA", "root", ns=NS_A, check=False)
        assert d.stop() == 0, "daemon exit status"


def link_rx_packets(ns, dev):
    return int(sh("cat", "/sys/class/net/%s/statistics/rx_packets" % dev, ns=ns).stdout)


PROM_PORT = 9464  # in namespace A, the daemon's own: no other test's port


def scrape(ns, port=PROM_PORT):
    """The text exposition of the daemon's /metrics in namespace ns, checked by promtool."""
    r = sh(sys.executable, "-c", "import urllib.request, sys; sys.stdout.write(urllib.request."
           "urlopen('http://127.0.0.1:%d/metrics', timeout=20).read().decode())" % port, ns=ns)
    c = subprocess.run(["promtool", "check", "metrics"], input=r.stdout, capture_output=True,
                       text=True, timeout=120)
    assert c.returncode == 0, "promtool check metrics: %s%s" % (c.stdout[-2000:],
                                                               c.stderr[-2000:])
    return r.stdout


def prom_samples(text, family):
    """{labels: value} of family's samples in a text exposition (labels a sorted tuple)."""
    out = {}
    for m in re.finditer(r"^%s\{([^}]*)\} (\S+)" % re.escape(family), text, re.M):
        labels = tuple(sorted(re.findall(r'(\w+)="([^"]*)"', m.group(1))))
        out[labels] = float(m.group(2))
    return out


def test_napi_polls():
    """A veth with GRO on receives through NAPI (veth_napi): under iperf3 -R (B sends to A)
    the NAPI instance of bA, in the daemon's namespace, shows its polls and packets, labelled
    with its device: its packets over the window are bA's rx_packets delta within 0.2 %
    (see below), polls are fewer than packets (batches of ~40 here), and the per-CPU polls
    add up to the polls. The budget-exhausted polls are printed (82 of 41,042 once).
    /metrics (checked by promtool) has the instance's polls, packets and budget-exhausted polls
    as netmetrics_bpf_napi_*_total{device="bA",napi_id=ID} (queue where the NAPI table links
    one), each at least the window's delta and the value the metrics command shows."""
    d = Daemon(NS_A, "[prometheus]\nlisten = 127.0.0.1:%d\n" % PROM_PORT)
    try:
        need_programs(d)
        st = wait_attached(d)
        assert st["details"].get("napi"), st["details"]
        # veth turns its NAPI on when GRO changes to on while up (veth_set_features), and
        # sends through it only what its sender did not segment already
        # (veth_skb_is_eligible_for_gro): TSO off on bB.
        sh("ethtool", "-K", "bA", "gro", "off", ns=NS_A)
        sh("ethtool", "-K", "bA", "gro", "on", ns=NS_A)
        sh("ethtool", "-K", "bB", "tso", "off", ns=NS_B)
        time.sleep(0.6)
        rx0 = link_rx_packets(NS_A, "bA")
        d.ctl("mark", "start", "w")
        out = iperf(3, "-R")
        time.sleep(0.6)
        d.ctl("mark", "stop", "w")
        rx1 = link_rx_packets(NS_A, "bA")
        dl, _ = window_deltas(d, "w", "bpf.napi.*")
        labels = {m["name"]: m["labels"] for m in d.json("metrics", "bpf.napi.*")["series"]}
        mine = [n[:-len(".polls")] for n, l in labels.items()
                if n.endswith(".polls") and l.get("device") == "bA"]
        assert len(mine) == 1, "bA's NAPI instance: %s" % labels
        base = mine[0]
        napi_id = int(base.split(".")[2])
        polls, packets = dl[base + ".polls"], dl[base + ".packets"]
        exhausted = dl[base + ".exhausted"]
        rx = rx1 - rx0
        per_cpu = {n: v for n, v in dl.items() if n.startswith(base + ".polls.cpu")}
        print("NAPI %d (bA): %d polls, %d packets (%.1f a poll), %d exhausted; bA rx_packets "
              "%d; per CPU %s; iperf3 %.0f Mbit/s" % (
                  napi_id, polls, packets, packets / max(polls, 1), exhausted, rx, per_cpu,
                  out["end"]["sum_received"]["bits_per_second"] / 1e6))
        assert labels[base + ".polls"]["field"] == "polls", labels[base + ".polls"]
        assert labels[base + ".packets"]["unit"] == "packets", labels[base + ".packets"]
        assert polls > 100 and packets > polls, (polls, packets)
        # Every packet into bA went through its NAPI (TSO off on the sender): the window's
        # edges are 0.6 s from the traffic, so none is in flight there.
        # Nearly every packet into bA went through its NAPI (TSO off on the sender); the
        # window's edges are 0.6 s from the traffic, so none is in flight there. Not exact:
        # bA's rx_packets counts ~0.05 % more here (945 of 1,723,407 once; packets veth takes
        # in outside its NAPI poll, not tracked down), never fewer.
        assert rx - 3 - rx // 500 <= packets <= rx + 3, (packets, rx)
        assert sum(per_cpu.values()) == polls, (per_cpu, polls)
        assert exhausted <= polls, (exhausted, polls)
        st = source_status(d, "bpf")
        progs = {p["name"]: p for p in st["details"]["programs"]}
        assert progs["napi_poll"]["run_cnt"] >= polls, progs
        # The napi view: the same instance, its rates and CPUs.
        v = d.json("napi", "bA", "--window", "w")
        assert v["napi"] == "bpf" and len(v["napis"]) == 1, v
        row = v["napis"][0]
        assert row["id"] == str(napi_id) and row["device"] == "bA", row
        assert row["polls"] == polls and row["packets"] == packets, (row, polls, packets)
        assert abs(row["packets_per_poll"] - packets / polls) < 0.01, row
        assert abs(sum(c["share_pct"] for c in row["cpus"]) - 100) < 0.1, row
        text = d.ctl("napi", "--window", "w").stdout
        assert re.search(r"\b%d\s+bA\b" % napi_id, text), text
        assert re.search(r"backlog", text), text
        print(text)
        # /metrics: the instance's three counters, labelled with its device, id and queue.
        expo = scrape(NS_A)
        now = {m["name"]: m["raw"] for m in d.json("now", "bpf.napi.*")["series"]}
        want = [("device", "bA"), ("napi_id", str(napi_id))]
        q = labels[base + ".polls"].get("queue")
        if q is not None:
            want.append(("queue", str(q)))
        for fam, field, delta in (("polls", "polls", polls), ("packets", "packets", packets),
                                  ("budget_exhausted", "exhausted", exhausted)):
            got = prom_samples(expo, "netmetrics_bpf_napi_%s_total" % fam)
            v = got.get(tuple(sorted(want)))
            assert v is not None, (fam, want, got)
            # Since the programs attached: at least the window's; at most a sample taken after
            # the scrape.
            assert delta <= v <= now[base + "." + field], (fam, v, delta, now)
        backlog = prom_samples(expo, "netmetrics_bpf_napi_polls_total")
        assert any(dict(k).get("napi_id") == "backlog" for k in backlog), backlog
        assert "cpu=" not in "".join(l for l in expo.splitlines() if "bpf_napi" in l)
        print("/metrics: %s" % [l for l in expo.splitlines()
                                if l.startswith("netmetrics_bpf_napi") and "bA" in l])
    finally:
        assert d.stop() == 0, "daemon exit status"


def napi_thread(ns, dev, timeout=5):
    """The pid of dev's threaded-NAPI kthread (comm napi/DEV-ID), once it is there."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open("/proc/%s/comm" % pid) as f:
                    if f.read().startswith("napi/%s-" % dev):
                        return int(pid)
            except OSError:
                pass
        time.sleep(0.1)
    raise AssertionError("no napi/%s-* thread after threaded = 1" % dev)


def udp_flood(seconds):
    """iperf3 UDP from B to A (-R), unlimited rate, 1,400-byte datagrams on 8 sockets, the
    sender in B on CPU 0: its result. Eight: veth keeps the sender's socket charged for an
    skb until bA's NAPI takes it, so one socket's send buffer (~90 skbs) stalls the sender
    before bA's ring (256) fills; eight fill it."""
    server = subprocess.Popen(["ip", "netns", "exec", NS_B, "taskset", "-c", "0", "iperf3", "-s",
                               "-1", "-B", ADDR_B],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(50):
            r = sh("taskset", "-c", "0", "iperf3", "-c", ADDR_B, "-t", str(seconds), "-J", "-R",
                   "-u", "-b", "0", "-l", "1400", "-P", "8", ns=NS_A, check=False)
            out = json.loads(r.stdout) if r.stdout.strip() else {}
            if r.returncode == 0 and "error" not in out:
                return out
            time.sleep(0.2)
        raise AssertionError("iperf3 client failed: " + r.stdout[-500:] + r.stderr)
    finally:
        server.kill()
        server.wait()


def napi_window(d, window, dev):
    """dev's one NAPI instance in the napi view over window."""
    v = d.json("napi", dev, "--window", window)
    assert v["napi"] == "bpf" and len(v["napis"]) == 1, v
    return v["napis"][0]


def test_napi_budget_exhausted_slowed():
    """A slowed receiver exhausts its NAPI budget (issue 30's done-when): bA (GRO on, so veth's
    NAPI; TSO off on bB) with threaded NAPI (/sys/class/net/bA/threaded = 1), its kthread
    napi/bA-ID pinned to CPU 1, under iperf3 UDP from B (sender on CPU 0), twice:
    - free: the kthread alone on CPU 1;
    - slowed: the kthread SCHED_IDLE and a process spinning on CPU 1 at normal priority, so
      that the kthread gets only what the spinner leaves: bB's sends fill bA's ring (256
      entries) between two of its runs, and each poll finds more than its budget (64) there.
    The napi view of each window: the slowed window's exhausted polls are more than 30 % of its
    polls, and that share is more than twice the free window's (and above it by 20 points).
    threaded, the kthread's policy and the spinner are put back in every case."""
    d = Daemon(NS_A)
    spinner = None
    tpid = None
    threaded = "/sys/class/net/bA/threaded"
    try:
        need_programs(d)
        st = wait_attached(d)
        assert st["details"].get("napi"), st["details"]
        if os.cpu_count() < 2:
            raise Skip("needs 2 CPUs (the sender on one, the slowed receiver on the other)")
        sh("ethtool", "-K", "bA", "gro", "off", ns=NS_A)
        sh("ethtool", "-K", "bA", "gro", "on", ns=NS_A)
        sh("ethtool", "-K", "bB", "tso", "off", ns=NS_B)
        sh("sh", "-c", "echo 1 > %s" % threaded, ns=NS_A)
        assert sh("cat", threaded, ns=NS_A).stdout.strip() == "1"
        tpid = napi_thread(NS_A, "bA")
        sh("taskset", "-p", "-c", "1", str(tpid))
        time.sleep(0.6)
        rows = {}
        for window in ("free", "slowed"):
            if window == "slowed":
                sh("chrt", "-i", "-p", "0", str(tpid))
                spinner = subprocess.Popen(
                    ["taskset", "-c", "1", sys.executable, "-c",
                     "import time\nt = time.time() + 30\nwhile time.time() < t: pass\n"])
                time.sleep(0.3)
            d.ctl("mark", "start", window)
            out = udp_flood(2)
            time.sleep(0.6)
            d.ctl("mark", "stop", window)
            rows[window] = napi_window(d, window, "bA")
            r = rows[window]
            print("%s: NAPI %s (bA, threaded): %d polls, %d packets (%.1f a poll), %d exhausted "
                  "(%.1f %%); iperf3 UDP %.0f Mbit/s sent, %.1f %% lost" % (
                      window, r["id"], r["polls"], r["packets"], r["packets_per_poll"],
                      r["exhausted"], r["exhausted_pct"],
                      out["end"]["sum"]["bits_per_second"] / 1e6,
                      out["end"]["sum"].get("lost_percent", 0)))
        free, slow = rows["free"], rows["slowed"]
        assert free["id"] == slow["id"], rows  # one instance: the id stays while bA lives
        assert free["polls"] > 100 and slow["polls"] > 100, rows
        for r in (free, slow):
            assert r["exhausted"] <= r["polls"], r
            assert abs(r["exhausted_pct"] - 100.0 * r["exhausted"] / r["polls"]) < 0.01, r
        assert slow["exhausted"] > 0.3 * slow["polls"], slow
        assert slow["exhausted_pct"] > 2 * free["exhausted_pct"], rows
        assert slow["exhausted_pct"] > free["exhausted_pct"] + 20, rows
        text = d.ctl("napi", "bA", "--window", "slowed").stdout
        print(text)
    finally:
        if spinner is not None:
            spinner.kill()
            spinner.wait()
        if tpid is not None:
            sh("chrt", "-o", "-p", "0", str(tpid), check=False)
        sh("sh", "-c", "echo 0 > %s" % threaded, ns=NS_A, check=False)
        assert d.stop() == 0, "daemon exit status"


def main_maps(pid):
    """How many BPF maps the process holds (its fdinfo)."""
    n = 0
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                n += "map_type:" in f.read()
        except OSError:
            pass
    return n


def prog_loaded(prog_id):
    """Whether the kernel still has BPF program prog_id."""
    return subprocess.run(["bpftool", "prog", "show", "id", str(prog_id)],
                          capture_output=True).returncode == 0


def bpf_details(d):
    return source_status(d, "bpf").get("details", {})


def test_on_demand():
    """[source.bpf] attach = on-demand: no program is loaded until mark start --bpf; the
    window's report has the drops sent during it; after mark stop the programs are gone (their
    ids no longer in the kernel, no map left in the main process), and a window without --bpf
    counts nothing. test start --bpf does the same for a test's window."""
    d = Daemon(NS_A, "[source.bpf]\nattach = on-demand\n")
    try:
        need_programs(d)
        det = bpf_details(d)
        assert det["attach"] == "on-demand" and det["attached"] is False, det
        assert main_maps(d.main_pid()) == 0, "maps held before any window asked"
        r = d.json("mark", "start", "w", "--bpf")
        assert r.get("bpf") is True, r
        det = bpf_details(d)
        assert det["attached"] is True and det["held_by"] == ["w"], det
        assert det["via"] == "privileged process (on demand)", det
        assert main_maps(d.main_pid()) == 4
        time.sleep(0.6)
        send_udp(NS_B, ADDR_A, 9, 200)
        time.sleep(0.6)
        det = bpf_details(d)
        ids = [p["id"] for p in det["programs"]]
        assert len(ids) == 6 and all(prog_loaded(i) for i in ids), det
        d.ctl("mark", "stop", "w")
        det = bpf_details(d)
        assert det["attached"] is False and "held_by" not in det, det
        assert main_maps(d.main_pid()) == 0
        # The kernel frees a program after an RCU grace period, not at the last close.
        deadline = time.time() + 5
        while any(prog_loaded(i) for i in ids) and time.time() < deadline:
            time.sleep(0.1)
        assert not any(prog_loaded(i) for i in ids), ids
        rep = d.json("report", "w")["figures"]["bpf"]
        assert rep["drops"]["devices"]["bA"]["NO_SOCKET"] == 200, rep["drops"]
        assert rep["programs"]["kfree_skb"]["runs"] >= 200, rep["programs"]
        # Without --bpf: nothing counted, nothing attached.
        d.ctl("mark", "start", "w2")
        assert bpf_details(d)["attached"] is False
        send_udp(NS_B, ADDR_A, 9, 100)
        time.sleep(0.6)
        d.ctl("mark", "stop", "w2")
        dl, _ = window_deltas(d, "w2", "bpf.drop.*")
        assert dl.get("bpf.drop.NO_SOCKET.bA", 0) == 0, dl
        # A test's window: held from before it opens to its end edge.
        sender = "import time; time.sleep(0.7)\n" + SENDER
        r = d.ctl("test", "start", "--driver", "exec", "--name", "t1", "--bpf", "--warmup", "0",
                  "--cooldown", "0", "--netns", NS_B, "--wait", "--", "/usr/bin/python3", "-c",
                  sender, ADDR_A, "9", "300", "64", check=False)
        assert r.returncode == 0, r.stdout + r.stderr
        det = bpf_details(d)
        assert det["attached"] is False and "held_by" not in det, det
        rep = d.json("result", "show", "t1")["figures"]["bpf"]
        assert rep["drops"]["devices"]["bA"]["NO_SOCKET"] == 300, rep["drops"]
        print("on demand: w 200 NO_SOCKET on bA, w2 none, test t1 300; programs %s gone" % ids)
    finally:
        assert d.stop() == 0, "daemon exit status"


def set_states(d):
    """{set: (state, reason)} from the bpf source's status."""
    return {e["name"]: (e["state"], e.get("reason")) for e in bpf_details(d).get("sets", [])}


def wait_sets(d, want, timeout=10):
    """Wait until the sets' states are want ({set: state}); the states."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        st = set_states(d)
        if {k: v[0] for k, v in st.items()} == want:
            return st
        time.sleep(0.25)
    raise AssertionError("sets %s, not %s" % (st, want))


def write_conf(d, text):
    with open(os.path.join(d.dir, "netmetricsd.conf"), "w") as f:
        f.write("[sampling]\ninterval = 500ms\n" + text)


def priv_stats_fds(d):
    """The fds of the kernel's BPF statistics (anon_inode:bpf-stats) the daemon's privileged
    process (the main process's child, netmetricsd-pri) holds."""
    pid = d.main_pid()
    with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
        kids = [int(k) for k in f.read().split()]
    n = 0
    for k in kids:
        with open("/proc/%d/comm" % k) as f:
            if not f.read().startswith("netmetricsd-pri"):
                continue
        for fd in os.listdir("/proc/%d/fd" % k):
            try:
                n += os.readlink("/proc/%d/fd/%s" % (k, fd)) == "anon_inode:bpf-stats"
            except OSError:
                pass
    return n


def test_sets():
    """[source.bpf] sets = drop: only the drop set is loaded (one map in the main process,
    one program in status); the drops are counted packet for packet, and there is no
    bpf.softirq series; status says irq and napi are off by config. A reload that changes
    the list attaches and detaches accordingly: sets = irq drop brings the softirq series
    (three maps), sets = napi detaches the other two (their programs leave the kernel);
    stats = off with it has the privileged process let the kernel's BPF statistics go. With
    attach = on-demand and sets = drop, mark start --bpf attaches the drop set alone."""
    d = Daemon(NS_A, "[source.bpf]\nsets = drop\n")
    try:
        need_programs(d)
        wait_attached(d)
        st = wait_sets(d, {"irq": "off by config", "drop": "attached", "napi": "off by config"})
        assert st["irq"][1] == "off by config ([source.bpf] sets)", st
        assert main_maps(d.main_pid()) == 1, "maps: %d" % main_maps(d.main_pid())
        d.ctl("mark", "start", "w")
        send_udp(NS_B, ADDR_A, 9, 300)
        time.sleep(0.7)
        d.ctl("mark", "stop", "w")
        dl, _ = window_deltas(d, "w", "bpf.drop.*")
        assert dl.get("bpf.drop.NO_SOCKET.bA") == 300, dl
        sd, _ = window_deltas(d, "w", "bpf.softirq*")
        assert sd == {}, sd
        progs = [p["name"] for p in bpf_details(d).get("programs", [])]
        assert progs == ["kfree_skb"], progs
        drop_ids = [p["id"] for p in bpf_details(d)["programs"]]
        print("sets = drop: NO_SOCKET on bA %d, no softirq series, programs %s" % (
            dl["bpf.drop.NO_SOCKET.bA"], progs))
        # Reload with irq added: the softirq series come.
        write_conf(d, "[source.bpf]\nsets = irq drop\n")
        os.kill(d.main_pid(), signal.SIGHUP)
        wait_sets(d, {"irq": "attached", "drop": "attached", "napi": "off by config"})
        assert main_maps(d.main_pid()) == 3, "maps: %d" % main_maps(d.main_pid())
        time.sleep(1.1)
        names = [s["name"] for s in d.json("metrics", "bpf.softirq.NET_RX.*")["series"]]
        assert "bpf.softirq.NET_RX.cpu0" in names, names
        # The kernel's BPF statistics held on by the privileged process (stats = on).
        assert bpf_details(d)["stats"] == "on", bpf_details(d)
        assert priv_stats_fds(d) == 1, priv_stats_fds(d)
        # Reload with napi only and stats = off: irq and drop leave the kernel, and the
        # privileged process lets the statistics go.
        irq_ids = [p["id"] for p in bpf_details(d)["programs"] if p["name"] != "kfree_skb"]
        write_conf(d, "[source.bpf]\nsets = napi\nstats = off\n")
        os.kill(d.main_pid(), signal.SIGHUP)
        wait_sets(d, {"irq": "off by config", "drop": "off by config", "napi": "attached"})
        assert bpf_details(d)["stats"] == "off", bpf_details(d)
        assert priv_stats_fds(d) == 0, priv_stats_fds(d)
        assert main_maps(d.main_pid()) == 1, "maps: %d" % main_maps(d.main_pid())
        deadline = time.time() + 5
        while any(prog_loaded(i) for i in drop_ids + irq_ids) and time.time() < deadline:
            time.sleep(0.1)
        assert not any(prog_loaded(i) for i in drop_ids + irq_ids), drop_ids + irq_ids
        print("reload: irq drop attached (3 maps), then napi only, stats off (no stats fd "
              "in the privileged process): programs %s gone" % (drop_ids + irq_ids))
        # On demand: the window attaches only the configured set.
        write_conf(d, "[source.bpf]\nattach = on-demand\nsets = drop\n")
        os.kill(d.main_pid(), signal.SIGHUP)
        wait_sets(d, {"irq": "off by config", "drop": "detached", "napi": "off by config"})
        assert main_maps(d.main_pid()) == 0, "maps: %d" % main_maps(d.main_pid())
        d.ctl("mark", "start", "w2", "--bpf")
        wait_sets(d, {"irq": "off by config", "drop": "attached", "napi": "off by config"})
        assert main_maps(d.main_pid()) == 1, "maps: %d" % main_maps(d.main_pid())
        send_udp(NS_B, ADDR_A, 9, 100)
        time.sleep(0.7)
        d.ctl("mark", "stop", "w2")
        wait_sets(d, {"irq": "off by config", "drop": "detached", "napi": "off by config"})
        dl, _ = window_deltas(d, "w2", "bpf.drop.*")
        assert dl.get("bpf.drop.NO_SOCKET.bA") == 100, dl
        # The softirq series exist from the reload with irq above; w2 counted nothing in them.
        sd, _ = window_deltas(d, "w2", "bpf.softirq*")
        assert not any(sd.values()), sd
        print("on demand, sets = drop: w2 NO_SOCKET on bA 100, one map while held, none after")
    finally:
        assert d.stop() == 0, "daemon exit status"


TESTS = [test_counts_match_proc, test_drops_by_reason, test_qdisc_drops, test_napi_polls,
         test_napi_budget_exhausted_slowed, test_on_demand, test_sets]


def main():
    return nsrun.run(TESTS, "bpf", make_pair, remove_pair, need_iperf3=True)


if __name__ == "__main__":
    sys.exit(main())
