"""The disk's own fdatasync latency, beside which durable mode is judged: COUNT times, append
SIZE bytes to a file in DIR and fdatasync it (what a durable-mode sync of a partition costs at
the least). Prints one "result" line with p50/p99/max in microseconds.

    /usr/bin/python3 tests/bench/fdatasync_latency.py DIR [COUNT] [SIZE]
"""
import os
import sys
import tempfile
import time

from latency_stats import percentile

directory = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
size = int(sys.argv[3]) if len(sys.argv) > 3 else 4096
fd, path = tempfile.mkstemp(dir=directory, prefix="fdatasync-")
try:
    block = b"x" * size
    samples = []
    for _ in range(count):
        os.write(fd, block)
        t = time.perf_counter_ns()
        os.fdatasync(fd)
        samples.append((time.perf_counter_ns() - t) / 1000)
    samples.sort()
    print("result workload=fdatasync count=%d size=%d p50_us=%.1f p99_us=%.1f max_us=%.1f"
          % (count, size, percentile(samples, 0.5), percentile(samples, 0.99), samples[-1]))
finally:
    os.close(fd)
    os.unlink(path)
