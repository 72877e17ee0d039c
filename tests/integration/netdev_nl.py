"""An independent reading of the netdev generic netlink family: queue-get and napi-get
dumped over a raw AF_NETLINK socket, with nothing of netmetrics' code (the attribute numbers
are those of the kernel's Documentation/netlink/specs/netdev.yaml). Used by test_napi.py to
check what the daemon shows against what the kernel says.

    python3 netdev_nl.py [DEV]     prints {"queues": [...], "napis": [...]} as JSON
"""
import json
import socket
import struct
import sys

NETLINK_GENERIC = 16
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 0x10, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2
CMD_QUEUE_GET, CMD_NAPI_GET = 10, 11
QUEUE_ATTRS = {1: "id", 2: "ifindex", 3: "type", 4: "napi-id"}
NAPI_ATTRS = {1: "ifindex", 2: "id", 3: "irq", 4: "pid", 5: "defer-hard-irqs",
              6: "gro-flush-timeout", 7: "irq-suspend-timeout", 8: "threaded"}


def _attrs(buf):
    out, i = {}, 0
    while i + 4 <= len(buf):
        ln, typ = struct.unpack_from("HH", buf, i)
        if ln < 4:
            break
        out[typ & 0x3FFF] = buf[i + 4:i + ln]
        i += (ln + 3) & ~3
    return out


def _attr(typ, data):
    ln = 4 + len(data)
    return struct.pack("HH", ln, typ) + data + b"\0" * (((ln + 3) & ~3) - ln)


def _uint(b):
    return int.from_bytes(b, "little")


def _request(sock, ftype, cmd, payload, flags, seq):
    body = struct.pack("BBH", cmd, 1, 0) + payload
    sock.send(struct.pack("IHHII", 16 + len(body), ftype, flags, seq, 0) + body)
    msgs = []
    while True:
        data = sock.recv(1 << 20)
        i = 0
        while i < len(data):
            ln, typ, _fl, _seq, _pid = struct.unpack_from("IHHII", data, i)
            if typ == NLMSG_DONE:
                return msgs
            if typ == NLMSG_ERROR:
                err = struct.unpack_from("i", data, i + 16)[0]
                if err:
                    raise OSError(-err, "netlink error")
                return msgs
            msgs.append(_attrs(data[i + 20:i + ln]))
            i += (ln + 3) & ~3
        if not flags & NLM_F_DUMP:
            return msgs


def dump(dev=None):
    """{"queues": [{"ifindex", "id", "type": "rx"|"tx", "napi-id" (absent: none)}],
    "napis": [{"ifindex", "id", "irq", ...: what napi-get gave}]}, for dev or all."""
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    try:
        sock.bind((0, 0))
        fam = _request(sock, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                       _attr(CTRL_ATTR_FAMILY_NAME, b"netdev\0"), NLM_F_REQUEST, 1)
        fid = _uint(fam[0][CTRL_ATTR_FAMILY_ID])
        ifindex = socket.if_nametoindex(dev) if dev else 0
        queues, napis = [], []
        pay = _attr(2, struct.pack("I", ifindex)) if ifindex else b""
        for m in _request(sock, fid, CMD_QUEUE_GET, pay, NLM_F_REQUEST | NLM_F_DUMP, 2):
            q = {QUEUE_ATTRS[k]: _uint(v) for k, v in m.items() if k in QUEUE_ATTRS}
            if q.get("type") in (0, 1):
                q["type"] = ("rx", "tx")[q["type"]]
                queues.append(q)
        pay = _attr(1, struct.pack("I", ifindex)) if ifindex else b""
        for m in _request(sock, fid, CMD_NAPI_GET, pay, NLM_F_REQUEST | NLM_F_DUMP, 3):
            napis.append({NAPI_ATTRS[k]: _uint(v) for k, v in m.items() if k in NAPI_ATTRS})
        return {"queues": queues, "napis": napis}
    finally:
        sock.close()


if __name__ == "__main__":
    json.dump(dump(sys.argv[1] if len(sys.argv) > 1 else None), sys.stdout, indent=1)
    print()
