#!/usr/bin/env python3
"""Privilege separation (issue 15, least privilege): started as root, netmetricsd's main
process runs as the netmetrics user with no capabilities and no way back, beside a small
privileged process (a child of it, named netmetricsd-pri) that does the tuning writes and
starts the benchmarks; sampling works as that user; a missing user is refused unless
user = root; when the main process is killed, the privileged process kills what the tests
started and goes. (A profile applied through the privileged process: test_profiles.py;
a benchmark as the admin-group user who started it: test_children.py; the privileged
process's allow-list: tests/unit/test-privsep-check.c.)

Needs root and the netmetrics user (tools/install-deps makes it). Environment:
NETMETRICSD, NETMETRICSCTL. Usage: test_privsep.py [NAME_SUBSTRING ...]. Ends with
"N passed, M failed".
"""
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_control  # noqa: E402
from test_control import NETMETRICSD, Daemon, Skip, clean_env, wait_until  # noqa: E402
from test_children import jctl, kill_tokens, run, token, with_token  # noqa: E402

USER = "netmetrics"


def user():
    try:
        return pwd.getpwnam(USER)
    except KeyError:
        raise Skip("no %s user (tools/install-deps makes it)" % USER)


def status_fields(pid):
    """The Uid, Gid, Groups, Cap* and NoNewPrivs lines of /proc/PID/status."""
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb",
                     "NoNewPrivs"):
                out[k] = v.split()
    return out


def test_main_runs_as_netmetrics():
    """ps names netmetrics as the main process's user; CapEff and CapPrm are 0, the bounding
    set empty, no supplementary groups, NoNewPrivs; the privileged process is root; every
    source samples as that user just as it does as root."""
    pw = user()
    d = Daemon(log_level="info")
    try:
        d.status()  # answered on the loop: the drop comes before it runs
        r = subprocess.run(["ps", "-o", "user=", "-p", str(d.pid)], capture_output=True,
                           text=True, check=True)
        assert r.stdout.strip() == USER, r.stdout
        st = status_fields(d.pid)
        assert st["Uid"] == [str(pw.pw_uid)] * 4, st
        assert st["Gid"] == [str(pw.pw_gid)] * 4, st
        assert st.get("Groups", []) == [], st
        for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
            assert int(st[k][0], 16) == 0, (k, st)
        assert st["NoNewPrivs"] == ["1"], st
        priv = d.privileged_pid()
        assert priv is not None, "no privileged process"
        pst = status_fields(priv)
        assert pst["Uid"] == ["0"] * 4 and int(pst["CapEff"][0], 16) != 0, pst
        assert "main process runs as uid %d" % pw.pw_uid in d.logtext(), d.logtext()[-2000:]
        # Sampling as the user: every source ok, with as many series as with user = root.
        time.sleep(1.5)
        split = {s["name"]: s for s in jctl(d, "status")["sources"]}
        d2 = Daemon(log_level="info", extra_args=("--user", "root"))
        try:
            time.sleep(1.5)
            whole = {s["name"]: s for s in jctl(d2, "status")["sources"]}
        finally:
            d2.stop()
        assert split.keys() == whole.keys(), (split.keys(), whole.keys())
        for name, s in split.items():
            # An optional source the host lacks (bpf without the programs or BTF) is off
            # in both, saying why.
            if not s["enabled"]:
                assert not whole[name]["enabled"] and s["reason"], (name, s, whole[name])
                continue
            assert s["healthy"] and whole[name]["healthy"], (name, s, whole[name])
            assert s["failures"] == 0, (name, s)
            if name == "bpf":
                # Loaded by the privileged process in one, in place in the other; its IRQ
                # series are those of the IRQs that fired since, which differ.
                assert s["details"]["via"] == "privileged process", s
                assert whole[name]["details"]["via"] == "loaded here", whole[name]
                continue
            assert s["series"] == whole[name]["series"], (name, s, whole[name])
    finally:
        d.stop()


def test_user_missing_or_root():
    """A user that does not exist: refused with a clear error; user = root (or --user root):
    one process, root, and the log says privilege separation is off."""
    d = Daemon(log_level="info", start=False)
    try:
        r = subprocess.run(d.argv + ["--user", "nmnosuch%d" % os.getpid()], capture_output=True,
                           text=True, env=clean_env(), timeout=30)
        assert r.returncode == 1, (r.returncode, r.stderr)
        assert "does not exist" in r.stderr and "user = root" in r.stderr, r.stderr
        assert not os.path.exists(d.sock), "a refused start made its socket"
        d.argv += ["--user", "root"]
        d.start()
        d.status()
        assert status_fields(d.pid)["Uid"] == ["0"] * 4
        assert d.privileged_pid() is None, "a privileged process without the split"
        assert "privilege separation is off" in d.logtext(), d.logtext()[-2000:]
    finally:
        d.stop()


def test_state_and_socket_kept():
    """The state directory is the user's (results written by the main process); at exit
    the socket the daemon made is removed (by the privileged process: the directory is
    root's) and the test groups' parent too."""
    pw = user()
    d = Daemon(log_level="info")
    try:
        r, t = run(d, "who", "id", "-u", extra=("--figure", "uid=^([0-9]+)"))
        assert t["status"] == "passed" and t["figures"]["uid"] == 0, t
        assert os.stat(d.state).st_uid == pw.pw_uid
        res = os.path.join(d.state, "results")
        for name in os.listdir(res):
            assert os.lstat(os.path.join(res, name)).st_uid == pw.pw_uid, name
        cg = jctl(d, "status")["tests"].get("cgroup")
        d.proc.send_signal(signal.SIGTERM)
        d.proc.wait(15)
        assert wait_until(lambda: not os.path.exists(d.sock), 5), "socket left"
        # Removed through the privileged process, not refused to the main one (issue 26).
        assert "Permission denied" not in d.logtext(), d.logtext()[-2000:]
        if cg is not None:
            assert wait_until(lambda: not os.path.exists(cg), 5), "cgroup %s left" % cg
    finally:
        d.stop()


def test_kill9_of_main_ends_the_tests():
    """kill -9 of the main process during a test with a double-forked child: the
    privileged process kills what the test started and exits, without waiting for the
    next start."""
    a, b = token(21), token(22)
    d = Daemon(log_level="info")
    try:
        d.ctl("test", "start", "--driver", "exec", "--name", "k9m", "--duration", "60", "--",
              "sh", "-c", "(setsid sleep %s >/dev/null 2>&1 &); exec sleep %s" % (a, b))
        assert wait_until(lambda: with_token(a) and with_token(b), 10), "did not start"
        priv = d.privileged_pid()
        assert priv is not None
        d.proc.kill()
        d.proc.wait()
        assert wait_until(lambda: not with_token(a) and not with_token(b), 10), \
            "left running: %s %s" % (with_token(a), with_token(b))
        assert wait_until(lambda: not os.path.exists("/proc/%d" % priv) or
                          open("/proc/%d/stat" % priv).read().split()[2] == "Z", 10), \
            "privileged process still running"
    finally:
        d.stop()
        kill_tokens(a, b)


def test_refused_spawn():
    """The privileged process checks what it starts: a program the main process's user
    could have planted (a file of its own) is not run as root, and the reason says so."""
    pw = user()
    d = Daemon(log_level="info")
    planted = os.path.join(d.state, "planted")
    try:
        with open(planted, "w") as f:
            f.write("#!/bin/sh\nid -u\n")
        os.chmod(planted, 0o755)
        os.chown(planted, pw.pw_uid, pw.pw_gid)
        r, t = run(d, "planted", planted)
        assert t["status"] == "failed", t
        assert "owned by uid %d, not by root" % pw.pw_uid in t["reason"], t["reason"]
        assert "spawn refused" in d.logtext(), d.logtext()[-2000:]
    finally:
        d.stop()


def test_program_in_a_private_directory():
    """An admin-group user's own program in a directory only that user may enter (a home
    of 0700, closed to the netmetrics user): it runs, as that user, the privileged process
    having checked that uid against the client's socket."""
    user()
    for tool in ("useradd", "groupadd", "userdel", "groupdel", "setpriv"):
        if shutil.which(tool) is None:
            raise Skip("%s not found" % tool)
    name, group = "nmpu%d" % os.getpid(), "nmpg%d" % os.getpid()
    made_user = made_group = False
    d = None
    home = tempfile.mkdtemp(prefix="nm-home-")
    try:
        subprocess.run(["groupadd", group], check=True)
        made_group = True
        subprocess.run(["useradd", "-M", "-N", "-g", group, "-d", home, "-s",
                        "/usr/sbin/nologin", name], check=True)
        made_user = True
        pw = pwd.getpwnam(name)
        prog = os.path.join(home, "bench")
        with open(prog, "w") as f:
            f.write("#!/bin/sh\nid -u\n")
        os.chmod(prog, 0o755)
        os.chown(prog, pw.pw_uid, pw.pw_gid)
        os.chown(home, pw.pw_uid, pw.pw_gid)
        os.chmod(home, 0o700)
        d = Daemon(log_level="info", start=False,
                   daemon={"socket_mode": "0666", "admin_group": group})
        client = os.path.join(d.tmp, "netmetricsctl")
        shutil.copy2(test_control.NETMETRICSCTL, client)
        os.chmod(client, 0o755)
        d.start()
        r = subprocess.run(["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid,
                            "--init-groups", client, "--socket", d.sock, "test", "start",
                            "--driver", "exec", "--name", "own", "--wait", "--figure",
                            "uid=^([0-9]+)", "--", prog], capture_output=True, text=True,
                           env=clean_env(), timeout=60)
        assert r.returncode == 0, (r.returncode, r.stdout, r.stderr, d.logtext()[-2000:])
        t = jctl(d, "result", "show", "own")["test"]
        assert t["status"] == "passed" and t["figures"]["uid"] == pw.pw_uid, t
        # The privileged process read the client's credentials itself (SO_PEERCRED of the
        # socket passed with the spawn), not the main process's word for them.
        want = "privsep: %s as uid %d for a client of uid %d" % (prog, pw.pw_uid, pw.pw_uid)
        assert want in d.logtext(), d.logtext()[-2000:]
    finally:
        if d is not None:
            d.stop()
        if made_user:
            subprocess.run(["userdel", name])
        if made_group:
            subprocess.run(["groupdel", group])
        shutil.rmtree(home, ignore_errors=True)


def main(argv):
    if os.geteuid() != 0:
        print("needs root")
        print("0 passed, 1 failed")
        return 1
    if not os.path.exists(NETMETRICSD):
        print("NETMETRICSD not set")
        return 1
    return test_control.main(argv, globals())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
