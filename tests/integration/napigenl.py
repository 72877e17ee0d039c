"""A minimal netdev generic netlink reader for the tests (no pyroute2 here): which NAPI an rx
queue is polled by (queue-get) and its defer-hard-irqs and gro-flush-timeout (napi-get),
read independently of the daemon."""
import socket, struct

NETLINK_GENERIC = 16
GENL_ID_CTRL = 16
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2


def _attrs(buf):
    out = {}
    off = 0
    while off + 4 <= len(buf):
        ln, typ = struct.unpack_from("HH", buf, off)
        if ln < 4:
            break
        out[typ & 0x3fff] = buf[off + 4:off + ln]
        off += (ln + 3) & ~3
    return out


def _attr(typ, payload):
    ln = 4 + len(payload)
    return struct.pack("HH", ln, typ) + payload + b"\0" * (((ln + 3) & ~3) - ln)


def _request(sock, family, cmd, attrs):
    payload = struct.pack("BBH", cmd, 1, 0) + b"".join(attrs)
    msg = struct.pack("IHHII", 16 + len(payload), family, 1, 1, 0) + payload
    sock.send(msg)
    data = sock.recv(65536)
    ln, typ, flags, seq, pid = struct.unpack_from("IHHII", data, 0)
    if typ == 2:  # NLMSG_ERROR
        err = struct.unpack_from("i", data, 16)[0]
        raise OSError(-err, "netlink error %d" % -err)
    return _attrs(data[20:ln])


def napi_settings(ifname, queue=0):
    """(napi id, defer-hard-irqs, gro-flush-timeout) of rx queue `queue` of ifname."""
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    try:
        sock.bind((0, 0))
        fam = _request(sock, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                       [_attr(CTRL_ATTR_FAMILY_NAME, b"netdev\0")])
        family = struct.unpack("H", fam[CTRL_ATTR_FAMILY_ID][:2])[0]
        ifindex = socket.if_nametoindex(ifname)
        q = _request(sock, family, 10, [_attr(2, struct.pack("I", ifindex)),
                                        _attr(3, struct.pack("I", 0)),
                                        _attr(1, struct.pack("I", queue))])
        napi = struct.unpack("I", q[4])[0]
        n = _request(sock, family, 11, [_attr(2, struct.pack("I", napi))])

        def num(b):
            return struct.unpack("I" if len(b) == 4 else "Q", b)[0]
        return napi, num(n[5]), num(n[6])
    finally:
        sock.close()


if __name__ == "__main__":
    print(napi_settings("eth0"))
