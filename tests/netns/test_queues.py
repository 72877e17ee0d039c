#!/usr/bin/env python3
"""Real-kernel checks of the link, queues and ethtool sources (run as root).

Two network namespaces joined by a 4-queue veth pair carry iperf3 traffic; the sources,
run inside a namespace through tests/netns/nmsample.c, must agree with `ip -s link`,
/sys/class/net/DEV/statistics and `ethtool -S`. Devices removed between samples must
vanish. With an mq root qdisc on the veth, its tx queues come from mq's classes and equal
`tc -s class`. On the host, devices whose queues come from qstats (virtio_net here) must add up
to their link counters. The qdisc source's fields equal `tc -s qdisc`, through a replace and
a delete between samples. With 200 extra veth pairs, sampling must allocate nothing once
warm.

    sudo tests/netns/test_queues.py [-v]

Namespaces and the build directory are removed on any exit, failure included.
"""
import atexit
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
TAG = "nmq%d" % os.getpid()  # unique: runs in parallel do not collide
NS_A, NS_B, NS_C = TAG + "a", TAG + "b", TAG + "c"
VERBOSE = "-v" in sys.argv
BUILD = tempfile.mkdtemp(prefix="nmsample.")
FAILURES = []
CHILDREN = []  # background processes to kill on any exit
QDEVS = {}  # the last nmsample -q's devices: {dev: (counters, why)}

# link.<dev>.<stat> -> where ip -j -s -s link puts it
IP_FIELDS = {
    "rx_bytes": ("rx", "bytes"), "rx_packets": ("rx", "packets"),
    "rx_errors": ("rx", "errors"), "rx_dropped": ("rx", "dropped"),
    "rx_over_errors": ("rx", "over_errors"), "multicast": ("rx", "multicast"),
    "rx_length_errors": ("rx", "length_errors"), "rx_crc_errors": ("rx", "crc_errors"),
    "rx_frame_errors": ("rx", "frame_errors"), "rx_fifo_errors": ("rx", "fifo_errors"),
    "rx_missed_errors": ("rx", "missed_errors"),
    "tx_bytes": ("tx", "bytes"), "tx_packets": ("tx", "packets"),
    "tx_errors": ("tx", "errors"), "tx_dropped": ("tx", "dropped"),
    "tx_carrier_errors": ("tx", "carrier_errors"), "collisions": ("tx", "collisions"),
    "tx_aborted_errors": ("tx", "aborted_errors"), "tx_fifo_errors": ("tx", "fifo_errors"),
    "tx_window_errors": ("tx", "window_errors"),
    "tx_heartbeat_errors": ("tx", "heartbeat_errors"),
}
LINK_STATS = list(IP_FIELDS) + ["rx_compressed", "tx_compressed", "rx_nohandler"]


def log(msg):
    if VERBOSE:
        print(msg, flush=True)


def run(cmd, ns=None, check=True, **kw):
    """Run cmd (a list), in namespace ns when given; return stdout."""
    if ns:
        cmd = ["ip", "netns", "exec", ns] + cmd
    log("+ " + " ".join(cmd))
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE if "input" in kw else None,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    CHILDREN.append(p)  # killed by cleanup() if we are interrupted while it runs
    out, err = p.communicate(kw.get("input"))
    CHILDREN.remove(p)
    if check and p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), p.returncode, err))
    return out


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILURES.append(what)


def cleanup_netns():
    for ns in (NS_A, NS_B, NS_C):
        subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)


def cleanup():
    for p in CHILDREN:
        if p.poll() is None:
            p.kill()
            p.wait()
    cleanup_netns()
    shutil.rmtree(BUILD, ignore_errors=True)


def on_signal(signum, frame):
    sys.exit(128 + signum)  # runs atexit


def build():
    """Build nmsample twice: with the sanitizers, and counting allocations (no ASan)."""
    srcs = [os.path.join(TOP, p) for p in (
        "daemon/sample/source.c", "daemon/sample/series.c", "daemon/base/config.c", "daemon/base/ethtool.c",
        "daemon/base/procparse.c",
        "daemon/sample/qpattern.c", "daemon/sample/devlist.c", "daemon/base/nldump.c",
        "daemon/sample/source-link.c", "daemon/sample/source-queues.c", "daemon/sample/source-qdisc.c", "daemon/sample/napitable.c", "daemon/sample/source-ethtool.c",
        "daemon/sample/ethstd.c",
        "tests/netns/nmsample.c")]
    srcs += [os.path.join(TOP, "common", f) for f in sorted(os.listdir(os.path.join(TOP, "common")))
             if f.endswith(".c")]
    pc = run(["pkg-config", "--cflags", "--libs", "json-c", "libsystemd", "libnl-3.0",
              "libnl-genl-3.0", "libnl-route-3.0"]).split()
    base = ["gcc", "-std=gnu11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror", "-g",
            "-I", os.path.join(TOP, "common"), "-I", os.path.join(TOP, "daemon", "base"),
            "-I", os.path.join(TOP, "daemon", "sample")]
    run(base + ["-fsanitize=address,undefined"] + srcs + pc + ["-linih", "-lm", "-o", BUILD + "/nmsample"])
    run(base + ["-O2", "-DNMSAMPLE_COUNT_ALLOCS"] + srcs + pc + ["-linih", "-lm", "-o", BUILD + "/nmsample-count"])


def nmsample(ns, *args, binary="nmsample"):
    """Run nmsample in ns; return ({series: value}, [queue lines], [alloc lines]); the
    queues source's device lines ("qdev DEV COUNTERS WHY") go to QDEVS, {dev: (counters,
    why)}."""
    out = run([os.path.join(BUILD, binary)] + list(args), ns=ns)
    series, queues, allocs = {}, [], []
    QDEVS.clear()
    for line in out.splitlines():
        if line.startswith("# allocs"):
            allocs.append(line)
        elif line.startswith("queue "):
            queues.append(line.split())
        elif line.startswith("qdev "):
            _, dev, counters, why = (line.split(" ", 3) + [""])[:4]
            QDEVS[dev] = (counters, why)
        else:
            name, value = line.rsplit(" ", 1)
            series[name] = int(value)
    return series, queues, allocs


def setup_pair():
    for ns in (NS_A, NS_B):
        run(["ip", "netns", "add", ns])
        run(["ip", "link", "set", "lo", "up"], ns=ns)
    run(["ip", "link", "add", "va", "numtxqueues", "4", "numrxqueues", "4", "netns", NS_A,
         "type", "veth", "peer", "name", "vb", "numtxqueues", "4", "numrxqueues", "4",
         "netns", NS_B])
    for ns, dev, addr in ((NS_A, "va", "10.231.0.1/24"), (NS_B, "vb", "10.231.0.2/24")):
        # No IPv6: no neighbour discovery moving counters behind our back.
        run(["sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % dev], ns=ns, check=False)
        run(["ip", "addr", "add", addr, "dev", dev], ns=ns)
        run(["ip", "link", "set", dev, "up"], ns=ns)


def traffic():
    server = subprocess.Popen(["ip", "netns", "exec", NS_B, "iperf3", "-s", "-1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    CHILDREN.append(server)
    try:
        for _ in range(50):
            time.sleep(0.1)
            r = subprocess.run(["ip", "netns", "exec", NS_A, "iperf3", "-c", "10.231.0.2",
                                "-t", "2", "-P", "4", "-J"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
            if r.returncode == 0:
                res = json.loads(r.stdout)
                log("iperf3: %.0f Mbit/s" % (res["end"]["sum_sent"]["bits_per_second"] / 1e6))
                return
        raise RuntimeError("iperf3 never connected")
    finally:
        server.wait(timeout=10)


def ip_stats(ns, dev):
    return json.loads(run(["ip", "-j", "-s", "-s", "link", "show", "dev", dev], ns=ns))[0]["stats64"]


def sysfs_stat(ns, dev, stat):
    return int(run(["cat", "/sys/class/net/%s/statistics/%s" % (dev, stat)], ns=ns))


def test_link():
    series, _, _ = nmsample(NS_A, "link")
    ipst = ip_stats(NS_A, "va")
    check(series.get("link.va.tx_packets", 0) > 10000, "link: va sent iperf3 traffic (%d packets)"
          % series.get("link.va.tx_packets", 0))
    bad = [s for s, (d, f) in IP_FIELDS.items() if series.get("link.va." + s) != ipst[d][f]]
    check(not bad, "link: va equals ip -s -s link in %d statistics%s"
          % (len(IP_FIELDS), "" if not bad else " (differ: %s)" % bad))
    bad = [s for s in LINK_STATS if series.get("link.va." + s) != sysfs_stat(NS_A, "va", s)]
    check(not bad, "link: va equals /sys/class/net/va/statistics in all %d%s"
          % (len(LINK_STATS), "" if not bad else " (differ: %s)" % bad))
    check(series.get("link.lo.rx_packets") is not None, "link: lo of the namespace reported")
    check(not any(k.startswith("link.eth0.") for k in series), "link: nothing of the host's devices")


def test_ethtool():
    series, _, _ = nmsample(NS_A, "ethtool")
    text = run(["ethtool", "-S", "va"], ns=NS_A)
    want = {}
    for line in text.splitlines()[1:]:
        name, value = line.strip().rsplit(": ", 1)
        want["ethtool.va." + name.replace(" ", "_")] = int(value)
    got = {k: v for k, v in series.items() if k.startswith("ethtool.va.")}
    check(got == want, "ethtool: va's %d counters equal ethtool -S" % len(want))
    check(not any(k.startswith("ethtool.lo.") for k in series), "ethtool: lo left out")


def test_queues():
    series, queues, _ = nmsample(NS_A, "-q", "queues")
    check(not queues, "queues: veth has neither qstats nor per-queue ethtool packets: no queues")
    counters, why = QDEVS.get("va", ("missing", ""))
    check(counters == "none" and "veth has no qstats" in why and "XDP only" in why
          and "root mq" in why, "queues: va's lack of queue counters explained: %s" % why)
    # Through a configured pattern the same devices give their 4 rx queues (XDP counters).
    series, queues, _ = nmsample(NS_A, "-q", "-o", "queues:pattern=rx packets rx_queue_%u_xdp_packets",
                                 "-o", "queues:devices=va", "queues")
    idx = sorted(int(q[3]) for q in queues if q[1] == "va" and q[2] == "rx")
    check(idx == [0, 1, 2, 3], "queues: configured pattern finds va's rx queues 0-3 over the ioctl")


def tc_classes(ns, dev):
    """{class minor: (packets, bytes)} of dev's mq classes, as tc -s class prints them
    ("class mq 7:1 root" then " Sent 1234 bytes 5 pkt ..."; this tc has no -j for
    classes)."""
    out = run(["tc", "-s", "class", "show", "dev", dev], ns=ns)
    return {int(m.group(1), 16): (int(m.group(3)), int(m.group(2))) for m in re.finditer(
        r"^class mq [0-9a-f]+:([0-9a-f]+) root.*\n\s*Sent (\d+) bytes (\d+) pkt", out, re.M)}


def test_queues_mq():
    """va with an mq root qdisc: its tx queues 0-3 from mq's classes :1-:4, equal to what
    tc -s class shows (no traffic runs while both are read), marked mq-class; no rx queues.
    The qdisc is removed after, so the other checks see va as they did."""
    run(["tc", "qdisc", "add", "dev", "va", "root", "handle", "7:", "mq"], ns=NS_A)
    try:
        traffic()
        series, queues, _ = nmsample(NS_A, "-q", "queues")
        classes = tc_classes(NS_A, "va")
        tx = sorted(int(q[3]) for q in queues if q[1] == "va" and q[2] == "tx")
        rx = [q for q in queues if q[1] == "va" and q[2] == "rx"]
        check(tx == [0, 1, 2, 3] and not rx and sorted(classes) == [1, 2, 3, 4],
              "queues mq: va's tx queues 0-3 from classes %s, no rx queues" % sorted(classes))
        check(all(q[6] == "mq-class" for q in queues if q[1] == "va"),
              "queues mq: va's queues marked mq-class")
        got = {i: (series.get("queue.va.tx%d.packets" % i), series.get("queue.va.tx%d.bytes" % i))
               for i in range(4)}
        want = {i: classes.get(i + 1) for i in range(4)}
        check(got == want and sum(p for p, _ in got.values()) > 10000 and
              sum(1 for p, _ in got.values() if p > 0) >= 2,
              "queues mq: tx queue packets and bytes equal tc -s class (%s)" % got)
        counters, why = QDEVS.get("va", ("missing", ""))
        check(counters == "mq-class" and "mq qdisc's classes" in why,
              "queues mq: va says its figures are mq classes': %s" % why)
    finally:
        run(["tc", "qdisc", "del", "dev", "va", "root"], ns=NS_A, check=False)


def test_vanish():
    """A device deleted between samples: its link and ethtool series are gone at the end."""
    run(["ip", "link", "add", "vtmp0", "type", "veth", "peer", "name", "vtmp1"], ns=NS_A)
    run(["ip", "link", "add", "vre0", "type", "veth", "peer", "name", "vre1"], ns=NS_A)
    series, _, _ = nmsample(NS_A, "link", "ethtool")
    check("link.vtmp0.rx_packets" in series and "ethtool.vtmp1.peer_ifindex" in series,
          "vanish: vtmp0/vtmp1 reported while they exist")
    # Samples at 0, 2.5 and 5 s: the three ip commands (each up to a few hundred ms on a
    # loaded machine) fall between the first two, the re-creation of vre0 before the second.
    cmd = ["ip", "netns", "exec", NS_A, os.path.join(BUILD, "nmsample"), "-g", "-n", "3", "-i",
           "2500", "link", "ethtool", "queues"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    CHILDREN.append(p)
    time.sleep(1.0)
    run(["ip", "link", "del", "vtmp0"], ns=NS_A)
    # Deleted and created again under the same name (a new ifindex): still there.
    run(["ip", "link", "del", "vre0"], ns=NS_A)
    run(["ip", "link", "add", "vre0", "type", "veth", "peer", "name", "vre1"], ns=NS_A)
    out, err = p.communicate(timeout=20)
    check(p.returncode == 0 and "link.va.rx_packets" in out, "vanish: sampler kept running")
    live = [l for l in out.splitlines() if not l.startswith("#")]
    check(not any("vtmp" in l for l in live), "vanish: vtmp0/vtmp1 series gone after deletion")
    gone = [l.split()[-1] for l in out.splitlines() if l.startswith("# gone")]
    log("gone: %s" % gone)
    check(any(g.startswith("link.vtmp0.") for g in gone) and
          any(g.startswith("ethtool.vtmp1.") for g in gone), "vanish: sources said vtmp* gone")
    check("link.vre0.rx_packets" in out and "ethtool.vre1.peer_ifindex" in out and
          not any(".vre" in g for g in gone),
          "vanish: vre0/vre1 deleted and created again between samples: reported, never gone")


QDISC_FIELDS = ("drops", "overlimits", "requeues", "backlog", "qlen")


def tc_qdiscs(ns, dev):
    """{id as the qdisc source names it: (kind, {field: value})} from tc -s -j qdisc show: the
    handle ("1:", "ffff:"), or for handle 0: "0@" and the parent ("0@7:1", "0@root")."""
    out = {}
    for q in json.loads(run(["tc", "-s", "-j", "qdisc", "show", "dev", dev], ns=ns)):
        qid = q["handle"] if q["handle"] != "0:" else \
            "0@" + ("root" if q.get("root") else q["parent"])
        out[qid] = (q["kind"], {f: q[f] for f in QDISC_FIELDS})
    return out


def udp_burst(n):
    """n UDP datagrams from NS_A to vb's address (no listener: vb answers with ICMP, which
    comes back in through va and passes no egress qdisc of va)."""
    run([sys.executable, "-c",
         "import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
         "for i in range(%d):\n    s.sendto(b'x' * 200, ('10.231.0.2', 9))\n" % n], ns=NS_A)


def test_qdisc():
    """The qdisc source against tc -s qdisc: a tbf root of 1 Mbit/s with a 3,000-byte queue
    (this kernel has no netem), an ingress qdisc and lo's noqueue, each field equal to tc's
    read just before or just after the sample (between the two); mq's handle-0 children
    named by their parents; a root deleted and added again under the same handle as another
    kind between two samples keeps its series (the new qdisc's values, no gone: before,
    the old one's sweep marked the shared series gone in the sample the new one put them),
    and one deleted is gone."""
    run(["tc", "qdisc", "replace", "dev", "va", "root", "handle", "1:", "tbf", "rate", "1mbit",
         "burst", "1600", "limit", "3000"], ns=NS_A)
    run(["tc", "qdisc", "add", "dev", "va", "ingress"], ns=NS_A)
    try:
        udp_burst(3000)
        time.sleep(0.3)  # the queue drains: 3,000 bytes at 1 Mbit/s
        before = tc_qdiscs(NS_A, "va")
        series, _, _ = nmsample(NS_A, "qdisc")
        after = tc_qdiscs(NS_A, "va")
        check(sorted(before) == ["1:", "ffff:"] and before["1:"][0] == "tbf",
              "qdisc: tc shows va's tbf 1: and ingress ffff: (%s)" % sorted(before))
        bad = ["%s.%s" % (qid, f) for qid in before for f in QDISC_FIELDS
               if not (min(before[qid][1][f], after[qid][1][f])
                       <= series.get("qdisc.va.%s.%s" % (qid, f), -1)
                       <= max(before[qid][1][f], after[qid][1][f]))]
        drops = series.get("qdisc.va.1:.drops", 0)
        over = series.get("qdisc.va.1:.overlimits", 0)
        check(not bad and 1000 <= drops <= 3000 and over > 0,
              "qdisc: va's tbf and ingress equal tc -s qdisc in all %d fields; tbf dropped %d "
              "of 3000, %d overlimits%s" % (len(QDISC_FIELDS), drops, over,
                                            "" if not bad else " (differ: %s)" % bad))
        check("qdisc.lo.0@root.drops" in series, "qdisc: lo's noqueue root named 0@root")
        # Deleted and added again under the same handle as pfifo between the two samples (2.5
        # s apart; tc's replace refuses another kind under a handle).
        cmd = ["ip", "netns", "exec", NS_A, os.path.join(BUILD, "nmsample"), "-g", "-n", "2",
               "-i", "2500", "qdisc"]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        CHILDREN.append(p)
        time.sleep(1.0)
        run(["tc", "qdisc", "del", "dev", "va", "root"], ns=NS_A)
        run(["tc", "qdisc", "add", "dev", "va", "root", "handle", "1:", "pfifo", "limit", "10"],
            ns=NS_A)
        udp_burst(100)
        out, err = p.communicate(timeout=20)
        CHILDREN.remove(p)
        now = tc_qdiscs(NS_A, "va")
        got = {l.rsplit(" ", 1)[0]: int(l.rsplit(" ", 1)[1]) for l in out.splitlines()
               if l.startswith("qdisc.va.1:.")}
        gone = [l.split()[-1] for l in out.splitlines() if l.startswith("# gone")]
        check(p.returncode == 0 and now["1:"][0] == "pfifo" and
              got.get("qdisc.va.1:.drops") == now["1:"][1]["drops"] and
              got.get("qdisc.va.1:.drops") < drops and
              not any(g.startswith("qdisc.va.1:.") for g in gone),
              "qdisc: tbf 1: deleted and pfifo 1: added between samples: its series stay, with "
              "pfifo's values (%s; gone %s)" % (got, gone))
        # Deleted between samples: gone.
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        CHILDREN.append(p)
        time.sleep(1.0)
        run(["tc", "qdisc", "del", "dev", "va", "root"], ns=NS_A)
        out, err = p.communicate(timeout=20)
        CHILDREN.remove(p)
        gone = [l.split()[-1] for l in out.splitlines() if l.startswith("# gone")]
        check(p.returncode == 0 and "qdisc.va.1:.drops" in gone and
              not any(l.startswith("qdisc.va.1:.") for l in out.splitlines()),
              "qdisc: root 1: deleted between samples: its series gone (%s)" % gone)
        # mq's children have handle 0: named by their parents 7:1 .. 7:4.
        run(["tc", "qdisc", "replace", "dev", "va", "root", "handle", "7:", "mq"], ns=NS_A)
        series, _, _ = nmsample(NS_A, "qdisc")
        kids = sorted(k[len("qdisc.va."):-len(".drops")] for k in series
                      if k.startswith("qdisc.va.0@") and k.endswith(".drops"))
        want = sorted(q for q in tc_qdiscs(NS_A, "va") if q.startswith("0@"))
        check(kids == want == ["0@7:%d" % i for i in range(1, 5)] and "qdisc.va.7:.qlen" in series,
              "qdisc: mq 7: and its children %s as tc lists them (%s)" % (kids, want))
    finally:
        run(["tc", "qdisc", "del", "dev", "va", "root"], ns=NS_A, check=False)
        run(["tc", "qdisc", "del", "dev", "va", "ingress"], ns=NS_A, check=False)


def test_host_qstats():
    series, queues, _ = nmsample(None, "-q", "link", "queues")
    devs = sorted({q[1] for q in queues})
    qstats = [d for d in devs if any(k.startswith("queue.%s." % d) and k.endswith("_stop") for k in series)
              or d == "eth0"]
    for dev in qstats:
        for d in ("rx", "tx"):
            total = sum(v for k, v in series.items()
                        if k.startswith("queue.%s.%s" % (dev, d)) and k.endswith(".packets"))
            link = series.get("link.%s.%s_packets" % (dev, d), 0)
            check(abs(total - link) <= 10 + link // 100,
                  "host qstats: %s %s queues add up to %d, link %d" % (dev, d, total, link))
    if not qstats:
        print("skip host qstats: no device answers qstats here")


def test_allocations():
    """200 veth pairs: after the first sample, no allocation per sample."""
    run(["ip", "netns", "add", NS_C])
    batch = "".join("link add c%d type veth peer name d%d\n" % (i, i) for i in range(200))
    run(["ip", "-n", NS_C, "-batch", "-"], input=batch)
    _, _, allocs = nmsample(NS_C, "-n", "4", "link", "queues", "ethtool", binary="nmsample-count")
    for line in allocs:
        log(line)
    first = [l for l in allocs if " sample 1 " in l]
    steady = [l for l in allocs if " sample 1 " not in l]
    print("info allocations, first sample with 401 devices: " +
          ", ".join(l.split(" ", 4)[4] for l in first), flush=True)
    check(all(l.endswith(": 0") for l in steady),
          "allocations: none per sample in steady state (%s)" % "; ".join(steady[-3:]))


def main():
    if os.geteuid() != 0:
        print("skip: needs root")
        return 77
    for tool in ("ip", "iperf3", "ethtool", "gcc"):
        if shutil.which(tool) is None:
            print("skip: %s not installed" % tool)
            return 77
    atexit.register(cleanup)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    cleanup_netns()  # leftovers of an interrupted run
    build()
    setup_pair()
    traffic()
    test_link()
    test_ethtool()
    test_queues()
    test_queues_mq()
    test_vanish()
    test_qdisc()
    test_host_qstats()
    test_allocations()
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
