#!/usr/bin/env python3
"""The NIC knobs of issue 31 on the real kernel: [channels], [offloads] and [napi] on a
4-queue veth pair between two network namespaces, netmetricsd (privilege-separated) inside
the first, driven through the real netmetricsctl, with the shipped napi-threaded profile:
the dry run touches nothing; apply cuts the channels to 2+2 (first), turns GRO on, sets
gro_flush_timeout, napi_defer_hard_irqs and threaded; profile show has the values; the
state survives a daemon restart as applied; an `ethtool -K` and a sysfs write by someone
else are drift; revert restores every value exactly (channels last, and in the order of the applies
when there were several); a failure injected at
the last write (NETMETRICS_TEST_FAIL_LAST_WRITE, a test-only hook) rolls everything back,
channels included. Then, on this VM's own NIC (virtio_net), the per-NAPI settings through
netdev netlink (napi-set) read back and are restored even when a check fails.

Needs root (namespaces). Everything it creates is removed even when a check fails.
Environment: NETMETRICSD, NETMETRICSCTL, SRCDIR. Ends with "N passed, M failed".
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nsrun  # noqa: E402
from nsrun import Skip  # noqa: E402
import test_profiles as tp  # noqa: E402
import napigenl  # noqa: E402

TAG = "nmk%d" % os.getpid()
NS_A, NS_B = TAG + "a", TAG + "b"
NQ = 4


def sh(*args, check=True, ns=None):
    return tp.sh(*args, check=check, ns=ns)


def make_pair():
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


def state(dev="vA", ns=NS_A):
    """Every value the knobs touch, as the kernel shows it (ethtool's own text and sysfs)."""
    out = {}
    chans = sh("ethtool", "-l", dev, ns=ns).stdout.split("Current hardware settings:")[1]
    for line in chans.splitlines():
        k, _, v = line.partition(":")
        if k.strip() in ("RX", "TX", "Combined"):
            out["ch_" + k.strip()] = v.strip()
    feats = sh("ethtool", "-k", dev, ns=ns).stdout
    for line in feats.splitlines()[1:]:
        k, _, v = line.strip().partition(": ")
        if k in ("generic-receive-offload", "rx-gro-list", "rx-udp-gro-forwarding",
                 "tx-tcp-segmentation"):
            out[k] = v
    for f in ("gro_flush_timeout", "napi_defer_hard_irqs", "threaded"):
        out[f] = sh("cat", "/sys/class/net/%s/%s" % (dev, f), ns=ns).stdout.strip()
    out["rx_queues"] = sh("sh", "-c", "ls -d /sys/class/net/%s/queues/rx-* | wc -l" % dev,
                          ns=ns).stdout.strip()
    return out


APPLIED = {"ch_RX": "2", "ch_TX": "2", "generic-receive-offload": "on", "rx-gro-list": "off",
           "gro_flush_timeout": "20000", "napi_defer_hard_irqs": "2", "threaded": "1",
           "rx_queues": "2"}


def test_apply_show_restart_drift_revert():
    """napi-threaded on vA: dry run, apply, show, restart, drift, revert."""
    tmp = tempfile.mkdtemp(prefix="nm-nic-")
    os.chmod(tmp, 0o755)
    d = tp.Daemon(ns=NS_A, tmp=tmp)
    try:
        before = state()
        assert before["ch_RX"] == "4" and before["generic-receive-offload"] == "off", before
        assert before["threaded"] == "0", before
        r = d.ctl("profile", "apply", "napi-threaded", "--dev", "vA", "--dry-run")
        out = r.stdout
        assert "dry run: profile napi-threaded on vA" in out, out
        assert "ethtool vA channels rx: 4 -> 2" in out, out
        assert "ethtool vA rx-gro: off -> on" in out, out
        assert "/sys/class/net/vA/threaded: 0 -> 1" in out, out
        # Channels first, then the features, then NAPI (threaded needs GRO's NAPI).
        assert out.index("channels rx") < out.index("rx-gro:") < out.index("vA/threaded"), out
        assert state() == before

        r = d.ctl("profile", "apply", "napi-threaded", "--dev", "vA")
        assert "applied profile napi-threaded on vA" in r.stdout, r.stdout
        now = state()
        for k, v in APPLIED.items():
            assert now[k] == v, (k, now)
        show = d.json("profile", "show", "vA")
        assert show["rx_queues"] == 2 and show["tx_queues"] == 2, show
        assert show["channels"]["rx"] == 2 and show["channels"]["tx"] == 2, show["channels"]
        assert show["offloads"]["rx-gro"] == {"on": True, "fixed": False}, show["offloads"]
        assert show["napi"] == {"gro_flush_timeout": 20000, "napi_defer_hard_irqs": 2,
                                "threaded": 1}, show["napi"]
        st = d.json("profile", "status")
        assert st["applied"] and st["profile"] == "napi-threaded" and not st["drift"], st

        # A restart: still applied, no drift.
        assert d.stop(keep=True) == 0
        d = tp.Daemon(ns=NS_A, tmp=tmp)
        st = d.json("profile", "status")
        assert st["applied"] and st["profile"] == "napi-threaded" and not st["drift"], st

        # Someone else: ethtool -K and a sysfs write.
        sh("ethtool", "-K", "vA", "rx-gro-list", "on", ns=NS_A)
        sh("sh", "-c", "echo 0 > /sys/class/net/vA/napi_defer_hard_irqs", ns=NS_A)
        st = d.json("profile", "status")
        drifted = {x["path"]: (x["expected"], x["live"]) for x in st["drifted"]}
        assert st["drift"] and drifted == {
            "ethtool vA rx-gro-list": ("off", "on"),
            "/sys/class/net/vA/napi_defer_hard_irqs": ("2", "0")}, st

        r = d.ctl("profile", "revert")
        assert "reverted profile napi-threaded on vA" in r.stdout, r.stdout
        after = state()
        assert after == before, (before, after)
    finally:
        d.stop(keep=True)
        shutil.rmtree(tmp, ignore_errors=True)


def test_injected_failure_rolls_back_all():
    """The last write fails (after it was done): every value goes back, channels included,
    and nothing is left saved."""
    d = tp.Daemon(ns=NS_A)
    os.environ["NETMETRICS_TEST_FAIL_LAST_WRITE"] = "1"
    try:
        d.stop(keep=True)
        d.start()
    finally:
        del os.environ["NETMETRICS_TEST_FAIL_LAST_WRITE"]
    try:
        before = state()
        r = d.ctl("profile", "apply", "napi-threaded", "--dev", "vA", check=False)
        assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
        err = r.stderr
        assert "write /sys/class/net/vA/threaded: failure injected after the write" in err, err
        assert "rolled back: 6 values restored, the host is as before" in err, err
        assert state() == before
        st = d.json("profile", "status")
        assert not st["applied"] and st["saved"] == 0, st
    finally:
        assert d.stop() == 0, "daemon exit status"


def test_channels_revert_order():
    """Revert restores the channel counts first, then the rest last written first. Two
    applies, XPS on all 4 tx queues then the channels cut to 2: the
    counts come back first, so tx-2 and tx-3 exist again when their masks are restored
    (nothing skipped)."""
    d = tp.Daemon(ns=NS_A)
    try:
        before = state()
        masks = {q: sh("cat", "/sys/class/net/vA/queues/tx-%d/xps_cpus" % q,
                       ns=NS_A).stdout.strip() for q in range(NQ)}
        d.ctl("profile", "set", "vA", "xps=0")
        assert sh("cat", "/sys/class/net/vA/queues/tx-3/xps_cpus",
                  ns=NS_A).stdout.strip().endswith("1")
        d.ctl("profile", "set", "vA", "channels=rx2-tx2")
        assert state()["ch_TX"] == "2" and state()["rx_queues"] == "2"
        res = d.json("profile", "revert")
        assert res["reverted"] and res["skipped"] == [], res
        # 2 counts and tx-0/tx-1's masks restored; tx-2/tx-3 came back with the kernel's
        # empty mask, which was theirs before: unchanged.
        assert res["restored"] == 4 and res["unchanged"] == 2, res
        assert state() == before
        for q in range(NQ):
            assert sh("cat", "/sys/class/net/vA/queues/tx-%d/xps_cpus" % q,
                      ns=NS_A).stdout.strip() == masks[q], q
    finally:
        assert d.stop() == 0, "daemon exit status"


def test_offload_read_back():
    """A feature the kernel does not turn as asked is a failure naming both values: with
    scatter-gather off the kernel keeps TSO off (requested on), so tso = on reads back off;
    the GRO write before it is rolled back. Then TSO asked off and GRO on: the saved TSO
    value says its request ("off [requested on]"), which revert puts back exactly."""
    sh("ethtool", "-K", "vA", "sg", "off", ns=NS_A)
    d = tp.Daemon(ns=NS_A)
    try:
        before = state()
        assert before["tx-tcp-segmentation"] == "off [requested on]", before
        path = tp.write_profile(d, "tso", "[profile]\ndevice = vA\n[offloads]\ngro = on\n"
                                "tso = on\n")
        r = d.ctl("profile", "apply", path, check=False)
        assert r.returncode == 1, (r.stdout, r.stderr)
        assert "write ethtool vA tx-tcp-segmentation: wrote \"on\" but it reads back \"off " \
            "[requested on]\"" in r.stderr, r.stderr
        # TSO's request was on already: only GRO had changed.
        assert "rolled back: 1 value restored" in r.stderr, r.stderr
        assert state() == before
        r = d.ctl("profile", "set", "vA", "offloads=gro,no-tso", "--dry-run")
        assert "ethtool vA tx-tcp-segmentation: off [requested on] -> off" in r.stdout, r.stdout
        d.ctl("profile", "set", "vA", "offloads=gro,no-tso")
        assert state()["tx-tcp-segmentation"] == "off", state()
        d.ctl("profile", "revert")
        assert state() == before
    finally:
        assert d.stop() == 0, "daemon exit status"


def test_tuned_warned():
    """Another tuning agent: while a process named tuned runs (a copy of sleep here),
    profile show says so and an apply that changes something warns, naming its profile."""
    if subprocess.run(["pgrep", "-x", "tuned"], capture_output=True).returncode == 0:
        raise Skip("a real tuned runs here")
    tmp = tempfile.mkdtemp(prefix="nm-tuned-")
    fake = os.path.join(tmp, "tuned")
    shutil.copy2(shutil.which("sleep"), fake)
    proc = subprocess.Popen([fake, "60"])
    d = tp.Daemon(ns=NS_A)
    try:
        show = d.json("profile", "show", "vA")
        assert show["tuned"]["running"] is True, show["tuned"]
        r = d.ctl("profile", "apply", "napi-threaded", "--dev", "vA", "--dry-run")
        assert "warning: tuned is running (profile " in r.stdout, r.stdout
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)
        assert d.stop() == 0, "daemon exit status"
    d = tp.Daemon(ns=NS_A)
    try:
        r = d.ctl("profile", "apply", "napi-threaded", "--dev", "vA", "--dry-run")
        assert "tuned" not in r.stdout, r.stdout
    finally:
        assert d.stop() == 0, "daemon exit status"


def host_nic():
    """The default route's device of the host, when it is a virtio_net one with NAPI."""
    with open("/proc/net/route") as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            if fields[1] == "00000000":
                dev = fields[0]
                break
        else:
            raise Skip("no default route")
    drv = subprocess.run(["ethtool", "-i", dev], capture_output=True, text=True).stdout
    if "driver: virtio_net" not in drv:
        raise Skip("%s is not virtio_net" % dev)
    try:
        napigenl.napi_settings(dev)
    except (OSError, KeyError) as e:
        raise Skip("no per-NAPI netlink here: %s" % e)
    return dev


def test_napi_queue_on_host_nic():
    """[napi_queue] on this VM's virtio_net (the host's namespace): defer-hard-irqs and
    gro-flush-timeout of rx-0's NAPI set through napi-set (by the privileged process),
    read back equal (by a netlink reader of this test, not the daemon), drift seen, and
    reverted to the device's values; restored here even when a check fails (through the
    device-wide sysfs files, which set every NAPI, when they held the same values)."""
    dev = host_nic()
    napi, defer0, gft0 = napigenl.napi_settings(dev)
    wide = [open("/sys/class/net/%s/%s" % (dev, f)).read().strip()
            for f in ("napi_defer_hard_irqs", "gro_flush_timeout")]
    if wide != [str(defer0), str(gft0)]:
        raise Skip("%s's NAPI differs from the device-wide values: cannot restore safely" % dev)
    want_defer, want_gft = defer0 + 2, gft0 + 20000
    d = tp.Daemon()
    try:
        path = tp.write_profile(d, "napiq", "[profile]\ndevice = %s\n[napi_queue]\n"
                                "defer_hard_irqs = %d\nrx-0.gro_flush_timeout = %d\n"
                                % (dev, want_defer, want_gft))
        r = d.ctl("profile", "apply", path, "--dry-run")
        assert "napi %s rx-0 defer_hard_irqs: %d -> %d" % (dev, defer0, want_defer) \
            in r.stdout, r.stdout
        assert napigenl.napi_settings(dev) == (napi, defer0, gft0)
        r = d.ctl("profile", "apply", path)
        assert "applied profile napiq on %s" % dev in r.stdout, r.stdout
        assert napigenl.napi_settings(dev) == (napi, want_defer, want_gft)
        st = d.json("profile", "status")
        assert st["applied"] and not st["drift"], st
        # The device-wide file overwrites every NAPI: drift, with both values.
        with open("/sys/class/net/%s/napi_defer_hard_irqs" % dev, "w") as f:
            f.write("%d\n" % defer0)
        st = d.json("profile", "status")
        assert st["drift"] and st["drifted"][0]["path"] == \
            "napi %s rx-0 defer_hard_irqs" % dev, st
        assert (st["drifted"][0]["expected"], st["drifted"][0]["live"]) == (
            str(want_defer), str(defer0)), st
        r = d.ctl("profile", "revert")
        assert "reverted profile napiq on %s" % dev in r.stdout, r.stdout
        assert napigenl.napi_settings(dev) == (napi, defer0, gft0)
    finally:
        d.stop()
        if napigenl.napi_settings(dev)[1:] != (defer0, gft0):
            for f, v in (("napi_defer_hard_irqs", wide[0]), ("gro_flush_timeout", wide[1])):
                with open("/sys/class/net/%s/%s" % (dev, f), "w") as fp:
                    fp.write(v + "\n")


def rss_text(dev, ns=None):
    """`ethtool -x` and the tcp4/udp4 hash fields of dev, as ethtool prints them."""
    return "".join(sh("ethtool", *a, check=False, ns=ns).stdout + "|" for a in (
        ("-x", dev), ("-n", dev, "rx-flow-hash", "tcp4"), ("-n", dev, "rx-flow-hash", "udp4")))


def test_rss_not_supported():
    """[rss] on devices without RSS set: the veth (no RSS at all) and this VM's virtio_net
    (a hash function but no indirection table or key, and no RSS feature to set them):
    the dry run skips the section saying why, strict = yes refuses it with the driver's
    "not supported", and "ethtool -x" shows the same before and after. The write paths
    themselves are tested on a fixture (test-profile test_rss) and in the privileged process
    (test-privsep: lo answers EOPNOTSUPP)."""
    cases = [("vA", NS_A)]
    try:
        cases.append((host_nic(), None))
    except Skip:
        pass
    for dev, ns in cases:
        before = rss_text(dev, ns)
        d = tp.Daemon(ns=ns)
        try:
            body = "[rss]\nequal = 1\nhfunc = xor\nfields.tcp4 = sd\n"
            path = tp.write_profile(d, "rss", "[profile]\ndevice = %s\n%s" % (dev, body))
            r = d.ctl("profile", "apply", path, "--dry-run")
            assert "[rss] skipped: ethtool %s rss: not supported by the driver" % dev \
                in r.stdout, r.stdout
            strict = tp.write_profile(d, "rss-strict", "[profile]\ndevice = %s\nstrict = yes\n"
                                      "%s" % (dev, body))
            r = d.ctl("profile", "apply", strict, check=False)
            assert r.returncode == 1, (r.stdout, r.stderr)
            assert "[rss]: ethtool %s rss: not supported by the driver" % dev in r.stderr, \
                r.stderr
            assert rss_text(dev, ns) == before, (before, rss_text(dev, ns))
            st = d.json("profile", "status")
            assert not st["applied"], st
        finally:
            assert d.stop() == 0, "daemon exit status"
        assert rss_text(dev, ns) == before


def queue_masks():
    """Every queue's xps_cpus and rps_cpus on vA (absent queues: None)."""
    out = {}
    for kind, f in (("tx", "xps_cpus"), ("rx", "rps_cpus")):
        for q in range(NQ):
            r = sh("cat", "/sys/class/net/vA/queues/%s-%d/%s" % (kind, q, f), check=False,
                   ns=NS_A)
            out["%s-%d" % (kind, q)] = r.stdout.strip() if r.returncode == 0 else None
    return out


def test_channels_then_queue_sections():
    """One profile cuts the channels 4 -> 2 and sets XPS and RPS on the 2 queues left: the
    dry run plans the masks on the new counts (tx-0/tx-1, rx-0/rx-1, nothing of tx-2 and
    up) and says the sections are planned again after the channel writes; apply writes the
    counts, counts the queues again and writes the masks; revert restores the counts first,
    then every mask, those of tx-2 and rx-3 too, which the kernel reset when the cut
    removed their queues."""
    sh("sh", "-c", "echo 2 > /sys/class/net/vA/queues/tx-2/xps_cpus", ns=NS_A)
    sh("sh", "-c", "echo 1 > /sys/class/net/vA/queues/rx-3/rps_cpus", ns=NS_A)
    d = tp.Daemon(ns=NS_A)
    try:
        before, masks = state(), queue_masks()
        assert masks["tx-2"].endswith("2") and masks["rx-3"].endswith("1"), masks
        path = tp.write_profile(d, "cut", "[profile]\ndevice = vA\n[channels]\nrx = 2\n"
                                "tx = 2\n[xps]\npolicy = one-to-one\ncpus = 0-1\n[rps]\n"
                                "cpus = 0-1\n")
        r = d.ctl("profile", "apply", path, "--dry-run")
        assert "[channels] changes vA's queues (rx 4 -> 2, tx 4 -> 2)" in r.stdout, r.stdout
        for q in ("tx-0/xps_cpus", "tx-1/xps_cpus", "rx-0/rps_cpus", "rx-1/rps_cpus"):
            assert "queues/" + q in r.stdout, (q, r.stdout)
        for q in ("tx-2/", "tx-3/", "rx-2/", "rx-3/"):
            assert "queues/" + q not in r.stdout, (q, r.stdout)
        assert state() == before and queue_masks() == masks
        r = d.ctl("profile", "apply", path)
        assert "applied profile cut on vA" in r.stdout, r.stdout
        now = queue_masks()
        assert state()["ch_TX"] == "2" and state()["rx_queues"] == "2", state()
        assert int(now["tx-0"].replace(",", ""), 16) == 1, now
        assert int(now["tx-1"].replace(",", ""), 16) == 2, now
        assert int(now["rx-0"].replace(",", ""), 16) == 3, now
        assert int(now["rx-1"].replace(",", ""), 16) == 3, now
        assert now["tx-2"] is None and now["rx-3"] is None, now
        st = d.json("profile", "status")
        assert st["applied"] and not st["drift"], st
        res = d.json("profile", "revert")
        assert res["reverted"] and res["skipped"] == [], res
        assert state() == before
        assert queue_masks() == masks, (queue_masks(), masks)
    finally:
        assert d.stop() == 0, "daemon exit status"


def test_second_daemon():
    """Two netmetricsd in one namespace, one device: the one that applied a profile holds
    the device (an abstract socket lock), also after a restart; the other is refused before
    it writes anything (busy, naming the holder's pid), and is listed, with its pid, among
    the agents that could have changed a drifted value."""
    a = tp.Daemon(ns=NS_A)
    b = None
    try:
        before = state()
        a.ctl("profile", "set", "vA", "offloads=gro")
        b = tp.Daemon(ns=NS_A)
        for d in (a, b):
            # After a restart the lock is held again, before any request.
            d.stop(keep=True)
            d.start()
            r = b.ctl("profile", "set", "vA", "offloads=no-gro", check=False)
            assert r.returncode == 1, (r.stdout, r.stderr)
            assert "another netmetricsd (pid " in r.stderr, r.stderr
            assert "holds a profile applied to vA: revert it there first" in r.stderr, r.stderr
            pid = int(r.stderr.split("another netmetricsd (pid ")[1].split(")")[0])
            with open("/proc/%d/comm" % pid) as f:
                assert f.read().strip() == "netmetricsd"
            assert state()["generic-receive-offload"] == "on", state()
            assert not b.json("profile", "status")["applied"]
        # Someone turns GRO off: drift, and the other daemon is among who could have.
        sh("ethtool", "-K", "vA", "gro", "off", ns=NS_A)
        st = a.json("profile", "status")
        assert st["drift"], st
        others = st["agents"]["netmetricsd"]
        assert pid not in others and len(others) >= 1, st
        who = st["drifted"][0]["who"]
        assert who == ["netmetricsd pid %d" % p for p in others], st
        r = a.ctl("profile", "status")
        assert "(could have been: netmetricsd pid" in r.stdout, r.stdout
        a.ctl("profile", "revert")
        assert state() == before
        # Reverted: the device is free for the other one.
        b.ctl("profile", "set", "vA", "offloads=no-gro")
        b.ctl("profile", "revert")
        assert state() == before
    finally:
        for d in (a, b):
            if d is not None:
                d.stop()


def test_result_knobs_both_edges():
    """A window under a profile records every value the profile set at its open and at its
    close: unchanged, nothing is flagged; a value someone changes during the window (GRO
    turned off by ethtool) is listed with both edges' values."""
    d = tp.Daemon(ns=NS_A)
    try:
        before = state()
        d.ctl("profile", "set", "vA", "offloads=gro", "napi=defer-2")
        for name, change in (("k/quiet", False), ("k/moved", True)):
            d.ctl("mark", "start", name)
            time.sleep(0.3)
            if change:
                sh("ethtool", "-K", "vA", "gro", "off", ns=NS_A)
            d.ctl("mark", "stop", name)
            k = d.json("result", "show", name)["tuning"]["knobs"]
            assert k["open"]["profile"] == d.json("profile", "status")["profile"], k
            assert k["close"]["time"] == k["open"]["time"], k
            assert k["profile_changed"] is False, k
            vo, vc = k["open"]["values"], k["close"]["values"]
            assert vo["ethtool vA rx-gro"] == "on", vo
            assert vo["/sys/class/net/vA/napi_defer_hard_irqs"] == "2", vo
            if change:
                assert k["changed"] == [{"path": "ethtool vA rx-gro", "open": "on",
                                         "close": "off"}], k
                assert vc["ethtool vA rx-gro"] == "off", vc
            else:
                assert k["changed"] == [] and vc == vo, k
        d.ctl("profile", "revert")
        assert state() == before
    finally:
        assert d.stop() == 0, "daemon exit status"


def test_napi_queue_word_and_save():
    """napi_queue=defer-N,flush-N on this VM's virtio_net (the veth links no NAPI to its
    queues: the section is skipped there, saying so): the dry run plans every rx queue's
    NAPI; profile save writes [napi_queue] as the NAPI has it, before and after an apply
    of the word; revert restores the values (here too when a check fails)."""
    d = tp.Daemon(ns=NS_A)
    try:
        r = d.ctl("profile", "set", "vA", "napi_queue=defer-3", "--dry-run")
        assert "[napi_queue] skipped: rx-0 is polled by no NAPI instance the kernel names" \
            in r.stdout, r.stdout
    finally:
        assert d.stop() == 0, "daemon exit status"
    dev = host_nic()
    napi, defer0, gft0 = napigenl.napi_settings(dev)
    wide = [open("/sys/class/net/%s/%s" % (dev, f)).read().strip()
            for f in ("napi_defer_hard_irqs", "gro_flush_timeout")]
    if wide != [str(defer0), str(gft0)]:
        raise Skip("%s's NAPI differs from the device-wide values: cannot restore safely" % dev)
    d = tp.Daemon()
    try:
        r = d.ctl("profile", "save", dev, "now", "--dry-run")
        assert "\n[napi_queue]\ndefer_hard_irqs = %d\ngro_flush_timeout = %d\n" % (
            defer0, gft0) in r.stdout, r.stdout
        word = "napi_queue=defer-%d,flush-%d" % (defer0 + 3, gft0 + 30000)
        r = d.ctl("profile", "set", dev, word, "--dry-run")
        assert "napi %s rx-0 defer_hard_irqs: %d -> %d" % (dev, defer0, defer0 + 3) \
            in r.stdout, r.stdout
        d.ctl("profile", "set", dev, word)
        assert napigenl.napi_settings(dev) == (napi, defer0 + 3, gft0 + 30000)
        r = d.ctl("profile", "save", dev, "now", "--dry-run")
        assert "\n[napi_queue]\ndefer_hard_irqs = %d\ngro_flush_timeout = %d\n" % (
            defer0 + 3, gft0 + 30000) in r.stdout, r.stdout
        d.ctl("profile", "revert")
        assert napigenl.napi_settings(dev) == (napi, defer0, gft0)
    finally:
        d.stop()
        if napigenl.napi_settings(dev)[1:] != (defer0, gft0):
            for f, v in (("napi_defer_hard_irqs", wide[0]), ("gro_flush_timeout", wide[1])):
                with open("/sys/class/net/%s/%s" % (dev, f), "w") as fp:
                    fp.write(v + "\n")


def test_shipped_nic_profiles():
    """The shipped throughput, latency and many-flows profiles on the veth: each applies
    (the sections a veth cannot have skipped, each saying why), sets what it says, and
    reverts every value exactly."""
    d = tp.Daemon(ns=NS_A)
    try:
        before, masks = state(), queue_masks()
        want = {
            "throughput": (["[coalesce] skipped", "[rings] skipped"],
                           {"generic-receive-offload": "on", "gro_flush_timeout": "50000",
                            "napi_defer_hard_irqs": "4"}),
            "latency": (["[coalesce] skipped"],
                        {"generic-receive-offload": "on", "gro_flush_timeout": "200000",
                         "napi_defer_hard_irqs": "2", "threaded": "0"}),
            "many-flows": (["[rss] skipped: ethtool vA rss: not supported by the driver"],
                           {"ch_RX": "4", "ch_TX": "4", "rx_queues": "4"}),
        }
        for name, (skips, values) in want.items():
            r = d.ctl("profile", "apply", name, "--dev", "vA", "--dry-run")
            for sk in skips:
                assert sk in r.stdout, (name, sk, r.stdout)
            assert state() == before and queue_masks() == masks, name
            d.ctl("profile", "apply", name, "--dev", "vA")
            now = state()
            for k, v in values.items():
                assert now[k] == v, (name, k, now)
            if name == "many-flows":
                m = queue_masks()
                assert all(int(m["rx-%d" % q].replace(",", ""), 16) != 0 for q in range(NQ)), m
                assert int(m["tx-1"].replace(",", ""), 16) == 2, m
            assert not d.json("profile", "status")["drift"], name
            d.ctl("profile", "revert")
            assert state() == before and queue_masks() == masks, name
    finally:
        assert d.stop() == 0, "daemon exit status"


def test_channels_staged_failure_rolls_back():
    """The channel cut with XPS and RPS, its last write failing (after it was done): the
    masks written on the new queues, the counts, and the masks of the queues the cut
    removed (kept before the cut) all come back."""
    sh("sh", "-c", "echo 2 > /sys/class/net/vA/queues/tx-2/xps_cpus", ns=NS_A)
    d = tp.Daemon(ns=NS_A)
    os.environ["NETMETRICS_TEST_FAIL_LAST_WRITE"] = "1"
    try:
        d.stop(keep=True)
        d.start()
    finally:
        del os.environ["NETMETRICS_TEST_FAIL_LAST_WRITE"]
    try:
        before, masks = state(), queue_masks()
        path = tp.write_profile(d, "cut", "[profile]\ndevice = vA\n[channels]\nrx = 2\n"
                                "tx = 2\n[xps]\npolicy = one-to-one\ncpus = 0-1\n[rps]\n"
                                "cpus = 0-1\n")
        r = d.ctl("profile", "apply", path, check=False)
        assert r.returncode == 1, (r.stdout, r.stderr)
        assert "failure injected after the write" in r.stderr, r.stderr
        assert "the host is as before" in r.stderr, r.stderr
        assert state() == before
        assert queue_masks() == masks, (queue_masks(), masks)
        st = d.json("profile", "status")
        assert not st["applied"] and st["saved"] == 0, st
    finally:
        assert d.stop() == 0, "daemon exit status"


def test_rss_on_fixture_root():
    """[rss] end to end through the daemon on a fixture root (gen-host.py's 8-queue eth0
    with an `ethtool -x` file): profile show prints the RSS line, profile set rss=1,3
    applies the table (weights) and revert puts the file back byte for byte."""
    import test_windows as tw
    root = tempfile.mkdtemp(prefix="nm-rss-root-")
    d = None
    try:
        tw.gen_host(root, 1)
        rss = ("RX flow hash indirection table for eth0 with 4 RX ring(s):\n"
               "    0:      0     1     2     3     0     1     2     3\n"
               "RSS hash key:\n6d:5a:56:da\nRSS hash function:\n    toeplitz: on\n"
               "    xor: off\n    crc32: off\nrx-flow-hash tcp4: sdfn\n")
        os.makedirs(os.path.join(root, "ethtool"), exist_ok=True)
        path = os.path.join(root, "ethtool", "eth0.rss")
        with open(path, "w") as f:
            f.write(rss)
        os.chmod(root, 0o755)
        # No privilege separation: a fixture root's files are the test's, written as root.
        d = tw.Daemon(root=root, conf="[source.interrupts]\nenable = no\n[daemon]\nuser = root\n")
        r = d.ctl("profile", "show", "eth0")
        assert "rss: toeplitz; 8 entries over 4 rx rings: equal 4 (2 2 2 2); key " \
            "6d:5a:56:da; fields tcp4 sdfn\n" in r.stdout, r.stdout
        r = d.ctl("profile", "set", "eth0", "rss=1,3")
        assert "ethtool eth0 rss indir: equal 4 (8 entries) -> 0 0 1 1 1 1 1 1" in r.stdout, \
            r.stdout
        with open(path) as f:
            assert "    0:      0     0     1     1     1     1     1     1\n" in f.read()
        d.ctl("profile", "revert")
        with open(path) as f:
            assert f.read() == rss
    finally:
        if d is not None:
            d.cleanup()
        shutil.rmtree(root, ignore_errors=True)


TESTS = [test_apply_show_restart_drift_revert, test_injected_failure_rolls_back_all,
         test_channels_revert_order, test_offload_read_back, test_tuned_warned,
         test_napi_queue_on_host_nic, test_rss_not_supported,
         test_channels_then_queue_sections, test_second_daemon,
         test_result_knobs_both_edges, test_napi_queue_word_and_save,
         test_shipped_nic_profiles, test_channels_staged_failure_rolls_back,
         test_rss_on_fixture_root]


def main():
    return nsrun.run(TESTS, "nic knob", make_pair, remove_pair)


if __name__ == "__main__":
    sys.exit(main())
