#!/usr/bin/env python3
"""The standard ethtool statistics groups on this machine's devices: the daemon's ethtool
source asks each device with ETHTOOL_MSG_STATS_GET and its status details say which groups
each device gave, the same as an independent request over a raw netlink socket (none of
netmetrics' code) finds; the kernel answers for the groups asked for (eth-phy, eth-mac, eth-ctrl, rmon, and phydev since 6.14); a device that
gave none is not asked again (the request count stays put between samples), one that gave
some is asked once a sample; and each value a device gives is a series
ethtool.DEV.std.GROUP.NAME. virtio_net, veth and ifb implement no group: here the check is
that the request is made and answered, that none is repeated, and that a device coming
(a veth pair made here) has every device asked again.

Runs the real daemon on the host as root; skipped (77) when not root or when the kernel has
no ethtool netlink family. Environment: NETMETRICSD, NETMETRICSCTL.
"""
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from netdev_nl import _attr, _attrs, _uint  # noqa: E402

NETMETRICSD = os.environ.get("NETMETRICSD", "build/daemon/netmetricsd")
NETMETRICSCTL = os.environ.get("NETMETRICSCTL", "build/client/netmetricsctl")
NLM_F_REQUEST, NLM_F_ACK = 0x1, 0x4
NLMSG_ERROR = 2
GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 0x10, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2
# include/uapi/linux/ethtool_netlink.h
MSG_STATS_GET = 32
A_STATS_HEADER, A_STATS_GROUPS, A_STATS_GRP = 2, 3, 4
A_HEADER_DEV_NAME = 2
A_BITSET_NOMASK, A_BITSET_SIZE, A_BITSET_VALUE = 1, 2, 4
GRP_ID, GRP_STAT, GRP_HIST_RX, GRP_HIST_TX = 2, 4, 5, 6
GROUPS = ["eth-phy", "eth-mac", "eth-ctrl", "rmon", "phydev"]  # phydev since 6.14
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what, flush=True)


def ctl(sock, *args):
    out = subprocess.run([NETMETRICSCTL, "-s", sock] + list(args), capture_output=True,
                         text=True, timeout=30)
    if out.returncode != 0:
        raise AssertionError("netmetricsctl %s: %s" % (" ".join(args), out.stderr))
    return out.stdout


class Genl:
    """A raw generic netlink socket: one request, its replies until the acknowledgement."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)
        self.sock.bind((0, 0))
        self.seq = 100

    def request(self, ftype, cmd, payload):
        self.seq += 1
        body = struct.pack("BBH", cmd, 1, 0) + payload
        self.sock.send(struct.pack("IHHII", 16 + len(body), ftype, NLM_F_REQUEST | NLM_F_ACK,
                                   self.seq, 0) + body)
        msgs = []
        while True:
            data = self.sock.recv(1 << 20)
            i = 0
            while i < len(data):
                ln, typ, _fl, seq, _pid = struct.unpack_from("IHHII", data, i)
                if seq == self.seq:
                    if typ == NLMSG_ERROR:
                        err = struct.unpack_from("i", data, i + 16)[0]
                        if err:
                            raise OSError(-err, "netlink error")
                        return msgs
                    msgs.append(data[i + 20:i + ln])
                i += (ln + 3) & ~3

    def close(self):
        self.sock.close()


def nests(buf, typ):
    """Every attribute of type typ in buf (attributes repeat, _attrs keeps the last)."""
    out, i = [], 0
    while i + 4 <= len(buf):
        ln, t = struct.unpack_from("HH", buf, i)
        if ln < 4:
            break
        if t & 0x3FFF == typ:
            out.append(buf[i + 4:i + ln])
        i += (ln + 3) & ~3
    return out


def kernel_groups(g, fid, dev, ngroups=5):
    """(listed, given): the groups the kernel's reply has a nest for, and those with a
    value, for dev: all five groups asked for, the first four on a kernel that refuses
    phydev (EINVAL, before 6.14)."""
    hdr = _attr(A_STATS_HEADER | 0x8000, _attr(A_HEADER_DEV_NAME, dev.encode() + b"\0"))
    bits = _attr(A_STATS_GROUPS | 0x8000, _attr(A_BITSET_NOMASK, b"") +
                 _attr(A_BITSET_SIZE, struct.pack("I", ngroups)) +
                 _attr(A_BITSET_VALUE, struct.pack("I", (1 << ngroups) - 1)))
    listed, given = [], []
    try:
        msgs = g.request(fid, MSG_STATS_GET, hdr + bits)
    except OSError as e:
        if e.errno == 22 and ngroups == 5:
            return kernel_groups(g, fid, dev, 4)
        raise
    for m in msgs:
        for grp in nests(m, A_STATS_GRP):
            gid = _uint(_attrs(grp)[GRP_ID])
            name = GROUPS[gid] if gid < len(GROUPS) else "group%d" % gid
            listed.append(name)
            if any(nests(grp, t) for t in (GRP_STAT, GRP_HIST_RX, GRP_HIST_TX)):
                given.append(name)
    return listed, given


def details(sock):
    for s in json.loads(ctl(sock, "--json", "status"))["sources"]:
        if s["name"] == "ethtool":
            return s["details"]
    raise AssertionError("no ethtool source in status")


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (the daemon reads the host)")
        return 77
    g = Genl()
    try:
        fam = g.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                        _attr(CTRL_ATTR_FAMILY_NAME, b"ethtool\0"))
        fid = _uint(_attrs(fam[0])[CTRL_ATTR_FAMILY_ID])
    except OSError as e:
        print("SKIP: no ethtool netlink family here (%s)" % e)
        return 77
    tmp = tempfile.mkdtemp(prefix="nm-ethstd.")
    sock = os.path.join(tmp, "s.sock")
    log = open(os.path.join(tmp, "log"), "w")
    proc = subprocess.Popen([NETMETRICSD, "-f", "-u", "root", "-s", sock, "-S",
                             os.path.join(tmp, "state"), "-l", "info"], stdout=log,
                            stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 20
        d = None
        while time.time() < deadline:
            try:
                d = details(sock)
                if d.get("std_groups"):
                    break
            except (AssertionError, ValueError):
                pass
            time.sleep(0.2)
        time.sleep(1.5)
        d = details(sock)
        print("daemon: %s" % json.dumps({k: v for k, v in d.items() if k.startswith("std")}),
              flush=True)
        check(d.get("std_method") == "netlink ETHTOOL_MSG_STATS_GET",
              "std_method %r" % d.get("std_method"))
        check(d.get("std_kernel_groups") in (GROUPS, GROUPS[:4]), "std_kernel_groups %r" %
              d.get("std_kernel_groups"))
        check(d.get("std_refused") == [], "std_refused %r" % d.get("std_refused"))
        shown = d.get("std_groups", {})
        check(len(shown) > 0, "no device answered")
        giving = 0
        for dev, groups in sorted(shown.items()):
            try:
                listed, given = kernel_groups(g, fid, dev)
            except OSError as e:
                print("%s: %s (gone?)" % (dev, e))
                continue
            print("%s: kernel lists %s, gives %s; daemon says %s" % (dev, listed, given, groups),
                  flush=True)
            check(listed == d.get("std_kernel_groups"), "%s: the kernel lists %r, daemon %r"
                  % (dev, listed, d.get("std_kernel_groups")))
            check(groups == given, "%s: daemon %r, kernel %r" % (dev, groups, given))
            giving += len(given) > 0
            if given:
                names = [m["name"] for m in json.loads(ctl(sock, "--json", "metrics",
                                                           "ethtool.%s.std.*" % dev))["series"]]
                for grp in given:
                    check(any(n.startswith("ethtool.%s.std.%s." % (dev, grp)) for n in names),
                          "%s: no series of group %s" % (dev, grp))
        # Devices that gave none are not asked again; those that did, once a sample.
        r0 = details(sock)["std_requests"]
        time.sleep(3.2)
        r1 = details(sock)["std_requests"]
        if giving == 0:
            check(r1 == r0, "requests went from %d to %d with no device giving a group"
                  % (r0, r1))
        else:
            check(2 * giving <= r1 - r0 <= 4 * giving,
                  "requests went from %d to %d in 3.2 s for %d devices" % (r0, r1, giving))
        check(r0 >= len(shown), "%d requests for %d devices answered" % (r0, len(shown)))
        # A device comes (a veth pair, deleted after): every device is asked again.
        subprocess.run(["ip", "link", "add", "nmstdA", "type", "veth", "peer", "name",
                        "nmstdB"], check=True)
        try:
            deadline = time.time() + 8
            while time.time() < deadline and "nmstdB" not in details(sock)["std_groups"]:
                time.sleep(0.2)
            d = details(sock)
            print("after the veth pair came: %s" % json.dumps(
                {k: v for k, v in d.items() if k.startswith("std")}), flush=True)
            for dev in ("nmstdA", "nmstdB"):
                check(d["std_groups"].get(dev) == kernel_groups(g, fid, dev)[1] == [],
                      "%s: daemon %r" % (dev, d["std_groups"].get(dev)))
            check(d["std_requests"] - r1 >= len(shown) + 2,
                  "requests %d -> %d: not every device asked again" % (r1, d["std_requests"]))
        finally:
            subprocess.run(["ip", "link", "del", "nmstdA"], check=False)
    finally:
        g.close()
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
