#!/usr/bin/env python3
"""The results store at scale and on a slow disk, through the real netmetricsd and
netmetricsctl (the Daemon helper of test_windows.py):

- a store of 20,000 generated results (files in the state directory's layout, with the
  JSON a real `mark stop` wrote as their template) and 5 corrupt files: `results` and a
  glob `compare` over 100 of them answer in about the time they take with 200 results in
  the store (the index, not a parse of every file); the corrupt files are listed as
  skipped; the sources' timers are not late meanwhile (status: late_max_ms);
- `results --figures ... --csv`: one row per result, one column per flattened figure;
- with every fsync slowed by NETMETRICS_TEST_FSYNC_DELAY_MS (a test-only hook), `mark
  stop` answers only once its result is on disk, other clients are answered meanwhile, and
  the sources' timers stay within 5 ms of their beat;
- an index damaged on disk, or a file added behind the daemon's back, is rebuilt or
  picked up at the next start.

Environment: NETMETRICSD, NETMETRICSCTL. Usage: test_results_store.py [NAME_SUBSTRING ...].
Ends with "N passed, M failed".
"""
import calendar
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_windows  # noqa: E402
from test_windows import Daemon  # noqa: E402

BIG = 20000
SMALL = 200
CMP = 50          # results on each side of the compare: 100 in all
CORRUPT = 5
FACTOR = 3.0      # "about the same time": the big store within 3x of the small one
SLACK = 0.010     # seconds: what a shared, loaded machine adds to a round trip
FSYNC_DELAY_MS = 2000
LATE_MS = 100.0   # ms over the idle lateness: a shared VM's steal comes in bursts of tens of ms


class StoreDaemon(Daemon):
    """A Daemon whose state directory is filled before its first start, with an optional
    sampling interval and environment."""

    def __init__(self, fill=None, interval="500ms", extra_env=None):
        self.fill = fill
        self.interval = interval
        self.extra_env = extra_env or {}
        self.filled = False
        super().__init__()

    def start(self):
        with open(self.conf, "w") as f:
            f.write("[sampling]\ninterval = %s\n" % self.interval)
        if self.fill is not None and not self.filled:
            self.fill(self.state)
            self.filled = True
        saved = {k: os.environ.get(k) for k in self.extra_env}
        os.environ.update(self.extra_env)
        try:
            super().start()
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def call(self, cmd, args):
        """One request on a raw connection: (reply object, seconds it took)."""
        t0 = time.monotonic()
        line = self.raw_call(cmd, args)
        return json.loads(line), time.monotonic() - t0

    def wait_index(self, timeout=300):
        deadline = time.time() + timeout
        while time.time() < deadline:
            r, _ = self.call("results", {"limit": 1})
            if r["result"].get("index") == "ready":
                return r["result"]
            time.sleep(0.2)
        raise AssertionError("index not ready after %d s: %s" % (timeout, self.logtext()))

    def late_max_ms(self):
        st = self.json("status")
        return max(s.get("late_max_ms", 0) for s in st["sources"] if s["enabled"])


_template = None


def template():
    """A result as a real `mark stop` stores it (made once)."""
    global _template
    if _template is None:
        d = Daemon()
        try:
            d.ctl("mark", "start", "tmpl")
            time.sleep(0.6)
            d.ctl("mark", "stop", "tmpl")
            with open(d.result_path("tmpl")) as f:
                _template = json.load(f)
        finally:
            d.cleanup()
    return _template


def stamp(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".000Z"


def write_result(results_dir, name, start, test=None):
    r = json.loads(json.dumps(template()))
    r["window"]["name"] = name
    r["window"]["start"] = stamp(start)
    r["window"]["end"] = stamp(start + 10)
    r["window"]["duration_s"] = 10.0
    if test is not None:
        r["window"]["origin"] = "test"
        r["test"] = test
    path = os.path.join(results_dir, name + ".json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(json.dumps(r, separators=(",", ":")) + "\n")


def filler(total):
    """A function filling a state directory with total results: CMP 'cmp/a_iter_N' and
    CMP 'cmp/b_iter_N' (test results of suite cmp, older than the rest), the others
    'gen/rNNNNN' one minute apart, and CORRUPT files that are no results."""
    def fill(state):
        rd = os.path.join(state, "results")
        base = time.time() - total * 60 - 86400
        for side in ("a", "b"):
            for i in range(CMP):
                tp = 900.0 + i if side == "a" else 1000.0 + i
                write_result(rd, "cmp/%s_iter_%d" % (side, i + 1), base + i, test={
                    "name": "cmp/%s_iter_%d" % (side, i + 1), "driver": "exec",
                    "status": "passed", "suite": "cmp", "host": "peer",
                    "figures": {"throughput_mbps": tp}})
        for i in range(total - 2 * CMP):
            write_result(rd, "gen/r%05d" % i, base + 3600 + i * 60)
        os.makedirs(os.path.join(rd, "bad"), exist_ok=True)
        bodies = ["{not json", "[1, 2]", "", '{"window": 7}', '{"figures": "x"}']
        for i, body in enumerate(bodies[:CORRUPT]):
            with open(os.path.join(rd, "bad", "c%d.json" % i), "w") as f:
                f.write(body)
    return fill


def timed(d, cmd, args, runs=5):
    """The best of runs round trips (the machine is shared: the minimum is the cost)."""
    best = None
    reply = None
    for _ in range(runs):
        reply, t = d.call(cmd, args)
        assert reply.get("ok"), reply
        best = t if best is None else min(best, t)
    return reply["result"], best


def measure(total):
    d = StoreDaemon(fill=filler(total))
    try:
        t0 = time.monotonic()
        d.wait_index()
        built = time.monotonic() - t0
        lst, t_list = timed(d, "results", {})
        cmp, t_cmp = timed(d, "compare", {"a": "cmp/a_*", "b": "cmp/b_*"})
        late = d.late_max_ms()
        return d, {"list": lst, "cmp": cmp, "t_list": t_list, "t_cmp": t_cmp,
                   "late": late, "built": built}
    except BaseException:
        d.cleanup()
        raise


def test_scale_20000():
    small_d, small = measure(SMALL)
    small_d.cleanup()
    d, big = measure(BIG)
    try:
        print("     %d results: results %.1f ms, compare %.1f ms, late_max %.1f ms, "
              "index built in %.1f s" % (SMALL, small["t_list"] * 1e3, small["t_cmp"] * 1e3,
                                         small["late"], small["built"]))
        print("     %d results: results %.1f ms, compare %.1f ms, late_max %.1f ms, "
              "index built in %.1f s" % (BIG, big["t_list"] * 1e3, big["t_cmp"] * 1e3,
                                         big["late"], big["built"]))
        for m in (small, big):
            lst = m["list"]
            assert lst["index"] == "ready" and lst["count"] == 50 and lst["more"], lst
            skipped = sorted(s["name"] for s in lst.get("skipped", []))
            assert skipped == ["bad/c%d" % i for i in range(CORRUPT)], lst.get("skipped")
            assert m["cmp"]["a"]["n"] == CMP and m["cmp"]["b"]["n"] == CMP, m["cmp"]["a"]
        # Newest first: the generated results, the last one on top.
        assert big["list"]["results"][0]["name"] == "gen/r%05d" % (BIG - 2 * CMP - 1)
        # Within FACTOR, give or take 10 ms of a shared machine's noise (a listing that
        # parses every file: 8.5 s against 0.1 s).
        assert big["t_list"] < FACTOR * small["t_list"] + SLACK, (big["t_list"], small["t_list"])
        assert big["t_cmp"] < FACTOR * small["t_cmp"] + SLACK, (big["t_cmp"], small["t_cmp"])
        # The sources' timers were not held up by the build of the index or the queries
        # (a parse of 20,000 files on the loop holds them for seconds; compare's parse of
        # 100 on the loop costs tens of ms).
        late_lines = [ln for ln in d.logtext().split("\n") if "late (the event loop" in ln]
        assert big["late"] < 250, (big["late"], late_lines)
        # Filters and pages, from the index.
        r, _ = d.call("results", {"suite": "cmp", "all": True})
        assert r["result"]["count"] == 2 * CMP and not r["result"]["more"], r["result"]["count"]
        r, _ = d.call("results", {"glob": "gen/r0001*", "limit": 5})
        names = [x["name"] for x in r["result"]["results"]]
        assert names == ["gen/r%05d" % i for i in range(19, 14, -1)], names
        r, _ = d.call("results", {"origin": "test", "limit": 1000})
        assert r["result"]["count"] == 2 * CMP, r["result"]["count"]
        # Before the first generated result started: the cmp results only.
        r, _ = d.call("results", {"glob": "gen/r00000"})
        first = r["result"]["results"][0]["start"]
        until = calendar.timegm(time.strptime(first[:19], "%Y-%m-%dT%H:%M:%S"))
        r, _ = d.call("results", {"until": until, "all": True})
        assert {x["name"].split("/")[0] for x in r["result"]["results"]} == {"cmp"}, \
            r["result"]["count"]
        r, _ = d.call("results", {"since": until, "until": until + 90, "all": True})
        assert [x["name"] for x in r["result"]["results"]] == ["gen/r00001", "gen/r00000"], r
        tests = d.json("tests", "--all")
        stored = [t for t in tests["tests"] if t.get("stored")]
        assert len(stored) == 2 * CMP, len(stored)
        assert stored[0]["figures"]["throughput_mbps"] in (949.0, 1049.0), stored[0]
        assert sorted(s["name"] for s in tests["skipped"]) == \
            ["bad/c%d" % i for i in range(CORRUPT)], tests["skipped"]
        human = d.ctl("results").stdout
        assert "skipped bad/c0: " in human and "(more results" in human, human[-500:]
    finally:
        d.cleanup()


def test_figures_csv():
    d = StoreDaemon(fill=filler(SMALL))
    try:
        d.wait_index()
        out = d.ctl("--csv", "results", "cmp/a_iter_*", "--all", "--figures",
                    "test.*,cpu.all.busy").stdout
        lines = out.strip().split("\n")
        assert lines[0] == "RESULT,test.throughput_mbps,cpu.all.busy", lines[0]
        assert len(lines) == 1 + CMP, len(lines)
        rows = {ln.split(",")[0]: ln.split(",")[1:] for ln in lines[1:]}
        busy = template()["figures"]["cpu"]["all"]["busy"]
        for i in range(CMP):
            name = "cmp/a_iter_%d" % (i + 1)
            assert float(rows[name][0]) == 900.0 + i, (name, rows[name])
            assert abs(float(rows[name][1]) - busy) < 1e-6, (name, rows[name], busy)
    finally:
        d.cleanup()


def poll_lateness(d, going, deadline):
    """Poll status every 100 ms (the sampling beat) while going(): the largest lateness a
    source's timer had at its last fire, the longest status took, the number of polls."""
    late, t_status, polls = 0.0, 0.0, 0
    while going() and time.monotonic() < deadline:
        st, took = d.call("status", {})
        assert st["ok"], st
        t_status = max(t_status, took)
        late = max([late] + [x["late_ms"] for x in st["result"]["sources"] if x["enabled"]])
        polls += 1
        time.sleep(0.1)
    return late, t_status, polls


def test_slow_fsync_mark_stop():
    d = StoreDaemon(interval="100ms",
                    extra_env={"NETMETRICS_TEST_FSYNC_DELAY_MS": str(FSYNC_DELAY_MS)})
    try:
        d.wait_index()
        # The machine is shared: other processes' load delays any timer by some ms. What
        # is measured here is the loop's own holding up, so the daemon goes ahead of them.
        try:
            os.setpriority(os.PRIO_PROCESS, d.proc.pid, -10)
        except OSError:
            pass
        for n in ("slow/a", "slow/b"):
            d.ctl("mark", "start", n)
        time.sleep(1.0)
        # The same polling with nothing stored: what this shared machine's load alone costs
        # a timer (other processes run on the same 2 CPUs).
        end = time.monotonic() + 2.0
        base, _, _ = poll_lateness(d, lambda: time.monotonic() < end, end + 5)
        before = d.late_max_ms()
        replies = {}

        def stop(name):
            replies[name] = d.call("mark-stop", {"name": name})

        threads = [threading.Thread(target=stop, args=(n,)) for n in ("slow/a", "slow/b")]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        # While both are on the writer thread: others are answered, nothing is on disk.
        time.sleep(0.5)
        windows = {w["name"]: w["state"] for w in d.json("windows")["windows"]}
        assert windows["slow/a"] == "storing", windows
        assert not os.path.exists(d.result_path("slow/a")), "stored before the fsync"
        assert not replies, replies
        late, t_status, polls = poll_lateness(d, lambda: len(replies) < 2, t0 + 30)
        for t in threads:
            t.join(30)
        for n in ("slow/a", "slow/b"):
            r, took = replies[n]
            assert r["ok"], r
            assert r["result"]["window"]["name"] == n, r
            # Durable before the reply: the delay passed, the file is there.
            assert took >= FSYNC_DELAY_MS / 1000.0, (n, took)
            assert os.path.exists(d.result_path(n)), n
        # One writer: the second waited for the first.
        assert time.monotonic() - t0 >= 2 * FSYNC_DELAY_MS / 1000.0
        print("     mark stop replies after %.2f s and %.2f s; while stored: lateness at "
              "most %.2f ms over %d polls (idle, polled alike: %.2f ms), status answered "
              "within %.1f ms (late_max since start %.2f ms before, %.2f ms after)"
              % (replies["slow/a"][1], replies["slow/b"][1], late, polls, base,
                 t_status * 1e3, before, d.late_max_ms()))
        assert polls >= 10, polls
        # Within the machine's own noise (a store on the loop holds it 2,000 ms).
        assert late < base + LATE_MS, (late, base)
        assert t_status < 0.5, t_status
        lst = d.json("results")
        assert [x["name"] for x in lst["results"]] == ["slow/b", "slow/a"], lst
    finally:
        d.cleanup()


def test_slow_fsync_test_end():
    """A test's end: its state is "storing" (no status yet) until its result is durable,
    then its status; test start --wait returns only then."""
    d = StoreDaemon(interval="100ms",
                    extra_env={"NETMETRICS_TEST_FSYNC_DELAY_MS": str(FSYNC_DELAY_MS)})
    try:
        d.wait_index()
        d.ctl("test", "start", "--driver", "exec", "--name", "slowt", "--warmup", "0.2",
              "--duration", "2", "--cooldown", "0.5", "--", "/bin/sleep", "2")
        states, t_storing, t_done = [], None, None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            t = d.json("test", "status", "slowt")["tests"][0]
            if not states or states[-1] != t["state"]:
                states.append(t["state"])
            if t["state"] == "storing":
                assert "status" not in t, t
                t_storing = t_storing or time.monotonic()
                # The file appears at its rename, after the (slow) fsync; the index row
                # follows before the status, so "storing" may outlast the file's arrival,
                # but the file cannot come before the fsync's delay has passed.
                assert (not os.path.exists(d.result_path("slowt")) or time.monotonic()
                        - t_storing >= FSYNC_DELAY_MS / 1000.0 - 0.3), "stored before the fsync"
            if "status" in t:
                t_done = time.monotonic()
                assert os.path.exists(d.result_path("slowt")), "status before the file"
                break
            time.sleep(0.1)
        assert t_storing is not None and t_done is not None, states
        print("     states %s; storing for %.2f s" % (states, t_done - t_storing))
        assert states[-1] == "passed" and states[-2] == "storing", states
        # Both seen by polls 0.1 s apart, each a client's round trip (slow under load): the
        # first may be seen late by more than the second (a store not waiting: about 0 s).
        assert t_done - t_storing >= FSYNC_DELAY_MS / 1000.0 - 0.5, (t_storing, t_done)
        # --wait follows the test to its stored end.
        t0 = time.monotonic()
        r = d.ctl("test", "start", "--driver", "exec", "--name", "slowt2", "--warmup", "0.2",
                  "--duration", "2", "--cooldown", "0.5", "--wait", "--", "/bin/sleep", "2")
        assert time.monotonic() - t0 >= 2 + FSYNC_DELAY_MS / 1000.0, r.stdout
        assert os.path.exists(d.result_path("slowt2"))
        assert d.json("result", "show", "slowt2")["test"]["status"] == "passed"
    finally:
        d.cleanup()


def test_index_damaged_or_stale():
    d = StoreDaemon(fill=filler(SMALL))
    try:
        d.wait_index()
        d.term()
        index = os.path.join(d.state, "results-index.sqlite")
        # A clean stop leaves the index whole in its file, nothing in a WAL beside it.
        assert not os.path.exists(index + "-wal"), os.listdir(d.state)
        with open(index, "r+b") as f:
            f.seek(0)
            f.write(b"garbage, not sqlite" * 10)
        write_result(os.path.join(d.state, "results"), "late/added", time.time())
        os.unlink(d.result_path("gen/r00000"))
        d.start()
        lst = d.wait_index()
        r, _ = d.call("results", {"all": True})
        names = {x["name"] for x in r["result"]["results"]}
        assert "late/added" in names and "gen/r00000" not in names, len(names)
        assert len(names) == SMALL, len(names)
        assert "rebuilding it from the result files" in d.logtext(), d.logtext()
        # A file added with the index sound is picked up too.
        d.term()
        write_result(os.path.join(d.state, "results"), "late/second", time.time())
        d.start()
        d.wait_index()
        r, _ = d.call("results", {"glob": "late/*"})
        assert [x["name"] for x in r["result"]["results"]] == ["late/second", "late/added"], r
        del lst
    finally:
        d.cleanup()


if __name__ == "__main__":
    # test_windows.main runs the test_* functions of its module: hand it these instead.
    for k in [k for k in vars(test_windows) if k.startswith("test_")]:
        delattr(test_windows, k)
    for k, v in list(globals().items()):
        if k.startswith("test_") and callable(v):
            setattr(test_windows, k, v)
    sys.exit(test_windows.main(sys.argv[1:]))
