#!/bin/sh
# mpstat-on.sh NCPUS STAT0 STAT1: run the real mpstat (sysstat) on two /proc/stat readings.
# In a private mount namespace a FIFO is bound over /proc/stat (mpstat opens it once per
# reading: each open gets the next file, no timing involved) and a directory of NCPUS cpuN
# directories over /sys/devices/system/cpu (mpstat counts CPUs there). Prints
# `mpstat -P ALL 1 1`. Needs root; exit 77 when mpstat or unshare cannot run.
set -e
command -v mpstat >/dev/null 2>&1 || exit 77
n=$1 s0=$2 s1=$3
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkfifo "$d/stat"
i=0
while [ "$i" -lt "$n" ]; do mkdir "$d/cpu$i"; i=$((i + 1)); done
mkdir "$d/sys" && mv "$d"/cpu[0-9]* "$d/sys/"
unshare -m sh -c '
	mount --make-rprivate / &&
	mount --bind "$1/stat" /proc/stat &&
	mount --bind "$1/sys" /sys/devices/system/cpu &&
	LC_ALL=C mpstat -P ALL 1 1
' sh "$d" >"$d/out" 2>"$d/err" &
pid=$!
# A reader that never opens the FIFO (unshare failed) must not hang the writer.
for f in "$s0" "$s1"; do
	timeout 30 sh -c 'cat "$1" >"$2"' sh "$f" "$d/stat" || { kill $pid 2>/dev/null; exit 77; }
done
if ! wait $pid; then cat "$d/err" >&2; exit 77; fi
cat "$d/out"
