"""npm-installed client packages for the integration tests, into the build directory.

install(src, name): copies src's package.json, package-lock.json and scripts to <build>/<name>/
(the skiff binary is <build>/broker/skiff) and runs `npm ci` there unless the same lock file is
already installed, so a build installs each lock file once; tests that share a package
directory and run side by side take turns (a lock file beside it). A failing `npm ci` raises: CI must
be able to run it.
"""

import fcntl
import filecmp
import os
import shutil
import subprocess

import skiff_harness


def install(src, name, files, installed_marker="node_modules", nice=False, timeout=240):
    build = os.path.dirname(os.path.dirname(skiff_harness.binary()))
    dest = os.path.join(build, name)
    os.makedirs(dest, exist_ok=True)
    with open(dest + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _install_locked(src, dest, files, installed_marker, nice, timeout)


def _install_locked(src, dest, files, installed_marker, nice, timeout):
    lock_dst = os.path.join(dest, "package-lock.json")
    fresh = os.path.exists(os.path.join(dest, installed_marker)) and os.path.exists(lock_dst) and \
        filecmp.cmp(os.path.join(src, "package-lock.json"), lock_dst, shallow=False)
    for f in ("package.json", "package-lock.json") + tuple(files):
        shutil.copyfile(os.path.join(src, f), os.path.join(dest, f))
    if not fresh:
        command = ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"]
        subprocess.run((["nice", "-n", "10"] if nice else []) + command, cwd=dest, check=True,
                       timeout=timeout)
    return dest
