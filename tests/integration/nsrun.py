"""Runs the real-kernel tests of one file: each test inside a fresh pair of network
namespaces that setup() makes and teardown() removes, even when the test fails. Prints one
line per test and ends with "N passed, M failed" (", K skipped" when some were)."""
import os
import shutil
import signal
import subprocess
import sys
import time
import traceback


def remove_netns(*names):
    """Kill every process left in each namespace, then delete it; quiet when it is gone."""
    for ns in names:
        pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True,
                              text=True).stdout.split()
        for p in pids:
            try:
                os.kill(int(p), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


class Skip(Exception):
    """Raised by a test that cannot run here; the reason is printed."""


def run(tests, what, setup, teardown, need_iperf3=False, argv=None):
    """Run tests (functions) whose names contain any of argv (all when empty); returns the
    exit status."""
    only = sys.argv[1:] if argv is None else argv
    if os.geteuid() != 0:
        print("skipping %s tests: they need root for network namespaces" % what)
        print("0 passed, 0 failed, %d skipped" % len(tests))
        return 0
    if need_iperf3 and shutil.which("iperf3") is None:
        print("iperf3 is missing: install it (apt-get install iperf3)")
        print("0 passed, 1 failed")
        return 1
    passed = failed = skipped = 0
    for t in tests:
        if only and not any(o in t.__name__ for o in only):
            continue
        start = time.time()
        try:
            setup()
            t()
            print("ok   %s (%.1fs)" % (t.__name__, time.time() - start))
            passed += 1
        except Skip as e:
            print("skip %s: %s" % (t.__name__, e))
            skipped += 1
        except Exception:
            print("FAIL %s (%.1fs)" % (t.__name__, time.time() - start))
            traceback.print_exc()
            failed += 1
        finally:
            teardown()
        sys.stdout.flush()
    print("%d passed, %d failed%s" % (passed, failed, ", %d skipped" % skipped if skipped else ""))
    return 1 if failed else 0
