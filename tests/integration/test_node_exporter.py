#!/usr/bin/env python3
"""netmetricsd's /metrics against the real node_exporter (Debian prometheus-node-exporter)
on the same /proc tree.

The test writes its own /proc tree (a 3-CPU host: /proc/stat with guest time, interrupts,
softirqs, softnet_stat, net/snmp, net/netstat, net/snmp6, net/dev with 64-bit counters past
2^32, net/stat/nf_conntrack and the conntrack count), runs node_exporter on it with
--path.procfs/--path.sysfs and netmetricsd with [daemon] root on it, and checks that every
figure both export agrees:

  node_cpu_seconds_total{cpu,mode}     netmetrics_cpu_seconds_total (user + guest for user,
                                       nice + guest_nice for nice: the mpstat convention),
                                       and the sum over modes is the kernel's total
  node_cpu_guest_seconds_total         mode guest, guest_nice
  node_context_switches_total,         netmetrics_stat_total{field=ctxt, processes, intr}
  node_forks_total, node_intr_total
  node_softirqs_total{vector}          netmetrics_softirqs_total summed over CPUs
  node_interrupts_total{cpu,type}      netmetrics_irq_interrupts_total (export = irq.*),
                                       netmetrics_ipis_total, netmetrics_arch_interrupts_total
  node_softnet_*_total{cpu}            netmetrics_softnet_total{field}
  node_netstat_<Table>_<Field>         netmetrics_snmp_total / netmetrics_snmp_level
  node_network_*{device}               netmetrics_link_*
  node_nf_conntrack_entries,           netmetrics_lnstat_entries, netmetrics_lnstat_total
  node_nf_conntrack_stat_*             {table="nf_conntrack"}

at the first step, at a second step (every counter moved, two 32-bit cells wrapped: there
netmetrics goes on past 2^32 where the kernel's cell, and node_exporter, start again), and
after a restart of netmetricsd at that step: no counter of netmetricsd went down across the
restart, the wrapped cells included (a stop keeps their totals in the state directory and
the next start goes on from them); after a restart into another boot (the tree's boot_id
changed) the wrapped cells start again at the kernel's value, a reset, as node_exporter's. Then eth1 leaves /proc/net/dev and comes back
re-created: its counters are the kernel's again, with an OpenMetrics _created.

Loopback only: both listen on 127.0.0.1 in a namespace of their own. Needs root (the
daemon drops to its user) and prometheus-node-exporter. Environment: NETMETRICSD,
NETMETRICSCTL, SRCDIR. Ends with "N passed, M failed".
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nsrun  # noqa: E402
from test_prometheus import free_port, http, promtool_check  # noqa: E402
from test_sampling import Daemon, sh  # noqa: E402

NODE_EXPORTER = "/usr/bin/prometheus-node-exporter"
NS = "nmne%d" % os.getpid()
HZ = os.sysconf("SC_CLK_TCK")
W32 = 1 << 32

SOFTIRQS = ["HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED",
            "HRTIMER", "RCU"]
MODES = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest",
         "guest_nice"]
NCPU = 3


def cpu_ticks(k):
    """Per CPU, the ten /proc/stat modes at step k (guest inside user, guest_nice in nice)."""
    rows = []
    for c in range(NCPU):
        guest = 7000 + 300 * c + 50 * k
        gnice = 200 * c + 5 * k
        rows.append([90000 + 1000 * c + 400 * k + guest, 3000 + 100 * k + gnice,
                     40000 + 77 * c + 90 * k, 2000000 + 3 * c + 1000 * k, 600 + c + k,
                     1200 + 11 * k, 9000 + c * 13 + 7 * k, 17 * k, guest, gnice])
    return rows


def softirq_cells(k):
    """[vector][cpu] cells, 32-bit; NET_RX of CPU 1 wraps between step 0 and 1."""
    cells = []
    for v, name in enumerate(SOFTIRQS):
        row = []
        for c in range(NCPU):
            x = (1000 * v + 10 * c) * (v % 3) + k * (v + c) * 100
            if name == "NET_RX" and c == 1:
                x = (W32 - 500 + 1500 * k) % W32
            row.append(x)
        cells.append(row)
    return cells


# IRQ lines: (number, chip, hwirq-edge, action name, per-CPU base counts, per-step rate)
IRQS = [(0, "IO-APIC", "2-edge", "timer", [40, 0, 0], 0),
        (9, "IO-APIC", "9-fasteoi", "acpi", [0, 3, 0], 1),
        (24, "PCI-MSI", "524288-edge", "eth0-TxRx-0", [123456, 0, 7], 900),
        (25, "PCI-MSI", "524289-edge", "eth0-TxRx-1", [0, 200000, 0], 800),
        (26, "PCI-MSI", "524290-edge", "eth0-TxRx-2", [5, 5, W32 - 100], 700)]
ARCH = [("NMI", "Non-maskable interrupts", 2, 0), ("LOC", "Local timer interrupts", 5000000, 2500),
        ("IWI", "IRQ work interrupts", 12, 1), ("RES", "Rescheduling interrupts", 3000, 30),
        ("CAL", "Function call interrupts", 500, 5), ("TLB", "TLB shootdowns", 10, 1)]


def irq_cells(k):
    """{type: [cells]} of /proc/interrupts at step k (32-bit; IRQ 26 on CPU 2 wraps)."""
    out = {}
    for irq, _, _, _, base, rate in IRQS:
        out[str(irq)] = [(b + rate * k * (c + 1)) % W32 if b or rate else 0
                         for c, b in enumerate(base)]
    for name, _, base, rate in ARCH:
        out[name] = [(base + rate * k + 7 * c) % W32 for c in range(NCPU)]
    return out


def write(root, rel, text):
    """Rewrite a file in place (the daemon keeps its fds and reads from 0)."""
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "a+") as f:
        f.seek(0)
        f.truncate()
        f.write(text)


def write_tree(root, k, netfiles):
    """The whole /proc tree at step k."""
    cpus = cpu_ticks(k)
    agg = [sum(r[m] for r in cpus) for m in range(10)]
    sirq = softirq_cells(k)
    irqs = irq_cells(k)
    intr_total = sum(sum(v) for v in irqs.values()) + 1000000 * k
    lines = ["cpu  " + " ".join(map(str, agg))]
    lines += ["cpu%d %s" % (c, " ".join(map(str, r))) for c, r in enumerate(cpus)]
    lines += ["intr %d %s" % (intr_total, " ".join(str(sum(irqs.get(str(i), [0]))) for i in range(30))),
              "ctxt %d" % (38014093 + 1000 * k), "btime 1700000000",
              "processes %d" % (50000 + 10 * k), "procs_running %d" % (2 + k),
              "procs_blocked 0",
              "softirq %d %s" % (sum(map(sum, sirq)), " ".join(str(sum(r)) for r in sirq))]
    write(root, "proc/stat", "\n".join(lines) + "\n")
    text = " " * 20 + "".join("CPU%-8d" % c for c in range(NCPU)) + "\n"
    for name, row in zip(SOFTIRQS, sirq):
        text += "%12s:" % name + "".join(" %10d" % x for x in row) + "\n"
    write(root, "proc/softirqs", text)
    text = "     " + "".join("      CPU%d" % c for c in range(NCPU)) + "\n"
    for irq, chip, hw, name, _, _ in IRQS:
        text += "%3d: " % irq + "".join("%10d " % x for x in irqs[str(irq)]) + \
            " %8s  %s      %s\n" % (chip, hw, name)
    for name, desc, _, _ in ARCH:
        text += "%3s: " % name + "".join("%10d " % x for x in irqs[name]) + "  %s\n" % desc
    text += "ERR:          %d\nMIS:          0\n" % (3 + k)
    write(root, "proc/interrupts", text)
    for irq, _, _, _, _, _ in IRQS:
        write(root, "proc/irq/%d/smp_affinity_list" % irq, "%d\n" % (irq % NCPU))
        write(root, "proc/irq/%d/effective_affinity_list" % irq, "%d\n" % (irq % NCPU))
    rows = []
    for c in range(NCPU):
        processed = (1000000 * (c + 1) + 5000 * k) % W32 if c != 2 else (W32 - 1000 + 4000 * k) % W32
        # processed dropped time_squeeze, five unused, cpu_collision received_rps
        # flow_limit_count backlog_len, the CPU's number (the 6.x layout)
        cols = [processed, 3 * c + k, 20 * c + 2 * k, 0, 0, 0, 0, 0, 0, 4 + k, 30 * c + k, 2,
                c]
        rows.append(" ".join("%08x" % x for x in cols))
    write(root, "proc/net/softnet_stat", "\n".join(rows) + "\n")
    for name, text in netfiles(k).items():
        write(root, "proc/net/" + name, text)
    entries = 1000 + 10 * k
    hdr = ("entries  clashres found new invalid ignore delete chainlength insert insert_failed "
           "drop early_drop icmp_error  expect_new expect_create expect_delete search_restart")
    ct = [hdr]
    for c in range(NCPU):
        vals = [entries, 5 * c, 5000 + 100 * k + c, 0, 90 + k * c, 400 + k, 0, 0, 44 + k,
                c, 2 * c + k, k, 85 + c, 0, 0, 0, 7 * c + k]
        ct.append(" ".join("%08x" % x for x in vals))
    write(root, "proc/net/stat/nf_conntrack", "\n".join(ct) + "\n")
    write(root, "proc/sys/net/netfilter/nf_conntrack_count", "%d\n" % entries)
    write(root, "proc/sys/net/netfilter/nf_conntrack_max", "262144\n")
    write(root, "sys/devices/system/cpu/online", "0-%d\n" % (NCPU - 1))


def host_net_files():
    """This host's /proc/net/{snmp,netstat,snmp6} as the base of step 0; each later step adds
    k * (i + 1) to the i-th counter of a row (levels stay), and /proc/net/dev of three
    devices with 64-bit counters past 2^32."""
    base = {}
    for name in ("snmp", "netstat", "snmp6"):
        with open("/proc/net/" + name) as f:
            base[name] = f.read()
    levels = {"CurrEstab", "MaxConn", "RtoAlgorithm", "RtoMin", "RtoMax", "Forwarding",
              "DefaultTTL", "MPCurrEstab"}

    def files(k):
        out = {}
        for name in ("snmp", "netstat"):
            lines = base[name].splitlines()
            new = []
            for i in range(0, len(lines) - 1, 2):
                h, v = lines[i].split(), lines[i + 1].split()
                vals = [v[0]]
                for j, (f, x) in enumerate(zip(h[1:], v[1:])):
                    n = int(x)
                    vals.append(str(n if f in levels or n < 0 else n + k * (j + 1)))
                new += [lines[i], " ".join(vals)]
            out[name] = "\n".join(new) + "\n"
        new = []
        for j, line in enumerate(base["snmp6"].splitlines()):
            f, x = line.split()
            new.append("%-32s\t%d" % (f, int(x) + k * (j + 1)))
        out["snmp6"] = "\n".join(new) + "\n"
        dev = ("Inter-|   Receive                                                |  Transmit\n"
               " face |bytes    packets errs drop fifo frame compressed multicast|"
               "bytes    packets errs drop fifo colls carrier compressed\n")
        for d, devname in enumerate(("lo", "eth0", "eth1")):
            rx = [21732444325 + d * 10**9 + k * 7 * 10**8, 9000000 + 1000 * k, 1 + d, 2 + k,
                  3, 4 + d, 0, 55 + k]
            tx = [5 * W32 + 17 + k * 3 * 10**8, 8000000 + 900 * k, 5, 6 + k, 7, 8 + d, 9, 0]
            dev += "%6s: %s\n" % (devname, " ".join(str(x) for x in rx + tx))
        out["dev"] = dev
        return out
    return files


def parse(text):
    """{(name, frozenset(labels)): value} of an exposition's samples."""
    out = {}
    for line in text.splitlines():
        if not line or line[0] == "#":
            continue
        m = re.match(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)', line)
        if m is None:
            continue
        labels = frozenset(re.findall(r'([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
        out[(m.group(1), labels)] = float(m.group(4))
    return out


def get(samples, name, **labels):
    key = (name, frozenset((k, str(v)) for k, v in labels.items()))
    if key not in samples:
        near = [k for k in samples if k[0] == name][:5]
        raise AssertionError("no %s%s; some of that name: %s" % (name, labels, near))
    return samples[key]


def family(samples, name):
    """{labels dict as a sorted tuple: value} of one metric name."""
    return {k[1]: v for k, v in samples.items() if k[0] == name}


class Checker:
    """Every node_exporter figure against ours; counts what was compared."""

    def __init__(self, node, ours):
        self.node, self.ours, self.n, self.bad = node, ours, 0, []

    def eq(self, what, a, b, tol=1e-6, wrapped=False):
        """a (node_exporter's) and b (ours) agree; wrapped: a 32-bit cell that wrapped,
        which ours counts on past 2^32 and the kernel's starts again: equal modulo 2^32."""
        self.n += 1
        if wrapped and b >= W32:
            a, b = a % W32, b % W32
        elif wrapped:
            self.bad.append("%s: netmetrics %r did not go on past 2^32" % (what, b))
        if abs(a - b) > tol * max(1.0, abs(a)):
            self.bad.append("%s: node_exporter %r, netmetrics %r" % (what, a, b))

    def done(self):
        assert not self.bad, "%d of %d figures differ:\n  %s" % (
            len(self.bad), self.n, "\n  ".join(self.bad[:40]))


def compare(node, ours, wrapped=False):
    """Every figure of node_exporter's collectors against netmetrics'; wrapped: the cells
    that wrap between step 0 and 1 have (NET_RX of CPU 1, IRQ 26 on CPU 2, softnet processed
    of CPU 2). Returns how many figures were compared."""
    c = Checker(node, ours)
    # CPU seconds: user and nice include guest for node_exporter.
    for cpu in range(NCPU):
        total = 0.0
        for mode in MODES[:8]:
            n = get(node, "node_cpu_seconds_total", cpu=cpu, mode=mode)
            o = get(ours, "netmetrics_cpu_seconds_total", cpu=cpu, mode=mode)
            if mode in ("user", "nice"):
                g = "guest" if mode == "user" else "guest_nice"
                o += get(ours, "netmetrics_cpu_seconds_total", cpu=cpu, mode=g)
                c.eq("cpu%d %s guest" % (cpu, mode),
                     get(node, "node_cpu_guest_seconds_total", cpu=cpu,
                         mode="user" if mode == "user" else "nice"),
                     get(ours, "netmetrics_cpu_seconds_total", cpu=cpu, mode=g))
            c.eq("cpu%d %s" % (cpu, mode), n, o)
            total += n
        ours_total = sum(get(ours, "netmetrics_cpu_seconds_total", cpu=cpu, mode=m)
                         for m in MODES)
        c.eq("cpu%d sum over modes" % cpu, total, ours_total)
    for mode in MODES:
        c.eq("cpu all %s" % mode,
             sum(get(ours, "netmetrics_cpu_seconds_total", cpu=x, mode=mode)
                 for x in range(NCPU)),
             get(ours, "netmetrics_cpu_all_seconds_total", mode=mode))
    # /proc/stat's other counters.
    for nname, field in (("node_context_switches_total", "ctxt"),
                         ("node_forks_total", "processes"), ("node_intr_total", "intr")):
        c.eq(field, get(node, nname), get(ours, "netmetrics_stat_total", field=field))
    # Softirqs: /proc/stat's softirq line (node) against /proc/softirqs summed over CPUs.
    for v in SOFTIRQS:
        c.eq("softirq %s" % v, get(node, "node_softirqs_total",
                                   vector={"IRQ_POLL": "block_iopoll"}.get(v, v.lower())),
             sum(get(ours, "netmetrics_softirqs_total", cpu=x, type=v) for x in range(NCPU)),
             wrapped=wrapped and v == "NET_RX")
    # Interrupts, cell by cell.
    for labels, v in family(node, "node_interrupts_total").items():
        lab = dict(labels)
        t, cpu = lab["type"], lab["cpu"]
        if t.isdigit():
            o = get(ours, "netmetrics_irq_interrupts_total", irq=t, cpu=cpu)
        elif t in ("RES", "CAL", "TLB"):
            o = get(ours, "netmetrics_ipis_total", cpu=cpu, type=t)
        else:
            o = get(ours, "netmetrics_arch_interrupts_total", cpu=cpu, type=t)
        c.eq("interrupts %s cpu%s" % (t, cpu), v, o,
             wrapped=wrapped and t == "26" and cpu == "2")
    assert c.n > 30
    # Softnet.
    for cpu in range(NCPU):
        for nname, field in (("node_softnet_processed_total", "processed"),
                             ("node_softnet_dropped_total", "dropped"),
                             ("node_softnet_times_squeezed_total", "time_squeeze")):
            c.eq("softnet cpu%d %s" % (cpu, field), get(node, nname, cpu=cpu),
                 get(ours, "netmetrics_softnet_total", cpu=cpu, field=field),
                 wrapped=wrapped and cpu == 2 and field == "processed")
    # SNMP, netstat, snmp6: node_netstat_<Table>_<Field>.
    nsnmp = 0
    for (name, labels), v in node.items():
        m = re.match(r"node_netstat_([A-Za-z0-9]+?)_(\w+)$", name)
        if m is None or labels:
            continue
        table, field = m.group(1), m.group(2)
        if table.endswith("6"):  # snmp6 is one table here, its fields keep their names
            table, field = "snmp6", table + field
        key = frozenset({("table", table), ("field", field)})
        o = ours.get(("netmetrics_snmp_total", key), ours.get(("netmetrics_snmp_level", key)))
        if o is None:
            c.bad.append("netstat %s %s: node_exporter %r, netmetrics none" % (table, field, v))
            continue
        c.eq("netstat %s %s" % (table, field), v, o)
        nsnmp += 1
    assert nsnmp > 100, "only %d netstat figures" % nsnmp
    # /proc/net/dev.
    dev_fields = {"receive_bytes": ("netmetrics_link_bytes_total", "rx", None),
                  "receive_packets": ("netmetrics_link_packets_total", "rx", None),
                  "receive_drop": ("netmetrics_link_drops_total", "rx", None),
                  "receive_errs": ("netmetrics_link_errors_total", "rx", "rx_errors"),
                  "receive_fifo": ("netmetrics_link_errors_total", "rx", "rx_fifo_errors"),
                  "receive_frame": ("netmetrics_link_errors_total", "rx", "rx_frame_errors"),
                  "receive_compressed": ("netmetrics_link_events_total", "rx", "rx_compressed"),
                  "receive_multicast": ("netmetrics_link_events_total", "rx", "multicast"),
                  "transmit_bytes": ("netmetrics_link_bytes_total", "tx", None),
                  "transmit_packets": ("netmetrics_link_packets_total", "tx", None),
                  "transmit_drop": ("netmetrics_link_drops_total", "tx", None),
                  "transmit_errs": ("netmetrics_link_errors_total", "tx", "tx_errors"),
                  "transmit_fifo": ("netmetrics_link_errors_total", "tx", "tx_fifo_errors"),
                  "transmit_colls": ("netmetrics_link_events_total", None, "collisions"),
                  "transmit_carrier": ("netmetrics_link_errors_total", "tx",
                                       "tx_carrier_errors"),
                  "transmit_compressed": ("netmetrics_link_events_total", "tx",
                                          "tx_compressed")}
    ndev = 0
    for (name, labels), v in node.items():
        m = re.match(r"node_network_(\w+)_total$", name)
        if m is None or m.group(1) not in dev_fields:
            continue
        fam, direction, field = dev_fields[m.group(1)]
        lab = {"device": dict(labels)["device"]}
        if direction is not None:
            lab["direction"] = direction
        if field is not None:
            lab["field"] = field
        c.eq("dev %s %s" % (lab["device"], m.group(1)), v, get(ours, fam, **lab))
        ndev += 1
    assert ndev == 3 * 16, "node_exporter gave %d /proc/net/dev figures" % ndev
    # Conntrack.
    c.eq("conntrack entries", get(node, "node_nf_conntrack_entries"),
         get(ours, "netmetrics_lnstat_entries", table="nf_conntrack"))
    nct = 0
    for (name, labels), v in node.items():
        m = re.match(r"node_nf_conntrack_stat_(\w+)$", name)
        if m is None:
            continue
        c.eq("conntrack %s" % m.group(1), v,
             get(ours, "netmetrics_lnstat_total", table="nf_conntrack", field=m.group(1)))
        nct += 1
    assert nct >= 6, "node_exporter gave %d conntrack stats" % nct
    c.done()
    return c.n


class NodeExporter:
    def __init__(self, root):
        self.port = free_port(NS)
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", NS, NODE_EXPORTER,
             "--web.listen-address=127.0.0.1:%d" % self.port,
             "--path.procfs=" + os.path.join(root, "proc"),
             "--path.sysfs=" + os.path.join(root, "sys"),
             "--path.rootfs=" + root, "--collector.disable-defaults",
             "--collector.cpu", "--collector.cpu.guest", "--collector.stat",
             "--collector.stat.softirq", "--collector.interrupts", "--collector.softnet",
             "--collector.netstat", "--collector.netstat.fields=.*", "--collector.netdev",
             "--no-collector.netdev.netlink", "--collector.netdev.device-exclude=^$",
             "--collector.conntrack"], stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                if http("http://127.0.0.1:%d/metrics" % self.port, NS)[0] == 200:
                    return
            except AssertionError:
                pass
            if self.proc.poll() is not None:
                break
            time.sleep(0.2)
        self.stop()
        raise AssertionError("node_exporter did not start")

    def scrape(self):
        code, _, body = http("http://127.0.0.1:%d/metrics" % self.port, NS)
        assert code == 200
        return parse(body.decode())

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


def start_daemon(root, state=None):
    port = free_port(NS)
    # Every series as the kernel has it: no roll-up, no counter left out at 0.
    d = Daemon(ns=NS, extra="[daemon]\nroot = %s\n[prometheus]\nlisten = 127.0.0.1:%d\n"
               "export = irq.*\nrollup = none\ndrop_unmoved = none\n" % (root, port),
               state=state)
    d.port = port
    return d


def source_samples(s):
    """{source: samples taken} of a parsed exposition."""
    return {dict(k[1])["source"]: v for k, v in s.items()
            if k[0] == "netmetrics_source_samples_total"}


def scrape_ours(d, want_ctxt, written=False):
    """Our exposition once the daemon has sampled the step whose ctxt is want_ctxt. written:
    the step was just written, so every source must have sampled since: the ctxt is the
    stat source's alone, and each source has its own timer (a CI run compared softnet's
    step 0 with node_exporter's step 1). Two samples after a scrape that follows the write,
    the second of them began after it (sources that never sampled, off here, aside)."""
    deadline = time.time() + 20
    since = None
    if written:
        code, _, body = http("http://127.0.0.1:%d/metrics" % d.port, NS)
        assert code == 200
        since = source_samples(parse(body.decode()))
        assert since, "no netmetrics_source_samples_total"
    while True:
        code, _, body = http("http://127.0.0.1:%d/metrics" % d.port, NS)
        assert code == 200
        text = body.decode()
        s = parse(text)
        now = source_samples(s)
        if s.get(("netmetrics_stat_total", frozenset({("field", "ctxt")}))) == want_ctxt and \
                s.get(("netmetrics_lnstat_entries",
                       frozenset({("table", "nf_conntrack")}))) is not None and \
                (since is None or all(now.get(k, 0) >= v + 2 for k, v in since.items() if v > 0)):
            return text, s
        assert time.time() < deadline, "the daemon did not sample ctxt %d (samples %s, then %s)" % (
            want_ctxt, since, now)
        time.sleep(0.3)


def counters(samples):
    return {k: v for k, v in samples.items() if k[0].endswith("_total")
            and k[0].startswith("netmetrics_") and not k[0].startswith("netmetrics_source_")}


def openmetrics(d):
    code, _, body = http("http://127.0.0.1:%d/metrics" % d.port, NS, headers=[
        "Accept: application/openmetrics-text;version=1.0.0"])
    assert code == 200
    return body.decode()


def check_reset(root, d, net):
    """eth1 leaves /proc/net/dev and comes back counting from small values (re-created): its
    counters show the kernel's values again, with an OpenMetrics _created at the sample that
    found it back; eth0, counting since before the daemon started, has no _created."""
    dev = net(1)["dev"]
    lines = dev.splitlines(True)
    write(root, "proc/net/dev", "".join(ln for ln in lines if "eth1:" not in ln))
    deadline = time.time() + 20
    while 'device="eth1"' in openmetrics(d):
        assert time.time() < deadline, "eth1 still shown"
        time.sleep(0.3)
    back = "".join(ln if "eth1:" not in ln else
                   "  eth1: 1234 10 0 0 0 0 0 0 5678 20 0 0 0 0 0 0\n" for ln in lines)
    t0 = time.time()
    write(root, "proc/net/dev", back)
    while True:
        text = openmetrics(d)
        s = parse(text)
        if ("netmetrics_link_bytes_total",
                frozenset({("device", "eth1"), ("direction", "rx")})) in s:
            break
        assert time.time() < deadline, "eth1 not back"
        time.sleep(0.3)
    assert get(s, "netmetrics_link_bytes_total", device="eth1", direction="rx") == 1234
    assert get(s, "netmetrics_link_bytes_total", device="eth1", direction="tx") == 5678
    created = get(s, "netmetrics_link_bytes_created", device="eth1", direction="rx")
    assert t0 - 2 <= created <= time.time() + 1, (t0, created)
    assert ("netmetrics_link_bytes_created",
            frozenset({("device", "eth0"), ("direction", "rx")})) not in s, \
        "eth0 counted since before the daemon: no _created"


def test_against_node_exporter():
    """Every figure node_exporter shows of the tree, netmetrics shows the same, at two steps
    and across a restart; no counter of netmetrics goes down across the restart, the wrapped
    32-bit cells included; across a restart into another boot those start again."""
    if not os.access(NODE_EXPORTER, os.X_OK):
        raise AssertionError("%s is missing: apt-get install prometheus-node-exporter"
                             % NODE_EXPORTER)
    base = tempfile.mkdtemp(prefix="nm-node-exporter-")
    node = d = None
    try:
        os.chmod(base, 0o755)
        root = os.path.join(base, "root")
        net = host_net_files()
        write_tree(root, 0, net)
        boot = os.path.join(root, "proc", "sys", "kernel", "random", "boot_id")
        os.makedirs(os.path.dirname(boot), exist_ok=True)
        with open(boot, "w") as f:
            f.write("5c0ffee0-0000-4000-8000-000000000001\n")
        subprocess.run(["chmod", "-R", "a+rX", root], check=True)
        node = NodeExporter(root)
        state = os.path.join(base, "state")
        d = start_daemon(root, state=state)
        text, ours = scrape_ours(d, 38014093)
        promtool_check(text)
        n = compare(node.scrape(), ours)
        print("step 0: %d figures agree" % n)
        write_tree(root, 1, net)
        text, ours = scrape_ours(d, 38015093, written=True)
        nodes = node.scrape()
        n = compare(nodes, ours, wrapped=True)
        print("step 1: %d figures agree" % n)
        # The wrapped cells: ours went on past 2^32.
        assert get(ours, "netmetrics_softirqs_total", cpu=1, type="NET_RX") == W32 + 1000
        assert get(ours, "netmetrics_irq_interrupts_total", irq=26, cpu=2) == W32 + 2000
        assert get(ours, "netmetrics_softnet_total", cpu=2, field="processed") == W32 + 3000
        before = counters(ours)
        assert d.stop() == 0, "daemon exit status"
        d = start_daemon(root, state=state)
        text, after = scrape_ours(d, 38015093)
        after_c = counters(after)
        wrapped = {("netmetrics_softirqs_total", frozenset({("cpu", "1"), ("type", "NET_RX")})),
                   ("netmetrics_irq_interrupts_total", frozenset({("irq", "26"), ("cpu", "2")})),
                   ("netmetrics_softnet_total",
                    frozenset({("cpu", "2"), ("field", "processed")})),
                   ("netmetrics_device_interrupts_total",
                    frozenset({("device", "eth0"), ("cpu", "2")}))}
        down = [(k, before[k], after_c[k]) for k in before
                if k in after_c and after_c[k] < before[k]]
        missing = [k for k in before if k not in after_c]
        assert not down, "counters went down across the restart: %s" % down[:10]
        assert not missing, "counters gone after the restart: %s" % missing[:10]
        for k in wrapped:
            assert after_c[k] == before[k] >= W32, (k, before[k], after_c[k])
        n = compare(nodes, after, wrapped=True)
        print("after a restart: %d figures agree, the wrapped cells still past 2^32" % n)
        # Another boot: the kept totals are not this kernel's; the cells start again.
        assert d.stop() == 0, "daemon exit status"
        with open(boot, "w") as f:
            f.write("5c0ffee0-0000-4000-8000-000000000002\n")
        d = start_daemon(root, state=state)
        text, other = scrape_ours(d, 38015093)
        other_c = counters(other)
        for k in wrapped:
            assert other_c[k] < W32, (k, other_c[k])
        n = compare(nodes, other)
        print("after a restart into another boot: %d figures agree with node_exporter" % n)
        check_reset(root, d, net)
    finally:
        if node is not None:
            node.stop()
        if d is not None:
            assert d.stop() == 0, "daemon exit status"
        shutil.rmtree(base, ignore_errors=True)


def setup():
    sh("ip", "netns", "add", NS)
    sh("ip", "link", "set", "lo", "up", ns=NS)


def teardown():
    nsrun.remove_netns(NS)


TESTS = [test_against_node_exporter]


def main():
    return nsrun.run(TESTS, "node_exporter", setup, teardown)


if __name__ == "__main__":
    sys.exit(main())
