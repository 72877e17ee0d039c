#!/usr/bin/env python3
"""A peer's reply is read in linear time and within bounds (issue 29): a fake transport (a
[peer] command = a small script that answers the daemon's request as it likes) sends

- a reply line of 70 MB: the request fails within seconds with an error naming the limit,
  64 MiB (it used to be read in quadratic time, so the deadline came first and the limit
  was never reached), and the daemon spends little CPU on it;
- 2,000,000 lines that answer no request: the request fails after 1,000 of them, naming
  that limit (they used to be parsed one by one until the deadline);
- a valid reply of 16 MiB: forwarded whole, in well under a second of the daemon's CPU (it
  cost 1.35 s here, 6.2 s on the reviewer's host);

and all the while `status` answers on a second connection within a second.

No namespaces: the daemon runs on a temporary socket (test_control's Daemon). Needs root
for nothing but what test_control needs. Environment: NETMETRICSD, NETMETRICSCTL.
Usage: test_peer_replies.py [NAME_SUBSTRING ...]. Ends with "N passed, M failed".
"""
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_control as tc  # noqa: E402

MiB = 1 << 20

# The transport: reads the daemon's first request and answers it as argv says, then waits
# for the daemon to hang up (a write to a transport that was stopped ends it quietly).
FAKE = r'''
import json, sys
mode, n = sys.argv[1], int(sys.argv[2])
out = sys.stdout.buffer
try:
    rid = json.loads(sys.stdin.buffer.readline())["id"]
    if mode == "reply":  # one valid reply line of n bytes, its newline only at its end
        head = b'{"id":%d,"ok":true,"result":{"pad":"' % rid
        tail = b'"}}\n'
        left = n - len(head) - len(tail)
        chunk = b"a" * MIB
        out.write(head)
        while left > 0:
            out.write(chunk[:min(left, len(chunk))])
            left -= len(chunk)
        out.write(tail)
    else:  # n lines that answer no request
        out.write(b'{"id":%d,"ok":true,"result":{}}\n' % (rid + 1000000) * n)
    out.flush()
    sys.stdin.buffer.read()
except (BrokenPipeError, ConnectionResetError):
    pass
'''.replace("MIB", str(MiB))


def fake_daemon(mode, n):
    """A daemon whose peer "fake" is the script above in mode with n."""
    d = tc.Daemon(start=False)
    script = os.path.join(d.tmp, "fake-peer.py")
    with open(script, "w") as f:
        f.write(FAKE)
    os.chmod(script, 0o644)
    with open(d.conf, "a") as f:
        f.write("[peer fake]\ncommand = %s %s %s %d\n" % (sys.executable, script, mode, n))
    d.start()
    return d


class StatusProbe:
    """status on a connection of its own, again and again while a peer request runs; the
    longest wait for an answer."""

    def __init__(self, d):
        self.client = tc.Client(d.sock)
        self.stop = threading.Event()
        self.longest = 0.0
        self.answers = 0
        self.error = None
        self.thread = threading.Thread(target=self.run)
        self.thread.start()

    def run(self):
        rid = 0
        try:
            while not self.stop.is_set():
                rid += 1
                t0 = time.monotonic()
                tc.assert_ok(self.client.call("status", rid, timeout=10))
                self.longest = max(self.longest, time.monotonic() - t0)
                self.answers += 1
                time.sleep(0.02)
        except Exception as e:  # noqa: BLE001 - reported by done()
            self.error = e

    def done(self):
        self.stop.set()
        self.thread.join()
        self.client.close()
        assert self.error is None, "status failed: %r" % self.error
        return self.longest


def forward(d, timeout=60):
    """series --host fake as a raw request: (reply, seconds, the daemon's CPU seconds)."""
    c = tc.Client(d.sock)
    cpu0, t0 = tc.cpu_seconds(d.pid), time.monotonic()
    rep = c.call("series", 1, {"glob": "link.*", "host": "fake"}, timeout=timeout)
    took, cpu = time.monotonic() - t0, tc.cpu_seconds(d.pid) - cpu0
    c.close()
    return rep, took, cpu


def transports(d):
    """pids of the fake transports of d still running."""
    script = os.path.join(d.tmp, "fake-peer.py").encode()
    pids = []
    for p in os.listdir("/proc"):
        try:
            with open("/proc/%s/cmdline" % p, "rb") as f:
                if script in f.read().split(b"\0"):
                    pids.append(int(p))
        except (OSError, ValueError):
            continue
    return pids


def no_transport_left(d):
    """The transport that passed a limit is stopped and reaped."""
    end = time.monotonic() + 10
    while transports(d):
        assert time.monotonic() < end, "transport left running: %r" % transports(d)
        time.sleep(0.1)


def stopped(d):
    """d alive until now, then stopped; it exits 0 (under ASan: no leak)."""
    assert d.alive(), d.logtext()[-3000:]
    log = d.logtext()[-3000:]
    rc = d.stop()
    assert rc == 0, "netmetricsd exited with %r: %s" % (rc, log)


def test_reply_over_the_limit():
    """70 MB without a newline before the end: refused at 64 MiB, quickly, naming it."""
    d = fake_daemon("reply", 70 * 1000 * 1000)
    probe = StatusProbe(d)
    rep, took, cpu = forward(d)
    longest = probe.done()
    print("    70 MB reply: refused after %.2f s, %.2f s of the daemon's CPU; status within "
          "%.0f ms" % (took, cpu, longest * 1000))
    tc.assert_error(rep, "too_long", 1)
    assert rep["error"]["message"] == ("peer fake: a reply line passed the limit of a reply, "
                                       "64 MiB (67108864 bytes)"), rep
    assert took < 10, took  # the deadline (30 s) is not what ends it
    assert cpu < 3, cpu
    assert longest < 1.0, longest
    no_transport_left(d)
    stopped(d)


def test_flood_of_lines_that_answer_nothing():
    """2,000,000 lines with another id: refused after 1,000 of them."""
    d = fake_daemon("flood", 2000000)
    probe = StatusProbe(d)
    rep, took, cpu = forward(d)
    longest = probe.done()
    print("    flood: refused after %.2f s, %.2f s of the daemon's CPU; status within %.0f ms"
          % (took, cpu, longest * 1000))
    tc.assert_error(rep, "failed", 1)
    assert rep["error"]["message"] == ("peer fake: more than 1000 lines that answer no request "
                                       "(the limit between two answers)"), rep
    assert took < 10, took
    assert cpu < 3, cpu
    assert longest < 1.0, longest
    no_transport_left(d)
    stopped(d)


def test_large_valid_reply():
    """A valid 16 MB reply comes through whole, at little CPU, the transport kept."""
    n = 16 * MiB
    d = fake_daemon("reply", n)
    probe = StatusProbe(d)
    rep, took, cpu = forward(d)
    longest = probe.done()
    print("    16 MiB reply: %.2f s, %.2f s of the daemon's CPU (parse, forward); status "
          "within %.0f ms" % (took, cpu, longest * 1000))
    tc.assert_ok(rep, 1)
    head = len('{"id":1,"ok":true,"result":{"pad":"') + len('"}}\n')
    assert rep["result"]["pad"] == "a" * (n - head), len(rep["result"]["pad"])
    assert took < 10, took
    assert cpu < 0.8, cpu  # 0.11 s here; 1.35 s when each read rescanned the line
    assert longest < 1.0, longest
    assert len(transports(d)) == 1, transports(d)  # kept for the next request
    stopped(d)


if __name__ == "__main__":
    sys.exit(tc.main(sys.argv[1:], globals()))
