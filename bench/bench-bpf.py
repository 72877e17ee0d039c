#!/usr/bin/env python3
"""bench-bpf.py: what the bpf source's programs cost the traffic they count (issue 30).

netperf between two network namespaces joined by a veth pair (TCP_RR transactions per
second, UDP_STREAM packets per second received), with netmetricsd running and its bpf
source on (the programs attached: softirq_entry/exit, irq_handler_entry/exit, kfree_skb and
napi_poll) and off
([source.bpf] enable = no), interleaved round by round (on first in even rounds, off first
in odd ones) so that the machine's drift falls on both. The figures are medians over the
rounds; the loss is (off - on) / off. The daemon samples at its default 1 s in both arms, so
the difference is the programs' (and the kernel's BPF run-time statistics, which the
privileged process switches on), not the sampler's. The programs' own ns per run, from
status, is printed beside.

    bench-bpf.py --netmetricsd PATH [--rounds 5] [--seconds 10]

Prints one line per run and a summary:
    bpf: TCP_RR on X/s off Y/s loss Z.Z %; UDP_STREAM on A pkt/s off B pkt/s loss C.C %
    bpf: paired loss per round: TCP_RR ...; UDP_STREAM ...
    bpf: median paired loss TCP_RR Z.Z %, UDP_STREAM C.C %
    bpf: ns per run irq_handler_entry N, ..., softirq_exit N (every program attached)
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


class Daemon:
    def __init__(self, netmetricsd, bpf):
        self.dir = tempfile.mkdtemp(prefix="nm-bench-bpf-")
        os.chmod(self.dir, 0o755)
        self.sock = os.path.join(self.dir, "s.sock")
        conf = os.path.join(self.dir, "netmetricsd.conf")
        with open(conf, "w") as f:
            f.write("[source.bpf]\nenable = %s\n" % ("yes" if bpf else "no"))
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
    args = ["netperf", "-H", ADDR_B, "-l", str(seconds), "-t", test, "-P", "0", "--"]
    if test == "UDP_STREAM":
        args += ["-m", "64", "-R", "1"]
    out = sh(*args, ns=NS_A).stdout.split("\n")
    rows = [l.split() for l in out if l.strip()]
    if test == "TCP_RR":
        return float(rows[0][5])
    # UDP_STREAM prints the send line then the receive line: messages received / seconds.
    recv = rows[1]
    return float(recv[2]) / float(recv[1])


def run(netmetricsd, bpf, seconds, cost):
    d = Daemon(netmetricsd, bpf)
    try:
        if bpf:
            src = d.bpf_details()
            if not src["healthy"]:
                print("bpf: the programs are not attached here: %s" % src.get("reason"))
                sys.exit(77)
        time.sleep(1)
        rr = netperf("TCP_RR", seconds)
        udp = netperf("UDP_STREAM", seconds)
        if bpf:
            src = [s for s in d.status()["sources"] if s["name"] == "bpf"][0]
            for p in src["details"].get("programs", []):
                cost.setdefault(p["name"], []).append(p["ns_per_run"])
        return rr, udp
    finally:
        d.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--netmetricsd", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=int, default=10)
    a = ap.parse_args()
    if os.geteuid() != 0 or shutil.which("netperf") is None or shutil.which("netserver") is None:
        print("bpf: needs root, netperf and netserver")
        return 77
    make_pair()
    server = subprocess.Popen(["ip", "netns", "exec", NS_B, "netserver", "-D", "-L", ADDR_B],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    res = {True: ([], []), False: ([], [])}
    cost = {}
    try:
        time.sleep(0.5)
        for r in range(a.rounds):
            for bpf in ((True, False) if r % 2 == 0 else (False, True)):
                rr, udp = run(a.netmetricsd, bpf, a.seconds, cost)
                res[bpf][0].append(rr)
                res[bpf][1].append(udp)
                print("round %d bpf %s: TCP_RR %.0f/s, UDP_STREAM %.0f pkt/s" % (
                    r, "on " if bpf else "off", rr, udp))
                sys.stdout.flush()
    finally:
        server.kill()
        server.wait()
        remove_pair()
    on_rr, off_rr = statistics.median(res[True][0]), statistics.median(res[False][0])
    on_udp, off_udp = statistics.median(res[True][1]), statistics.median(res[False][1])
    print("bpf: TCP_RR on %.0f/s off %.0f/s loss %.1f %%; UDP_STREAM on %.0f pkt/s off %.0f "
          "pkt/s loss %.1f %% (medians of %d rounds)" % (
              on_rr, off_rr, 100 * (off_rr - on_rr) / off_rr, on_udp, off_udp,
              100 * (off_udp - on_udp) / off_udp, a.rounds))
    # The loss of each round (its on run against its off run, back to back): on a shared
    # machine whose load changes from one minute to the next, the medians above compare
    # runs of different minutes; the median of the rounds' own losses does not.
    loss = [[100 * (off - on) / off for on, off in zip(res[True][k], res[False][k])]
            for k in (0, 1)]
    print("bpf: paired loss per round: TCP_RR %s; UDP_STREAM %s" % (
        " ".join("%.1f" % v for v in loss[0]), " ".join("%.1f" % v for v in loss[1])))
    print("bpf: median paired loss TCP_RR %.1f %%, UDP_STREAM %.1f %%" % (
        statistics.median(loss[0]), statistics.median(loss[1])))
    print("bpf: ns per run " + ", ".join("%s %.0f" % (k, statistics.median(v))
                                         for k, v in sorted(cost.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
