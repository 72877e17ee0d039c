#!/usr/bin/env python3
"""A UDP burst sender for test_bursts.py: N bursts, one every PERIOD seconds from FIRST
(CLOCK_REALTIME ns), each sending 64-byte datagrams to ADDR:PORT as fast as it can for BURST
seconds. Prints one JSON object:
{"bursts": [{"start_ns", "end_ns", "packets", "rate"}, ...]}, times CLOCK_REALTIME ns of the
first send of each burst and of the end of its last, rate = packets / (end - start) per second (the rate
the sender measured: packets sent from its first send to the end of its last), and "marks":
[[t_ns, packets sent by then], ...] every 64 datagrams, so that its rate over any part of
the burst can be told (a burst's rate is not even: a shorter interval inside it may be
faster than its mean)."""
import json
import socket
import sys
import time


def main():
    addr, port, n, period, burst, first = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]),
                                           float(sys.argv[4]), float(sys.argv[5]),
                                           int(sys.argv[6]))
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect((addr, port))
    payload = b"x" * 64
    send = s.send
    now = time.time_ns
    out = []
    for i in range(n):
        at = first + int(i * period * 1e9)
        while now() < at:
            time.sleep(min(0.001, max(0, (at - now()) / 1e9)))
        start = now()
        stop = start + int(burst * 1e9)
        count = 0
        t = start
        marks = [[start, 0]]
        while t < stop:
            send(payload)
            count += 1
            t = now()
            if count & 63 == 0:
                marks.append([t, count])
        marks.append([t, count])
        out.append({"start_ns": start, "end_ns": t, "packets": count,
                    "rate": count * 1e9 / (t - start), "marks": marks})
    print(json.dumps({"bursts": out}))


if __name__ == "__main__":
    main()
