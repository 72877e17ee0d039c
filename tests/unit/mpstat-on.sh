#!/bin/sh
# mpstat-on.sh NCPUS STAT0 STAT1: run the real mpstat (sysstat) on two /proc/stat readings.
# In a private mount namespace a FIFO is bound over /proc/stat (mpstat opens it once per
# reading: each open gets the next file, no timing involved) and a directory of NCPUS cpuN
# directories over /sys/devices/system/cpu (mpstat counts CPUs there). Prints
# `mpstat -P ALL 1 1`. Needs root. Exit 77 when there is no mpstat or no private mount
# namespace; 1, saying why on stderr, when anything after that fails.
set -e
command -v mpstat >/dev/null 2>&1 || { echo "mpstat-on: no mpstat" >&2; exit 77; }
n=$1 s0=$2 s1=$3
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
unshare -m true 2>/dev/null || { echo "mpstat-on: unshare -m not permitted" >&2; exit 77; }
mkfifo "$d/stat"
i=0
while [ "$i" -lt "$n" ]; do mkdir "$d/cpu$i"; i=$((i + 1)); done
mkdir "$d/sys" && mv "$d"/cpu[0-9]* "$d/sys/"
timeout 60 unshare -m sh -c '
	mount --make-rprivate / &&
	mount --bind "$1/stat" /proc/stat &&
	mount --bind "$1/sys" /sys/devices/system/cpu &&
	LC_ALL=C exec mpstat -P ALL 1 1
' sh "$d" >"$d/out" 2>"$d/err" &
pid=$!
# The writer hands each file to one open of the FIFO. Before the second file it waits until
# the first reading has closed its end (a non-blocking open for writing fails with ENXIO
# when no one has the FIFO open for reading): a writer that opened while the first reading
# was still draining would join that reading. Every wait is bounded: a reader that never
# comes (unshare or mount failed) must not hang the test.
set +e
python3 - "$d/stat" "$s0" "$s1" <<'PY'
import errno, os, signal, sys, time

fifo, files = sys.argv[1], sys.argv[2:]
signal.alarm(30)
for i, name in enumerate(files):
    with open(name, "rb") as f:
        data = f.read()
    fd = os.open(fifo, os.O_WRONLY)  # waits for the reading to open
    os.write(fd, data)
    os.close(fd)
    if i + 1 == len(files):
        break
    while True:
        try:
            probe = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as e:
            if e.errno == errno.ENXIO:
                break
            raise
        os.close(probe)
        time.sleep(0.005)
PY
rc=$?
if [ "$rc" -ne 0 ]; then
	kill $pid 2>/dev/null || true
	echo "mpstat-on: the FIFO handoff failed (exit $rc); mpstat said:" >&2
	cat "$d/err" >&2
	exit 1
fi
if ! wait $pid; then
	echo "mpstat-on: mpstat under unshare failed:" >&2
	cat "$d/err" >&2
	exit 1
fi
cat "$d/out"
