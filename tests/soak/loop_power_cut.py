#!/usr/bin/env python3
"""soak.py's durable-mode load and checks across power cuts of a real ext4 (its journal on): no
LazyFS needed, and unlike LazyFS (which has no fallocate) it exercises the file system durable
mode actually runs on, its grown segment files included. Needs root and a loop device.

    sudo /usr/bin/python3 tests/soak/loop_power_cut.py build/broker/skiff [soak.py options]
        (e.g. --cycles 20 --seed 11 --segment-bytes 8192; --durable and --data-dir are set here)

The data directory is an ext4 image in /dev/shm mounted through a loop device, with the kernel's
periodic writeback off (vm.dirty_writeback_centisecs=0, restored at the end) and the journal's
commit interval at 60 s, so nothing the broker did not sync reaches the image by itself. A cut,
between each kill -9 and the restart: the image is copied as the disk holds it at that moment,
the file system unmounted (which writes its page cache into the original, then thrown away) and
the copy mounted in its place (ext4 replays its journal, as after a power cut). Each cut prints
the kernel's Dirty count at that moment (of every file system, so an upper bound of what the cut
took) and what `skiff dump-log --verify` finds on the cut disk before the broker recovers it.
"""

import os
import shutil
import subprocess
import sys

import soak

IMAGE = "/dev/shm/skiff-loop-power-cut.img"
MOUNT = "/tmp/skiff-loop-power-cut"
WRITEBACK = "/proc/sys/vm/dirty_writeback_centisecs"


def run(*cmd):
    subprocess.run(cmd, check=True)


def mount():
    run("mount", "-o", "loop,commit=60", IMAGE, MOUNT)


def dirty_kb():
    with open("/proc/meminfo") as f:
        return int(next(line for line in f if line.startswith("Dirty:")).split()[1])


class LoopCut:
    def __init__(self, skiff):
        self.skiff = skiff
        self.cuts = 0

    def __call__(self):
        dropped = dirty_kb()
        shutil.copyfile(IMAGE, IMAGE + ".cut")  # the disk at the moment of the cut
        run("umount", MOUNT)  # writes the page cache into the original, which goes
        os.replace(IMAGE + ".cut", IMAGE)
        mount()
        self.cuts += 1
        found = []
        data = os.path.join(MOUNT, "data")
        for part in sorted(os.listdir(data)):
            if part.startswith(soak.TOPIC + "-"):
                r = subprocess.run([self.skiff, "dump-log", "--verify", os.path.join(data, part)],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                found += ["%s: %s" % (part, line) for line in r.stdout.splitlines()
                          if line.startswith("PROBLEM")]
        print("cut %d: %d kB dirty in the kernel at the cut (every file system's; what was the "
              "image's is gone); on the cut disk before recovery: %s"
              % (self.cuts, dropped, "; ".join(found) or "nothing for --verify to report"),
              flush=True)


def main():
    # Checked before anything is mounted: `--help` or a mistyped path is not a binary to soak.
    if len(sys.argv) < 2 or os.geteuid() != 0 or not os.access(sys.argv[1], os.X_OK):
        sys.exit(__doc__)
    skiff = os.path.abspath(sys.argv[1])
    os.makedirs(MOUNT, exist_ok=True)
    subprocess.run(["umount", MOUNT], stderr=subprocess.DEVNULL)
    with open(IMAGE, "wb") as f:
        f.truncate(512 << 20)
    run("mkfs.ext4", "-q", "-F", IMAGE)
    with open(WRITEBACK) as f:
        writeback = f.read().strip()
    mounted = False
    try:
        with open(WRITEBACK, "w") as f:
            f.write("0")
        mount()
        mounted = True
        return soak.main([skiff, "--durable", "--data-dir", os.path.join(MOUNT, "data")]
                         + sys.argv[2:], cut=LoopCut(skiff))
    finally:
        with open(WRITEBACK, "w") as f:
            f.write(writeback)
        if mounted:
            subprocess.run(["umount", MOUNT])
        for path in (IMAGE, IMAGE + ".cut"):
            if os.path.exists(path):
                os.unlink(path)


if __name__ == "__main__":
    sys.exit(main())
