#!/usr/bin/env python3
"""What a test's processes get and what becomes of them (issue 15, findings 5, 6, 7 and 10):
blocking stdout and stderr, a clean start (environment, signals, fds), the uid of the
client that started them, a cgroup of their own that is killed as a whole when the test
ends, is stopped, when the daemon exits and, after a kill -9 of the daemon, at its next
start; a deadline for tests without --duration; process groups where there is no cgroup v2.

The daemons run outside any network namespace (ip netns exec would hide the cgroup mount).
Every process a test starts carries a token (sleep 3201.PID...) so that it can be found in
/proc and killed by pid if a check fails. Needs root (users, cgroups) and setpriv.

Environment: NETMETRICSD, NETMETRICSCTL. Usage: test_children.py [NAME_SUBSTRING ...].
Ends with "N passed, M failed".
"""
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_control  # noqa: E402
from test_control import Daemon, Skip, clean_env, wait_until  # noqa: E402

TAG = "%d" % os.getpid()
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def token(n):
    """A sleep argument unique to this run: sleep 3201.PID0N sleeps about 53 minutes."""
    return "32%02d.%s" % (n, TAG)


def with_token(tok):
    """Pids of processes whose command line holds tok."""
    pids = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % p, "rb") as f:
                if tok.encode() in f.read():
                    pids.append(int(p))
        except OSError:
            continue
    return pids


def kill_tokens(*toks):
    """Kill (by pid) whatever a failed check left running."""
    for tok in toks:
        for pid in with_token(tok):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def jctl(d, *args, check=True):
    r = d.ctl("--json", *args, timeout=60)
    if check:
        assert r.returncode == 0, "%s: exit %d: %s%s" % (args, r.returncode, r.stderr,
                                                         d.logtext()[-3000:])
    return json.loads(r.stdout) if r.stdout.strip() else None


def run(d, name, *cmd, extra=()):
    """test start --wait of an exec test; the stored result's test object."""
    r = d.ctl("test", "start", "--driver", "exec", "--name", name, "--wait", *extra, "--",
              *cmd, timeout=120)
    res = jctl(d, "result", "show", name)
    return r, res["test"]


def state_of(d, name):
    return jctl(d, "test", "status", name)["tests"][0]["state"]


def test_blocking_stdout():
    """head -c 10000000 /dev/zero writes 10 MB into its stdout pipe: it blocks while the
    daemon reads, it gets no EAGAIN."""
    d = Daemon(log_level="info")
    try:
        r, t = run(d, "zeros", "head", "-c", "10000000", "/dev/zero")
        assert t["status"] == "passed", (t, r.stderr)
        r, t = run(d, "zeros-err", "sh", "-c", "head -c 3000000 /dev/zero >&2")
        assert t["status"] == "passed", (t, r.stderr)
    finally:
        d.stop()


def test_clean_start():
    """A daemon started with a secret in its environment, SIGUSR2 ignored, SIGUSR1
    blocked and fd 7 open: its test's process (a sleep, which changes none of these, read
    from /proc) has PATH (the fixed default, not the daemon's), LANG=C, HOME and the
    configured test_env only, no signal ignored or blocked, fds 0-2 only."""
    def preexec():
        signal.signal(signal.SIGUSR2, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
        os.dup2(os.open("/dev/null", os.O_RDONLY), 7)

    a = token(10)
    d = Daemon(log_level="info", env=clean_env(NM_SECRET="leak", PATH=os.environ["PATH"]),
               preexec_fn=preexec, close_fds=False, limits={"test_env": "NM_EXTRA=1 LANG=C"})
    try:
        d.ctl("test", "start", "--driver", "exec", "--name", "clean", "--duration", "30",
              "--", "sleep", a)
        assert wait_until(lambda: with_token(a), 10), "did not start"
        pid = with_token(a)[0]
        with open("/proc/%d/environ" % pid, "rb") as f:
            env = dict(x.decode().split("=", 1) for x in f.read().split(b"\0") if x)
        st = {}
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                k, _, v = line.partition(":")
                st[k] = v.strip()
        fds = sorted(int(x) for x in os.listdir("/proc/%d/fd" % pid))
        assert sorted(env) == ["HOME", "LANG", "NM_EXTRA", "PATH"], env
        assert env["LANG"] == "C" and env["NM_EXTRA"] == "1", env
        assert env["HOME"] == "/root", env
        assert env["PATH"] == DEFAULT_PATH, env
        assert int(st["SigIgn"], 16) == 0, st["SigIgn"]
        assert int(st["SigBlk"], 16) == 0, st["SigBlk"]
        assert fds == [0, 1, 2], fds
        d.ctl("test", "stop", "clean")
    finally:
        d.stop()
        kill_tokens(a)


def test_leftovers_killed_after_pass():
    """A passed test's background job, and what it setsid'd and double-forked away, are
    gone once the test has ended; the test ran in a cgroup of its own."""
    a, b = token(1), token(2)
    d = Daemon(log_level="info")
    try:
        iso = d.status()["tests"]
        assert iso["isolation"] == "cgroup", iso
        cg = iso["cgroup"]
        assert os.path.isdir(cg) and "netmetricsd-" in cg, cg
        r, t = run(d, "bg", "sh", "-c",
                   "sleep %s & (setsid sleep %s >/dev/null 2>&1 &); sleep 0.5; "
                   "cat /proc/self/cgroup" % (a, b))
        assert t["status"] == "passed", (t, r.stderr)
        assert wait_until(lambda: not with_token(a) and not with_token(b), 10), \
            "left running: %s %s" % (with_token(a), with_token(b))
        assert wait_until(lambda: not [x for x in os.listdir(cg) if x.startswith("test-")],
                          10), os.listdir(cg)
    finally:
        d.stop()
        kill_tokens(a, b)
    assert not os.path.exists(cg), "%s left after the daemon's exit" % cg


def test_stop_and_exit_kill_escapees():
    """test stop ends a setsid'd, double-forked child; so does the daemon's exit."""
    a, b, c = token(3), token(4), token(5)
    d = Daemon(log_level="info")
    try:
        d.ctl("test", "start", "--driver", "exec", "--name", "esc", "--duration", "60",
              "--", "sh", "-c", "(setsid sleep %s >/dev/null 2>&1 &); exec sleep %s" % (a, b))
        assert wait_until(lambda: with_token(a) and with_token(b), 10), "did not start"
        assert d.ctl("test", "stop", "esc").returncode == 0
        assert wait_until(lambda: state_of(d, "esc") == "stopped", 15), state_of(d, "esc")
        assert wait_until(lambda: not with_token(a) and not with_token(b), 10), \
            "left running after test stop: %s %s" % (with_token(a), with_token(b))
        d.ctl("test", "start", "--driver", "exec", "--name", "esc2", "--duration", "60",
              "--", "sh", "-c", "(setsid sleep %s >/dev/null 2>&1 &); exec sleep 300" % c)
        assert wait_until(lambda: with_token(c), 10), "did not start"
        assert d.stop() == 0
        assert wait_until(lambda: not with_token(c), 10), \
            "left running after the daemon's exit: %s" % with_token(c)
    finally:
        d.stop()
        kill_tokens(a, b, c)


def test_kill9_then_start_sweeps():
    """kill -9 of the daemon (both processes of the privilege separation) during a test
    with a double-forked child: the processes live on, and the next start (same state
    directory) kills them all."""
    a, b = token(6), token(7)
    d = Daemon(log_level="info")
    d2 = None
    try:
        d.ctl("test", "start", "--driver", "exec", "--name", "k9", "--duration", "60", "--",
              "sh", "-c", "(setsid sleep %s >/dev/null 2>&1 &); exec sleep %s" % (a, b))
        assert wait_until(lambda: with_token(a) and with_token(b), 10), "did not start"
        priv = d.privileged_pid()
        if priv is not None:
            os.kill(priv, signal.SIGKILL)  # else it kills the test's processes itself
        d.proc.kill()
        d.proc.wait()
        time.sleep(0.5)
        assert with_token(a) and with_token(b), "gone without the sweep: the test proves nothing"
        d2 = Daemon(log_level="info", start=False)
        d2.argv[d2.argv.index("--state-dir") + 1] = d.state
        d2.start()
        d2.status()
        assert wait_until(lambda: not with_token(a) and not with_token(b), 10), \
            "left running after the next start: %s %s" % (with_token(a), with_token(b))
        assert "a previous run left" in d2.logtext(), d2.logtext()[-2000:]
    finally:
        if d2 is not None:
            d2.stop()
        d.stop()
        kill_tokens(a, b)


def test_default_deadline():
    """An exec test without --duration ends at [limits] test_deadline."""
    a = token(8)
    d = Daemon(log_level="info", limits={"test_deadline": "2s"})
    try:
        start = time.monotonic()
        r, t = run(d, "hangs", "sleep", a)
        took = time.monotonic() - start
        assert t["status"] == "failed" and "did not finish within 2 s" in t["reason"], t
        assert took < 15, took
        assert wait_until(lambda: not with_token(a), 10), with_token(a)
    finally:
        d.stop()
        kill_tokens(a)


def cgroup2_mount():
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            if right.split()[0] == "cgroup2" and left.split()[3] == "/":
                return left.split()[4]
    return None


def test_unit_group_delegated():
    """Started in a group named like a systemd unit (*.service, as Delegate=yes gives it),
    the daemon moves itself into its "daemon" leaf and makes the test groups beside it."""
    mnt = cgroup2_mount()
    if mnt is None:
        raise Skip("no cgroup v2 mount")
    with open("/proc/self/cgroup") as f:
        own = [x[3:].strip() for x in f if x.startswith("0::")][0]
    unit = os.path.join(mnt + (own if own != "/" else ""), "nmt%s.service" % TAG)
    a = token(11)
    os.mkdir(unit)
    d = None
    try:
        def join():
            with open(os.path.join(unit, "cgroup.procs"), "w") as f:
                f.write("0")

        d = Daemon(log_level="info", preexec_fn=join)
        iso = d.status()["tests"]  # answered once the runner is set up
        with open("/proc/%d/cgroup" % d.pid) as f:
            mine = [x[3:].strip() for x in f if x.startswith("0::")][0]
        assert mine.endswith("nmt%s.service/daemon" % TAG), mine
        assert {k: iso[k] for k in ("isolation", "cgroup")} == {"isolation": "cgroup",
                                                                "cgroup": unit}, iso
        # The pids controller where the unit's group has it (not in this machine's hybrid
        # tree): a pids.max per test group.
        with open(os.path.join(unit, "cgroup.controllers")) as f:
            pids = "pids" in f.read().split()
        assert iso["pids_limit"]["by"] == ("cgroup" if pids else "rlimit"), iso
        d.ctl("test", "start", "--driver", "exec", "--name", "unit", "--duration", "30",
              "--", "sleep", a)
        assert wait_until(lambda: with_token(a), 10), "did not start"
        with open("/proc/%d/cgroup" % with_token(a)[0]) as f:
            theirs = [x[3:].strip() for x in f if x.startswith("0::")][0]
        assert theirs.endswith("nmt%s.service/test-1" % TAG), theirs
        if pids:
            with open(os.path.join(unit, "test-1", "pids.max")) as f:
                assert f.read().strip() == "4096"
        d.ctl("test", "stop", "unit")
        assert wait_until(lambda: not with_token(a), 10), with_token(a)
        assert d.stop() == 0
        assert sorted(x for x in os.listdir(unit) if not x.startswith("cgroup.") and
                      os.path.isdir(os.path.join(unit, x))) == ["daemon"], os.listdir(unit)
    finally:
        if d is not None:
            d.stop()
        kill_tokens(a)
        for sub in ("daemon",):
            try:
                os.rmdir(os.path.join(unit, sub))
            except OSError:
                pass
        for x in os.listdir(unit):
            if x.startswith("test-"):
                os.rmdir(os.path.join(unit, x))
        os.rmdir(unit)


def test_process_groups_without_cgroup():
    """Without a cgroup v2 mount (unmounted in a mount namespace of the daemon's own) status
    and the log say so, and a passed test's background job is still killed."""
    if shutil.which("unshare") is None:
        raise Skip("unshare not found")
    a = token(9)
    hide = ("for m in $(awk '$9 == \"cgroup2\" {print $5}' /proc/self/mountinfo); do "
            "umount -l \"$m\"; done; exec \"$@\"")
    d = Daemon(log_level="info", argv_prefix=["unshare", "-m", "--propagation", "private",
                                              "sh", "-c", hide, "sh"])
    try:
        iso = d.status()["tests"]
        assert iso["isolation"] == "process-group" and "cgroup v2" in iso["reason"], iso
        assert "not isolated in cgroups" in d.logtext(), d.logtext()[-2000:]
        r, t = run(d, "pg", "sh", "-c", "sleep %s & sleep 0.3" % a)
        assert t["status"] == "passed", (t, r.stderr)
        assert wait_until(lambda: not with_token(a), 10), with_token(a)
    finally:
        d.stop()
        kill_tokens(a)


def test_cwd_and_path():
    """A daemon started in a directory of its own with a PATH of its own (a directory
    first that holds an "id" of its own): its exec test's process prints its working
    directory and PATH. It starts in the daemon's directory for children (the control
    socket's, the runtime directory), never the daemon's working directory; its PATH is
    the fixed default, and "id" is looked up there, not in the daemon's PATH. With
    [daemon] child_path and work_dir set, those (issue 29 item 6, issue 26 item 4)."""
    here = tempfile.mkdtemp(prefix="nm-cwd-")
    bogus = tempfile.mkdtemp(prefix="nm-path-")
    os.chmod(here, 0o755)
    os.chmod(bogus, 0o755)
    with open(os.path.join(bogus, "id"), "w") as f:
        f.write("#!/bin/sh\necho 77777\n")
    os.chmod(os.path.join(bogus, "id"), 0o755)
    d = d2 = None
    try:
        d = Daemon(log_level="info", env=clean_env(PATH=bogus + ":" + os.environ["PATH"]),
                   preexec_fn=lambda: os.chdir(here))
        assert os.readlink("/proc/%d/cwd" % d.pid) == here
        out = os.path.join(d.tmp, "out")
        r, t = run(d, "where", "sh", "-c", 'pwd > %s; echo "$PATH" >> %s' % (out, out))
        assert t["status"] == "passed", (t, r.stderr)
        with open(out) as f:
            cwd, path = f.read().splitlines()
        print("  cwd %s, PATH %s" % (cwd, path))
        assert cwd == os.path.realpath(d.tmp) and cwd != here, (cwd, here, d.tmp)
        assert path == DEFAULT_PATH, path
        r, t = run(d, "idu", "id", "-u", extra=("--figure", "uid=^([0-9]+)"))
        assert t["figures"]["uid"] == 0 and t["program"] == "/usr/bin/id", t
        # A relative path names nothing the daemon can know: refused, with why.
        r = d.ctl("test", "start", "--driver", "exec", "--name", "rel", "--", "bin/true",
                  timeout=30)
        assert r.returncode == 1 and "bin/true: a relative path" in r.stderr, (r.returncode,
                                                                              r.stderr)
        st = jctl(d, "status")["tests"]
        assert st["work_dir"] == os.path.realpath(d.tmp) and st["path"] == DEFAULT_PATH, st
        d.stop()
        # Configured: the PATH given, the directory given.
        work = tempfile.mkdtemp(prefix="nm-work-")
        os.chmod(work, 0o755)
        d2 = Daemon(log_level="info", daemon={"child_path": bogus + ":/usr/bin:/bin",
                                              "work_dir": work},
                    preexec_fn=lambda: os.chdir(here))
        out = os.path.join(d2.tmp, "out")
        r, t = run(d2, "where2", "sh", "-c", 'pwd > %s; echo "$PATH" >> %s' % (out, out))
        with open(out) as f:
            assert f.read().splitlines() == [work, bogus + ":/usr/bin:/bin"]
        r, t = run(d2, "idu2", "id", extra=("--figure", "uid=^([0-9]+)"))
        assert t["figures"]["uid"] == 77777 and t["program"] == bogus + "/id", t
        assert "start in %s, PATH=%s:/usr/bin:/bin" % (work, bogus) in d2.ctl("status").stdout
        shutil.rmtree(work, ignore_errors=True)
    finally:
        if d is not None:
            d.stop()
        if d2 is not None:
            d2.stop()
        shutil.rmtree(here, ignore_errors=True)
        shutil.rmtree(bogus, ignore_errors=True)


# An exec test that tries to fork 200 processes that sleep, counts the forks that
# failed, then ends the ones it made.
FORKER = r"""
import os, time
made, failed = [], 0
for i in range(200):
    try:
        pid = os.fork()
    except OSError:
        failed += 1
        continue
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    made.append(pid)
print("forked=%d failed=%d" % (len(made), failed), flush=True)
for pid in made:
    os.kill(pid, 9)
for pid in made:
    os.waitpid(pid, 0)
"""


@contextlib.contextmanager
def admin_user(prefix):
    """A user made for the test, in a group of its own that is the daemon's admin_group;
    yields (pwd entry, group name) and removes both after. Skips where users cannot be
    made."""
    if os.geteuid() != 0:
        raise Skip("not root: cannot make users")
    for tool in ("useradd", "groupadd", "userdel", "groupdel", "setpriv"):
        if shutil.which(tool) is None:
            raise Skip("%s not found" % tool)
    import pwd
    user, group = "%su%s" % (prefix, TAG), "%sg%s" % (prefix, TAG)
    made_user = made_group = False
    try:
        subprocess.run(["groupadd", group], check=True)
        made_group = True
        subprocess.run(["useradd", "-M", "-N", "-g", group, "-d", "/nonexistent", "-s",
                        "/usr/sbin/nologin", user], check=True)
        made_user = True
        yield pwd.getpwnam(user), group
    finally:
        if made_user:
            subprocess.run(["userdel", user])
        if made_group:
            subprocess.run(["groupdel", group])


def client_copy(d):
    """A copy of netmetricsctl in d's directory, which another user may run."""
    client = os.path.join(d.tmp, "netmetricsctl")
    shutil.copy2(test_control.NETMETRICSCTL, client)
    os.chmod(client, 0o755)
    return client


def test_pids_limit():
    """test_pids_max = 50: a test of a client other than root that forks 200 sleeps gets
    at most 49 (itself the 50th) and sees the other forks fail: by the pids.max of its
    cgroup where the cgroup tree has the pids controller, else by RLIMIT_NPROC; status and
    the test's own object say which. A root client's test is bounded by the cgroup only."""
    d = None
    with admin_user("nmp") as (pw, group):
        try:
            d = Daemon(log_level="info", start=False,
                       daemon={"socket_mode": "0666", "admin_group": group},
                       limits={"test_pids_max": "50"})
            client = client_copy(d)
            d.start()
            pl = jctl(d, "status")["tests"]["pids_limit"]
            assert pl["by"] in ("cgroup", "rlimit") and pl["max"] == 50, pl
            print("  status: %s" % [x for x in d.ctl("status").stdout.splitlines()
                                    if x.startswith("  processes")][0].strip())
            r = subprocess.run(["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid,
                                "--init-groups", client, "--socket", d.sock, "test", "start",
                                "--driver", "exec", "--name", "forks", "--wait", "--figure",
                                "forked=forked=([0-9]+)", "--figure", "failed=failed=([0-9]+)",
                                "--", "python3", "-c", FORKER], capture_output=True, text=True,
                               env=clean_env(), timeout=120)
            assert r.returncode == 0, (r.returncode, r.stdout, r.stderr, d.logtext()[-2000:])
            t = jctl(d, "result", "show", "forks")["test"]
            f = t["figures"]
            print("  uid %d: %d forked, %d failed (%s)" % (pw.pw_uid, f["forked"], f["failed"],
                                                         t["pids_limit"]))
            assert t["status"] == "passed", t
            assert t["pids_limit"] == {"by": pl["by"], "max": 50}, t["pids_limit"]
            assert f["forked"] + f["failed"] == 200 and f["forked"] <= 49, f
            assert f["failed"] >= 150, f
            # Nothing of the user's is left.
            assert wait_until(lambda: not [p for p in os.listdir("/proc") if p.isdigit() and
                                           owner(p) == pw.pw_uid], 10)
            # Root's test: the cgroup's pids.max only.
            r, t = run(d, "root-forks", "python3", "-c", FORKER,
                       extra=("--figure", "forked=forked=([0-9]+)"))
            want = {"by": "cgroup", "max": 50} if pl["by"] == "cgroup" else {"by": "none",
                                                                               "max": None}
            assert t["pids_limit"] == want, t["pids_limit"]
            if pl["by"] == "cgroup":
                assert t["figures"]["forked"] <= 49, t["figures"]
        finally:
            if d is not None:
                d.stop()


def owner(pid):
    """The uid of process pid, or None once it has gone."""
    try:
        return os.stat("/proc/%s" % pid).st_uid
    except OSError:
        return None


def test_runs_as_the_client():
    """A member of admin_group (a user made for the test) runs test start --driver exec --
    id -u: the stored figure is that user's uid, not 0."""
    d = None
    with admin_user("nmt") as (pw, group):
        try:
            d = Daemon(log_level="info", start=False,
                       daemon={"socket_mode": "0666", "admin_group": group})
            os.chmod(d.tmp, 0o755)
            client = client_copy(d)
            d.start()
            as_user = ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid,
                       "--init-groups", client, "--socket", d.sock]
            r = subprocess.run(as_user + ["test", "start", "--driver", "exec", "--name", "uid",
                                          "--wait", "--figure", "uid=^([0-9]+)", "--", "id",
                                          "-u"], capture_output=True, text=True,
                               env=clean_env(), timeout=60)
            assert r.returncode == 0, (r.returncode, r.stdout, r.stderr, d.logtext()[-2000:])
            t = jctl(d, "result", "show", "uid")["test"]
            assert t["status"] == "passed", t
            assert t["figures"]["uid"] == pw.pw_uid, (t["figures"], pw.pw_uid)
            # Root's own test still runs as root.
            r, t = run(d, "uid0", "id", "-u", extra=("--figure", "uid=^([0-9]+)"))
            assert t["figures"]["uid"] == 0, t["figures"]
        finally:
            if d is not None:
                d.stop()


def main(argv):
    if os.geteuid() != 0:
        print("needs root (users, cgroups)")
        print("0 passed, 1 failed")
        return 1
    return test_control.main(argv, globals())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
