#!/usr/bin/env python3
"""The Prometheus endpoint ([prometheus] listen) against promtool and a real Prometheus.

- promtool check metrics passes on the exposition of the 144-CPU fixture (gen-host.py) and of
  the real host; the fixture's default set stays under 5,000 series (roll-ups and
  drop_unmoved) with what the dashboard reads; OpenMetrics, gzip, 404 and 405 answer as they
  should.
- A real `prometheus` server scrapes a daemon every second while iperf3 sends over a veth:
  rate(netmetrics_link_bytes_total{device="vb",direction="rx"}[5s]) from its HTTP API is
  within 5 % of the veth's own counter rate (/sys/class/net/vb/statistics/rx_bytes read at
  the two ends of the same 5 s), and every PromQL expression of conf/grafana/netmetrics.json
  parses and returns data.

Where things run: the daemon, iperf3's server and prometheus all run inside namespace B
(the veth's vb end, lo up there), prometheus scraping the daemon on B's loopback. Nothing
listens in the root namespace, no port can collide with another test's, and the daemon
samples vb, which it can only see from inside B. The test reaches prometheus's API from B
too (`ip netns exec B python3 ...`). Prometheus runs in its own temporary directory and is
killed, with everything else, even when a check fails.

Needs root (namespaces), iperf3, prometheus and promtool (Debian `prometheus`).
Environment: NETMETRICSD, NETMETRICSCTL, SRCDIR. Ends with "N passed, M failed".
"""
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nsrun  # noqa: E402
from nsrun import Skip  # noqa: E402
from test_sampling import NETMETRICSD, Daemon, sh  # noqa: E402

SRCDIR = os.environ.get("SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
TAG = "nmp%d" % os.getpid()
NS_A, NS_B = TAG + "a", TAG + "b"
ADDR_A, ADDR_B = "10.198.0.1", "10.198.0.2"
GEN_HOST = os.path.join(SRCDIR, "tests", "fixtures", "gen-host.py")
DASHBOARD = os.path.join(SRCDIR, "conf", "grafana", "netmetrics.json")

# Fetch a URL from inside a namespace; prints the status, a newline, then the body (base64).
NS_GET = r"""
import base64, sys, urllib.request, urllib.error
req = urllib.request.Request(sys.argv[1], method=sys.argv[2],
                             headers=dict(h.split(": ", 1) for h in sys.argv[3:]))
try:
    r = urllib.request.urlopen(req, timeout=20)
    code, body, hdrs = r.status, r.read(), r.headers
except urllib.error.HTTPError as e:
    code, body, hdrs = e.code, e.read(), e.headers
sys.stdout.write("%d\n%s\n%s" % (code, base64.b64encode(str(hdrs).encode()).decode(),
                                  base64.b64encode(body).decode()))
"""


def need_prometheus():
    for tool in ("prometheus", "promtool"):
        if shutil.which(tool) is None:
            raise AssertionError("%s is missing: apt-get install prometheus" % tool)


def http(url, ns=None, method="GET", headers=()):
    """(status, headers text, body bytes) of a request made from namespace ns (None: here)."""
    import base64
    cmd = ([] if ns is None else ["ip", "netns", "exec", ns]) + [
        sys.executable, "-c", NS_GET, url, method] + list(headers)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise AssertionError("GET %s: %s" % (url, r.stderr[-500:]))
    code, hdrs, body = r.stdout.split("\n", 2)
    return int(code), base64.b64decode(hdrs).decode(), base64.b64decode(body)


def free_port(ns=None):
    cmd = ([] if ns is None else ["ip", "netns", "exec", ns]) + [
        sys.executable, "-c",
        "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); "
        "print(s.getsockname()[1])"]
    return int(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)


def promtool_check(text):
    r = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, "promtool check metrics: %s%s" % (r.stdout[-2000:],
                                                               r.stderr[-2000:])


def gauge(text, name):
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError("no %s in the exposition" % name)


def make_pair():
    """Namespaces A and B, veth va (A) <-> vb (B) with 4 queues each (an mq root qdisc: per
    tx-queue counts for the per-queue panel), addresses up, lo up in both."""
    sh("ip", "netns", "add", NS_A)
    sh("ip", "netns", "add", NS_B)
    sh("ip", "link", "add", "va", "netns", NS_A, "numtxqueues", "4", "numrxqueues", "4",
       "type", "veth", "peer", "name", "vb", "netns", NS_B, "numtxqueues", "4",
       "numrxqueues", "4")
    for ns, dev, addr in ((NS_A, "va", ADDR_A), (NS_B, "vb", ADDR_B)):
        sh("ip", "addr", "add", addr + "/24", "dev", dev, ns=ns)
        sh("ip", "link", "set", dev, "up", ns=ns)
        sh("ip", "link", "set", "lo", "up", ns=ns)
    sh("tc", "qdisc", "replace", "dev", "vb", "root", "mq", ns=NS_B)


def remove_pair():
    nsrun.remove_netns(NS_A, NS_B)


def check_endpoint(port, ns=None):
    """The text exposition (checked by promtool); OpenMetrics, gzip, 404 and 405 on the way."""
    base = "http://127.0.0.1:%d" % port
    code, hdrs, body = http(base + "/metrics", ns)
    assert code == 200, "GET /metrics: %d" % code
    assert "text/plain; version=0.0.4" in hdrs, hdrs
    text = body.decode()
    promtool_check(text)
    code, hdrs, om = http(base + "/metrics", ns, headers=[
        "Accept: application/openmetrics-text;version=1.0.0,text/plain;q=0.5"])
    assert code == 200 and "application/openmetrics-text" in hdrs, hdrs
    assert om.decode().endswith("# EOF\n"), om[-200:]
    code, hdrs, gz = http(base + "/metrics", ns, headers=["Accept-Encoding: gzip"])
    assert code == 200 and "Content-Encoding: gzip" in hdrs, hdrs
    plain = gzip.decompress(gz).decode()
    assert plain.count("\n") > 0.9 * text.count("\n"), "gzipped body is short"
    assert http(base + "/nope", ns)[0] == 404
    assert http(base + "/metrics", ns, method="POST")[0] == 405
    return text


def test_promtool_fixture():
    """promtool passes on the 144-CPU fixture's exposition, under 5,000 series."""
    need_prometheus()
    base = tempfile.mkdtemp(prefix="nm-prom-fx-")
    d = None
    try:
        os.chmod(base, 0o755)  # the daemon's main process reads the root as netmetrics
        root = os.path.join(base, "root")
        subprocess.run([sys.executable, GEN_HOST, root, "--cpus", "144", "--queues", "144"],
                       check=True, capture_output=True, timeout=600)
        subprocess.run(["chmod", "-R", "a+rX", root], check=True)
        port = free_port()
        d = Daemon(extra="[daemon]\nroot = %s\n[prometheus]\nlisten = 127.0.0.1:%d\n"
                   % (root, port))
        time.sleep(1.5)
        text = check_endpoint(port)
        n = gauge(text, "netmetrics_export_series")
        # The defaults ([prometheus] rollup, drop_unmoved): under 5,000 series (about
        # 8,500 without them), with every family the dashboard reads.
        print("default set of the 144-CPU fixture: %d series" % n)
        assert 2000 < n < 5000, "default set of the 144-CPU fixture: %d series" % n
        assert gauge(text, "netmetrics_export_series_dropped") == 0
        assert 'netmetrics_softirqs_total{type="TIMER",cpuset="all"}' in text
        assert 'netmetrics_softirqs_total{cpu="0",type="NET_RX"}' in text
        assert 'netmetrics_softirqs_total{cpu="0",type="TIMER"}' not in text
        assert 'netmetrics_queue_irq_info{' in text
        assert 'netmetrics_softnet_total{cpu="0",field="dropped"}' in text
        for fam in ("netmetrics_link_bytes_total", "netmetrics_queue_packets_total",
                    "netmetrics_cpu_seconds_total", "netmetrics_softirqs_total",
                    "netmetrics_ipis_total", "netmetrics_device_interrupts_total",
                    "netmetrics_snmp_total", "netmetrics_softnet_total",
                    "netmetrics_lnstat_total"):
            assert ("\n%s{" % fam) in text, "no %s" % fam
        assert 'netmetrics_cpu_seconds_total{cpu="143",mode="user"}' in text
        assert "netmetrics_irq_interrupts_total{" not in text, "raw IRQ cells are opt-in"
    finally:
        if d is not None:
            assert d.stop() == 0, "daemon exit status"
        shutil.rmtree(base, ignore_errors=True)


def test_promtool_host():
    """promtool passes on the real host's exposition, raw IRQ cells and ethtool opted in;
    a second listen line on port 999 works although the main process runs without
    capabilities (bound before the drop)."""
    need_prometheus()
    port = free_port(NS_B)
    d = Daemon(ns=NS_B, extra="[prometheus]\nlisten = 127.0.0.1:%d\nlisten = 127.0.0.1:999\n"
               "export = irq.*\nexport = ethtool.*\nmax_series = 50000\n" % port)
    try:
        time.sleep(1.5)
        with open("/proc/%d/status" % d.proc.pid) as f:
            status = dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)
        assert int(status["CapEff"], 16) == 0 and status["Uid"].split()[0] != "0", status
        assert http("http://127.0.0.1:999/metrics", NS_B)[0] == 200, "port 999"
        text = check_endpoint(port, NS_B)
        assert 'netmetrics_link_bytes_total{device="vb",direction="rx"}' in text
        assert "netmetrics_irq_interrupts_total{" in text, "export = irq.* did not opt in"
        # A reload to a cap of 10 series: the rest is counted as dropped.
        with open(os.path.join(d.dir, "netmetricsd.conf"), "a") as f:
            f.write("max_series = 10\n")
        d.proc.send_signal(signal.SIGHUP)
        deadline = time.time() + 10
        while time.time() < deadline:
            text = http("http://127.0.0.1:%d/metrics" % port, NS_B)[2].decode()
            if gauge(text, "netmetrics_export_series") == 10:
                break
            time.sleep(0.2)
        assert gauge(text, "netmetrics_export_series") == 10, "max_series = 10 not applied"
        assert gauge(text, "netmetrics_export_series_dropped") > 100
        promtool_check(text)
    finally:
        assert d.stop() == 0, "daemon exit status"


def test_stuck_scrapers():
    """Scrapers that never read their reply fill max_connections: sampling and the control
    socket go on, and the next scraper is served at once: its connection drops the one that
    has waited longest (before, it waited for timeout to close the stuck ones)."""
    port = free_port(NS_B)
    d = Daemon(ns=NS_B, extra="[prometheus]\nlisten = 127.0.0.1:%d\nmax_connections = 2\n"
               "timeout = 5s\n" % port)
    stuck = None
    try:
        # Two connections ask for /metrics with a tiny receive buffer and never read.
        stuck = subprocess.Popen(
            ["ip", "netns", "exec", NS_B, sys.executable, "-c",
             "import socket, sys, time\n"
             "ss = []\n"
             "for _ in range(2):\n"
             "    s = socket.socket()\n"
             "    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)\n"
             "    s.connect(('127.0.0.1', %d))\n"
             "    s.sendall(b'GET /metrics HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n')\n"
             "    ss.append(s)\n"
             "    time.sleep(0.2)\n"
             "print('sent', flush=True)\n"
             "time.sleep(60)\n" % port],
            stdout=subprocess.PIPE, text=True)
        assert stuck.stdout.readline().strip() == "sent"
        before = {s["name"]: s["samples"] for s in d.json("status")["sources"]}
        t0 = time.time()
        code, _, body = http("http://127.0.0.1:%d/metrics" % port, NS_B)
        waited = time.time() - t0
        assert code == 200 and b"netmetrics_link_bytes_total" in body, code
        # Served at once, not after the stuck ones' 5 s (ip netns exec and python start up
        # in the time measured).
        assert waited < 3.0, "third scraper waited %.1f s" % waited
        time.sleep(1.2)
        after = {s["name"]: s["samples"] for s in d.json("status")["sources"]}
        assert after["link"] >= before["link"] + 2, "sampling stalled: %s -> %s" % (
            before["link"], after["link"])
    finally:
        if stuck is not None:
            stuck.kill()
            stuck.wait()
        assert d.stop() == 0, "daemon exit status"


# Opens N connections to the endpoint, a few hundred a second, each sending half a request
# and then one header line a second (an idle timeout would never fire); prints, when told to
# stop on stdin, how many the daemon closed.
SLOW_FLOOD = r"""
import resource, select, socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_NOFILE, (n + 100, max(n + 100, resource.getrlimit(resource.RLIMIT_NOFILE)[1])))
open_, closed = [], 0
last_drip = time.time()
print("started", flush=True)
while True:
    if len(open_) + closed < n:
        for _ in range(20):
            s = socket.socket()
            s.setblocking(False)
            try:
                s.connect(("127.0.0.1", port))
            except BlockingIOError:
                pass
            open_.append([s, False])
    if time.time() - last_drip >= 1.0:
        last_drip = time.time()
        for c in open_:
            try:
                c[0].send(b"X-Drip: 1\r\n" if c[1] else b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
                c[1] = True
            except OSError:
                pass
    r, _, _ = select.select([sys.stdin] + [c[0] for c in open_[:900]], [], [], 0.05)
    for c in list(open_):
        if c[0] in r:
            try:
                data = c[0].recv(65536)
            except OSError:
                data = b""
            if not data:
                c[0].close()
                open_.remove(c)
                closed += 1
    if sys.stdin in r:
        sys.stdin.readline()
        print("%d %d" % (closed, len(open_)), flush=True)
        break
"""

# Every 0.2 s for T seconds: a control socket status and a fresh scrape, each timed from
# connect to the last byte; prints the worst of each (ms) and any failure.
PROBE = r"""
import json, socket, sys, time
sock, port, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
worst_status = worst_scrape = 0.0
fails, st_ms, sc_ms = [], [], []
end = time.time() + secs
while time.time() < end:
    t0 = time.monotonic()
    u = socket.socket(socket.AF_UNIX)
    u.settimeout(5)
    try:
        u.connect(sock)
        u.sendall(b'{"id":1,"cmd":"status"}\n')
        buf = b""
        while not buf.endswith(b"\n"):
            d = u.recv(65536)
            if not d:
                break
            buf += d
        if b'"ok":true' not in buf:
            fails.append("status: " + buf[:200].decode(errors="replace"))
    except OSError as e:
        fails.append("status: %s" % e)
    u.close()
    st_ms.append((time.monotonic() - t0) * 1000)
    worst_status = max(worst_status, st_ms[-1])
    t0 = time.monotonic()
    s = socket.socket()
    s.settimeout(5)
    try:
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        buf = b""
        while True:
            d = s.recv(1 << 20)
            if not d:
                break
            buf += d
        if not buf.startswith(b"HTTP/1.1 200") or b"netmetrics_" not in buf:
            fails.append("scrape: " + buf[:100].decode(errors="replace"))
    except OSError as e:
        fails.append("scrape: %s" % e)
    s.close()
    sc_ms.append((time.monotonic() - t0) * 1000)
    worst_scrape = max(worst_scrape, sc_ms[-1])
    time.sleep(0.2)
print(json.dumps({"status_ms": worst_status, "scrape_ms": worst_scrape, "fails": fails[:5],
                  "nfails": len(fails), "status_all": st_ms, "scrape_all": sc_ms}))
"""


def main_pid(d):
    return d.json("status")["pid"]


def open_fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def test_slow_connections():
    """2,000 connections that each send a header line a second (the attack that used to
    exhaust the descriptors: they were counted only once a request was whole, and each byte
    restarted the timeout): status and a fresh scrape answer within 100 ms throughout, the
    main process holds no more than max_connections of them, every one is closed by the
    request deadline or dropped for a newer one, and the log says so in one line, not one
    per connection."""
    port = free_port(NS_B)
    d = Daemon(ns=NS_B, extra="[prometheus]\nlisten = 127.0.0.1:%d\nmax_connections = 8\n"
               "timeout = 3s\n" % port)
    flood = None
    try:
        pid = main_pid(d)
        fds0 = open_fds(pid)
        flood = subprocess.Popen(["ip", "netns", "exec", NS_B, sys.executable, "-c",
                                  SLOW_FLOOD, str(port), "2000"],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert flood.stdout.readline().strip() == "started"
        probe = subprocess.Popen(["ip", "netns", "exec", NS_B, sys.executable, "-c", PROBE,
                                  d.sock, str(port), "10"], stdout=subprocess.PIPE, text=True)
        most = 0
        while probe.poll() is None:
            most = max(most, open_fds(pid) - fds0)
            time.sleep(0.1)
        res = json.loads(probe.stdout.read())
        flood.stdin.write("stop\n")
        flood.stdin.flush()
        closed, still = map(int, flood.stdout.readline().split())
        print("    worst status %.1f ms, worst scrape %.1f ms, most open %d, closed %d, "
              "open %d" % (res["status_ms"], res["scrape_ms"], most, closed, still))
        assert res["nfails"] == 0, res
        # Each answered in 100 ms but at most one of each (~40 of each over 10 s), and that
        # one within 500 ms: on two cores busy with the flood's 2,000 connections and ASan,
        # one status once took 100.1 ms, its others a few ms (the loop thread waiting for a
        # CPU). Under the attack this guards against, answers took seconds or none came.
        for key in ("status_all", "scrape_all"):
            slow = [x for x in res[key] if x >= 100]
            assert len(res[key]) >= 10 and len(slow) <= 1 and max(res[key]) < 500, \
                (key, slow, len(res[key]))
        # Bounded, not 2,000: 8 connections, the probe's two, and the ones shut down but not
        # yet released by evhttp (a turn's burst of 5, at most a few turns of them; 18 seen
        # under ASan on a loaded machine, 9-13 here).
        assert most <= 32, most
        assert closed >= 1900, (closed, still)
        lines = [x for x in d.logtext().splitlines() if "connection" in x and "dropped" in x]
        assert 1 <= len(lines) <= 2, lines
    finally:
        if flood is not None:
            flood.kill()
            flood.wait()
        assert d.stop() == 0, "daemon exit status"


def test_accept_out_of_descriptors():
    """Out of descriptors, the endpoint pauses accepting (libevent's listener used to retry
    accept() at once, spinning at 100 % CPU and logging each failure): little CPU, one log
    line, and scrapes again once descriptors come free. The daemon starts with a descriptor
    limit of 80 (it cannot raise it: hard = soft) and idle control clients take all but one."""
    import socket as pysocket
    port = free_port(NS_B)
    d = Daemon(ns=NS_B, extra="[prometheus]\nlisten = 127.0.0.1:%d\n" % port,
               prefix=("prlimit", "--nofile=80:80"))
    holder, clients = None, []
    try:
        pid = main_pid(d)
        time.sleep(0.5)
        free = 80 - open_fds(pid)
        assert free > 5, "the daemon already holds %d descriptors" % open_fds(pid)
        for _ in range(free - 1):
            c = pysocket.socket(pysocket.AF_UNIX)
            c.connect(d.sock)
            clients.append(c)
        deadline = time.time() + 5
        while open_fds(pid) < 79:
            assert time.time() < deadline, "control clients not accepted: %d" % open_fds(pid)
            time.sleep(0.05)
        # Six connections: the daemon can take one, the rest wait in the backlog.
        holder = subprocess.Popen(
            ["ip", "netns", "exec", NS_B, sys.executable, "-c",
             "import socket, sys, time\n"
             "ss = [socket.create_connection(('127.0.0.1', %d)) for _ in range(6)]\n"
             "print('held', flush=True)\n"
             "sys.stdin.readline()\n" % port],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert holder.stdout.readline().strip() == "held"
        time.sleep(0.5)

        def cpu():
            with open("/proc/%d/stat" % pid) as f:
                v = f.read().rsplit(")", 1)[1].split()
            return (int(v[11]) + int(v[12])) / os.sysconf("SC_CLK_TCK")
        c0 = cpu()
        time.sleep(3)
        used = cpu() - c0
        assert used < 0.5, "main process used %.2f s of CPU in 3 s out of descriptors" % used
        lines = [x for x in d.logtext().splitlines() if "accepting paused" in x]
        assert len(lines) == 1, d.logtext()
        assert "Error from accept" not in d.logtext(), d.logtext()
        for c in clients:
            c.close()
        clients = []
        holder.stdin.write("go\n")
        holder.stdin.flush()
        holder.wait(10)
        t0 = time.time()
        while True:
            try:
                code = http("http://127.0.0.1:%d/metrics" % port, NS_B)[0]
            except AssertionError:
                code = 0
            if code == 200 or time.time() - t0 > 5:
                break
        assert code == 200, code
    finally:
        for c in clients:
            c.close()
        if holder is not None:
            holder.kill()
            holder.wait()
        assert d.stop() == 0, "daemon exit status"


def test_profile_gauges():
    """An applied profile shows as netmetrics_profile_applied, and whether its values drifted
    (checked on a timer, not in the scrape) as netmetrics_profile_drift."""
    port = free_port(NS_B)
    d = Daemon(ns=NS_B, extra="[daemon]\nprofile_dir = %s\n[prometheus]\n"
               "listen = 127.0.0.1:%d\n" % (os.path.join(SRCDIR, "conf", "profiles"), port))
    url = "http://127.0.0.1:%d/metrics" % port

    def wait_for(line):
        deadline = time.time() + 20
        while time.time() < deadline:
            text = http(url, NS_B)[2].decode()
            if line in text.splitlines():
                return
            time.sleep(0.5)
        raise AssertionError("no line %r in:\n%s" % (line, [
            ln for ln in text.splitlines() if "profile" in ln]))

    try:
        text = http(url, NS_B)[2].decode()
        assert "netmetrics_profile_applied{" not in text
        d.ctl("profile", "apply", "rps-all", "--dev", "vb")
        wait_for('netmetrics_profile_applied{name="rps-all"} 1')
        wait_for('netmetrics_profile_drift{name="rps-all"} 0')
        sh("sh", "-c", "echo 0 > /sys/class/net/vb/queues/rx-1/rps_cpus", ns=NS_B)
        wait_for('netmetrics_profile_drift{name="rps-all"} 1')
        d.ctl("profile", "revert")
        deadline = time.time() + 10
        while "netmetrics_profile_applied{" in http(url, NS_B)[2].decode():
            assert time.time() < deadline, "profile still shown after revert"
            time.sleep(0.5)
    finally:
        assert d.stop() == 0, "daemon exit status"


def test_test_and_window_gauges():
    """A running test and an open window show as 1; both go once they end."""
    port = free_port(NS_B)
    d = Daemon(ns=NS_B, extra="[prometheus]\nlisten = 127.0.0.1:%d\n" % port)
    url = "http://127.0.0.1:%d/metrics" % port

    def lines():
        return http(url, NS_B)[2].decode().splitlines()

    try:
        d.ctl("mark", "start", "w1")
        d.ctl("test", "start", "--driver", "exec", "--name", "pt", "--duration", "30", "--",
              "sleep", "60")
        deadline = time.time() + 15
        while 'netmetrics_test_running{name="pt",driver="exec"} 1' not in lines():
            assert time.time() < deadline, [ln for ln in lines() if "running" in ln]
            time.sleep(0.3)
        assert 'netmetrics_window_open{name="w1",origin="hand"} 1' in lines(), \
            [ln for ln in lines() if "window" in ln]
        d.ctl("test", "stop", "pt")
        d.ctl("mark", "stop", "w1")
        deadline = time.time() + 15
        while any(ln.startswith(("netmetrics_test_running{", 'netmetrics_window_open{name="w'))
                  for ln in lines()):
            assert time.time() < deadline, [ln for ln in lines() if "running" in ln or
                                            "window" in ln]
            time.sleep(0.3)
    finally:
        assert d.stop() == 0, "daemon exit status"


class Prometheus:
    """A prometheus server in namespace ns scraping 127.0.0.1:target every second."""

    def __init__(self, ns, target):
        self.ns = ns
        self.dir = tempfile.mkdtemp(prefix="nm-prometheus-")
        self.port = free_port(ns)
        conf = os.path.join(self.dir, "prometheus.yml")
        with open(conf, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                    "scrape_configs:\n  - job_name: netmetrics\n    static_configs:\n"
                    "      - targets: ['127.0.0.1:%d']\n" % target)
        self.log = open(os.path.join(self.dir, "log"), "w")
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", ns, "prometheus", "--config.file=" + conf,
             "--storage.tsdb.path=" + os.path.join(self.dir, "data"),
             "--web.listen-address=127.0.0.1:%d" % self.port],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)

    def api(self, path, **params):
        url = "http://127.0.0.1:%d/api/v1/%s?%s" % (self.port, path,
                                                     urllib.parse.urlencode(params))
        code, _, body = http(url, self.ns)
        try:
            return json.loads(body)
        except ValueError:
            return {"status": "error", "error": "HTTP %d: %r" % (code, body[:200])}

    def query(self, expr, t=None):
        r = self.api("query", query=expr, **({} if t is None else {"time": "%.3f" % t}))
        assert r.get("status") == "success", "query %s: %s" % (expr, r)
        return r["data"]["result"]

    def logtext(self):
        self.log.flush()
        with open(self.log.name) as f:
            return f.read()[-3000:]

    def stop(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def sys_rx_bytes():
    r = sh("cat", "/sys/class/net/vb/statistics/rx_bytes", ns=NS_B)
    return int(r.stdout)


def dashboard_exprs():
    with open(DASHBOARD) as f:
        dash = json.load(f)
    exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
    exprs += [a["expr"] for a in dash["annotations"]["list"] if "expr" in a]
    assert len(exprs) >= 8, "dashboard has %d expressions" % len(exprs)
    return [e.replace("$__rate_interval", "5s").replace("$instance", ".*") for e in exprs]


def test_prometheus_rate_matches_veth():
    """A real Prometheus's rate() of vb's rx bytes is within 5 % of the veth's counter rate;
    every dashboard expression parses and returns data."""
    need_prometheus()
    if shutil.which("iperf3") is None:
        raise Skip("iperf3 is missing")
    target = free_port(NS_B)
    d = Daemon(ns=NS_B, extra="[prometheus]\nlisten = 127.0.0.1:%d\n" % target)
    prom = server = client = None
    try:
        prom = Prometheus(NS_B, target)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if prom.query('up{job="netmetrics"} == 1'):
                    break
            except AssertionError:
                pass  # not answering yet
            if prom.proc.poll() is not None:
                raise AssertionError("prometheus exited: " + prom.logtext())
            time.sleep(0.5)
        else:
            raise AssertionError("prometheus never scraped the daemon: " + prom.logtext())
        d.ctl("mark", "start", "prom-window")
        server = subprocess.Popen(["ip", "netns", "exec", NS_B, "iperf3", "-s", "-B", ADDR_B],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        client = subprocess.Popen(["ip", "netns", "exec", NS_A, "iperf3", "-c", ADDR_B,
                                   "-t", "30", "-b", "400M"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(4)  # steady traffic, several scrapes of it
        # Each read goes through ip netns exec (tens of ms, more under load): its time is
        # the middle of the call, and what is not known of it widens the tolerance below.
        a1, c1, b1 = time.time(), sys_rx_bytes(), time.time()
        time.sleep(5)
        a2, c2, b2 = time.time(), sys_rx_bytes(), time.time()
        t1, t2 = (a1 + b1) / 2, (a2 + b2) / 2
        veth = (c2 - c1) / (t2 - t1)
        unsure = ((b1 - a1) + (b2 - a2)) / 2 / (t2 - t1)
        assert veth > 10e6, "iperf3 moved only %.0f B/s over vb" % veth
        time.sleep(2.5)  # prometheus has scraped the samples up to t2
        res = prom.query('rate(netmetrics_link_bytes_total{device="vb",direction="rx"}[5s])',
                         t=t2)
        assert len(res) == 1, "rate query: %s" % res
        got = float(res[0]["value"][1])
        assert abs(got - veth) <= (0.05 + unsure) * veth, \
            "prometheus rate %.0f B/s vs vb's counter %.0f B/s" % (got, veth)
        for expr in dashboard_exprs():
            r = prom.api("query", query=expr)
            assert r.get("status") == "success", "dashboard: %s: %s" % (expr, r)
            assert r["data"]["result"], "dashboard: %s returns no data" % expr
        d.ctl("mark", "stop", "prom-window")
    finally:
        for p in (client, server):
            if p is not None:
                p.kill()
                p.wait()
        if prom is not None:
            prom.stop()
        assert d.stop() == 0, "daemon exit status"


def unit_bounding_set():
    """setpriv's --bounding-set for the unit's CapabilityBoundingSet= (systemd/)."""
    with open(os.path.join(SRCDIR, "systemd", "netmetricsd.service")) as f:
        caps = [ln.split("=", 1)[1].split() for ln in f
                if ln.startswith("CapabilityBoundingSet=")][-1]
    return "-all" + "".join(",+" + c[len("CAP_"):].lower() for c in caps)


def test_port_below_1024():
    """[prometheus] listen on a port below 1024 works within the unit's capability bounding
    set (CAP_NET_BIND_SERVICE is in it: the daemon binds as root before the main process
    drops every capability); without that capability the daemon does not start and says
    why: the errno and the capability (issue 26: it said "cannot listen" alone)."""
    extra = "[prometheus]\nlisten = 127.0.0.1:99\n"
    bset = unit_bounding_set()
    d = Daemon(ns=NS_B, extra=extra, prefix=("setpriv", "--bounding-set", bset))
    try:
        code, _, body = http("http://127.0.0.1:99/metrics", NS_B)
        assert code == 200 and b"\nnetmetrics_link_bytes_total{" in body, (code, body[:300])
    finally:
        assert d.stop() == 0, "daemon exit status"
    tmp = tempfile.mkdtemp(prefix="nm-prom-low-")
    try:
        os.chmod(tmp, 0o755)
        conf = os.path.join(tmp, "netmetricsd.conf")
        with open(conf, "w") as f:
            f.write(extra)
        r = subprocess.run(["ip", "netns", "exec", NS_B, "setpriv", "--bounding-set",
                            bset.replace(",+net_bind_service", ""), NETMETRICSD,
                            "--foreground", "--config", conf, "--socket",
                            os.path.join(tmp, "s.sock"), "--state-dir",
                            os.path.join(tmp, "state")],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 1, (r.returncode, r.stderr[-2000:])
        assert "cannot listen on 127.0.0.1:99: Permission denied" in r.stderr, r.stderr[-2000:]
        assert "CAP_NET_BIND_SERVICE" in r.stderr, r.stderr[-2000:]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


TESTS = [test_promtool_fixture, test_promtool_host, test_stuck_scrapers, test_profile_gauges,
         test_test_and_window_gauges,
         test_prometheus_rate_matches_veth, test_slow_connections,
         test_accept_out_of_descriptors, test_port_below_1024]


def main():
    return nsrun.run(TESTS, "prometheus", make_pair, remove_pair, need_iperf3=True)


if __name__ == "__main__":
    sys.exit(main())
