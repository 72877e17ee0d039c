#!/usr/bin/env python3
"""Integration tests of netmetricsd's control socket, driven with raw sockets and with the
real netmetricsctl. Each test starts its own daemon on a temporary socket and always stops
it. Python standard library only.

Environment: NETMETRICSD, NETMETRICSCTL (the binaries), SRCDIR (the source tree).
Usage: test_control.py [NAME_SUBSTRING ...] runs only the matching tests.
Prints one line per test and ends with "N passed, M failed" (", K skipped" when some were).
"""
import glob
import grp
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

NETMETRICSD = os.environ.get("NETMETRICSD", "")
NETMETRICSCTL = os.environ.get("NETMETRICSCTL", "")
SRCDIR = os.environ.get("SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))

# Variables of the caller's environment that would change how the daemon or client run.
SCRUB = ("NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "WATCHDOG_USEC",
         "WATCHDOG_PID", "JOURNAL_STREAM", "NETMETRICS_SOCKET")

START_TIMEOUT = 20.0  # seconds for a daemon to answer on its socket (ASan builds start slower)
MiB = 1 << 20

_live = []  # every daemon started, so an interrupted run still stops them


class Skip(Exception):
    """Raised by a test that cannot run here; the reason is printed."""


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in SCRUB}
    env.update(extra)
    return env


def write_config(path, daemon=None, limits=None, raw=None):
    """Write an INI configuration; values None are left out."""
    lines = []
    for section, keys in (("daemon", daemon or {}), ("limits", limits or {})):
        lines.append("[%s]" % section)
        for k, v in keys.items():
            if v is not None:
                lines.append("%s = %s" % (k, v))
        lines.append("")
    with open(path, "w") as f:
        f.write(raw if raw is not None else "\n".join(lines))


def proc_status_kib(pid, field):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError("no %s in /proc/%d/status" % (field, pid))


def rss_bytes(pid):
    return proc_status_kib(pid, "VmRSS") * 1024


def settled_rss(pid, timeout=3.0):
    """RSS once start-up allocations (first samples) are done: two readings 0.3 s apart
    within 256 KiB of each other."""
    prev = rss_bytes(pid)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        time.sleep(0.3)
        cur = rss_bytes(pid)
        if abs(cur - prev) < 256 * 1024:
            return cur
        prev = cur
    return prev


def warm_up(client):
    """Run the requests a test will repeat, so the allocator's first-use growth (large under
    ASan) is in the baseline, not counted against the daemon."""
    reqs = [{"id": 900000 + i, "cmd": "status" if i % 10 == 0 else "hello"} for i in range(200)]
    client.send("".join(json.dumps(r) + "\n" for r in reqs))
    for r in reqs:
        assert_ok(client.reply(10), r["id"])


def rss_env():
    """The environment for a daemon whose RSS a test bounds: RSS then counts what the daemon
    itself keeps. Under AddressSanitizer, freed memory stays resident in its quarantine
    (256 MiB by default) and would be counted as growth; a small quarantine keeps
    use-after-free checks for recent frees. Programs built without ASan ignore the
    variable. Without ASan, meson test sets MALLOC_PERTURB_, with which glibc fills every
    block it hands out: the ring's buffer (ring_bytes, 64 MiB by default), allocated once
    and touched only as history fills it, would be resident from the start; it is unset."""
    opts = os.environ.get("ASAN_OPTIONS", "")
    env = clean_env(ASAN_OPTIONS=(opts + ":" if opts else "") + "quarantine_size_mb=1")
    env.pop("MALLOC_PERTURB_", None)
    return env


def environ_of(pid):
    """The environment pid started with, as a dict."""
    with open("/proc/%d/environ" % pid, "rb") as f:
        items = [x.decode(errors="replace") for x in f.read().split(b"\0") if x]
    return dict(x.split("=", 1) if "=" in x else (x, "") for x in items)


def cpu_seconds(pid):
    """utime + stime of pid, in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # fields[0] is the state (field 3); utime and stime are fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pid_gone(pid):
    """True when pid has exited (also when it is a zombie nobody reaps)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def wait_until(pred, timeout, step=0.02):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return pred()


def can_connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.settimeout(1)
        s.connect(path)
        return True
    except OSError:
        return False
    finally:
        s.close()


class Client:
    """A raw protocol client: send bytes, read lines and replies with timeouts."""

    def __init__(self, path, timeout=5.0):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buf = b""
        self.eof = False

    def send(self, data):
        if isinstance(data, str):
            data = data.encode()
        self.sock.sendall(data)

    def request(self, cmd, rid=None, args=None):
        req = {"cmd": cmd}
        if rid is not None:
            req["id"] = rid
        if args is not None:
            req["args"] = args
        self.send(json.dumps(req) + "\n")

    def line(self, timeout=5.0):
        """The next line (bytes, without newline); None at EOF; raises on timeout."""
        end = time.monotonic() + timeout
        while b"\n" not in self.buf:
            if self.eof:
                return None
            left = end - time.monotonic()
            if left <= 0:
                raise socket.timeout("no line within %.1fs" % timeout)
            self.sock.settimeout(left)
            data = self.sock.recv(65536)
            if not data:
                self.eof = True
                continue
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def reply(self, timeout=5.0):
        line = self.line(timeout)
        assert line is not None, "connection closed where a reply was expected"
        return json.loads(line)

    def call(self, cmd, rid, args=None, timeout=5.0):
        self.request(cmd, rid, args)
        rep = self.reply(timeout)
        assert rep.get("id") == rid, "reply id %r for request id %r: %r" % (rep.get("id"), rid, rep)
        return rep

    def nothing_within(self, seconds):
        """True when no byte and no EOF arrive within seconds."""
        if self.buf or self.eof:
            return False
        self.sock.settimeout(seconds)
        try:
            data = self.sock.recv(65536)
        except socket.timeout:
            return True
        if data:
            self.buf += data
        else:
            self.eof = True
        return False

    def closed_within(self, seconds):
        """True when the daemon closes the connection within seconds (extra lines ignored)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                if self.line(end - time.monotonic()) is None:
                    return True
            except (socket.timeout, TimeoutError):
                return False
            except ConnectionResetError:
                return True
        return False

    def close(self):
        self.sock.close()


def assert_ok(rep, rid=None):
    assert rep.get("ok") is True, "expected ok, got %r" % rep
    if rid is not None:
        assert rep.get("id") == rid, "expected id %r, got %r" % (rid, rep)


def assert_error(rep, code, rid=None):
    assert rep.get("ok") is False, "expected an error %s, got %r" % (code, rep)
    err = rep.get("error")
    assert isinstance(err, dict), "error member missing: %r" % rep
    assert err.get("code") == code, "expected code %s, got %r" % (code, rep)
    assert isinstance(err.get("message"), str) and err["message"], "no message: %r" % rep
    if rid is not None:
        assert rep.get("id") == rid, "expected id %r, got %r" % (rid, rep)


def privileged_child(pid):
    """The child of daemon pid that is its privileged process, or None."""
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            kids = [int(x) for x in f.read().split()]
    except OSError:
        return None
    for k in kids:
        try:
            with open("/proc/%d/comm" % k) as f:
                if f.read().strip() == "netmetricsd-pri":
                    return k
        except OSError:
            pass
    return None


class Daemon:
    """One netmetricsd in --foreground on a temporary socket; stop() is idempotent."""

    def __init__(self, daemon=None, limits=None, log_level="debug", extra_args=(), env=None,
                 preexec_fn=None, argv_prefix=(), close_fds=True, start=True):
        self.tmp = tempfile.mkdtemp(prefix="nm-it-")
        os.chmod(self.tmp, 0o755)  # the daemon's main process runs as netmetrics
        self.sock = os.path.join(self.tmp, "s.sock")
        self.state = os.path.join(self.tmp, "state")
        self.conf = os.path.join(self.tmp, "conf")
        self.logpath = os.path.join(self.tmp, "daemon.log")
        dconf = {"socket": self.sock, "state_dir": self.state, "socket_mode": "0660"}
        dconf.update(daemon or {})
        lconf = {"request_timeout": "5s"}
        lconf.update(limits or {})
        self.daemon_conf, self.limits_conf = dconf, lconf
        write_config(self.conf, dconf, lconf)
        self.argv = list(argv_prefix) + [NETMETRICSD, "--foreground", "--config", self.conf,
                                         "--socket", self.sock, "--state-dir", self.state]
        if log_level:
            self.argv += ["--log-level", log_level]
        self.argv += list(extra_args)
        self.env = env if env is not None else clean_env()
        self.preexec_fn = preexec_fn
        self.close_fds = close_fds
        self.proc = None
        self.rc = None
        if start:
            self.start()

    def start(self):
        self.log = open(self.logpath, "ab")
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=subprocess.STDOUT, env=self.env,
                                     preexec_fn=self.preexec_fn, close_fds=self.close_fds)
        _live.append(self)
        self.wait_socket()

    @property
    def pid(self):
        return self.proc.pid

    def wait_socket(self, timeout=START_TIMEOUT):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise AssertionError("netmetricsd exited with %d before listening:\n%s"
                                     % (self.proc.returncode, self.logtext()))
            if can_connect(self.sock):
                return
            time.sleep(0.02)
        raise AssertionError("netmetricsd did not answer on %s within %.0fs:\n%s"
                             % (self.sock, timeout, self.logtext()))

    def alive(self):
        return self.proc.poll() is None

    def privileged_pid(self):
        """The privileged process of the privilege separation (a child of the main process
        named netmetricsd-pri), or None without the split."""
        return privileged_child(self.proc.pid)

    def logtext(self):
        try:
            with open(self.logpath, "rb") as f:
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def signal(self, sig):
        self.proc.send_signal(sig)

    def wait(self, timeout=10.0):
        self.rc = self.proc.wait(timeout)
        return self.rc

    def stop(self):
        """SIGTERM, then SIGKILL after 10 s; returns the exit code. Removes the temp dir."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc is not None:
            self.rc = self.proc.returncode
            self.log.close()
        if self in _live:
            _live.remove(self)
        shutil.rmtree(self.tmp, ignore_errors=True)
        return self.rc

    def ctl(self, *args, **kw):
        return ctl("--socket", self.sock, *args, **kw)

    def status(self):
        r = self.ctl("--json", "status")
        assert r.returncode == 0, "status failed (%d): %s" % (r.returncode, r.stderr)
        return json.loads(r.stdout)


def ctl(*args, env=None, timeout=20, prefix=()):
    return subprocess.run(list(prefix) + [NETMETRICSCTL] + list(args), capture_output=True,
                          text=True, env=env if env is not None else clean_env(),
                          timeout=timeout, stdin=subprocess.DEVNULL)


# ---------------------------------------------------------------------------------------
# The client against a daemon


def test_hello_and_status():
    d = Daemon()
    try:
        r = d.ctl("hello")
        assert r.returncode == 0, r.stderr
        assert "protocol 1" in r.stdout, r.stdout
        for name in ("hello", "status", "cancel"):
            assert any(l.split()[:1] == [name] for l in r.stdout.splitlines()), r.stdout
        # As netmetricsctl spells the commands (issue 21); --json keeps the wire's names.
        lines = r.stdout.splitlines()
        assert any(l.split()[:3] == ["mark", "start", "readonly"] or
                   l.split()[:3] == ["mark", "start", "mutating"] for l in lines), r.stdout
        assert not any("mark-start" in l or "test-start" in l for l in lines), r.stdout

        r = ctl("--socket", d.sock, "--json", "hello")
        assert r.returncode == 0, r.stderr
        hello = json.loads(r.stdout)
        assert hello["protocol"] == 1, hello
        assert hello["daemon"] == "netmetricsd", hello
        names = [c["name"] for c in hello["commands"]]
        for name in ("hello", "status", "cancel", "mark-start"):
            assert name in names, names
        for c in hello["commands"]:
            assert c["access"] in ("readonly", "mutating", "stream"), c
            assert c["summary"], c

        r = d.ctl("status", "--json")
        assert r.returncode == 0, r.stderr
        st = json.loads(r.stdout)
        assert st["pid"] == d.pid, (st["pid"], d.pid)
        assert st["protocol"] == 1
        assert st["root"] == "/", st
        assert st["state_dir"] == d.state, st
        assert st["socket"] == d.sock, st
        assert st["socket_activated"] is False, st
        assert st["config_file"] == d.conf, st
        assert st["clients"]["connected"] >= 1, st
        assert st["clients"]["max"] == 256 and st["clients"]["max_per_uid"] == 64, st
        assert st["config"]["log_level"] == "debug", st
        assert st["config"]["socket_mode"] == "0660", st
        assert st["config"]["request_timeout_ms"] == 5000, st
        assert st["uptime_s"] >= 0, st
        assert os.path.isdir(d.state)
        assert os.stat(d.sock).st_mode & 0o777 == 0o660, oct(os.stat(d.sock).st_mode)

        r = d.ctl("status")
        assert r.returncode == 0, r.stderr
        out = r.stdout
        assert out.startswith("netmetricsd "), out
        assert "pid %d" % d.pid in out, out
        assert "(protocol 1)" in out, out
        for label, value in (("socket", d.sock), ("root", "/"), ("state dir", d.state),
                             ("config", d.conf)):
            assert any(l.split() == label.split() + [value] for l in out.splitlines()), \
                "no line '%s %s' in:\n%s" % (label, value, out)
        assert "connected (at most 256, 64 per uid)" in out, out

        # NETMETRICS_SOCKET is the default socket.
        r = ctl("status", env=clean_env(NETMETRICS_SOCKET=d.sock))
        assert r.returncode == 0 and "pid %d" % d.pid in r.stdout, (r.returncode, r.stderr)
    finally:
        d.stop()


def test_command_table_each_command():
    """Every command hello lists is answered by the client without losing the daemon."""
    d = Daemon()
    try:
        hello = json.loads(d.ctl("--json", "hello").stdout)
        for c in hello["commands"]:
            words = c["name"].replace("-", " ").split()
            h = d.ctl(*words, "--help")
            assert h.returncode == 0, (c["name"], h.returncode, h.stderr)
            assert h.stdout.startswith("usage: netmetricsctl " + " ".join(words)), h.stdout
            if c["access"] != "readonly":
                continue  # streams run until cancelled; mutating ones change the host
            required = [a["name"] for a in c["args"] if a["required"]]
            r = d.ctl(*words)
            if required:
                # The daemon says bad_args: the client exits 2 and names the argument.
                assert r.returncode == 2, (c["name"], r.returncode, r.stderr)
                assert required[0] in r.stderr, r.stderr
            elif c["name"] in ("hello", "status"):
                assert r.returncode == 0, (c["name"], r.returncode, r.stderr)
            else:
                # Answered, or refused with a reason; never a lost daemon.
                assert r.returncode in (0, 1), (c["name"], r.returncode, r.stderr)
                if r.returncode == 1:
                    assert r.stderr.startswith("netmetricsctl: "), r.stderr
            assert d.alive(), d.logtext()[-2000:]
        # cancel of a stream that does not exist: the daemon refuses, exit 1.
        for args in (("cancel", "--id", "5"), ("cancel", "5"), ("cancel", "--id=5")):
            r = d.ctl(*args)
            assert r.returncode == 1, (args, r.returncode, r.stderr)
            assert "not_found" in r.stderr and "5" in r.stderr, r.stderr
        r = d.ctl("cancel", "five")
        assert r.returncode == 2, (r.returncode, r.stderr)
    finally:
        d.stop()


def test_client_exit_codes():
    r = ctl("--socket", "/nonexistent/x.sock", "status")
    assert r.returncode == 3, (r.returncode, r.stderr)
    assert "/nonexistent/x.sock" in r.stderr, r.stderr
    r = ctl("--socket", "/nonexistent/x.sock", "frobnicate")
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "frobnicate" in r.stderr, r.stderr
    r = ctl("--socket", "/nonexistent/x.sock", "status", "--bogus")
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "--bogus" in r.stderr, r.stderr
    r = ctl("--socket", "/nonexistent/x.sock", "--bogus", "status")
    assert r.returncode == 2, (r.returncode, r.stderr)
    r = ctl("status", "--help")
    assert r.returncode == 0, (r.returncode, r.stderr)
    assert r.stdout.startswith("usage: netmetricsctl status"), r.stdout
    r = ctl("--help")
    assert r.returncode == 0 and "exit status" in r.stdout, r.stdout
    for name in ("hello", "status", "cancel"):
        assert "\n  %s " % name in r.stdout, r.stdout
    r = ctl()
    assert r.returncode == 2, r.returncode
    r = ctl("--version")
    assert r.returncode == 0 and "protocol 1" in r.stdout, r.stdout
    # A socket file nobody listens on: exit 3, with the path.
    tmp = tempfile.mkdtemp(prefix="nm-it-")
    os.chmod(tmp, 0o755)  # the daemon's main process runs as netmetrics
    try:
        path = os.path.join(tmp, "dead.sock")
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(path)
        s.close()
        r = ctl("--socket", path, "hello")
        assert r.returncode == 3 and path in r.stderr, (r.returncode, r.stderr)
    finally:
        shutil.rmtree(tmp)


# ---------------------------------------------------------------------------------------
# Many clients, silent clients, over-long and bad requests


def test_fifty_concurrent_clients():
    d = Daemon()
    n = 50
    barrier = threading.Barrier(n)
    results = [None] * n

    def worker(i):
        try:
            c = Client(d.sock, timeout=20)
            barrier.wait(20)
            base = 1000 * (i + 1)
            c.send(json.dumps({"id": base + 1, "cmd": "hello"}) + "\n" +
                   json.dumps({"id": base + 2, "cmd": "status"}) + "\n" +
                   json.dumps({"id": base + 3, "cmd": "cancel", "args": {"id": 9}}) + "\n")
            reps = [c.reply(20) for _ in range(3)]
            c.close()
            assert [r.get("id") for r in reps] == [base + 1, base + 2, base + 3], reps
            assert_ok(reps[0])
            assert reps[0]["result"]["protocol"] == 1
            assert_ok(reps[1])
            assert reps[1]["result"]["pid"] == d.pid
            assert_error(reps[2], "not_found")
            results[i] = True
        except BaseException as e:  # reported below
            results[i] = e

    try:
        threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        failures = [r for r in results if r is not True]
        assert not failures, "%d of %d clients failed: %r" % (len(failures), n, failures[:3])
        assert d.alive()
        assert wait_until(lambda: d.status()["clients"]["connected"] == 1, 5)
    finally:
        d.stop()


def test_silent_client_and_too_long():
    d = Daemon(limits={"request_timeout": "4s"}, env=rss_env())
    try:
        silent = Client(d.sock)
        other = Client(d.sock)
        assert_ok(other.call("hello", 1), 1)
        assert_ok(other.call("status", 2), 2)
        warm_up(other)
        rss0 = settled_rss(d.pid)

        big = Client(d.sock, timeout=20)
        done = threading.Event()
        errors = []

        def send_big():
            try:
                big.send(b"x" * MiB)
            except BaseException as e:
                errors.append(e)
            done.set()

        t = threading.Thread(target=send_big)
        t.start()
        # While the megabyte streams in, another client is answered.
        for i in range(5):
            start = time.monotonic()
            assert_ok(other.call("hello", 10 + i), 10 + i)
            assert time.monotonic() - start < 2, "hello took over 2 s during the flood"
        t.join(20)
        assert done.is_set() and not errors, errors

        rep = big.reply(5)
        assert rep == {"ok": False, "error": rep["error"]}, rep
        assert_error(rep, "too_long")
        assert "65536" in rep["error"]["message"], rep
        # Exactly one too_long: nothing more arrives while the line goes on...
        assert big.nothing_within(0.5), big.buf
        big.send(b"y" * 4096)
        assert big.nothing_within(0.3), big.buf
        # ...and once it ends, the same connection answers the next request, and only it.
        big.send(b"\n" + json.dumps({"id": 77, "cmd": "hello"}).encode() + b"\n")
        assert_ok(big.reply(5), 77)
        assert big.nothing_within(0.3), big.buf

        # The silent client is still connected and answered once it speaks.
        st = d.status()
        assert st["clients"]["connected"] >= 4, st["clients"]
        assert_ok(silent.call("hello", 5), 5)
        growth = rss_bytes(d.pid) - rss0
        print("     RSS %d KiB, grew by %d KiB" % (rss0 // 1024, growth // 1024))
        assert growth < 8 * MiB, "RSS grew by %d bytes" % growth
        for c in (silent, other, big):
            c.close()
    finally:
        d.stop()


def _depth(n):
    """A request nesting n objects deep: the envelope, then args and n - 2 inside it."""
    return '{"id":3,"cmd":"hello","args":' + '{"a":' * (n - 1) + "1" + "}" * (n - 1) + "}"


def test_bad_requests_keep_the_connection():
    d = Daemon()
    cases = [
        (b"hello\n", "bad_request", None),
        (b"[]\n", "bad_request", None),
        (b"3\n", "bad_request", None),
        (b'"status"\n', "bad_request", None),
        (b"\xff\xfe\n", "bad_request", None),
        (b'{"cmd":"hello","x":"\xc0\xaf"}\n', "bad_request", None),  # overlong encoding
        (_depth(20).encode() + b"\n", "bad_request", None),
        (b"[" * 20 + b"]" * 20 + b"\n", "bad_request", None),
        (b'{"id":4,"cmd":"frobnicate"}\n', "unknown_command", 4),
        (b'{"id":5,"cmd":"status","args":{"bogus":1}}\n', "bad_args", 5),
        (b'{"id":6,"cmd":"cancel"}\n', "bad_args", 6),
        (b'{"id":7,"cmd":"cancel","args":{"id":"x"}}\n', "bad_args", 7),
        (b'{"id":8}\n', "bad_request", None),
        (b'{"id":9,"cmd":42}\n', "bad_request", None),
        (b'{"id":10,"cmd":"hello","args":[]}\n', "bad_request", None),
        (b'{"cmd":"hello"} trailing\n', "bad_request", None),
    ]
    try:
        c = Client(d.sock)
        for i, (line, code, rid) in enumerate(cases):
            c.send(line)
            rep = c.reply(5)
            try:
                assert_error(rep, code, rid)
            except AssertionError as e:
                raise AssertionError("request %r: %s" % (line[:60], e))
            good = 100 + i
            rep = c.call("hello", good)
            assert_ok(rep, good)
        # Blank lines and CRLF are accepted.
        c.send(b"\n\r\n" + json.dumps({"id": 500, "cmd": "status"}).encode() + b"\r\n")
        assert_ok(c.reply(5), 500)
        # A request without an id gets a reply without one.
        c.send(b'{"cmd":"hello"}\n')
        rep = c.reply(5)
        assert_ok(rep)
        assert "id" not in rep, rep
        # Depth 16 is the limit: it is still parsed.
        c.send(_depth(16).encode() + b"\n")
        assert_error(c.reply(5), "bad_args", 3)
        c.close()
        assert d.alive()
    finally:
        d.stop()


def test_half_sent_request_times_out():
    d = Daemon(limits={"request_timeout": "500ms"})
    try:
        c = Client(d.sock)
        other = Client(d.sock)
        start = time.monotonic()
        c.send('{"cmd":"st')
        assert_ok(other.call("status", 1), 1)  # others are answered meanwhile
        rep = c.reply(5)
        elapsed = time.monotonic() - start
        assert_error(rep, "bad_request")
        assert "500 ms" in rep["error"]["message"], rep
        assert elapsed >= 0.45, "timed out after only %.3fs" % elapsed
        assert elapsed < 3, "timed out after %.3fs" % elapsed
        assert c.closed_within(3), "connection still open after the timeout"
        # An idle client with nothing half-sent is not timed out.
        assert other.nothing_within(1.0)
        assert_ok(other.call("hello", 2), 2)
        c.close()
        other.close()
    finally:
        d.stop()


def test_pipelining_steady_client_not_cut_off():
    """A client that pipelines and reads steadily is never cut off by the half-sent request
    deadline: it runs from a request's first byte while the daemon reads, not from the
    first partial line of the connection, and not while the daemon has paused reading
    (output past the high-water mark) itself."""
    d = Daemon(limits={"request_timeout": "1s", "client_output_high": "64k",
                       "client_output_low": "16k"})
    try:
        # Each write ends mid-request and completes the one before 100 ms later: no request
        # is half-sent for long, but one always is, for 3 s.
        c = Client(d.sock, timeout=10)
        c.send('{"id":1,"cmd":"hel')
        for i in range(1, 31):
            time.sleep(0.1)
            c.send('lo"}\n{"id":%d,"cmd":"hel' % (i + 1))
            assert_ok(c.reply(5), i)
        c.send('lo"}\n')
        assert_ok(c.reply(5), 31)
        c.close()

        # A writer sends thousands of requests as fast as the daemon takes them while the
        # client reads the replies steadily but slowly (1 KiB every 50 ms, for 4 s): the
        # daemon pauses reading at its high-water mark, each time for longer than the
        # deadline, with the request cut at its last read half-sent. Then it reads fast.
        c = Client(d.sock, timeout=10)
        n = 20000
        payload = "".join('{"id":%d,"cmd":"nosuch"}\n' % (i + 1) for i in range(n)).encode()
        t = threading.Thread(target=lambda: c.sock.sendall(payload), daemon=True)
        t.start()
        expect, start = 1, time.monotonic()
        while expect <= n:
            slow = time.monotonic() - start < 4
            c.sock.settimeout(10)
            data = c.sock.recv(1024 if slow else 65536)
            assert data, "closed before reply %d: %r" % (expect, c.buf[-300:])
            c.buf += data
            while b"\n" in c.buf:
                line, c.buf = c.buf.split(b"\n", 1)
                rep = json.loads(line)
                assert rep.get("id") == expect, "reply %d: %r" % (expect, rep)
                assert_error(rep, "unknown_command", expect)
                expect += 1
            if slow:
                time.sleep(0.05)
        t.join(10)
        assert "reading paused" in d.logtext(), "the daemon never paused reading"
        assert_ok(c.call("status", n + 1), n + 1)
        c.close()
    finally:
        d.stop()


def test_slow_reader_does_not_delay_others():
    d = Daemon(limits={"client_output_high": "1M", "client_output_low": "256k"}, env=rss_env())
    try:
        other = Client(d.sock)
        assert_ok(other.call("hello", 1), 1)
        warm_up(other)
        rss0 = settled_rss(d.pid)

        slow = Client(d.sock, timeout=10)
        payload = "".join(json.dumps({"id": i + 1, "cmd": "hello"}) + "\n"
                          for i in range(20000)).encode()
        sent = [0]

        def writer():
            # The daemon stops reading this client, so the writes block: stop after 10 s.
            view = memoryview(payload)
            try:
                while sent[0] < len(payload):
                    sent[0] += slow.sock.send(view[sent[0]:])
            except OSError:
                pass

        t = threading.Thread(target=writer, daemon=True)
        t.start()
        time.sleep(0.5)
        for i in range(5):
            start = time.monotonic()
            rep = other.call("status", 10 + i, timeout=2)
            assert_ok(rep, 10 + i)
            assert time.monotonic() - start < 2
        assert sent[0] < len(payload), "the daemon read every request of a client that reads nothing"
        assert wait_until(lambda: "reading paused" in d.logtext(), 5), d.logtext()[-2000:]
        growth = rss_bytes(d.pid) - rss0
        print("     RSS %d KiB, grew by %d KiB" % (rss0 // 1024, growth // 1024))
        assert growth < 8 * MiB, "RSS grew by %d bytes" % growth

        # Once the slow client reads, it gets its replies in order.
        for i in range(50):
            rep = slow.reply(10)
            assert_ok(rep, i + 1)
        slow.sock.shutdown(socket.SHUT_RDWR)
        slow.close()
        t.join(10)
        assert_ok(other.call("hello", 99), 99)
        assert d.alive()
    finally:
        d.stop()


# ---------------------------------------------------------------------------------------
# Limits


def _limit_test(limits):
    d = Daemon(limits=limits)
    try:
        # Wait until the start-up probe's connection is gone: the first client sees only
        # itself connected.
        first = []

        def alone():
            try:
                c = Client(d.sock)
                rep = c.call("status", 100)
            except (AssertionError, OSError):
                return False
            if rep.get("ok") and rep["result"]["clients"]["connected"] == 1:
                first.append(c)
                return True
            c.close()
            return False

        assert wait_until(alone, 5, step=0.05), d.logtext()
        clients = first + [Client(d.sock) for _ in range(2)]
        for i, c in enumerate(clients):
            assert_ok(c.call("hello", i + 1), i + 1)
        extra = Client(d.sock)
        rep = extra.reply(5)
        assert_error(rep, "busy")
        assert "limit 3" in rep["error"]["message"], rep
        assert extra.closed_within(3), "refused connection left open"
        extra.close()
        # The client reports the refusal with exit 1.
        r = d.ctl("status")
        assert r.returncode == 1 and "busy" in r.stderr, (r.returncode, r.stderr)
        # A connection leaving makes room for a new one.
        clients[0].close()
        assert_ok(clients[1].call("status", 10), 10)

        def answered():
            try:
                c = Client(d.sock)
                rep = c.call("hello", 11)
                clients.append(c)
                return rep.get("ok") is True
            except (AssertionError, OSError):
                return False

        assert wait_until(answered, 5, step=0.1)
        for c in clients[1:]:
            c.close()
    finally:
        d.stop()


def test_max_clients_per_uid():
    _limit_test({"max_clients_per_uid": 3})


def test_max_clients():
    _limit_test({"max_clients": 3})


def open_fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def test_emfile_pauses_accept():
    d = Daemon()
    # The sources keep descriptors open: once their number settles, leave the daemon room
    # for a few clients only (like prlimit --nofile, on the running process).
    prev = -1
    end = time.monotonic() + 5
    while time.monotonic() < end and open_fds(d.pid) != prev:
        prev = open_fds(d.pid)
        time.sleep(0.3)
    limit = prev + 8
    if os.stat("/proc/%d" % d.pid).st_uid == 0:
        resource.prlimit(d.pid, resource.RLIMIT_NOFILE, (limit, limit))
    else:
        # The main process runs as netmetrics: root without CAP_SYS_RESOURCE (a container)
        # may not change its limits, its own user may.
        st = os.stat("/proc/%d" % d.pid)
        subprocess.run(["setpriv", "--reuid=%d" % st.st_uid, "--regid=%d" % st.st_gid,
                        "--clear-groups", "prlimit", "--pid", str(d.pid),
                        "--nofile=%d:%d" % (limit, limit)], check=True)
    conns = []
    try:
        for _ in range(40):
            c = Client(d.sock, timeout=5)
            c.send(json.dumps({"id": 1, "cmd": "hello"}) + "\n")
            conns.append(c)
        time.sleep(0.5)
        assert wait_until(lambda: "pausing" in d.logtext(), 5), \
            "the daemon never ran out of descriptors:\n" + d.logtext()[-2000:]
        cpu0 = cpu_seconds(d.pid)
        time.sleep(2.0)
        used = cpu_seconds(d.pid) - cpu0
        assert d.alive(), d.logtext()[-2000:]
        print("     %d descriptors, %.3fs CPU in 2 s" % (limit, used))
        assert used < 0.5, "the daemon used %.2fs of CPU in 2 s out of descriptors" % used
        answered = 0
        for c in conns:
            if not c.nothing_within(0.01):
                answered += 1
        assert 0 < answered < 40, "%d of 40 answered under %d descriptors" % (answered, limit)
        for c in conns:
            c.close()
        conns = []

        def new_client_answered():
            try:
                c = Client(d.sock, timeout=2)
                try:
                    rep = c.call("status", 5, timeout=2)
                finally:
                    c.close()
                return rep.get("ok") is True
            except (AssertionError, OSError):
                return False

        assert wait_until(new_client_answered, 10, step=0.2), d.logtext()[-2000:]
        assert d.alive()
    finally:
        for c in conns:
            c.close()
        d.stop()


# ---------------------------------------------------------------------------------------
# Signals, start-up and shut-down


def test_sighup_reload():
    # No --log-level: a command-line option wins over the file on every reload.
    d = Daemon(log_level=None, daemon={"log_level": "debug"})
    try:
        st = d.status()
        assert st["config"]["log_level"] == "debug", st["config"]
        write_config(d.conf, dict(d.daemon_conf, log_level="warn"),
                     dict(d.limits_conf, max_clients="100"))
        d.signal(signal.SIGHUP)
        assert wait_until(lambda: d.status()["config"]["log_level"] == "warn", 5), d.status()
        st = d.status()
        assert st["clients"]["max"] == 100, st["clients"]
        assert st["pid"] == d.pid

        # A broken file: the configuration in force stays, the daemon lives.
        write_config(d.conf, raw="[daemon]\nlog_level = loud\n")
        d.signal(signal.SIGHUP)
        assert wait_until(lambda: "keeping the configuration" in d.logtext(), 5), d.logtext()
        assert "log_level" in d.logtext()
        assert d.alive()
        st = d.status()
        assert st["config"]["log_level"] == "warn" and st["clients"]["max"] == 100, st
        write_config(d.conf, raw="[nonsense\n")
        d.signal(signal.SIGHUP)
        time.sleep(0.3)
        assert d.alive() and d.status()["config"]["log_level"] == "warn"
    finally:
        d.stop()


def test_sighup_keeps_command_line_log_level():
    d = Daemon(log_level="debug")
    try:
        write_config(d.conf, dict(d.daemon_conf, log_level="warn"), d.limits_conf)
        d.signal(signal.SIGHUP)
        time.sleep(0.3)
        assert d.alive()
        assert d.status()["config"]["log_level"] == "debug"
    finally:
        d.stop()


def test_sigterm_notifies_clients():
    d = Daemon()
    try:
        idle = Client(d.sock)
        assert_ok(idle.call("hello", 1), 1)
        idle2 = Client(d.sock)  # never sent anything
        assert wait_until(lambda: d.status()["clients"]["connected"] == 3, 5)
        d.signal(signal.SIGTERM)
        for c in (idle, idle2):
            rep = c.reply(10)
            assert rep.get("event") == "shutdown", rep
            assert rep["data"]["reason"] == "SIGTERM", rep
            assert c.closed_within(5)
        assert d.wait(10) == 0, d.logtext()
        assert not os.path.exists(d.sock), "socket file left behind"
        assert "stopped (SIGTERM)" in d.logtext(), d.logtext()
    finally:
        d.stop()


def test_sigint_exits_zero():
    d = Daemon()
    try:
        d.signal(signal.SIGINT)
        assert d.wait(10) == 0
        assert not os.path.exists(d.sock)
    finally:
        d.stop()


def test_stale_and_live_socket():
    d = Daemon()
    d2 = other = None
    try:
        d.proc.kill()
        d.wait(10)
        assert os.path.exists(d.sock), "SIGKILL cannot remove the socket file"
        # A new daemon on the same path removes the stale socket and starts.
        d2 = Daemon(start=False)
        d2.argv[d2.argv.index("--socket") + 1] = d.sock
        d2.sock = d.sock
        d2.start()
        assert d2.status()["pid"] == d2.pid
        assert "removing stale socket" in d2.logtext(), d2.logtext()

        # A third one on the live socket refuses to start and leaves the socket alone.
        state = os.path.join(d2.tmp, "state3")
        r = subprocess.run([NETMETRICSD, "--foreground", "--socket", d.sock, "--state-dir",
                            state, "--config", d2.conf], capture_output=True, text=True,
                           env=clean_env(), timeout=20)
        assert r.returncode != 0, r
        assert "another netmetricsd" in r.stderr, r.stderr
        assert d2.status()["pid"] == d2.pid
        # The same without --foreground: the detaching start fails too.
        r = subprocess.run([NETMETRICSD, "--socket", d.sock, "--state-dir", state, "--config",
                            d2.conf], capture_output=True, text=True, env=clean_env(),
                           timeout=20)
        assert r.returncode != 0, r
        assert d2.status()["pid"] == d2.pid

        # A path that is not a socket is never removed.
        other = Daemon(start=False)
        with open(other.sock, "w") as f:
            f.write("not a socket\n")
        r = subprocess.run(other.argv, capture_output=True, text=True, env=clean_env(),
                           timeout=20)
        assert r.returncode != 0 and "not a socket" in r.stderr, r
        assert os.path.isfile(other.sock)
    finally:
        for x in (d, d2, other):
            if x is not None:
                x.stop()


def test_sd_notify_and_watchdog():
    tmp = tempfile.mkdtemp(prefix="nm-it-")
    os.chmod(tmp, 0o755)  # the daemon's main process runs as netmetrics
    ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    d = None
    try:
        path = os.path.join(tmp, "notify.sock")
        ns.bind(path)
        os.chmod(path, 0o666)  # as systemd's: the main process (netmetrics) sends to it
        env = clean_env(NOTIFY_SOCKET=path, WATCHDOG_USEC="200000")
        d = Daemon(env=env)
        msgs = []  # (time, line)
        ready_at = None
        end = time.monotonic() + START_TIMEOUT
        while time.monotonic() < end:
            if ready_at is not None and time.monotonic() - ready_at > 1.0:
                break
            ns.settimeout(max(0.01, end - time.monotonic()))
            try:
                data = ns.recv(4096)
            except socket.timeout:
                break
            now = time.monotonic()
            for line in data.decode().splitlines():
                msgs.append((now, line))
                if line == "READY=1" and ready_at is None:
                    ready_at = now
        lines = [m for _, m in msgs]
        assert ready_at is not None, lines
        assert any(m.startswith("STATUS=") and d.sock in m for m in lines), lines
        dogs = [t for t, m in msgs if m == "WATCHDOG=1" and t - ready_at <= 1.0]
        assert len(dogs) >= 2, "%d WATCHDOG=1 within 1 s: %r" % (len(dogs), lines)
        # Under systemd it does not detach: the pid we started is the daemon.
        assert d.status()["pid"] == d.pid

        # Reload and stop are announced too.
        ns.settimeout(0.01)
        try:
            while True:
                ns.recv(4096)
        except socket.timeout:
            pass
        d.signal(signal.SIGHUP)
        d.signal(signal.SIGTERM)
        assert d.wait(10) == 0
        got = []
        ns.settimeout(0.5)
        try:
            while True:
                got += ns.recv(4096).decode().splitlines()
        except socket.timeout:
            pass
        for want in ("RELOADING=1", "STOPPING=1"):
            assert want in got, got
    finally:
        ns.close()
        if d is not None:
            d.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def test_socket_activation():
    tmp = tempfile.mkdtemp(prefix="nm-it-")
    os.chmod(tmp, 0o755)  # the daemon's main process runs as netmetrics
    lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    d = None
    try:
        path = os.path.join(tmp, "act.sock")
        lsock.bind(path)
        lsock.listen(16)
        fd = lsock.fileno()

        def place_at_fd3():
            if fd != 3:
                os.dup2(fd, 3)  # inheritable; the original keeps its close-on-exec flag
            else:
                os.set_inheritable(3, True)

        d = Daemon(start=False, preexec_fn=place_at_fd3, close_fds=False,
                   argv_prefix=["sh", "-c", 'LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" "$@"'])
        # The configured path differs: status must show the address systemd bound.
        d.argv[d.argv.index("--socket") + 1] = os.path.join(tmp, "configured.sock")
        d.sock = path
        d.start()
        lsock.close()  # the daemon holds its copy
        st = d.status()
        assert st["socket_activated"] is True, st
        assert st["socket"] == path, st
        assert st["pid"] == d.pid
        r = d.ctl("status")
        assert "(from systemd)" in r.stdout, r.stdout
        assert "passed by systemd" in d.logtext(), d.logtext()
        d.signal(signal.SIGTERM)
        assert d.wait(10) == 0
        assert os.path.exists(path), "the daemon unlinked a socket systemd owns"
    finally:
        lsock.close()
        if d is not None:
            d.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def test_socket_activation_socket_group():
    """socket_group and socket_mode are applied to the socket systemd passed (issue 26: it
    stayed root's, and a member of the group was refused): by the daemon as root before
    the drop; a member of the group then talks to the daemon, as itself. Without
    socket_group the passed socket's group is left as systemd made it (SocketGroup=)."""
    try:
        gid = grp.getgrnam("netmetrics").gr_gid
    except KeyError:
        raise Skip("no netmetrics group (tools/install-deps makes it)")
    tmp = tempfile.mkdtemp(prefix="nm-it-")
    os.chmod(tmp, 0o755)
    d = None
    lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        path = os.path.join(tmp, "act.sock")
        old = os.umask(0o077)
        try:
            lsock.bind(path)
        finally:
            os.umask(old)
        lsock.listen(16)
        assert os.stat(path).st_gid == 0 and os.stat(path).st_mode & 0o777 == 0o700
        fd = lsock.fileno()

        def place_at_fd3():
            if fd != 3:
                os.dup2(fd, 3)
            else:
                os.set_inheritable(3, True)

        d = Daemon(start=False, preexec_fn=place_at_fd3, close_fds=False,
                   daemon={"socket_group": "netmetrics", "socket_mode": "0660"},
                   argv_prefix=["sh", "-c", 'LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" "$@"'])
        d.sock = path
        d.start()
        lsock.close()
        d.status()  # answered by the daemon: it has started
        st = os.stat(path)
        assert st.st_gid == gid and st.st_mode & 0o777 == 0o660, (st.st_gid, oct(st.st_mode), d.logtext())
        r = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup",
                            "--groups=%d" % gid, NETMETRICSCTL, "--socket", path, "status"],
                           capture_output=True, text=True, env=clean_env(), timeout=20)
        assert r.returncode == 0 and "(from systemd)" in r.stdout, (r.returncode, r.stderr)
        assert "socket_group netmetrics applied to %s" % path in d.logtext(), d.logtext()
        d.signal(signal.SIGTERM)
        assert d.wait(10) == 0
        assert os.path.exists(path), "the daemon unlinked a socket systemd owns"
    finally:
        lsock.close()
        if d is not None:
            d.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def test_non_root_peer():
    if os.geteuid() != 0:
        raise Skip("not root: cannot run the client as another user")
    if shutil.which("setpriv") is None:
        raise Skip("setpriv not found")
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    for mode, want in (("0666", 0), ("0660", 3)):
        d = Daemon(start=False, daemon={"socket_mode": mode})
        try:
            os.chmod(d.tmp, 0o755)
            # The build tree may be out of nobody's reach: run a copy of the client.
            client = os.path.join(d.tmp, "netmetricsctl")
            shutil.copy2(NETMETRICSCTL, client)
            os.chmod(client, 0o755)
            d.start()
            assert os.stat(d.sock).st_mode & 0o777 == int(mode, 8)
            r = subprocess.run(nobody + [client, "--socket", d.sock, "status"],
                               capture_output=True, text=True, env=clean_env(), timeout=20)
            assert r.returncode == want, (mode, r.returncode, r.stdout, r.stderr)
            if want == 0:
                assert "pid %d" % d.pid in r.stdout, r.stdout
                # The daemon saw uid 65534, not an admin.
                assert "uid 65534 connected" in d.logtext(), d.logtext()
                assert "uid 65534 connected (admin)" not in d.logtext()
            else:
                assert "Permission denied" in r.stderr, r.stderr
                assert d.sock in r.stderr, r.stderr
        finally:
            d.stop()


def test_detached_start():
    tmp = tempfile.mkdtemp(prefix="nm-it-")
    os.chmod(tmp, 0o755)  # the daemon's main process runs as netmetrics
    pid = None
    try:
        sock = os.path.join(tmp, "run", "d.sock")  # the parent directory is created
        state = os.path.join(tmp, "state")
        conf = os.path.join(tmp, "conf")
        write_config(conf, {"log_level": "info"})
        start = time.monotonic()
        r = subprocess.run([NETMETRICSD, "--socket", sock, "--state-dir", state, "--config",
                            conf], capture_output=True, text=True, env=clean_env(),
                           timeout=30, stdin=subprocess.DEVNULL)
        assert r.returncode == 0, (r.returncode, r.stderr)
        assert time.monotonic() - start < 20
        # Ready means ready: it answers at once.
        c = Client(sock)
        assert_ok(c.call("hello", 1), 1)
        c.close()
        r = ctl("--socket", sock, "--json", "status")
        assert r.returncode == 0, r.stderr
        st = json.loads(r.stdout)
        pid = st["pid"]
        assert st["state_dir"] == state and st["socket"] == sock, st
        assert not pid_gone(pid)
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        assert int(fields[3]) == pid, "detached daemon is not a session leader"
        os.kill(pid, signal.SIGTERM)
        assert wait_until(lambda: pid_gone(pid), 10), "daemon did not stop"
        pid = None
        assert wait_until(lambda: not os.path.exists(sock), 5), "socket file left behind"
        if not os.access("/run/systemd/journal/socket", os.W_OK):
            # Once detached it logs to the state directory.
            with open(os.path.join(state, "netmetricsd.log")) as f:
                log = f.read()
            assert "stopped (SIGTERM)" in log, log
    finally:
        if pid is not None and not pid_gone(pid):
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)


def test_detached_logging():
    """Detached (no -f, not under systemd), neither the main process nor the privileged one
    writes to the terminal it was started from: the log goes to STATE/netmetricsd.log (no
    journal socket here), start-up lines included. A failure after the detach is printed by
    the waiting parent, which exits 1."""
    if os.access("/run/systemd/journal/socket", os.W_OK):
        print("skip: a journal listens; the detached daemon logs there")
        return
    tmp = tempfile.mkdtemp(prefix="nm-it-")
    os.chmod(tmp, 0o755)  # the daemon's main process runs as netmetrics
    pid = None
    try:
        sock = os.path.join(tmp, "d.sock")
        state = os.path.join(tmp, "state")
        conf = os.path.join(tmp, "conf")
        term = os.path.join(tmp, "terminal")
        write_config(conf, {"log_level": "debug"})
        with open(term, "wb") as out:
            r = subprocess.run([NETMETRICSD, "--socket", sock, "--state-dir", state,
                                "--config", conf], stdout=out, stderr=out, env=clean_env(),
                               timeout=30, stdin=subprocess.DEVNULL)
        assert r.returncode == 0, (r.returncode, open(term).read())
        pid = json.loads(ctl("--socket", sock, "--json", "status").stdout)["pid"]
        pri = privileged_child(pid)
        if os.geteuid() == 0:
            assert pri is not None, "no privileged process"
            # Neither process has the starter's file open as its stderr (or anything).
            for p in (pid, pri):
                for fd in (0, 1, 2):
                    target = os.readlink("/proc/%d/fd/%d" % (p, fd))
                    assert target != term, (p, fd, target)
        # Work that logs (at debug: every connection).
        for _ in range(3):
            assert ctl("--socket", sock, "status").returncode == 0
        os.kill(pid, signal.SIGTERM)
        assert wait_until(lambda: pid_gone(pid), 10), "daemon did not stop"
        pid = None
        with open(term) as f:
            text = f.read()
        assert text == "", "the detached daemon wrote to the terminal:\n" + text
        with open(os.path.join(state, "netmetricsd.log")) as f:
            log = f.read()
        # The start-up lines, the requests' and the stop are in the log.
        assert "listening on %s" % sock in log, log
        assert "stopped (SIGTERM)" in log, log
        if os.geteuid() == 0:
            assert "privsep: main process runs as uid" in log, log

        # A failure after the detach: the control socket cannot be made (its directory
        # would be below a regular file). The parent prints it and exits 1.
        bad = os.path.join(tmp, "terminal", "sub", "d.sock")
        state2 = os.path.join(tmp, "state2")
        r = subprocess.run([NETMETRICSD, "--socket", bad, "--state-dir", state2, "--config",
                            conf], capture_output=True, text=True, env=clean_env(),
                           timeout=30, stdin=subprocess.DEVNULL)
        assert r.returncode == 1, (r.returncode, r.stderr)
        assert r.stderr.startswith("netmetricsd: control socket: "), r.stderr
        assert bad in r.stderr or "terminal" in r.stderr, r.stderr
        assert r.stderr.count("\n") == 1, r.stderr  # printed once, by the parent
        with open(os.path.join(state2, "netmetricsd.log")) as f:
            assert "control socket: " in f.read()

        if os.geteuid() == 0:
            # One after the privileged process is forked and the main process dropped to
            # netmetrics: a state directory below a 0700 directory it cannot reach.
            closed = os.path.join(tmp, "closed")
            os.mkdir(closed, 0o700)
            r = subprocess.run([NETMETRICSD, "--socket", os.path.join(tmp, "e.sock"),
                                "--state-dir", os.path.join(closed, "state"), "--config",
                                conf], capture_output=True, text=True, env=clean_env(),
                               timeout=30, stdin=subprocess.DEVNULL)
            assert r.returncode == 1, (r.returncode, r.stderr)
            assert "not reachable as user" in r.stderr, r.stderr
            assert r.stdout == "", r.stdout
    finally:
        if pid is not None and not pid_gone(pid):
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)


def test_check_config():
    files = sorted(glob.glob(os.path.join(SRCDIR, "conf", "*.conf")))
    assert files, "no conf/*.conf in %s" % SRCDIR
    for f in files:
        r = subprocess.run([NETMETRICSD, "--check-config", "--config", f], capture_output=True,
                           text=True, env=clean_env(), timeout=20)
        assert r.returncode == 0, (f, r.returncode, r.stderr)
        assert r.stdout.strip() == "configuration OK", (f, r.stdout)

    tmp = tempfile.mkdtemp(prefix="nm-it-")
    os.chmod(tmp, 0o755)  # the daemon's main process runs as netmetrics
    try:
        bad = [
            ("[limits]\nmax_clientz = 3\n", "max_clientz"),
            ("[limits]\nrequest_timeout = soon\n", "request_timeout"),
            ("[limits]\nmax_clients = 0\n", "max_clients"),
            ("[limits]\nclient_output_high = 1M\nclient_output_low = 2M\n",
             "client_output_low"),
            ("[daemon]\nsocket_mode = 0999\n", "socket_mode"),
            ("[daemon]\nsocket = relative.sock\n", "socket"),
            ("[daemon]\nlog_level = loud\n", "log_level"),
            ("[deamon]\nlog_level = info\n", "deamon"),
            ("[daemon\n", "conf"),
        ]
        for i, (text, word) in enumerate(bad):
            path = os.path.join(tmp, "bad%d.conf" % i)
            with open(path, "w") as f:
                f.write(text)
            r = subprocess.run([NETMETRICSD, "--check-config", "--config", path],
                               capture_output=True, text=True, env=clean_env(), timeout=20)
            assert r.returncode != 0, (text, r.stdout)
            assert word in r.stderr, (text, r.stderr)
            assert "configuration OK" not in r.stdout, r.stdout
        r = subprocess.run([NETMETRICSD, "--check-config", "--config",
                            os.path.join(tmp, "missing.conf")], capture_output=True, text=True,
                           env=clean_env(), timeout=20)
        assert r.returncode != 0 and "missing.conf" in r.stderr, r
        r = subprocess.run([NETMETRICSD, "--bogus"], capture_output=True, text=True,
                           env=clean_env(), timeout=20)
        assert r.returncode == 2 and "usage" in r.stderr, r
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_cpu_set_of_one_is_one_row():
    """cpu --cpus 0 prints CPU 0's row once (the set's sum of one CPU is that row, not a
    second one); a set of two CPUs prints both rows and the set's sum, labelled by the list."""
    d = Daemon()
    try:
        wait_until(lambda: json.loads(d.ctl("--json", "cpu", "--cpus", "0").stdout or "{}")
                   .get("cpus"), 10, 0.2)
        r = d.ctl("cpu", "--cpus", "0")
        assert r.returncode == 0, r.stderr
        labels = [ln.split()[0] for ln in r.stdout.splitlines() if ln.split()]
        assert labels.count("0") == 1, r.stdout
        assert labels.count("all") == 1, r.stdout
        if os.cpu_count() >= 2:
            r = d.ctl("cpu", "--cpus", "0-1")
            labels = [ln.split()[0] for ln in r.stdout.splitlines() if ln.split()]
            assert labels.count("0") == 1 and labels.count("1") == 1, r.stdout
            assert labels.count("0-1") == 1, r.stdout
    finally:
        d.stop()


def test_durations_with_units():
    """Times on the command line take units (--from -1m, --to -30s, --step 500ms, --last
    2s); the daemon gets seconds; a bad duration is refused by the client (exit 2)."""
    d = Daemon()
    try:
        time.sleep(4)
        r = d.ctl("--json", "series", "cpu.online", "--from", "-3s500ms", "--to", "-1s",
                  "--step", "500ms")
        assert r.returncode == 0, r.stderr
        o = json.loads(r.stdout)
        # The daemon starts the range no earlier than its ring: from may be later.
        assert o["step"] == 0.5, o
        assert 0 <= o["to"] - o["from"] <= 2.51, o
        assert 0.5 < time.time() - o["to"] < 4, o
        # The same with bare numbers (seconds, as before): the same range.
        b = json.loads(d.ctl("--json", "series", "cpu.online", "--from", "-3.5", "--to", "-1",
                             "--step", "0.5").stdout)
        # (A sample between the two requests moves "to" by one interval, 1 s, at most.)
        assert b["step"] == 0.5 and abs(b["to"] - o["to"]) <= 1.001, (o, b)
        r = d.ctl("--json", "rates", "cpu.online", "--last", "2s")
        assert r.returncode == 0, r.stderr
        for bad in ("5x", "1m30", "5 m", "-", "1e3s"):
            r = d.ctl("rates", "--last", bad)
            assert r.returncode == 2 and "duration" in r.stderr, (bad, r.returncode, r.stderr)
        # Out of range after conversion: the daemon's range check, as for a number.
        r = d.ctl("rates", "--last", "2d")
        assert r.returncode == 2 and "last" in r.stderr, r.stderr
    finally:
        d.stop()


# ---------------------------------------------------------------------------------------


def main(argv, tests_of=None):
    """Run the test_* functions of tests_of (a module's globals(); default this one's)."""
    for name, val in (("NETMETRICSD", NETMETRICSD), ("NETMETRICSCTL", NETMETRICSCTL)):
        if not val or not os.access(val, os.X_OK):
            print("%s is not set to an executable (got %r)" % (name, val))
            print("0 passed, 1 failed")
            return 1
    tests = [(n, f) for n, f in sorted((tests_of or globals()).items())
             if n.startswith("test_") and callable(f)]
    if argv:
        tests = [(n, f) for n, f in tests if any(a in n for a in argv)]
    passed = failed = skipped = 0
    for name, fn in tests:
        start = time.monotonic()
        try:
            fn()
        except Skip as e:
            skipped += 1
            print("SKIP %s: %s" % (name, e), flush=True)
            continue
        except BaseException:
            failed += 1
            print("FAIL %s (%.1fs)" % (name, time.monotonic() - start), flush=True)
            traceback.print_exc(file=sys.stdout)
            sys.stdout.flush()
            if sys.exc_info()[0] is KeyboardInterrupt:
                break
            continue
        finally:
            for d in list(_live):
                d.stop()
        passed += 1
        print("ok   %s (%.1fs)" % (name, time.monotonic() - start), flush=True)
    summary = "%d passed, %d failed" % (passed, failed)
    if skipped:
        summary += ", %d skipped" % skipped
    print(summary)
    return 1 if failed or not tests else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
