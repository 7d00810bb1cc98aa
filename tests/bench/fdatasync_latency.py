"""The disk's own fdatasync latency, beside which durable mode is judged: COUNT times, append
SIZE bytes to a file in DIR and fdatasync it (what a durable-mode sync of a partition costs at
the least). Prints one "result" line with p50/p99/max in microseconds.

    /usr/bin/python3 tests/bench/fdatasync_latency.py DIR [COUNT] [SIZE] [grown]

With "grown" the file is first grown past what the loop writes (fallocate, as durable mode grows
an active segment: storage/log_segment.cpp), so each write lands inside the file's size and its
fdatasync has no new size to write; the result line then says workload=fdatasync-grown.
"""
import os
import sys
import tempfile
import time

from latency_stats import percentile

directory = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
size = int(sys.argv[3]) if len(sys.argv) > 3 else 4096
grown = len(sys.argv) > 4 and sys.argv[4] == "grown"
fd, path = tempfile.mkstemp(dir=directory, prefix="fdatasync-")
try:
    if grown:
        os.posix_fallocate(fd, 0, count * size)
        os.fsync(fd)
    block = b"x" * size
    samples = []
    for i in range(count):
        os.pwrite(fd, block, i * size)
        t = time.perf_counter_ns()
        os.fdatasync(fd)
        samples.append((time.perf_counter_ns() - t) / 1000)
    samples.sort()
    print("result workload=%s count=%d size=%d p50_us=%.1f p99_us=%.1f max_us=%.1f"
          % ("fdatasync-grown" if grown else "fdatasync", count, size,
             percentile(samples, 0.5), percentile(samples, 0.99), samples[-1]))
finally:
    os.close(fd)
    os.unlink(path)
