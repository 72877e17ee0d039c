#!/usr/bin/env python3
"""ct-table.py: the conntrack-table helpers examples/forwarding-decay/run needs.

Runs inside a network namespace (ip netns exec NS ct-table.py ...) and talks
ctnetlink directly, because conntrack(8) has no batch mode and deletes entries
one at a time after a full dump.

  prefill COUNT [--timeout S]  insert COUNT ASSURED UDP entries
                               (172.31.255.1:9 -> 100.64.0.0+i:9). ASSURED
                               entries are never early-dropped, so they take
                               COUNT slots out of the table for good: the rest
                               is the "small table" the flood can use.
  flush-mark MARK              delete every entry whose ct mark is MARK, in the
                               kernel (one netlink request, no dump).
  flush-all                    delete every entry (conntrack -F).

Only the calling namespace is touched; everything dies with the namespace.
"""
import argparse
import socket
import struct
import sys

NETLINK_NETFILTER = 12
NLM_F_REQUEST, NLM_F_ACK, NLM_F_EXCL, NLM_F_CREATE = 0x1, 0x4, 0x200, 0x400
NLMSG_ERROR = 2
NLA_F_NESTED = 0x8000
NFNL_SUBSYS_CTNETLINK = 1
IPCTNL_MSG_CT_NEW, IPCTNL_MSG_CT_DELETE = 0, 2
CTA_TUPLE_ORIG, CTA_TUPLE_REPLY, CTA_STATUS, CTA_TIMEOUT, CTA_MARK = 1, 2, 3, 7, 8
CTA_MARK_MASK = 21
CTA_TUPLE_IP, CTA_TUPLE_PROTO = 1, 2
CTA_IP_V4_SRC, CTA_IP_V4_DST = 1, 2
CTA_PROTO_NUM, CTA_PROTO_SRC_PORT, CTA_PROTO_DST_PORT = 1, 2, 3
IPS_SEEN_REPLY, IPS_ASSURED, IPS_CONFIRMED = 0x2, 0x4, 0x8


def nla(atype, payload):
    length = 4 + len(payload)
    return struct.pack("=HH", length, atype) + payload + b"\0" * (-length % 4)


def tuple_attr(atype, src, dst, sport, dport):
    ip = nla(CTA_TUPLE_IP | NLA_F_NESTED, nla(CTA_IP_V4_SRC, src) + nla(CTA_IP_V4_DST, dst))
    proto = nla(CTA_TUPLE_PROTO | NLA_F_NESTED,
                nla(CTA_PROTO_NUM, b"\x11")
                + nla(CTA_PROTO_SRC_PORT, struct.pack("!H", sport))
                + nla(CTA_PROTO_DST_PORT, struct.pack("!H", dport)))
    return nla(atype | NLA_F_NESTED, ip + proto)


def msg(mtype, flags, seq, body):
    nfgen = struct.pack("=BBH", socket.AF_INET, 0, 0)
    return struct.pack("=IHHII", 16 + len(nfgen) + len(body),
                       (NFNL_SUBSYS_CTNETLINK << 8) | mtype, flags, seq, 0) + nfgen + body


def open_sock():
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    s.bind((0, 0))
    return s


def read_errors(s, block):
    """Return the list of non-zero errnos in the pending NLMSG_ERROR replies."""
    errs = []
    while True:
        try:
            data = s.recv(1 << 16, 0 if block else socket.MSG_DONTWAIT)
        except BlockingIOError:
            return errs
        off = 0
        while off + 16 <= len(data):
            length, mtype = struct.unpack_from("=IH", data, off)
            if mtype == NLMSG_ERROR:
                err = struct.unpack_from("=i", data, off + 16)[0]
                if err:
                    errs.append(-err)
            off += (length + 3) & ~3
        if block:
            return errs


def prefill(count, timeout):
    s = open_sock()
    src = socket.inet_aton("172.31.255.1")
    base = struct.unpack("!I", socket.inet_aton("100.64.0.0"))[0]
    tail = nla(CTA_STATUS, struct.pack("!I", IPS_ASSURED | IPS_SEEN_REPLY | IPS_CONFIRMED)) \
        + nla(CTA_TIMEOUT, struct.pack("!I", timeout))
    flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL   # no ACK: errors only
    errs, batch, size = [], [], 0
    for i in range(count):
        dst = struct.pack("!I", base + i)
        body = tuple_attr(CTA_TUPLE_ORIG, src, dst, 9, 9) \
            + tuple_attr(CTA_TUPLE_REPLY, dst, src, 9, 9) + tail
        m = msg(IPCTNL_MSG_CT_NEW, flags, i + 1, body)
        batch.append(m)
        size += len(m)
        if size > 60000:
            s.send(b"".join(batch))
            batch, size = [], 0
            errs += read_errors(s, False)
    if batch:
        s.send(b"".join(batch))
    # A final request with an ACK: once it is answered, all before it were processed.
    s.send(msg(IPCTNL_MSG_CT_DELETE, NLM_F_REQUEST | NLM_F_ACK, count + 1,
               nla(CTA_MARK, struct.pack("!I", 0xdead)) + nla(CTA_MARK_MASK, struct.pack("!I", 0xffffffff))))
    while True:
        data = s.recv(1 << 16)
        done = False
        off = 0
        while off + 16 <= len(data):
            length, mtype, _, seq = struct.unpack_from("=IHHI", data, off)
            if mtype == NLMSG_ERROR:
                err = struct.unpack_from("=i", data, off + 16)[0]
                if seq == count + 1:
                    done = True
                elif err:
                    errs.append(-err)
            off += (length + 3) & ~3
        if done:
            break
    if errs:
        names = sorted(set(errs))
        print(f"ct-table: prefill: {len(errs)} of {count} inserts failed "
              f"(errno {', '.join(map(str, names))})", file=sys.stderr)
        return 1
    return 0


def flush(mark=None):
    s = open_sock()
    body = b""
    if mark is not None:
        body = nla(CTA_MARK, struct.pack("!I", mark)) + nla(CTA_MARK_MASK, struct.pack("!I", 0xffffffff))
    s.send(msg(IPCTNL_MSG_CT_DELETE, NLM_F_REQUEST | NLM_F_ACK, 1, body))
    errs = read_errors(s, True)
    if errs:
        print(f"ct-table: flush: errno {errs[0]}", file=sys.stderr)
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prefill")
    p.add_argument("count", type=int)
    p.add_argument("--timeout", type=int, default=3600)
    f = sub.add_parser("flush-mark")
    f.add_argument("mark", type=lambda v: int(v, 0))
    sub.add_parser("flush-all")
    a = ap.parse_args()
    if a.cmd == "prefill":
        return prefill(a.count, a.timeout)
    if a.cmd == "flush-mark":
        return flush(a.mark)
    return flush()


if __name__ == "__main__":
    sys.exit(main())
