#!/usr/bin/env python3
"""bench-service.py: what netmetricsd costs as it runs, against the bare read of its files.

The daemon itself (a release build), sampling a 144-CPU, 144-queue, ~1,200-IRQ fixture
from gen-host.py under --root at its cadence, while this script writes the fixture's next
step into the same files (same inodes) once an interval, so every sample sees counters that
moved. Its cost is the CPU time of every thread of every process it runs (the main process,
its threads, the privileged process), read from /proc/PID/task/TID/schedstat before and
after a measured span that starts after a warm-up. The floor is bare-read (bench/bare-read.c):
the same files, opened once, pread at the same cadence in the same run, measured the same
way. Rounds interleave the two (daemon first in even rounds, bare first in odd ones) so
that the machine's drift falls on both; the figures are medians over the rounds.

    bench-service.py --netmetricsd PATH --bare-read PATH [--rounds 5] [--seconds 20]
                     [--interval-ms 1000] [--steps 8] [--cache DIR] [--gen GEN_HOST]
                     [--config-extra TEXT] [--only FILES] [--fine] [--against PATH]
                     [--floor-compare]

Prints one line per phase and a summary:
    service: daemon X.XX ms/s, bare read Y.YY ms/s, ratio Z.ZZx (medians of N rounds)
--only FILES (comma-separated, relative to the root, DIR/ for all below) reads and writes
only those files, for a daemon whose other sources are off (--config-extra). --fine is
issue 33's fine set: link, queues and softnet sampled fine ([sampling] fine_when = always,
fine_interval = 10ms: one timer for the three), the other sources off, against the bare read
of their files (proc/net/dev, proc/net/softnet_stat, the ethtool text) at 10 ms. The
fine history is then 1M and the daemon warms up for at least 15 s, so that it is measured
full, as in a daemon that has run for a while: the default 8M fills in about 80 s at this
fixture's 100 KB/s, and until then each new page of it is a fault (3 % of the daemon's CPU
in perf) that a daemon in service pays once.
--against PATH measures a second netmetricsd (another build) in the same rounds, the three
runs of a round in turn (daemon, other, bare, rotated each round), and prints its median
and the per-round ratios of the two builds: on a shared machine the bare read's figure
moves by 2x between runs, a build's by less, so two builds compare best against each
other in the same rounds.
--floor-compare also runs `bare-read --compare` in each round: the same reads, each compared
byte by byte with the read before, nothing parsed. That is the least any reader pays that
must know what changed (the daemon compares each read with the last to parse only what
moved), and the summary gives the daemon's ratio to it beside the ratio to the bare read.
Needs root only to let the daemon drop to its user (as in service); as another user the
daemon runs as that user.
"""
import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_GEN = os.path.join(HERE, "..", "tests", "fixtures", "gen-host.py")


def sampled_file(rel):
    """The files the sources read every sample (bench-daemon.c's sampled_file)."""
    if rel.startswith("ethtool/"):
        return rel.endswith(".txt")
    return (rel.startswith("proc/") and not rel.startswith("proc/irq/")
            and not rel.startswith("proc/sys/") and rel != "proc/net/route")


def make_steps(gen, cache, steps):
    """Generate steps 0..steps-1 of the fixture into cache/step-N (kept between runs, made
    again when gen-host.py changed)."""
    stamp = "%d-%d" % (os.path.getmtime(gen), os.path.getsize(gen))
    for s in range(steps):
        d = os.path.join(cache, "step-%d" % s)
        mark = os.path.join(d, ".complete")
        if os.path.exists(mark) and open(mark).read() == stamp:
            continue
        shutil.rmtree(d, ignore_errors=True)
        subprocess.run([sys.executable, gen, d, "--step", str(s)], check=True,
                       stdout=subprocess.DEVNULL)
        with open(mark, "w") as f:
            f.write(stamp)


def wanted(rel, only):
    """Whether rel is in the --only list (None: every sampled file)."""
    if only is None:
        return True
    for o in only.split(","):
        if (o.endswith("/") and rel.startswith(o)) or rel == o:
            return True
    return False


def load_steps(cache, steps, only=None):
    """{rel: [content of step 0, 1, ...]} of the sampled files."""
    base = os.path.join(cache, "step-0")
    rels = []
    for dirpath, _, names in os.walk(base):
        for n in names:
            rel = os.path.relpath(os.path.join(dirpath, n), base)
            if sampled_file(rel) and wanted(rel, only):
                rels.append(rel)
    out = {}
    for rel in rels:
        out[rel] = []
        for s in range(steps):
            p = os.path.join(cache, "step-%d" % s, rel)
            with open(p, "rb") as f:
                out[rel].append(f.read())
    return out


class Writer(threading.Thread):
    """Writes the next step into the root's files once an interval, in place."""

    def __init__(self, root, contents, steps, interval):
        super().__init__(daemon=True)
        self.fds = {rel: os.open(os.path.join(root, rel), os.O_WRONLY) for rel in contents}
        self.contents, self.steps, self.interval = contents, steps, interval
        self.stop_ev = threading.Event()
        self.step = 0

    def run(self):
        nxt = time.monotonic()
        while not self.stop_ev.is_set():
            self.step = (self.step + 1) % self.steps
            for rel, fd in self.fds.items():
                data = self.contents[rel][self.step]
                os.pwrite(fd, data, 0)
                os.ftruncate(fd, len(data))
            nxt += self.interval
            self.stop_ev.wait(max(0.0, nxt - time.monotonic()))


def tree(pid):
    """pid and every descendant of it."""
    kids = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % p) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        kids.setdefault(ppid, []).append(int(p))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += kids.get(p, [])
    return out


def cpu_ns(pids):
    """CPU time on record of every thread of pids (schedstat's first field), in ns."""
    total = 0
    for pid in pids:
        try:
            tids = os.listdir("/proc/%d/task" % pid)
        except OSError:
            continue
        for tid in tids:
            try:
                with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                    total += int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass
    return total


def measure(pids, seconds):
    """CPU ms per second of pids' threads over seconds."""
    c0, t0 = cpu_ns(pids), time.monotonic()
    time.sleep(seconds)
    c1, t1 = cpu_ns(pids), time.monotonic()
    return (c1 - c0) / 1e6 / (t1 - t0)


def run_daemon(args, root, work, warmup, binary=None):
    sock = os.path.join(work, "s.sock")
    conf = os.path.join(work, "netmetricsd.conf")
    with open(conf, "w") as f:
        f.write("[sampling]\ninterval = %dms\n%s" % (args.daemon_interval_ms, args.config_extra))
    state = os.path.join(work, "state")
    shutil.rmtree(state, ignore_errors=True)
    proc = subprocess.Popen([binary or args.netmetricsd, "--foreground", "--root", root, "--socket",
                             sock, "--state-dir", state, "--config", conf, "--log-level",
                             "warn"], stdout=subprocess.DEVNULL,
                            stderr=open(os.path.join(work, "daemon.log"), "a"))
    deadline = time.time() + 30
    while not os.path.exists(sock):
        if proc.poll() is not None or time.time() > deadline:
            with open(os.path.join(work, "daemon.log")) as f:
                raise SystemExit("bench-service: netmetricsd did not start: " + f.read()[-2000:])
        time.sleep(0.1)
    try:
        time.sleep(warmup)
        return measure(tree(proc.pid), args.seconds)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run_bare(args, root, warmup, compare=False):
    argv = [args.bare_read] + (["--compare"] if compare else []) + [
        root, str(args.interval_ms), str(int(warmup + args.seconds + 2))]
    if args.only:
        argv.append(args.only)
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        if not line.startswith("ready"):
            raise SystemExit("bench-service: bare-read did not start")
        time.sleep(warmup)
        return measure([proc.pid], args.seconds)
    finally:
        proc.kill()
        proc.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--netmetricsd", required=True)
    ap.add_argument("--bare-read", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--warmup", type=float, default=4)
    ap.add_argument("--interval-ms", type=int, default=1000)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(),
                                                    "netmetrics-bench-service"))
    ap.add_argument("--gen", default=DEFAULT_GEN)
    ap.add_argument("--config-extra", default="")
    ap.add_argument("--only", default=None)
    ap.add_argument("--fine", action="store_true")
    ap.add_argument("--against", default=None, help="a second netmetricsd to compare")
    ap.add_argument("--floor-compare", action="store_true",
                    help="also the bare read with each read compared with the one before")
    args = ap.parse_args()
    args.daemon_interval_ms = args.interval_ms
    args.daemon_warmup = args.warmup
    if args.fine:
        # Fine sampling as it ships, always on: the three sources on one 10 ms timer (their
        # 1 s records made from the fine samples), the others off.
        args.interval_ms = 10
        args.daemon_interval_ms = 1000
        args.only = "proc/net/dev,proc/net/softnet_stat,ethtool/"
        args.config_extra += "fine_when = always\nfine_interval = 10ms\nfine_memory = 1M\n"
        args.daemon_warmup = max(args.warmup, 15.0)
        args.config_extra += "".join(
            "[source.%s]\nenable = no\n" % n
            for n in ("interrupts", "softirqs", "cpu", "snmp", "ethtool", "lnstat", "sysctl",
                      "bpf"))

    os.makedirs(args.cache, exist_ok=True)
    make_steps(args.gen, args.cache, args.steps)
    contents = load_steps(args.cache, args.steps, args.only)
    work = tempfile.mkdtemp(prefix="nm-bench-service-")
    os.chmod(work, 0o755)  # the daemon's main process runs as netmetricsd's user
    root = os.path.join(work, "root")
    shutil.copytree(os.path.join(args.cache, "step-0"), root, symlinks=True)
    writer = Writer(root, contents, args.steps, args.interval_ms / 1000.0)
    writer.start()
    daemon_ms, bare_ms, other_ms, compare_ms = [], [], [], []
    try:
        for r in range(args.rounds):
            order = ("daemon",) + (("other",) if args.against else ()) + (
                ("compare",) if args.floor_compare else ()) + ("bare",)
            if len(order) == 2:
                order = order if r % 2 == 0 else order[::-1]
            else:
                order = order[r % len(order):] + order[:r % len(order)]
            for what in order:
                if what == "daemon":
                    v = run_daemon(args, root, work, args.daemon_warmup)
                    daemon_ms.append(v)
                elif what == "other":
                    v = run_daemon(args, root, work, args.daemon_warmup, args.against)
                    other_ms.append(v)
                elif what == "compare":
                    v = run_bare(args, root, args.warmup, compare=True)
                    compare_ms.append(v)
                else:
                    v = run_bare(args, root, args.warmup)
                    bare_ms.append(v)
                print("round %d %-6s %.3f ms/s" % (r, what, v), flush=True)
    finally:
        writer.stop_ev.set()
        writer.join()
        shutil.rmtree(work, ignore_errors=True)
    ratios = [d / b for d, b in zip(daemon_ms, bare_ms)]
    d, b = statistics.median(daemon_ms), statistics.median(bare_ms)
    print("service: daemon %.2f ms/s (%.2f %% of one CPU), bare read %.2f ms/s, ratio %.2fx "
          "(medians of %d rounds; per-round ratios %s; interval %d ms, %d files)" % (
              d, d / 10.0, b, d / b, args.rounds, " ".join("%.2f" % x for x in ratios),
              args.interval_ms, len(contents)))
    if args.floor_compare:
        c = statistics.median(compare_ms)
        print("floor-compare: bare read and compare %.2f ms/s, %.2fx the bare read; the daemon "
              "%.2fx it (medians; per round %s)" % (
                  c, c / b, d / c, " ".join("%.2f" % (x / y) for x, y in zip(daemon_ms,
                                                                           compare_ms))))
    if args.against:
        o = statistics.median(other_ms)
        print("against %s: %.2f ms/s, ratio %.2fx the bare read; daemon/against %.3f "
              "(medians; per round %s)" % (
                  args.against, o, o / b, d / o,
                  " ".join("%.3f" % (x / y) for x, y in zip(daemon_ms, other_ms))))


if __name__ == "__main__":
    main()
