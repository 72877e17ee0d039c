#!/usr/bin/env python3
"""The kernel's word first: on this machine's devices whose driver links its queues to NAPI
instances (virtio_net's eth0 here: rx-0 -> NAPI 257), `queues --json`, `profile show
--json` and `interrupts --json` show each queue's NAPI and its IRQ, thread and settings
exactly as queue-get and napi-get give them, read independently (netdev_nl.py, a raw
netlink socket, none of netmetrics' code), with the origin of each mapping: "netlink" for
the NAPI, and for the queue's IRQs "netlink" when napi-get names the IRQ, else "irq-name".
The human tables show the NAPI ids and the origin, and the Prometheus endpoint's
netmetrics_queue_napi_info the same NAPIs with their numbers as labels. A window's report
(mark stop's reply and the stored result) lists each device's queues with the same NAPIs,
their IRQs' affinity as /proc/irq has it. Then the settings are changed through
the device's sysfs (napi_defer_hard_irqs 2, gro_flush_timeout 20000 ns, restored after):
within the NAPI table's refresh (5 s) `queues` and `profile show` show the new values, again
equal to napi-get's, so the equality is not that of zeros.

Runs the real daemon on the host (root "/", a temporary socket) as root; skipped (77) when
not root or when no device here links a queue to a NAPI. Environment: NETMETRICSD,
NETMETRICSCTL.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netdev_nl  # noqa: E402

NETMETRICSD = os.environ.get("NETMETRICSD", "build/daemon/netmetricsd")
NETMETRICSCTL = os.environ.get("NETMETRICSCTL", "build/client/netmetricsctl")
FIELDS = {"irq": "irq", "pid": "pid", "defer_hard_irqs": "defer-hard-irqs",
          "gro_flush_timeout_ns": "gro-flush-timeout",
          "irq_suspend_timeout_ns": "irq-suspend-timeout", "threaded": "threaded"}
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what, flush=True)


def ctl(sock, *args):
    out = subprocess.run([NETMETRICSCTL, "-s", sock] + list(args), capture_output=True,
                         text=True, timeout=30)
    if out.returncode != 0:
        raise AssertionError("netmetricsctl %s: %s" % (" ".join(args), out.stderr))
    return out.stdout


def kernel_view(dev):
    """{(dir, index): napi dict or None} for dev, from the independent dump."""
    k = netdev_nl.dump(dev)
    napis = {n["id"]: n for n in k["napis"]}
    return {(q["type"], q["id"]): napis.get(q["napi-id"]) if "napi-id" in q else None
            for q in k["queues"]}


def check_napi(where, shown, want):
    """A row's rx_napi/tx_napi against napi-get's entry (None: the kernel links none)."""
    if want is None:
        check(shown is None, "%s: shows %r, the kernel links no NAPI" % (where, shown))
        return
    check(shown is not None, "%s: no NAPI shown, the kernel says %d" % (where, want["id"]))
    if shown is None:
        return
    check(shown.get("id") == want["id"], "%s: NAPI %r != %d" % (where, shown.get("id"),
                                                                want["id"]))
    check(shown.get("origin") == "netlink", "%s: origin %r" % (where, shown.get("origin")))
    for ours, theirs in FIELDS.items():
        check(shown.get(ours) == want.get(theirs),
              "%s: %s %r, napi-get %r" % (where, ours, shown.get(ours), want.get(theirs)))


def irq_origin_want(row, view, idx):
    """What a queue row's irq_origin must be: netlink when napi-get gives an IRQ for its
    rx or tx NAPI, irq-name when it has IRQs found otherwise, None with none."""
    irqs = {n["irq"] for n in (view.get(("rx", idx)), view.get(("tx", idx)))
            if n is not None and "irq" in n}
    if irqs:
        shown = {int(x) for x in row.get("irqs", "").split(",") if x}
        check(irqs <= shown, "queue %d: IRQs %s, napi-get %s" % (idx, shown, irqs))
        return "netlink"
    return "irq-name" if row.get("irqs") else None


PROM_LABELS = {"irq": "irq", "pid": "pid", "threaded": "threaded",
               "defer_hard_irqs": "defer-hard-irqs", "gro_flush_timeout": "gro-flush-timeout",
               "irq_suspend_timeout": "irq-suspend-timeout"}


def prom_napis(port, dev):
    """{(dir, index): labels} of dev's netmetrics_queue_napi_info lines."""
    text = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10).read()
    out = {}
    for line in text.decode().splitlines():
        if not line.startswith("netmetrics_queue_napi_info{"):
            continue
        labels = dict(kv.split("=", 1) for kv in line[line.index("{") + 1:
                                                      line.rindex("}")].split(","))
        labels = {k: v.strip('"') for k, v in labels.items()}
        if labels["device"] == dev:
            out[(labels["direction"], int(labels["queue"]))] = labels
    return out


def check_prom(port, dev, view):
    """netmetrics_queue_napi_info of dev against napi-get: a line for each linked queue with
    the NAPI's id and each number napi-get gives, none for a queue linked to none."""
    shown = prom_napis(port, dev)
    for key, want in view.items():
        where = "prometheus %s %s-%d" % (dev, key[0], key[1])
        got = shown.get(key)
        if want is None:
            check(got is None, "%s: %r, the kernel links none" % (where, got))
            continue
        check(got is not None, "%s: no line" % where)
        if got is None:
            continue
        check(got.get("napi") == str(want["id"]) and got.get("origin") == "netlink",
              "%s: %r" % (where, got))
        for ours, theirs in PROM_LABELS.items():
            check(got.get(ours) == (str(want[theirs]) if theirs in want else None),
                  "%s: %s %r, napi-get %r" % (where, ours, got.get(ours), want.get(theirs)))


def sysfs(dev, name, value=None):
    path = "/sys/class/net/%s/%s" % (dev, name)
    if value is None:
        with open(path) as f:
            return f.read().strip()
    with open(path, "w") as f:
        f.write(str(value))


def check_settings_change(sock, dev, port):
    """Write the device's NAPI settings; the views follow within the refresh, as napi-get."""
    saved = {n: sysfs(dev, n) for n in ("napi_defer_hard_irqs", "gro_flush_timeout")}
    try:
        sysfs(dev, "napi_defer_hard_irqs", 2)
        sysfs(dev, "gro_flush_timeout", 20000)
        view = kernel_view(dev)
        want = view.get(("rx", 0))
        check(want is not None and want.get("defer-hard-irqs") == 2 and
              want.get("gro-flush-timeout") == 20000, "napi-get after the write: %r" % want)
        deadline = time.time() + 8
        row = None
        while time.time() < deadline:
            row = json.loads(ctl(sock, "--json", "queues", dev))["devices"][0]["queues"][0]
            if (row.get("rx_napi") or {}).get("defer_hard_irqs") == 2:
                break
            time.sleep(0.5)
        print("%s rx-0 after the write: %r" % (dev, row.get("rx_napi")), flush=True)
        check_napi("queues %s rx-0 after the write" % dev, row.get("rx_napi"), want)
        p = json.loads(ctl(sock, "--json", "profile", "show", dev))
        check_napi("profile show %s rx-0 after the write" % dev, p["queues"][0].get("rx_napi"),
                   want)
        check_prom(port, dev, view)
    finally:
        for n, v in saved.items():
            sysfs(dev, n, v)


def check_report(sock, devs):
    """A window's report (mark stop's reply, and the stored result that report NAME reads)
    lists each device's queues with the NAPI napi-get gives, at both edges the same here."""
    ctl(sock, "mark", "start", "napiw")
    time.sleep(1.2)
    stop = json.loads(ctl(sock, "--json", "mark", "stop", "napiw"))
    stored = json.loads(ctl(sock, "--json", "report", "napiw"))
    for where, rep in (("mark stop", stop), ("report", stored)):
        napi = rep.get("napi") or {}
        check("napi" not in rep.get("figures", {}), "%s: napi among the figures" % where)
        for dev in devs:
            view = kernel_view(dev)
            d = napi.get(dev)
            check(d is not None, "%s: napi has no %s: %r" % (where, dev, napi))
            if d is None:
                continue
            print("%s %s: %r" % (where, dev, d), flush=True)
            check(d.get("same_at_start") is True and "start_queues" not in d,
                  "%s %s: the NAPIs differ between the edges: %r" % (where, dev, d))
            check(d.get("ifindex") == socket.if_nametoindex(dev),
                  "%s %s: ifindex %r" % (where, dev, d.get("ifindex")))
            shown = {(q["dir"], q["queue"]): q["napi"] for q in d.get("queues", [])}
            check(set(shown) == set(view), "%s %s: queues %s, queue-get %s"
                  % (where, dev, sorted(shown), sorted(view)))
            for key, want in view.items():
                check_napi("%s %s %s-%d" % (where, dev, key[0], key[1]), shown.get(key), want)
                if want is not None and "irq" in want and shown.get(key):
                    with open("/proc/irq/%d/smp_affinity_list" % want["irq"]) as f:
                        aff = f.read().strip()
                    check(shown[key].get("affinity") == aff, "%s %s: affinity %r, %r"
                          % (where, dev, shown[key].get("affinity"), aff))


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (the daemon reads the host)")
        return 77
    try:
        everything = netdev_nl.dump()
    except OSError as e:
        print("SKIP: no netdev netlink family here (%s)" % e)
        return 77
    linked = sorted({q["ifindex"] for q in everything["queues"] if "napi-id" in q})
    if not linked:
        print("SKIP: no device here links a queue to a NAPI")
        return 77
    devs = [socket.if_indextoname(i) for i in linked]
    tmp = tempfile.mkdtemp(prefix="nm-napi.")
    sock = os.path.join(tmp, "s.sock")
    log = open(os.path.join(tmp, "log"), "w")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with open(os.path.join(tmp, "conf"), "w") as f:
        f.write("[prometheus]\nlisten = 127.0.0.1:%d\n" % port)
    proc = subprocess.Popen([NETMETRICSD, "-f", "-u", "root", "-c", os.path.join(tmp, "conf"),
                             "-s", sock, "-S",
                             os.path.join(tmp, "state"), "-l", "info"], stdout=log,
                            stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                q = json.loads(ctl(sock, "--json", "queues"))
                if any(d["name"] in devs for d in q["devices"]):
                    break
            except (AssertionError, ValueError):
                pass
            time.sleep(0.2)
        time.sleep(1.2)  # a sample after the first: the IRQ table has the NAPI table applied
        for dev in devs:
            view = kernel_view(dev)
            print("%s: kernel: %s" % (dev, {"%s-%d" % k: (v or {}).get("id")
                                            for k, v in sorted(view.items())}), flush=True)
            q = json.loads(ctl(sock, "--json", "queues", dev))
            rows = q["devices"][0]["queues"]
            check(len(rows) > 0, "%s: queues shows no queue" % dev)
            for row in rows:
                idx = row["queue"]
                for d in ("rx", "tx"):
                    if (d, idx) in view:
                        check_napi("queues %s %s-%d" % (dev, d, idx), row.get(d + "_napi"),
                                   view[(d, idx)])
                want = irq_origin_want(row, view, idx)
                check(row.get("irq_origin") == want, "queues %s %d: irq_origin %r, want %r"
                      % (dev, idx, row.get("irq_origin"), want))
            p = json.loads(ctl(sock, "--json", "profile", "show", dev))
            for row in p["queues"]:
                idx = row["queue"]
                for d in ("rx", "tx"):
                    if (d, idx) in view:
                        check_napi("profile show %s %s-%d" % (dev, d, idx),
                                   row.get(d + "_napi"), view[(d, idx)])
                for irq in row["irqs"]:
                    napi_irq = {n["irq"] for n in view.values() if n and "irq" in n}
                    want = "netlink" if irq["irq"] in napi_irq else "irq-name"
                    check(irq.get("origin") == want, "profile show %s IRQ %d: origin %r"
                          % (dev, irq["irq"], irq.get("origin")))
            # The human tables: the NAPI ids and where the IRQs came from.
            text = ctl(sock, "queues", dev)
            rx0 = view.get(("rx", 0))
            check("NAPI" in text and "IRQ FROM" in text, "queues table: no NAPI column")
            if rx0 is not None:
                check(str(rx0["id"]) in text, "queues table: no NAPI %d:\n%s" % (rx0["id"],
                                                                                  text))
            text = ctl(sock, "profile", "show", dev)
            check("NAPI" in text and "IRQ FROM" in text, "profile show: no NAPI column")
            check_prom(port, dev, view)
        # A window's report lists the NAPIs of its edges.
        check_report(sock, devs)
        # A setting written since shows, as napi-get gives it.
        for dev in devs:
            if kernel_view(dev).get(("rx", 0)) is not None and \
                    os.path.exists("/sys/class/net/%s/napi_defer_hard_irqs" % dev):
                check_settings_change(sock, dev, port)
                break
        # interrupts: an IRQ napi-get names is shown as its queue's, origin netlink.
        napi_irqs = {n["irq"] for n in everything["napis"] if "irq" in n}
        for irq in json.loads(ctl(sock, "--json", "interrupts", "--all"))["irqs"]:
            if irq["irq"].isdigit() and int(irq["irq"]) in napi_irqs:
                check(irq.get("origin") == "netlink", "interrupts %s: origin %r"
                      % (irq["irq"], irq.get("origin")))
            elif irq.get("device"):
                check(irq.get("origin") == "irq-name", "interrupts %s: origin %r"
                      % (irq["irq"], irq.get("origin")))
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
