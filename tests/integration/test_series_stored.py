#!/usr/bin/env python3
"""The series stored with a result (daemon/seriesblock.c) on the real kernel: a test sends
UDP from namespace A to B at 2000 packets/s, then 400/s (test_tests.SENDER); its
`series --window` and `trend --window` replies are taken while the ring holds the test, and
again once it does not: after a restart of the daemon, and (without a restart) once a
1 MiB ring sampled every 10 ms has evicted the test's samples. The replies must be
identical, member for member: the stored block keeps the records the ring answered from.
A damaged block is skipped with a warning: the reply is the ring's "holds no samples" one
again, and the daemon keeps running.

Needs root (namespaces). Environment: NETMETRICSD, NETMETRICSCTL. Ends with
"N passed, M failed".
"""
import base64
import calendar
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nsrun  # noqa: E402
from test_sampling import ADDR_B, make_pair, remove_pair  # noqa: E402
from test_tests import SENDER, Daemon, run_test  # noqa: E402

GLOBS = ("link.vA.tx_packets", "link.vA.*", "cpu.all.*", "snmp.Udp.*")


def views(d, name):
    """The replies that must survive: series of a few globs, and the trend."""
    out = {}
    for g in GLOBS:
        out["series " + g] = d.json("series", g, "--window", name)
    out["series step 2"] = d.json("series", "link.vA.tx_packets", "--window", name,
                                  "--step", "2")
    out["trend"] = d.json("trend", "link.vA.tx_packets", "--window", name)
    return out


def same(a, b):
    for k in a:
        assert a[k] == b[k], "%s differs:\n%s\n%s" % (k, a[k], b[k])


def start_test(d, name):
    rep = run_test(d, "--driver", "exec", "--name", name, "--duration", "24", "--warmup",
                   "0.5", "--cooldown", "0.5", "--", "python3", "-c", SENDER, ADDR_B)
    assert rep["trend"]["verdict"] == "decay", rep["trend"]
    return rep


def test_series_after_restart():
    d = Daemon()
    base = d.dir
    try:
        start_test(d, "falls")
        before = views(d, "falls")
        rates = [p[1] for p in before["series link.vA.tx_packets"]["series"][0]["points"]]
        assert all(1700 <= r <= 2200 for r in rates[1:11]), rates
        assert before["trend"]["verdict"] == "decay", before["trend"]
        blk = os.path.join(base, "state", "results", "falls.series")
        assert os.path.getsize(blk) > 100, os.path.getsize(blk)
        # Export carries the block as stored, base64.
        with open(blk, "rb") as f:
            stored = f.read()
        exp = d.json("result", "export", "falls")
        assert base64.b64decode(exp["series_block"]) == stored, len(exp.get("series_block", ""))
        exp = d.json("result", "export", "fal*")
        assert base64.b64decode(exp["results"][0]["series_block"]) == stored
        assert "series_block" not in d.json("result", "show", "falls")
        assert d.stop(keep=True) == 0
        d = Daemon(base)
        after = views(d, "falls")
        same(before, after)
        # A damaged block: skipped with a warning, the ring's answer again.
        assert d.stop(keep=True) == 0
        with open(blk, "r+b") as f:
            f.seek(30)
            f.write(b"\xff" * 40)
        d = Daemon(base)
        r = d.ctl("series", "link.vA.tx_packets", "--window", "falls", check=False)
        assert r.returncode != 0 and "holds no samples" in r.stderr, (r.returncode, r.stderr)
        r = d.ctl("trend", "link.vA.tx_packets", "--window", "falls", check=False)
        assert r.returncode != 0 and "holds no samples" in r.stderr, (r.returncode, r.stderr)
        assert "stored series skipped" in d.logtext(), d.logtext()
        assert d.json("status") is not None
        # The result itself is whole.
        assert d.json("result", "show", "falls")["test"]["status"] == "passed"
    finally:
        d.stop()


def epoch(x):
    """Seconds since the epoch of an RFC 3339 UTC time."""
    return calendar.timegm(time.strptime(x[:19], "%Y-%m-%dT%H:%M:%S")) + float(
        "0" + x[19:].rstrip("Z"))


def ring_oldest(d):
    st = d.json("status")
    ring = st.get("ring") or st.get("sampler", {}).get("ring")
    return epoch(ring["oldest"])


def test_series_after_eviction():
    d = Daemon(sampling="interval = 10ms\nring_memory = 1M\n")
    try:
        rep = start_test(d, "evicted")
        before = views(d, "evicted")
        # The ring moves on until the test's start is gone from it.
        deadline = time.time() + 240
        while ring_oldest(d) <= epoch(rep["window"]["start"]):
            assert time.time() < deadline, ("not evicted", ring_oldest(d), rep["window"])
            time.sleep(2)
        after = views(d, "evicted")
        same(before, after)
    finally:
        d.stop()


def main():
    if os.geteuid() == 0 and shutil.which("ip") is None:
        print("ip (iproute2) is missing")
        return 1
    return nsrun.run([test_series_after_restart, test_series_after_eviction],
                     "stored series", make_pair, remove_pair)


if __name__ == "__main__":
    sys.exit(main())
