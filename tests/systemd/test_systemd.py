#!/usr/bin/env python3
"""netmetricsd under a real systemd (issue 26): builds the Debian package from a copy of the
tree, boots a Debian 12 root with systemd-nspawn -b (made by make-root with debootstrap and
cached under /var/cache/netmetrics-systemd-test), installs the package there with apt and
drives it only as a user would: systemctl, journalctl, netmetricsctl (and ip, curl,
useradd, runuser, kill to set things up or look). Prints one line per check and ends with
"N passed, M failed". Exit 77 (skipped, with the reason) only where this machine cannot
boot a container: not root, no systemd-nspawn or debootstrap, no cgroup file system, or
systemd-nspawn exits before the container's systemd starts (its output is printed).

The container: a copy-on-write overlay of the cached root (a full copy where overlayfs is
missing), --private-network (nothing reaches the host's network; the benchmarks run over a
veth pair inside it, one end in a network namespace), killed and its root removed at the
end, also on failure or interruption.

One drop-in is added to the unit for the whole run: SystemCallErrorNumber=kill, so that a
system call the filter refuses kills the process with SIGSYS, which the journal shows (with
the shipped EPERM a refusal leaves no trace); the last check looks for it.

Environment: SRCDIR (the tree, default this file's ../..), NETMETRICS_DEB (a built
netmetrics_*.deb to use instead of building one), NETMETRICS_SYSTEMD_KEEP=1 (leave the
container running and print how to enter it, for debugging).
"""
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("SRCDIR") or os.path.normpath(os.path.join(HERE, "..", ".."))
NAME = "nmsd%d" % os.getpid()
USERS = ("nmalice", "nmbob")  # alice: group netmetrics; bob: netmetrics and netmetrics-admin

results = []


def say(msg):
    print(msg, flush=True)


def skip(why):
    say("skipping the systemd test: " + why)
    say("0 passed, 0 failed")
    sys.exit(77)


def check(name, fn):
    """Run one check; it passes unless it raises. Prints one line."""
    start = time.monotonic()
    try:
        detail = fn()
        results.append(True)
        say("ok   %s (%.1fs)%s" % (name, time.monotonic() - start,
                                   ": " + detail if detail else ""))
        return True
    except Exception as e:  # noqa: BLE001 - every failure is reported the same way
        results.append(False)
        say("FAIL %s (%.1fs): %s" % (name, time.monotonic() - start, str(e)[-3000:]))
        return False


def host(*cmd, timeout=600, **kw):
    return subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout, **kw)


def preflight():
    if os.geteuid() != 0:
        skip("needs root (systemd-nspawn, debootstrap)")
    for tool in ("systemd-nspawn", "debootstrap", "nsenter"):
        if shutil.which(tool) is None:
            skip("no %s (tools/install-deps installs systemd-container and debootstrap)" % tool)
    if not os.environ.get("NETMETRICS_DEB") and (shutil.which("dpkg-buildpackage") is None
                                                 or shutil.which("dh") is None):
        skip("no dpkg-buildpackage or debhelper to build the package (tools/install-deps)")
    if not os.path.isdir("/sys/fs/cgroup") or not os.listdir("/sys/fs/cgroup"):
        skip("no cgroup file system at /sys/fs/cgroup: systemd cannot run in a container")


def build_package(tmp):
    deb = os.environ.get("NETMETRICS_DEB")
    if deb:
        return deb, "given"
    start = time.monotonic()
    tree = os.path.join(tmp, "netmetrics")
    os.mkdir(tree)
    tar = subprocess.Popen(["tar", "--exclude=./build*", "--exclude=./.git",
                            "--exclude=./obj-*", "-cf", "-", "."], cwd=SRC,
                           stdout=subprocess.PIPE)
    subprocess.run(["tar", "-C", tree, "-xf", "-"], stdin=tar.stdout, check=True)
    tar.wait()
    env = dict(os.environ)
    env["DEB_BUILD_OPTIONS"] = (env.get("DEB_BUILD_OPTIONS", "") + " nocheck noddebs").strip()
    r = host("nice", "dpkg-buildpackage", "-us", "-uc", "-b", cwd=tree, env=env, timeout=1500)
    if r.returncode != 0:
        raise AssertionError("dpkg-buildpackage failed:\n" + (r.stdout + r.stderr)[-3000:])
    debs = glob.glob(os.path.join(tmp, "netmetrics_*.deb"))
    if len(debs) != 1:
        raise AssertionError("expected one netmetrics_*.deb, found %s" % debs)
    return debs[0], "built in %.0f s" % (time.monotonic() - start)


class CannotBoot(Exception):
    """systemd-nspawn could not start a container at all (a skip, not a failure)."""


class Container:
    """A booted copy of the cached root; run() executes a command inside (nsenter)."""

    def __init__(self, lower, tmp):
        self.tmp = tmp
        self.root = os.path.join(tmp, "root")
        self.overlay = False
        self.proc = None
        self.pid1 = None
        os.mkdir(self.root)
        up, work = os.path.join(tmp, "upper"), os.path.join(tmp, "work")
        os.mkdir(up)
        os.mkdir(work)
        r = host("mount", "-t", "overlay", "overlay", "-o",
                 "lowerdir=%s,upperdir=%s,workdir=%s" % (lower, up, work), self.root)
        if r.returncode == 0:
            self.overlay = True
        else:
            say("# no overlayfs (%s): copying the root" % r.stderr.strip())
            subprocess.run(["cp", "-a", lower + "/.", self.root], check=True)

    def boot(self):
        env = dict(os.environ, SYSTEMD_NSPAWN_API_VFS_WRITABLE="1")
        self.console = open(os.path.join(self.tmp, "console.log"), "w")
        self.proc = subprocess.Popen(
            ["systemd-nspawn", "-b", "-D", self.root, "-M", NAME, "--register=no",
             "--keep-unit", "--private-network", "--capability=CAP_IPC_LOCK",
             "--console=passive"], stdin=subprocess.DEVNULL, stdout=self.console,
            stderr=subprocess.STDOUT, env=env, start_new_session=True)
        deadline = time.monotonic() + 60
        while self.pid1 is None:
            if self.proc.poll() is not None:
                # Before the container's PID 1 ran: this machine cannot make containers.
                raise CannotBoot("systemd-nspawn exited %d before starting systemd:\n%s" % (
                    self.proc.returncode, self.console_text()))
            if time.monotonic() > deadline:
                raise AssertionError("no systemd in the container after 60 s")
            # nspawn's child is the container's PID 1 once it has exec'd systemd.
            kids = host("pgrep", "-P", str(self.proc.pid), "-x", "systemd").stdout.split()
            if kids:
                self.pid1 = int(kids[0])
            else:
                time.sleep(0.2)
        # Until its manager answers on its bus (it is not there at once), then until booted.
        deadline = time.monotonic() + 180
        while True:
            r = self.run("systemctl", "is-system-running", "--wait", timeout=180)
            state = r.stdout.strip()
            if state or time.monotonic() > deadline:
                break
            time.sleep(0.3)
        if state not in ("running", "degraded"):
            raise AssertionError("the container's systemd is %r (%s):\n%s" % (
                state, r.stderr.strip(), self.run("systemctl", "--failed", "--no-pager").stdout))
        return state

    def console_text(self):
        with open(os.path.join(self.tmp, "console.log")) as f:
            return f.read()[-3000:]

    def run(self, *cmd, user=None, timeout=120, check=False, input=None):
        argv = ["nsenter", "-t", str(self.pid1), "-a"]
        if user is not None:
            argv += ["runuser", "-u", user, "--"]
        env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
               "SYSTEMD_PAGER": "", "SYSTEMD_COLORS": "0", "TERM": "dumb"}
        r = subprocess.run(argv + list(cmd), capture_output=True, text=True, timeout=timeout,
                           input=input, env=env)
        if check and r.returncode != 0:
            raise AssertionError("%s: exit %d: %s%s" % (" ".join(cmd), r.returncode,
                                                       r.stdout[-2000:], r.stderr[-2000:]))
        return r

    def sh(self, script, *args, **kw):
        return self.run("sh", "-c", script, *args, **kw)

    def write(self, path, text, mode=0o644):
        self.run("sh", "-c", 'cat > "$0" && chmod %o "$0"' % mode, path, input=text, check=True)

    def teardown(self):
        if self.proc is not None and self.proc.poll() is None:
            # SIGTERM: nspawn asks the container's systemd to power off; SIGKILL after 20 s.
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        if self.pid1 is not None:
            # Whatever of the container might be left (nothing, normally).
            subprocess.run(["kill", "-9", str(self.pid1)], capture_output=True)
        if self.overlay:
            for _ in range(10):
                if host("umount", self.root).returncode == 0:
                    break
                time.sleep(0.5)
            else:
                host("umount", "-l", self.root)


# ------------------------------------------------------------------------------------------


def ctl(c, *args, user=None, check=True, timeout=120):
    r = c.run("netmetricsctl", *args, user=user, timeout=timeout)
    if check and r.returncode != 0:
        raise AssertionError("netmetricsctl %s%s: exit %d: %s%s" % (
            " ".join(args), " (as %s)" % user if user else "", r.returncode,
            r.stdout[-2000:], r.stderr[-2000:]))
    return r


def ctl_json(c, *args, user=None):
    return json.loads(ctl(c, "--json", *args, user=user).stdout)


def prop(c, name, unit="netmetricsd.service"):
    return c.run("systemctl", "show", "-p", name, "--value", unit).stdout.strip()


def main_pid(c):
    return int(prop(c, "MainPID") or 0)


def wait_for(what, fn, timeout=30, step=0.3):
    deadline = time.monotonic() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError("timed out after %.0f s waiting for %s" % (timeout, what))
        time.sleep(step)


def status_of(c, pid):
    """Uid, Gid, Cap* and NoNewPrivs of /proc/PID/status inside the container."""
    out = {}
    for line in c.run("cat", "/proc/%d/status" % pid, check=True).stdout.splitlines():
        k, _, v = line.partition(":")
        out[k] = v.split()
    return out


def journal(c, *args):
    return c.run("journalctl", "--no-pager", "-o", "cat", *args).stdout


def test_result(c, name):
    """The stored result of a test (result show --json)."""
    return ctl_json(c, "result", "show", name)


def run_test(c, name, *args, user=None, timeout=180):
    r = ctl(c, "test", "start", "--name", name, "--wait", *args, user=user, check=False,
            timeout=timeout)
    if r.returncode != 0 or "passed" not in r.stdout:
        raise AssertionError("test %s: exit %d: %s%s\njournal:\n%s" % (
            name, r.returncode, r.stdout[-1500:], r.stderr[-1500:],
            journal(c, "-u", "netmetricsd", "-n", "15")))
    return r.stdout


CONF = """[daemon]
socket_group = netmetrics
admin_group = netmetrics-admin
"""
PROM = """
[prometheus]
listen = 127.0.0.1:99
listen = 127.0.0.1:9464
"""


def main():
    preflight()

    # meson's timeout sends SIGTERM: unwind through the finally below (the teardown).
    def on_term(sig, frame):
        raise SystemExit("terminated by signal %d" % sig)

    signal.signal(signal.SIGTERM, on_term)
    tmp = tempfile.mkdtemp(prefix="nm-systemd-", dir="/var/tmp")
    os.chmod(tmp, 0o755)
    c = None
    cannot_boot = None
    keep = os.environ.get("NETMETRICS_SYSTEMD_KEEP") == "1"
    try:
        start = time.monotonic()
        deb, how = build_package(tmp)
        say("# package %s (%s)" % (os.path.basename(deb), how))
        t0 = time.monotonic()
        r = host(os.path.join(HERE, "make-root"), deb, timeout=1800)
        if r.returncode != 0:
            raise AssertionError("make-root failed:\n" + r.stderr[-3000:])
        lower = r.stdout.strip()
        say("# root %s (%.0f s%s)" % (lower, time.monotonic() - t0,
                                      ": made now" if "made in" in r.stderr else ", cached"))
        c = Container(lower, tmp)
        t0 = time.monotonic()
        state = c.boot()
        say("# booted the container's systemd (pid %d on the host) in %.1f s: %s" % (
            c.pid1, time.monotonic() - t0, state))
        scenario(c, deb)
        say("# %.0f s in all" % (time.monotonic() - start))
    except CannotBoot as e:
        cannot_boot = str(e)
    except Exception as e:  # noqa: BLE001
        results.append(False)
        say("FAIL setting up: %s" % e)
    finally:
        if keep and c is not None and c.pid1 is not None:
            say("# kept: nsenter -t %d -a bash; kill %d and umount %s, rm -rf %s after" % (
                c.pid1, c.proc.pid, c.root, tmp))
        else:
            if c is not None:
                c.teardown()
            shutil.rmtree(tmp, ignore_errors=True)
    if cannot_boot is not None:
        skip("this machine cannot boot a container: " + cannot_boot)
    passed = results.count(True)
    failed = results.count(False)
    say("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def scenario(c, deb):
    state = {}

    def install():
        shutil.copy(deb, os.path.join(c.root, "root", "netmetrics.deb"))
        r = c.run("apt-get", "install", "-y", "-q", "--no-install-recommends",
                  "/root/netmetrics.deb", timeout=600)
        if r.returncode != 0:
            raise AssertionError("apt-get install: %s%s" % (r.stdout[-3000:], r.stderr[-2000:]))
        # The drop-in of this test (see the top of the file) and the configuration of
        # README's package section: socket_group and admin_group.
        c.run("mkdir", "-p", "/etc/systemd/system/netmetricsd.service.d", check=True)
        c.write("/etc/systemd/system/netmetricsd.service.d/test-seccomp.conf",
                "[Service]\nSystemCallErrorNumber=kill\n")
        c.write("/etc/netmetricsd/netmetricsd.conf", CONF)
        c.run("systemctl", "daemon-reload", check=True)
        c.run("systemctl", "stop", "netmetricsd.service", check=True)
        for u, groups in zip(USERS, ("netmetrics", "netmetrics,netmetrics-admin")):
            c.run("useradd", "--create-home", "--groups", groups, u, check=True)
        return c.run("dpkg-query", "-W", "-f=${Version}", "netmetrics").stdout

    if not check("install the package with apt", install):
        return

    def activation():
        assert c.run("systemctl", "is-active", "netmetricsd.socket").stdout.strip() == "active"
        assert c.run("systemctl", "is-active", "netmetricsd.service").stdout.strip() \
            == "inactive", "the service runs before any request"
        st = ctl_json(c, "status")
        assert st.get("socket_activated") is True, st
        assert c.run("systemctl", "is-active", "netmetricsd.service").stdout.strip() == "active"
        assert "passed by systemd" in journal(c, "-u", "netmetricsd")
        ls = c.run("stat", "-c", "%U:%G %a", "/run/netmetricsd/netmetricsd.sock").stdout.strip()
        assert ls == "root:netmetrics 660", ls
        return "the first request started it; socket %s" % ls

    check("socket activation on the first request", activation)

    def unprivileged():
        pid = main_pid(c)
        uid = c.run("id", "-u", "netmetrics", check=True).stdout.strip()
        st = status_of(c, pid)
        assert st["Uid"] == [uid] * 4, st["Uid"]
        for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
            assert int(st[k][0], 16) == 0, (k, st[k])
        assert st["NoNewPrivs"] == ["1"], st["NoNewPrivs"]
        pri = c.sh("pgrep -P %d -x netmetricsd-pri" % pid).stdout.split()
        assert pri and status_of(c, int(pri[0]))["Uid"][0] == "0", "no root netmetricsd-pri"
        return "main pid %d uid %s, no capabilities; privileged %s is root" % (pid, uid, pri[0])

    check("the main process runs as netmetrics with no capabilities", unprivileged)

    def reload():
        c.run("systemctl", "reload", "netmetricsd", check=True, timeout=60)
        owner = c.run("stat", "-c", "%U:%G", "/var/lib/netmetricsd").stdout.strip()
        ctl(c, "mark", "start", "after-reload")
        ctl(c, "mark", "stop", "after-reload")
        run_test(c, "test-after-reload", "--driver", "exec", "--", "/bin/true")
        assert owner == "netmetrics:netmetrics", "state directory %s after the reload" % owner
        return "state directory %s; a window and a test stored" % owner

    if not check("systemctl reload, then a window and a test", reload):
        # A restart gives the state directory back to netmetricsd: the next checks go on.
        c.run("systemctl", "restart", "netmetricsd", timeout=60)

    def users():
        alice, bob = USERS
        st = ctl_json(c, "status", user=alice)
        assert st["pid"] == main_pid(c), st
        r = ctl(c, "mark", "start", "by-alice", user=alice, check=False)
        assert r.returncode != 0 and "admin" in (r.stdout + r.stderr).lower(), \
            (r.returncode, r.stdout, r.stderr)
        run_test(c, "by-bob", "--driver", "exec", "--figure", "uid=^([0-9]+)", "--",
                 "/usr/bin/id", "-u", user=bob)
        buid = int(c.run("id", "-u", bob).stdout)
        fig = test_result(c, "by-bob")["test"]["figures"]
        uid = fig.get("uid")
        assert uid == buid, "the test ran as uid %s, not %s's %d: %s" % (uid, bob, buid,
                                                                       str(fig)[:500])
        return "%s (netmetrics) reads, is refused a window; %s (admin) ran a test as uid %d" % (
            alice, bob, buid)

    check("socket_group and admin_group members, as themselves", users)

    def veth():
        c.sh("ip netns add nmb && ip link add v0 type veth peer name v1 netns nmb && "
             "ip addr add 10.77.0.1/24 dev v0 && ip link set v0 up && "
             "ip -n nmb addr add 10.77.0.2/24 dev v1 && ip -n nmb link set v1 up && "
             "ip -n nmb link set lo up", check=True)
        state["mac"] = c.sh("cat /sys/class/net/v1/address", check=False).stdout.strip() or \
            c.run("ip", "netns", "exec", "nmb", "cat", "/sys/class/net/v1/address",
                  check=True).stdout.strip()
        return "v0 10.77.0.1 <-> v1 10.77.0.2 (namespace nmb, %s)" % state["mac"]

    if not check("a veth pair in the container", veth):
        return
    rps = "/sys/class/net/v0/queues/rx-0/rps_cpus"

    def read_rps():
        return c.run("cat", rps, check=True).stdout.strip()

    def profiles():
        before = read_rps()
        ctl(c, "profile", "set", "v0", "rps=0")
        tuned = read_rps()
        assert int(tuned.replace(",", ""), 16) == 1, tuned
        ctl(c, "profile", "revert")
        assert read_rps() == before, (read_rps(), before)
        ctl(c, "profile", "set", "v0", "rps=0")
        ctl(c, "profile", "save", "v0", "saved-v0")
        mode = c.run("stat", "-c", "%U %a", "/etc/netmetricsd/profiles/saved-v0.conf").stdout
        ctl(c, "profile", "revert")
        listing = ctl(c, "profiles")
        assert "Permission denied" not in listing.stdout + listing.stderr, listing.stdout
        assert "saved-v0" in listing.stdout, listing.stdout
        ctl(c, "profile", "apply", "saved-v0")
        assert read_rps() == tuned, (read_rps(), tuned)
        ctl(c, "profile", "revert")
        assert read_rps() == before
        return "rps_cpus %s -> %s -> %s; saved file %s" % (before, tuned, before, mode.strip())

    check("profile set/revert and profile save/apply on the veth", profiles)

    def iperf3():
        c.run("ip", "netns", "exec", "nmb", "iperf3", "-s", "-D", check=True)
        time.sleep(0.5)
        out = run_test(c, "iperf3-veth", "--driver", "iperf3", "--host", "10.77.0.2",
                       "--duration", "3", "--warmup", "0", "--cooldown", "0")
        figs = test_result(c, "iperf3-veth")["test"]["figures"]
        assert figs.get("throughput_mbps", 0) > 0, figs
        return "%.0f Mbit/s" % figs["throughput_mbps"]

    check("an iperf3 test between the two veth ends", iperf3)

    def pktgen():
        out = run_test(c, "pktgen-veth", "--driver", "pktgen", "--dev", "v0", "--dst-min",
                       "10.77.0.2", "--dst-max", "10.77.0.2", "--dst-mac", state["mac"],
                       "--flows", "1", "--flowlen", "1", "--duration", "3", "--warmup",
                       "0", "--cooldown", "0", "--rate", "20000")
        figs = test_result(c, "pktgen-veth")["test"]["figures"]
        assert figs.get("packets_sent", 0) > 0, (figs, out)
        return "%d packets sent, %.0f packets/s" % (figs["packets_sent"], figs.get("pps", 0))

    check("the packet generator on the veth", pktgen)

    def detached():
        # Started by hand as root from a directory netmetrics may not write (/root, 0700):
        # it logs to the journal, nothing to the terminal, and removes its socket at exit.
        c.write("/root/hand.conf", "[daemon]\nsocket = /root/hand.sock\n"
                "state_dir = /var/tmp/hand-state\n")
        # In a scope of its own, as a login shell's command would be (nsenter alone leaves
        # it in a cgroup outside the container's).
        r = c.run("systemd-run", "--scope", "--quiet", "sh", "-c",
                  "cd /root && netmetricsd --config /root/hand.conf > /root/hand.out 2>&1; "
                  "echo $?")
        assert r.stdout.strip() == "0", r.stdout + r.stderr
        st = ctl_json(c, "--socket", "/root/hand.sock", "status")
        pid = st["pid"]
        c.run("kill", "-TERM", str(pid), check=True)
        wait_for("the hand-started daemon to stop",
                 lambda: c.run("kill", "-0", str(pid)).returncode != 0, timeout=30)
        out = c.run("cat", "/root/hand.out").stdout
        assert out == "", "written to the terminal: %r" % out[-500:]
        left = c.run("test", "-e", "/root/hand.sock").returncode == 0
        assert not left, "socket left: " + c.run("cat", "/var/tmp/hand-state/netmetricsd.log"
                                                  ).stdout[-500:]
        j = journal(c, "-t", "netmetricsd", "_PID=%d" % pid)
        assert "listening on /root/hand.sock" in j, j[-1500:]
        assert "Permission denied" not in j, j[-1500:]
        return "its log in the journal, nothing on the terminal, socket removed"

    check("started by hand as root: detached, logs to the journal, socket removed", detached)

    def prometheus():
        c.write("/etc/netmetricsd/netmetricsd.conf", CONF + PROM)
        try:
            c.run("systemctl", "restart", "netmetricsd", check=True, timeout=60)
            out = {}
            for port in (99, 9464):
                r = c.run("curl", "-sf", "http://127.0.0.1:%d/metrics" % port, timeout=30)
                assert r.returncode == 0 and "netmetrics_link_bytes_total{" in r.stdout, (
                    port, r.returncode, journal(c, "-u", "netmetricsd", "-n", "10"))
                out[port] = r.stdout.count("\n")
            return "ports 99 and 9464: %d and %d lines" % (out[99], out[9464])
        finally:
            if c.run("systemctl", "is-active", "netmetricsd").stdout.strip() != "active":
                c.write("/etc/netmetricsd/netmetricsd.conf", CONF)
                c.run("systemctl", "reset-failed", "netmetricsd.socket", "netmetricsd")
                c.run("systemctl", "restart", "netmetricsd.socket", "netmetricsd")

    check("the Prometheus endpoint on a low and a high port", prometheus)

    def kill9():
        before = sorted(r["name"] for r in ctl_json(c, "results", "--all")["results"])
        assert before, "no stored result to keep"
        old = main_pid(c)
        c.run("kill", "-9", str(old), check=True)
        wait_for("a new main process", lambda: main_pid(c) not in (0, old) and c.run(
            "systemctl", "is-active", "netmetricsd").stdout.strip() == "active", timeout=60)
        after = sorted(r["name"] for r in ctl_json(c, "results", "--all")["results"])
        assert after == before, (before, after)
        return "pid %d -> %d, %d results kept" % (old, main_pid(c), len(after))

    check("kill -9, restarted by systemd, every stored result kept", kill9)

    def watchdog():
        old = main_pid(c)
        sec = prop(c, "WatchdogUSec")
        c.run("kill", "-STOP", str(old), check=True)
        try:
            wait_for("the watchdog's restart", lambda: main_pid(c) not in (0, old) and c.run(
                "systemctl", "is-active", "netmetricsd").stdout.strip() == "active",
                timeout=90, step=1)
        finally:
            c.run("kill", "-CONT", str(old))
        assert "Watchdog timeout" in journal(c, "-u", "netmetricsd"), "no watchdog line"
        ctl_json(c, "status")
        return "WatchdogSec %s: pid %d -> %d" % (sec, old, main_pid(c))

    check("the watchdog restarts a stopped main process", watchdog)

    def stop():
        ctl(c, "test", "start", "--driver", "exec", "--name", "long", "--", "/bin/sleep", "300")
        wait_for("the sleep of the test", lambda: c.run("pgrep", "-x", "sleep").returncode == 0)
        cg = prop(c, "ControlGroup")
        c.run("systemctl", "stop", "netmetricsd.service", check=True, timeout=60)
        left = c.run("pgrep", "-a", "-f", "netmetricsd|sleep 300").stdout.strip()
        assert left == "", "left running: " + left
        assert cg.startswith("/"), cg
        inside = c.sh('for d in /sys/fs/cgroup /sys/fs/cgroup/*; do [ -d "$d$0" ] && '
                      'echo "$d$0"; done; true', cg).stdout.split()
        assert not inside, "cgroup left: %s" % inside
        assert c.run("systemctl", "is-active", "netmetricsd.socket").stdout.strip() == "active"
        return "no process, no cgroup %s; the socket still listens" % cg

    check("systemctl stop leaves no process and no cgroup", stop)

    def seccomp():
        j = journal(c, "-u", "netmetricsd", "-u", "netmetricsd.socket")
        bad = [ln for ln in j.splitlines() if "31/SYS" in ln or "SIGSYS" in ln or
               "Bad system call" in ln]
        assert not bad, bad
        k = host("dmesg").stdout
        audit = [ln for ln in k.splitlines() if "type=1326" in ln and "netmetrics" in ln]
        assert not audit, audit[-5:]
        return "no SIGSYS in %d journal lines" % len(j.splitlines())

    check("no system call refused by the filter (journal)", seccomp)


if __name__ == "__main__":
    sys.exit(main())
