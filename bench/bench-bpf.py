#!/usr/bin/env python3
"""bench-bpf.py: what the bpf source's programs cost the traffic they count (issue 30).

netperf between two network namespaces joined by a veth pair (TCP_RR transactions per
second, UDP_STREAM packets per second received, 64-byte messages), with netmetricsd running
in each arm:
  none   the bpf source off ([source.bpf] enable = no): the baseline of every other arm;
  irq, drop, napi   only that program set ([source.bpf] sets = X);
  all    every set (the default: softirq_entry/exit, irq_handler_entry/exit, kfree_skb,
         napi_poll);
  nostats  every set with [source.bpf] stats = off: the kernel's BPF statistics (two clock
         reads a program run) not switched on; its ns/run stays 0 unless another process
         holds them on meanwhile;
  empty  the source off, and bpf-empty (built beside this script) attaching programs that
         only return 0 on the same six tracepoints, the same way (tp_btf), with the
         kernel's BPF stats on as the daemon has them: the floor of tracepoint + BPF entry,
         the kernel's part of the cost; what an arm costs above it is the programs' own;
  bare   as empty, without switching the kernel's BPF stats on (their clock reads: the
         daemon's privileged process switches them on to show the programs' cost). Its
         ns/run stays 0 unless another process holds the stats on meanwhile.
The arms run round by round, interleaved (round r starts at arm r of the list, so that the
machine's drift falls on all of them). The figures are medians over the rounds; an arm's
loss is (none - arm) / none, of the medians, and the median of each round's own loss (the
arm's run against the none run of the same round, seconds apart). The daemon samples at its
default 1 s in every arm, so the difference is the programs', not the sampler's. Per arm
the programs' own cost from the kernel's BPF statistics: ns per run of each program, and
their run time per UDP_STREAM datagram received (all programs' run time over that run).

    bench-bpf.py --netmetricsd PATH [--sets all] [--rounds 5] [--seconds 10] [--empty PATH]

--sets: a comma-separated list of irq, drop, napi, all, nostats, empty, bare (none always runs).
Prints one line per run and a summary per arm:
    bpf ARM: UDP_STREAM A pkt/s (none B) loss C.C % (paired D.D %); TCP_RR ... loss ...
    bpf ARM: ns per run softirq_entry N, ...; program ns per datagram N
Needs root (namespaces, the programs), netperf and netserver. Exits 77 (skipped) without
them or without the programs (a build without -Dbpf, a kernel without BTF).
"""
import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

TAG = "nmbb%d" % os.getpid()
NS_A, NS_B = TAG + "a", TAG + "b"
ADDR_A, ADDR_B = "10.197.0.1", "10.197.0.2"


def sh(*args, ns=None, check=True):
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    return subprocess.run(cmd, check=check, capture_output=True, text=True)


def make_pair():
    sh("ip", "netns", "add", NS_A)
    sh("ip", "netns", "add", NS_B)
    sh("ip", "link", "add", "pA", "netns", NS_A, "type", "veth", "peer", "name", "pB",
       "netns", NS_B)
    for ns, dev, addr in ((NS_A, "pA", ADDR_A), (NS_B, "pB", ADDR_B)):
        sh("ip", "addr", "add", addr + "/24", "dev", dev, ns=ns)
        sh("ip", "link", "set", dev, "up", ns=ns)
        sh("ip", "link", "set", "lo", "up", ns=ns)


def remove_pair():
    for ns in (NS_A, NS_B):
        for p in sh("ip", "netns", "pids", ns, check=False).stdout.split():
            try:
                os.kill(int(p), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        sh("ip", "netns", "del", ns, check=False)


def arm_conf(arm):
    """The daemon's configuration in an arm."""
    if arm in ("none", "empty", "bare"):
        return "[source.bpf]\nenable = no\n"
    if arm == "all":
        return "[source.bpf]\nenable = yes\n"
    if arm == "nostats":
        return "[source.bpf]\nenable = yes\nstats = off\n"
    return "[source.bpf]\nenable = yes\nsets = %s\n" % arm


class Daemon:
    def __init__(self, netmetricsd, arm):
        self.dir = tempfile.mkdtemp(prefix="nm-bench-bpf-")
        os.chmod(self.dir, 0o755)
        self.sock = os.path.join(self.dir, "s.sock")
        conf = os.path.join(self.dir, "netmetricsd.conf")
        with open(conf, "w") as f:
            f.write(arm_conf(arm))
        self.ctl_path = os.path.join(os.path.dirname(netmetricsd), "..", "client",
                                     "netmetricsctl")
        self.proc = subprocess.Popen(
            [netmetricsd, "--foreground", "--socket", self.sock, "--state-dir",
             os.path.join(self.dir, "state"), "--config", conf],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            if os.path.exists(self.sock) and self.status(check=False) is not None:
                break
            time.sleep(0.05)

    def status(self, check=True):
        r = subprocess.run([self.ctl_path, "--socket", self.sock, "--json", "status"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            if check:
                raise RuntimeError("status: " + r.stderr)
            return None
        return json.loads(r.stdout)

    def bpf_details(self):
        for _ in range(40):
            src = [s for s in self.status()["sources"] if s["name"] == "bpf"][0]
            d = src.get("details", {})
            if src["healthy"] and d.get("via") not in (None, "waiting"):
                return src
            time.sleep(0.25)
        return src

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def netperf(test, seconds):
    """One netperf run from A to B: transactions/s (TCP_RR) or received packets/s
    (UDP_STREAM, 64-byte messages)."""
    # Pinned (netperf on CPU 0, netserver on CPU 1): unpinned, TCP_RR swings several-fold
    # with where the scheduler puts the two ends (same CPU or not).
    args = ["netperf", "-H", ADDR_B, "-T", "0,1", "-l", str(seconds), "-t", test, "-P", "0",
            "--"]
    if test == "UDP_STREAM":
        args += ["-m", "64", "-R", "1"]
    out = sh(*args, ns=NS_A).stdout.split("\n")
    rows = [l.split() for l in out if l.strip()]
    if test == "TCP_RR":
        return float(rows[0][5])
    # UDP_STREAM prints the send line then the receive line: messages received / seconds.
    recv = rows[1]
    return float(recv[2]) / float(recv[1])


class Empty:
    """bpf-empty: do-nothing programs on the six tracepoints, their statistics on request."""

    def __init__(self, path, stats=True):
        self.proc = subprocess.Popen([path] + ([] if stats else ["--no-stats"]), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError("bpf-empty did not attach")

    def stats(self):
        """{program: (run_cnt, run_time_ns)}."""
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()
        out = {}
        for line in iter(self.proc.stdout.readline, ""):
            if line.strip() == "end":
                break
            name, cnt, ns = line.split()
            out[name] = (int(cnt), int(ns))
        return out

    def stop(self):
        self.proc.stdin.close()
        self.proc.wait(10)


def daemon_stats(d):
    """{program: (run_cnt, run_time_ns)} from the bpf source's status."""
    src = [s for s in d.status()["sources"] if s["name"] == "bpf"][0]
    return {p["name"]: (p["run_cnt"], p["run_time_ns"])
            for p in src.get("details", {}).get("programs", [])}


# The tracing programs each arm attaches itself.
ARM_PROGS = {"none": 0, "irq": 4, "drop": 1, "napi": 1, "all": 6, "nostats": 6, "empty": 6,
             "bare": 6}


def foreign(arm):
    """Programs of netmetricsd's or bpf-empty's on the tracepoints beyond the arm's own: another
    daemon's on this machine (the programs see every namespace's traffic, so an arm with
    foreign programs, none above all, measures more than itself). -1 without bpftool."""
    try:
        r = subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True, text=True)
        progs = json.loads(r.stdout)
    except (OSError, ValueError):
        return -1
    n = sum(1 for p in progs if p.get("type") == "tracing" and
            p.get("name", "").startswith(("nm_", "empty_")))
    return n - ARM_PROGS[arm]


def run(a, arm, cost):
    """One arm's run: (TCP_RR trans/s, UDP_STREAM pkt/s); its programs' cost into cost[arm]
    ({"ns/run PROG": [...], "ns/datagram": [...]})."""
    d = Daemon(a.netmetricsd, arm)
    empty = None
    try:
        stats = None
        if arm in ("empty", "bare"):
            empty = Empty(a.empty, stats=arm == "empty")
            stats = empty.stats
        elif arm != "none":
            src = d.bpf_details()
            if not src["healthy"]:
                print("bpf: the programs are not attached here: %s" % src.get("reason"))
                sys.exit(77)
            stats = lambda: daemon_stats(d)  # noqa: E731
        time.sleep(1)
        rr = netperf("TCP_RR", a.seconds)
        s0 = stats() if stats else None
        cost.setdefault("foreign", {}).setdefault(arm, []).append(foreign(arm))
        udp = netperf("UDP_STREAM", a.seconds)
        if stats:
            s1 = stats()
            c = cost.setdefault(arm, {})
            for name, (cnt, ns) in s1.items():
                if cnt > 0:
                    c.setdefault("ns/run " + name, []).append(ns / cnt)
            run_ns = sum(s1[k][1] - s0.get(k, (0, 0))[1] for k in s1)
            c.setdefault("ns/datagram", []).append(run_ns / (udp * a.seconds))
        return rr, udp
    finally:
        if empty is not None:
            empty.stop()
        d.stop()


ARMS = ("irq", "drop", "napi", "all", "nostats", "empty", "bare")


def loss(off, on):
    return 100 * (off - on) / off


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--netmetricsd", required=True)
    ap.add_argument("--sets", default="all",
                    help="comma-separated arms beside none: irq, drop, napi, all, nostats, "
                    "empty, bare")
    ap.add_argument("--empty", default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "bpf-empty"), help="the bpf-empty program")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=int, default=10)
    a = ap.parse_args()
    arms = ["none"]
    for w in a.sets.split(","):
        if w not in ARMS + ("none",):
            ap.error("--sets: no arm %r (irq, drop, napi, all, empty, bare, none)" % w)
        if w not in arms:
            arms.append(w)
    if os.geteuid() != 0 or shutil.which("netperf") is None or shutil.which("netserver") is None:
        print("bpf: needs root, netperf and netserver")
        return 77
    if ("empty" in arms or "bare" in arms) and not os.access(a.empty, os.X_OK):
        print("bpf: no bpf-empty at %s (a build without -Dbpf?)" % a.empty)
        return 77
    make_pair()
    server = subprocess.Popen(["ip", "netns", "exec", NS_B, "netserver", "-D", "-L", ADDR_B],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    res = {arm: ([], []) for arm in arms}
    cost = {}
    try:
        time.sleep(0.5)
        for r in range(a.rounds):
            k = r % len(arms)
            for arm in arms[k:] + arms[:k]:
                rr, udp = run(a, arm, cost)
                res[arm][0].append(rr)
                res[arm][1].append(udp)
                print("round %d %-5s: TCP_RR %.0f/s, UDP_STREAM %.0f pkt/s; foreign programs %d" % (
                    r, arm, rr, udp, cost["foreign"][arm][-1]))
                sys.stdout.flush()
    finally:
        server.kill()
        server.wait()
        remove_pair()
    med = {arm: (statistics.median(res[arm][0]), statistics.median(res[arm][1]))
           for arm in arms}
    print("bpf none: UDP_STREAM %.0f pkt/s; TCP_RR %.0f/s (medians of %d rounds of %d s)" % (
        med["none"][1], med["none"][0], a.rounds, a.seconds))
    busy = {arm: sum(1 for n in cost["foreign"][arm] if n > 0) for arm in arms}
    if any(busy.values()):
        print("bpf: runs with another daemon's programs attached meanwhile (they count this "
              "traffic too): %s" % ", ".join("%s %d" % kv for kv in busy.items() if kv[1]))
    for arm in arms[1:]:
        # Each round's own loss: the arm's run against the none run of the same round.
        paired = [statistics.median([loss(off, on) for on, off in
                                     zip(res[arm][k], res["none"][k])]) for k in (0, 1)]
        print("bpf %s: UDP_STREAM %.0f pkt/s loss %.1f %% (paired %.1f %%: %s); TCP_RR %.0f/s "
              "loss %.1f %% (paired %.1f %%: %s)" % (
                  arm, med[arm][1], loss(med["none"][1], med[arm][1]), paired[1],
                  " ".join("%.1f" % loss(off, on) for on, off in
                           zip(res[arm][1], res["none"][1])),
                  med[arm][0], loss(med["none"][0], med[arm][0]), paired[0],
                  " ".join("%.1f" % loss(off, on) for on, off in
                           zip(res[arm][0], res["none"][0]))))
        c = cost.get(arm, {})
        print("bpf %s: %s" % (arm, ", ".join("%s %.0f" % (k, statistics.median(v))
                                            for k, v in sorted(c.items()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
