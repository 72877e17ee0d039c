#!/usr/bin/env python3
"""The README's tour, run as written: every `$ ` line of the console blocks of README.md
from "A five-minute tour" to "Layout" is taken from the README itself (not a copy), `sudo `
dropped (the test is root), and run with sh in a namespace whose eth0 is a 4-queue veth
(the default route) to a peer namespace holding 10.0.0.2 and 10.198.0.2 with a netserver,
from a directory where build/ and conf/ are this build's and the source tree's, against a
daemon started from the build tree with no profile_dir configured (so it finds the source
tree's conf/profiles and conf/suites, and status says so). Every command must exit 0,
except the few listed in LEFT_OUT (each with why; the test checks they are still in the
README, so that the list cannot go stale), interrupts eth0, which a veth (without IRQs)
must refuse, and watch, which runs until interrupted. eth0 gets an mq root qdisc, so that
"queues eth0" has per-queue counts as a NIC's would.

Needs root, netperf and iperf3. Everything it creates is removed even when a check fails.
Environment: NETMETRICSD, NETMETRICSCTL, SRCDIR. Ends with "N passed, M failed".
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nsrun  # noqa: E402
from nsrun import Skip  # noqa: E402
import test_profiles  # noqa: E402  (its Daemon: netmetricsd in a namespace)

NETMETRICSD = test_profiles.NETMETRICSD
NETMETRICSCTL = test_profiles.NETMETRICSCTL
SRCDIR = os.path.abspath(test_profiles.SRCDIR)
README = os.path.join(SRCDIR, "README.md")
TAG = "nmt%d" % os.getpid()
NS_A, NS_B = TAG + "a", TAG + "b"
NQ = 4

# Lines of the tour not run here, each with the reason. They must still be in the README.
LEFT_OUT = {
    "sudo build/client/netmetricsctl suite run conf/suites/rfs-sweep.conf --wait":
        "18 runs of 60 s: about 21 minutes (its --dry-run is run)",
    "sudo build/client/netmetricsctl compare rfs-sweep rfs-sweep-2":
        "needs the two suites of the line above",
}
# Refused on a veth, as they should be: the line, and what the refusal must say.
REFUSED_ON_VETH = {
    "sudo build/client/netmetricsctl interrupts eth0":
        "no IRQ in /proc/interrupts names device eth0",
}
# Run until interrupted: each must print for 3 s and still be running.
UNTIL_INTERRUPTED = ("sudo build/client/netmetricsctl watch queues",
                     "sudo build/client/netmetricsctl watch bursts eth0")


def tour_lines(path=README):
    """The `$ ` lines of the tour's console blocks, in order, as written."""
    lines, in_tour, in_block = [], False, False
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("## "):
                in_tour = line.startswith("## A five-minute tour") or (
                    in_tour and not line.startswith("## Layout"))
            if not in_tour:
                continue
            if line.startswith("```"):
                in_block = line.startswith("```console") and not in_block
                continue
            if in_block and line.startswith("$ "):
                lines.append(line[2:])
    return lines


def strip_comment(cmd):
    """The command without a trailing "   # comment" (README's annotations)."""
    i = cmd.find("  #")
    return cmd[:i].rstrip() if i >= 0 else cmd


def make_pair():
    """NS_A's eth0 (4 queues, 10.0.0.1 and 10.198.0.1, the default route) <-> NS_B's eth0
    (10.0.0.2 and 10.198.0.2), both up, lo up."""
    test_profiles.sh("ip", "netns", "add", NS_A)
    test_profiles.sh("ip", "netns", "add", NS_B)
    test_profiles.sh("ip", "link", "add", "nmt%da" % (os.getpid() % 100000), "netns", NS_A,
                     "numtxqueues", str(NQ), "numrxqueues", str(NQ), "type", "veth", "peer",
                     "name", "nmt%db" % (os.getpid() % 100000), "netns", NS_B,
                     "numtxqueues", str(NQ), "numrxqueues", str(NQ))
    for ns, end, last in ((NS_A, "a", 1), (NS_B, "b", 2)):
        dev = "nmt%d%s" % (os.getpid() % 100000, end)
        test_profiles.sh("ip", "link", "set", dev, "name", "eth0", ns=ns)
        for net in ("10.0.0.%d/24", "10.198.0.%d/24"):
            test_profiles.sh("ip", "addr", "add", net % last, "dev", "eth0", ns=ns)
        test_profiles.sh("ip", "link", "set", "eth0", "up", ns=ns)
        test_profiles.sh("ip", "link", "set", "lo", "up", ns=ns)
    test_profiles.sh("ip", "route", "add", "default", "via", "10.0.0.2", ns=NS_A)
    # Per-queue counts for "queues eth0": a veth has them through an mq root qdisc.
    test_profiles.sh("tc", "qdisc", "add", "dev", "eth0", "root", "mq", ns=NS_A)


def remove_pair():
    nsrun.remove_netns(NS_A, NS_B)


class TourDaemon(test_profiles.Daemon):
    """The daemon as the tour's own-daemon line starts it: no profile_dir configured."""

    def __init__(self, tmp):
        self.own = False
        self.dir = tmp
        self.ns = NS_A
        self.sock = os.path.join(tmp, "s.sock")
        self.state = os.path.join(tmp, "state")
        self.conf = os.path.join(tmp, "netmetricsd.conf")
        with open(self.conf, "w") as f:
            f.write("[daemon]\nsocket_mode = 0666\n")
        self.start()


def workdir(tmp):
    """A directory where build/daemon, build/client and conf are the tested ones."""
    work = os.path.join(tmp, "work")
    os.makedirs(os.path.join(work, "build", "client"))
    os.makedirs(os.path.join(work, "build", "daemon"))
    os.symlink(NETMETRICSCTL, os.path.join(work, "build", "client", "netmetricsctl"))
    os.symlink(NETMETRICSD, os.path.join(work, "build", "daemon", "netmetricsd"))
    os.symlink(os.path.join(SRCDIR, "conf"), os.path.join(work, "conf"))
    return work


def run_line(cmd, work, sock, timeout=120):
    """One tour line with sh in NS_A, sudo dropped, the daemon's socket in the environment."""
    line = strip_comment(cmd)
    if line.startswith("sudo "):
        line = line[5:]
    env = dict(test_profiles.env(), NETMETRICS_SOCKET=sock)
    return subprocess.run(["ip", "netns", "exec", NS_A, "sh", "-c", line], cwd=work,
                          capture_output=True, text=True, env=env, timeout=timeout)


def test_left_out_lines_are_in_readme():
    """The lines the tour test leaves out are lines of the README (the list is not stale)."""
    lines = tour_lines()
    assert len(lines) >= 30, lines
    for must in ("sudo build/client/netmetricsctl profile apply spread --dev eth0 --dry-run",
                 "sudo build/client/netmetricsctl profiles",
                 "sudo build/client/netmetricsctl suite run conf/suites/rfs-sweep.conf "
                 "--dry-run"):
        assert must in lines, (must, lines)
    for line in list(LEFT_OUT) + list(UNTIL_INTERRUPTED) + list(REFUSED_ON_VETH):
        assert line in [strip_comment(x) for x in lines], line


def test_tour():
    """Every line of the tour succeeds, in order, against one daemon."""
    for tool in ("netperf", "netserver", "iperf3"):
        if shutil.which(tool) is None:
            raise Skip(tool + " not found")
    tmp = tempfile.mkdtemp(prefix="nm-tour-")
    os.chmod(tmp, 0o755)  # the daemon's main process runs as netmetrics
    d = None
    try:
        work = workdir(tmp)
        subprocess.run(["ip", "netns", "exec", NS_B, "netserver", "-p", "12865"],
                       check=True, capture_output=True)
        d = TourDaemon(tmp)
        st = d.json("status")
        assert st["profile_dir"] == os.path.join(SRCDIR, "conf", "profiles") or \
            os.path.isdir("/etc/netmetricsd/profiles"), st
        failed = []
        for cmd in tour_lines():
            if strip_comment(cmd) in LEFT_OUT:
                continue
            if strip_comment(cmd) in REFUSED_ON_VETH:
                r = run_line(cmd, work, d.sock)
                if r.returncode != 1 or REFUSED_ON_VETH[strip_comment(cmd)] not in r.stderr:
                    failed.append((cmd, "not refused as expected: exit %d: %s" % (
                        r.returncode, r.stderr)))
                continue
            if strip_comment(cmd) in UNTIL_INTERRUPTED:
                try:
                    r = run_line(cmd, work, d.sock, timeout=3)
                    failed.append((cmd, "exited %d: %s" % (r.returncode, r.stderr)))
                except subprocess.TimeoutExpired:
                    pass
                continue
            r = run_line(cmd, work, d.sock)
            print("$ %s -> %d" % (cmd, r.returncode))
            if r.returncode != 0:
                failed.append((cmd, "exit %d: %s%s" % (r.returncode, r.stdout[-400:],
                                                       r.stderr[-800:])))
            if "profile apply spread --dev eth0 --dry-run" in cmd:
                assert "dry run: profile spread on eth0" in r.stdout, r.stdout
                assert "[irq] skipped: eth0 has no queue IRQs" in r.stdout, r.stdout
                assert "/sys/class/net/eth0/queues/tx-1/xps_cpus: (none) ->" in r.stdout
            if cmd.endswith("netmetricsctl profiles"):
                assert "rfs-template" in r.stdout and "${rfs} flows" in r.stdout, r.stdout
            if cmd.endswith("netmetricsctl status") and os.path.join(
                    SRCDIR, "conf", "profiles") == st["profile_dir"]:
                assert "the daemon runs from its build tree" in r.stdout, r.stdout
        assert not failed, "\n".join("%s\n    %s" % f for f in failed) + d.logtext()[-1500:]
    finally:
        if d is not None:
            d.ctl("profile", "revert", check=False)
            assert d.stop() == 0, "daemon exit status"
        shutil.rmtree(tmp, ignore_errors=True)


TESTS = [test_left_out_lines_are_in_readme, test_tour]


def main():
    return nsrun.run(TESTS, "README tour", make_pair, remove_pair)


if __name__ == "__main__":
    sys.exit(main())
