#!/usr/bin/env python3
"""Tuning profiles on the real kernel: a 4-queue veth pair between two network namespaces,
netmetricsd running inside the first, driven through the real netmetricsctl. Applies XPS,
RPS and RFS, reads the sysfs files back, reverts and compares with the original; a dry run
touches nothing; ntuple on veth (which cannot change it) fails with a clear error and rolls
every write back; the saved state survives a daemon restart; a peer that is neither root
nor in the admin group is refused; rps_sock_flow_entries, which only the host's namespace
has, is set and restored from there.

Needs root (namespaces). Everything it creates is removed even when a check fails; the one
host-wide value it changes (rps_sock_flow_entries) is put back.
Environment: NETMETRICSD, NETMETRICSCTL, SRCDIR. Ends with "N passed, M failed".
"""
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nsrun  # noqa: E402
from nsrun import Skip  # noqa: E402

NETMETRICSD = os.environ.get("NETMETRICSD", "")
NETMETRICSCTL = os.environ.get("NETMETRICSCTL", "")
SRCDIR = os.environ.get("SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
PROFILES = os.path.join(os.path.abspath(SRCDIR), "conf", "profiles")
TAG = "nmp%d" % os.getpid()
NS_A, NS_B = TAG + "a", TAG + "b"
HOST_A, HOST_B = "nmh%da" % (os.getpid() % 100000), "nmh%db" % (os.getpid() % 100000)
SCRUB = ("NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "WATCHDOG_USEC", "JOURNAL_STREAM",
         "NETMETRICS_SOCKET")
NQ = 4


def sh(*args, check=True, ns=None):
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    return subprocess.run(cmd, check=check, capture_output=True, text=True)


def env():
    return {k: v for k, v in os.environ.items() if k not in SCRUB}


class Daemon:
    """netmetricsd in a namespace (or on the host), reading the repository's profiles."""

    def __init__(self, ns=None, tmp=None):
        self.own = tmp is None
        self.dir = tmp or tempfile.mkdtemp(prefix="nm-profiles-")
        os.chmod(self.dir, 0o755)
        self.ns = ns
        self.sock = os.path.join(self.dir, "s.sock")
        self.state = os.path.join(self.dir, "state")
        self.conf = os.path.join(self.dir, "netmetricsd.conf")
        with open(self.conf, "w") as f:
            f.write("[daemon]\nprofile_dir = %s\nsocket_mode = 0666\n"
                    "[sampling]\ninterval = 500ms\n" % PROFILES)
        self.start()

    def start(self):
        cmd = ([] if self.ns is None else ["ip", "netns", "exec", self.ns]) + [
            NETMETRICSD, "--foreground", "--socket", self.sock, "--state-dir", self.state,
            "--config", self.conf, "--log-level", "info"]
        self.log = open(os.path.join(self.dir, "log"), "a")
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, env=env())
        deadline = time.time() + 20
        while time.time() < deadline:
            if os.path.exists(self.sock) and self.ctl("status", check=False).returncode == 0:
                # The interrupts source's first sample: queue IRQs are found through it.
                time.sleep(0.3)
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        self.stop()
        raise AssertionError("netmetricsd did not start: " + self.logtext())

    def ctl(self, *args, check=True, user=None):
        prefix = []
        client = NETMETRICSCTL
        if user is not None:
            # The build tree may be out of nobody's reach: run a copy of the client.
            client = os.path.join(self.dir, "netmetricsctl")
            if not os.path.exists(client):
                shutil.copy2(NETMETRICSCTL, client)
                os.chmod(client, 0o755)
            prefix = ["setpriv", "--reuid=%d" % user, "--regid=%d" % user, "--clear-groups"]
        r = subprocess.run(prefix + [client, "--socket", self.sock] + list(args),
                           capture_output=True, text=True, env=env(), timeout=60)
        if check and r.returncode != 0:
            raise AssertionError("netmetricsctl %s: exit %d: %s%s" % (
                " ".join(args), r.returncode, r.stderr, self.logtext()[-1500:]))
        return r

    def json(self, *args):
        return json.loads(self.ctl("--json", *args).stdout)

    def logtext(self):
        self.log.flush()
        with open(self.log.name) as f:
            return f.read()[-3000:]

    def stop(self, keep=False):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        rc = self.proc.returncode
        self.log.close()
        if not keep and self.own:
            shutil.rmtree(self.dir, ignore_errors=True)
        return rc


def make_pair():
    """Namespaces A and B, veth vA (A) <-> vB (B) with 4 queues each, up."""
    sh("ip", "netns", "add", NS_A)
    sh("ip", "netns", "add", NS_B)
    sh("ip", "link", "add", "vA", "netns", NS_A, "numtxqueues", str(NQ), "numrxqueues",
       str(NQ), "type", "veth", "peer", "name", "vB", "netns", NS_B, "numtxqueues", str(NQ),
       "numrxqueues", str(NQ))
    for ns, dev in ((NS_A, "vA"), (NS_B, "vB")):
        sh("ip", "link", "set", dev, "up", ns=ns)
        sh("ip", "link", "set", "lo", "up", ns=ns)


def remove_pair():
    nsrun.remove_netns(NS_A, NS_B)
    subprocess.run(["ip", "link", "del", HOST_A], capture_output=True)


def queue_files(dev, ns=NS_A):
    """Every tuning file of dev's queues and its text, as the kernel shows it."""
    names = ["tx-%d/xps_cpus" % q for q in range(NQ)]
    names += ["rx-%d/%s" % (q, f) for q in range(NQ) for f in ("rps_cpus", "rps_flow_cnt")]
    paths = ["/sys/class/net/%s/queues/%s" % (dev, n) for n in names]
    out = sh("sh", "-c", "for f in %s; do echo \"$f=$(cat $f)\"; done" % " ".join(paths),
             ns=ns).stdout
    return dict(line.split("=", 1) for line in out.splitlines())


def cpulist(path):
    """A CPU list file of the host as a list of ints."""
    with open(path) as f:
        text = f.read().strip()
    cpus = []
    for part in filter(None, text.split(",")):
        lo, _, hi = part.partition("-")
        cpus += range(int(lo), int(hi or lo) + 1)
    return cpus


def mask(cpus, nbits):
    """A kernel %*pb mask, as gen-host.py writes it."""
    v = sum(1 << c for c in cpus)
    ngroups = (nbits + 31) // 32
    first = (nbits - 32 * (ngroups - 1) + 3) // 4
    return ",".join("%0*x" % (first if g == ngroups - 1 else 8, (v >> (32 * g)) & 0xFFFFFFFF)
                    for g in range(ngroups - 1, -1, -1))


def host_cpus():
    online = cpulist("/sys/devices/system/cpu/online")
    nbits = max(cpulist("/sys/devices/system/cpu/possible")) + 1
    unhoused = set()
    for f in ("isolated", "nohz_full"):
        p = "/sys/devices/system/cpu/" + f
        if os.path.exists(p):
            unhoused |= set(cpulist(p))
    return online, nbits, [c for c in online if c not in unhoused]


def write_profile(d, name, text):
    path = os.path.join(d.dir, name + ".conf")
    with open(path, "w") as f:
        f.write(text)
    return path


VETH_PROFILE = """# XPS one-to-one, RPS on every CPU, RFS with 1000 flows per rx queue
[profile]
device = vA
[xps]
policy = one-to-one
cpus = all
[rps]
cpus = all
[rfs]
flow_cnt = 1000
"""


def test_show():
    """profile show: every queue of vA with its XPS, RPS and flow count; ntuple, channels."""
    d = Daemon(ns=NS_A)
    try:
        r = d.json("profile", "show", "vA")
        assert r["device"] == "vA" and r["rx_queues"] == NQ and r["tx_queues"] == NQ, r
        assert len(r["queues"]) == NQ and r["ntuple"] == "off", r
        assert r["channels"]["rx"] == NQ and r["channels"]["tx"] == NQ, r["channels"]
        # The global socket flow table lives in the host's namespace only.
        assert r["rps_sock_flow_entries"] is None, r
        for q in r["queues"]:
            assert q["irqs"] == [] and q["xps"] == "" and q["rps"] == "", q
            assert q["rps_flow_cnt"] == 0, q
        out = d.ctl("profile", "show", "vA").stdout
        assert "XPS (tx)" in out and "vA: 4 rx and 4 tx queues" in out, out
        r = d.ctl("profile", "show", "../../etc", check=False)
        assert r.returncode == 2 and "not a network device name" in r.stderr, r.stderr
        r = d.ctl("profile", "show", "nosuch0", check=False)
        assert r.returncode == 1 and "no network device" in r.stderr, r.stderr
        names = [p["name"] for p in d.json("profiles")["profiles"]]
        for n in ("spread", "arfs-512", "arfs-1024", "rps-all", "defaults", "example-eth0"):
            assert n in names, names
    finally:
        assert d.stop() == 0, "daemon exit status"


def test_apply_revert():
    """Dry run touches nothing; apply writes XPS, RPS and RFS as asked; status sees drift;
    revert restores every file; a second revert is harmless."""
    d = Daemon(ns=NS_A)
    try:
        before = queue_files("vA")
        online, nbits, housed = host_cpus()
        path = write_profile(d, "veth", VETH_PROFILE)
        r = d.ctl("profile", "apply", path, "--dry-run")
        assert "dry run: profile veth on vA" in r.stdout, r.stdout
        assert "/sys/class/net/vA/queues/rx-0/rps_flow_cnt: 0 -> 1000" in r.stdout, r.stdout
        assert "/sys/class/net/vA/queues/tx-1/xps_cpus: (none) -> %d" % online[1 % len(online)] \
            in r.stdout, r.stdout
        assert queue_files("vA") == before
        assert not d.json("profile", "status")["applied"]

        r = d.ctl("profile", "apply", path)
        assert "applied profile veth on vA" in r.stdout, r.stdout
        assert "rps_sock_flow_entries is not visible here" in r.stdout, r.stdout
        # Written by the privileged process: the main process is netmetrics, without
        # capabilities (privilege separation, netmetricsd(8)).
        with open("/proc/%d/status" % d.proc.pid) as f:
            status = dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)
        assert status["Uid"].split()[0] == str(pwd.getpwnam("netmetrics").pw_uid), status
        assert int(status["CapEff"], 16) == 0, status["CapEff"]
        after = queue_files("vA")
        for q in range(NQ):
            base = "/sys/class/net/vA/queues/"
            assert after[base + "tx-%d/xps_cpus" % q] == mask([online[q % len(online)]], nbits)
            assert after[base + "rx-%d/rps_cpus" % q] == mask(housed, nbits)
            assert after[base + "rx-%d/rps_flow_cnt" % q] == "1024"  # rounded up by the kernel
        st = d.json("profile", "status")
        assert st["applied"] and st["profile"] == "veth" and st["device"] == "vA", st
        assert st["uid"] == 0 and st["source"] == os.path.realpath(path), st
        assert not st["drift"], st
        # Someone else changes a value: status names it.
        sh("sh", "-c", "echo 0 > /sys/class/net/vA/queues/rx-1/rps_flow_cnt", ns=NS_A)
        st = d.json("profile", "status")
        assert st["drift"] and st["drifted"][0]["path"].endswith("rx-1/rps_flow_cnt"), st
        assert "DRIFTED" in d.ctl("profile", "status").stdout

        r = d.ctl("profile", "revert")
        assert "reverted profile veth on vA" in r.stdout, r.stdout
        assert queue_files("vA") == before
        r = d.ctl("profile", "revert")
        assert "nothing to revert" in r.stdout, r.stdout
        assert queue_files("vA") == before
        # Inline JSON takes the same sections.
        r = d.ctl("profile", "apply", "--profile", '{"device":"vA","rps":{"rx-2":"0"}}',
                  "--dry-run")
        assert "rx-2/rps_cpus: (none) -> 0" in r.stdout, r.stdout
    finally:
        assert d.stop() == 0, "daemon exit status"


def test_ntuple_fixed_skipped():
    """arfs-512 on veth (ntuple-filters [fixed]): the dry run promises no ntuple change and
    says [arfs] is skipped; apply writes RFS and skips [arfs] likewise. With strict = yes
    the profile is refused and everything rolls back. spread and defaults apply what a veth
    has and say what they skipped (no queue IRQs)."""
    d = Daemon(ns=NS_A)
    try:
        before = queue_files("vA")
        fixed = "[arfs] skipped: vA cannot turn ntuple filters on: \"ethtool -k vA\" shows " \
                "ntuple-filters: off [fixed]"
        r = d.ctl("profile", "apply", "arfs-512", "--dev", "vA", "--dry-run")
        assert fixed in r.stdout and "ntuple" not in r.stdout.replace(fixed, ""), r.stdout
        assert queue_files("vA") == before
        r = d.ctl("profile", "apply", "arfs-512", "--dev", "vA")
        assert fixed in r.stdout and "applied profile arfs-512 on vA" in r.stdout, r.stdout
        res = d.json("profile", "revert")
        assert queue_files("vA") == before
        strict = write_profile(d, "strict", "[profile]\nstrict = yes\n" + open(
            os.path.join(PROFILES, "arfs-512.conf")).read().split("[profile]", 1)[1])
        r = d.ctl("profile", "apply", strict, "--dev", "vA", check=False)
        assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
        assert "[arfs]: vA cannot turn ntuple filters on" in r.stderr, r.stderr
        assert "strict = yes" in r.stderr, r.stderr
        assert queue_files("vA") == before
        st = d.json("profile", "status")
        assert not st["applied"] and st["saved"] == 0, st
        # spread on a device with no queue IRQs: [irq] skipped, [xps] applied.
        r = d.ctl("profile", "apply", "spread", "--dev", "vA", "--dry-run")
        assert "[irq] skipped: vA has no queue IRQs in /proc/interrupts" in r.stdout, r.stdout
        assert "dry run: profile spread on vA" in r.stdout, r.stdout
        r = d.ctl("profile", "apply", "spread", "--dev", "vA")
        assert "[irq] skipped: vA has no queue IRQs" in r.stdout, r.stdout
        online = host_cpus()[0]
        assert queue_files("vA")["/sys/class/net/vA/queues/tx-1/xps_cpus"] == mask(
            [online[1 % len(online)]], host_cpus()[1])
        d.ctl("profile", "revert")
        assert queue_files("vA") == before
        r = d.ctl("profile", "apply", "defaults", "--dev", "vA")
        assert "[irq] skipped: vA has no queue IRQs" in r.stdout, r.stdout
        assert "applied profile defaults on vA" in r.stdout, r.stdout
        d.ctl("profile", "revert")
        assert queue_files("vA") == before
        del res
    finally:
        assert d.stop() == 0, "daemon exit status"


def test_single_queue_veth():
    """A single-queue veth: spread skips [irq] (no queue IRQs) and [xps] (one tx queue)
    and says so; defaults applies RPS and RFS off and skips [irq]; nothing fails."""
    sh("ip", "link", "add", "v1A", "netns", NS_A, "type", "veth", "peer", "name", "v1B",
       "netns", NS_B)
    sh("ip", "link", "set", "v1A", "up", ns=NS_A)
    d = Daemon(ns=NS_A)
    try:
        for args in (("--dry-run",), ()):
            r = d.ctl("profile", "apply", "spread", "--dev", "v1A", *args)
            assert "[xps] skipped: v1A has one tx queue: XPS has no queue to choose" \
                in r.stdout, r.stdout
            assert "[irq] skipped: v1A has no queue IRQs" in r.stdout, r.stdout
        d.ctl("profile", "revert")
        r = d.ctl("profile", "apply", "defaults", "--dev", "v1A")
        assert "applied profile defaults on v1A" in r.stdout, r.stdout
        assert "[irq] skipped" in r.stdout and "[xps] skipped" in r.stdout, r.stdout
        d.ctl("profile", "revert")
    finally:
        assert d.stop() == 0, "daemon exit status"
        sh("ip", "link", "del", "v1A", ns=NS_A, check=False)


def test_revert_after_restart():
    """The saved state is on disk: a new daemon reverts what the old one applied."""
    tmp = tempfile.mkdtemp(prefix="nm-profiles-")
    os.chmod(tmp, 0o755)  # the daemon's main process runs as netmetrics
    try:
        d = Daemon(ns=NS_A, tmp=tmp)
        before = queue_files("vA")
        d.ctl("profile", "apply", "rps-all", "--dev", "vA")
        assert queue_files("vA") != before
        assert d.stop(keep=True) == 0
        d = Daemon(ns=NS_A, tmp=tmp)
        st = d.json("profile", "status")
        assert st["applied"] and st["profile"] == "rps-all" and not st["drift"], st
        d.ctl("profile", "revert")
        assert queue_files("vA") == before
        assert d.stop(keep=True) == 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_non_admin_refused():
    """uid 65534 may look (show, status, profiles) but not apply or revert."""
    if shutil.which("setpriv") is None:
        raise Skip("setpriv not found")
    d = Daemon(ns=NS_A)
    try:
        before = queue_files("vA")
        for args in (("profile", "apply", "rps-all", "--dev", "vA"),
                     ("profile", "apply", "rps-all", "--dev", "vA", "--dry-run"),
                     ("profile", "revert")):
            r = d.ctl(*args, check=False, user=65534)
            assert r.returncode == 1, (args, r.returncode, r.stderr)
            assert "denied" in r.stderr and "admin group" in r.stderr, r.stderr
        assert queue_files("vA") == before
        for args in (("profile", "status"), ("profiles",), ("profile", "show", "vA")):
            r = d.ctl(*args, check=False, user=65534)
            assert r.returncode == 0, (args, r.returncode, r.stderr)
    finally:
        assert d.stop() == 0, "daemon exit status"


def test_sock_flow_entries_on_the_host():
    """In the host's namespace RFS sets rps_sock_flow_entries too (flow_cnt x rx queues, as
    the kernel rounds it) and revert puts the host's value back."""
    sysctl = "/proc/sys/net/core/rps_sock_flow_entries"
    with open(sysctl) as f:
        orig = f.read()
    sh("ip", "link", "add", HOST_A, "numtxqueues", str(NQ), "numrxqueues", str(NQ), "type",
       "veth", "peer", "name", HOST_B, "numtxqueues", str(NQ), "numrxqueues", str(NQ))
    d = Daemon()
    try:
        want = 300 * NQ if int(orig) == 0 else 0
        text = "[profile]\ndevice = %s\n[rfs]\nflow_cnt = 300\n" % HOST_A
        if want == 0:  # the host has a table already: turn it off, then back on
            text = "[profile]\ndevice = %s\n[rfs]\nenable = off\n" % HOST_A
        r = d.ctl("profile", "apply", write_profile(d, "host", text))
        with open(sysctl) as f:
            now = int(f.read())
        expect = 1 << (want - 1).bit_length() if want else 0
        assert now == expect, (now, expect, r.stdout)
        d.ctl("profile", "revert")
        with open(sysctl) as f:
            assert f.read() == orig
    finally:
        d.stop()
        with open(sysctl) as f:
            if f.read() != orig:
                with open(sysctl, "w") as w:
                    w.write(orig)
        subprocess.run(["ip", "link", "del", HOST_A], capture_output=True)


def test_files_by_path_and_dirs():
    """A suite's profile is taken by path (absolute, or beside the suite file); a suite by
    name comes from the suite directory; profiles says why it is empty; status says which
    directories are read and why."""
    d = Daemon(ns=NS_A)
    try:
        suite = open(os.path.join(SRCDIR, "conf", "suites", "rfs-sweep.conf")).read()
        tpl = os.path.join(PROFILES, "rfs-template.conf")
        for name, prof in (("abs", tpl), ("rel", "tpl.conf")):
            shutil.copy(tpl, os.path.join(d.dir, "tpl.conf"))
            path = write_profile(d, "suite-" + name, suite.replace(
                "profile = rfs-template", "profile = " + prof).replace(
                "name = rfs-sweep", "name = sweep-" + name))
            r = d.ctl("suite", "run", path, "--dry-run")
            assert "sweep-%s/conns_64_rfs_512_iter_1" % name in r.stdout, r.stdout
        bad = write_profile(d, "suite-bad", suite.replace(
            "profile = rfs-template", "profile = /nonexistent/x.conf"))
        r = d.ctl("suite", "run", bad, "--dry-run", check=False)
        assert r.returncode == 1 and "no profile file /nonexistent/x.conf" in r.stderr, r.stderr
        r = d.ctl("suite", "run", "no-such-suite", "--dry-run", check=False)
        assert r.returncode == 1 and "no suite \"no-such-suite\"" in r.stderr, r.stderr
        st = d.json("status")
        assert st["profile_dir"] == PROFILES and st["profile_dir_why"] == \
            "set in the configuration file", st
        if st["suite_dir"] == os.path.join(os.path.abspath(SRCDIR), "conf", "suites"):
            # This build tree's daemon, /etc/netmetricsd/suites missing: the source tree's.
            assert "the daemon runs from its build tree" in st["suite_dir_why"], st
            r = d.ctl("suite", "run", "rfs-sweep", "--dry-run")
            assert "rfs-sweep/conns_1024_rfs_1024_iter_3" in r.stdout, r.stdout
    finally:
        assert d.stop() == 0, "daemon exit status"
    d = Daemon(ns=NS_A)
    try:
        d.stop(keep=True)
        with open(d.conf, "w") as f:
            f.write("[daemon]\nprofile_dir = /nonexistent/profiles\nsocket_mode = 0666\n")
        d.start()
        r = d.ctl("profiles")
        assert "profiles in /nonexistent/profiles (set in the configuration file)" \
            in r.stdout, r.stdout
        assert "no profiles: /nonexistent/profiles: No such file or directory" in r.stdout, \
            r.stdout
        assert d.json("profiles")["profiles"] == []
    finally:
        d.stop()


def test_profile_set():
    """profile set DEV KNOB=VALUE...: a profile from the command line, with the dry run,
    the saved state, status and revert of profile apply; a bad word is refused."""
    d = Daemon(ns=NS_A)
    try:
        before = queue_files("vA")
        online, nbits, housed = host_cpus()
        r = d.ctl("profile", "set", "vA", "xps=%d" % online[-1], "rps=all", "rfs=512",
                  "irq=spread", "--dry-run")
        assert "dry run: profile set on vA" in r.stdout, r.stdout
        assert "[irq] skipped: vA has no queue IRQs" in r.stdout, r.stdout
        assert "/sys/class/net/vA/queues/rx-3/rps_flow_cnt: 0 -> 512" in r.stdout, r.stdout
        assert queue_files("vA") == before
        r = d.ctl("profile", "set", "vA", "xps=%d" % online[-1], "rps=all", "rfs=512")
        assert "applied profile set on vA" in r.stdout, r.stdout
        after = queue_files("vA")
        base = "/sys/class/net/vA/queues/"
        for q in range(NQ):
            assert after[base + "tx-%d/xps_cpus" % q] == mask([online[-1]], nbits), after
            assert after[base + "rx-%d/rps_cpus" % q] == mask(housed, nbits), after
            assert after[base + "rx-%d/rps_flow_cnt" % q] == "512", after
        st = d.json("profile", "status")
        assert st["applied"] and st["profile"] == "set" and st["source"] == "command line", st
        d.ctl("profile", "revert")
        assert queue_files("vA") == before
        for bad, why in ((("vA", "foo=1"), "unknown knob"), (("vA", "rps"), "KNOB=VALUE"),
                         (("vA", "rps=all", "rps=0"), "given twice"),
                         (("vA", "rps=a\n[sysctl]"), "the value is")):
            r = d.ctl("profile", "set", *bad, check=False)
            assert r.returncode in (1, 2) and why in r.stderr, (bad, r.stderr)
        assert queue_files("vA") == before
    finally:
        assert d.stop() == 0, "daemon exit status"


def test_profile_save():
    """profile save DEV NAME: the device's tuning now as a new profile in a root-owned
    profile directory (written by the privileged process: the main process is netmetrics);
    applying it after a revert puts the device back as it was saved; a name in use is
    refused; --dry-run prints the text and writes nothing. Started under umask 0077 (the
    unit's UMask=), the file is still 0644."""
    tmp = tempfile.mkdtemp(prefix="nm-profiles-")
    os.chmod(tmp, 0o755)
    pdir = os.path.join(tmp, "profiles")
    os.mkdir(pdir, 0o755)  # root's, as /etc/netmetricsd/profiles is
    d = Daemon(ns=NS_A, tmp=tmp)
    try:
        d.stop(keep=True)
        with open(d.conf, "w") as f:
            f.write("[daemon]\nprofile_dir = %s\nsocket_mode = 0666\n" % pdir)
        # Under the unit's UMask=0077 (issue 26): the file must still be one the main
        # process, as netmetrics, can read.
        old = os.umask(0o077)
        try:
            d.start()
        finally:
            os.umask(old)
        before = queue_files("vA")
        online = host_cpus()[0]
        d.ctl("profile", "set", "vA", "xps=%d" % online[-1], "rps=%d" % online[0], "rfs=256")
        tuned = queue_files("vA")
        r = d.ctl("profile", "save", "vA", "mine", "--dry-run")
        assert "[xps]\npolicy = explicit\ntx-0 = %d\n" % online[-1] in r.stdout, r.stdout
        assert "flow_cnt = 256" in r.stdout and "device = vA" in r.stdout, r.stdout
        assert not os.path.exists(os.path.join(pdir, "mine.conf"))
        r = d.ctl("profile", "save", "vA", "mine")
        assert "saved the tuning of vA as profile mine: %s/mine.conf" % pdir in r.stdout, r.stdout
        assert "privileged process" in r.stdout, r.stdout
        st = os.stat(os.path.join(pdir, "mine.conf"))
        assert st.st_uid == 0 and st.st_mode & 0o777 == 0o644, st
        r = d.ctl("profiles")
        assert "Permission denied" not in r.stdout + r.stderr, r.stdout + r.stderr
        assert "mine" in r.stdout, r.stdout
        r = d.ctl("profile", "save", "vA", "mine", check=False)
        assert r.returncode == 1 and "File exists" in r.stderr, r.stderr
        d.ctl("profile", "revert")
        assert queue_files("vA") == before
        r = d.ctl("profile", "apply", "mine")
        assert "applied profile mine on vA" in r.stdout, r.stdout
        assert queue_files("vA") == tuned
        d.ctl("profile", "revert")
        assert queue_files("vA") == before
    finally:
        d.stop(keep=True)
        shutil.rmtree(tmp, ignore_errors=True)


TESTS = [test_show, test_apply_revert, test_ntuple_fixed_skipped, test_single_queue_veth,
         test_revert_after_restart, test_non_admin_refused, test_sock_flow_entries_on_the_host,
         test_files_by_path_and_dirs, test_profile_set, test_profile_save]


def main():
    return nsrun.run(TESTS, "profile", make_pair, remove_pair)

if __name__ == "__main__":
    sys.exit(main())
