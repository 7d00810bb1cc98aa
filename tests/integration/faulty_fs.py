"""A FUSE file system that mirrors a directory and makes fsync fail on command, for tests of what
skiff does when the disk reports an error on a sync (test_sync_failure.py).

    /usr/bin/python3 faulty_fs.py BACKING_DIR MOUNTPOINT SWITCH_FILE

Every operation is passed through to BACKING_DIR, except that while SWITCH_FILE exists (a path
outside the mount, so the test flips it without going through this file system) every fsync and
fdatasync of a file or a directory answers EIO, as a disk whose write-back failed does; and while
SWITCH_FILE.writes exists every write answers EIO, as a failing device does; and while
SWITCH_FILE.hold exists every fsync and fdatasync of a file waits (creating SWITCH_FILE.holding
to say one does), as a disk that takes its time does. Runs in
the foreground until unmounted (umount MOUNTPOINT). Needs Debian's python3-fusepy and /dev/fuse.
"""

import errno
import os
import sys
import time

import fusepy


class FaultyFs(fusepy.Operations):
    def __init__(self, backing, switch):
        self.backing = os.path.realpath(backing)
        self.switch = switch

    def _path(self, path):
        return os.path.join(self.backing, path.lstrip("/"))

    def _sync_fails(self):
        if os.path.exists(self.switch):
            raise fusepy.FuseOSError(errno.EIO)

    # ---- what the test is for --------------------------------------------------------------
    def fsync(self, path, datasync, fh):
        self._sync_fails()
        if os.path.exists(self.switch + ".hold"):
            open(self.switch + ".holding", "w").close()
            while os.path.exists(self.switch + ".hold"):
                time.sleep(0.01)
        if datasync:
            os.fdatasync(fh)
        else:
            os.fsync(fh)
        return 0

    def fsyncdir(self, path, datasync, fh):
        self._sync_fails()
        return 0

    # ---- files -----------------------------------------------------------------------------
    def create(self, path, mode, fi=None):
        return os.open(self._path(path), os.O_RDWR | os.O_CREAT | os.O_TRUNC, mode)

    def open(self, path, flags):
        return os.open(self._path(path), flags)

    def read(self, path, size, offset, fh):
        return os.pread(fh, size, offset)

    def write(self, path, data, offset, fh):
        if os.path.exists(self.switch + ".writes"):
            raise fusepy.FuseOSError(errno.EIO)
        return os.pwrite(fh, data, offset)

    def truncate(self, path, length, fh=None):
        if fh is not None:
            os.ftruncate(fh, length)
        else:
            os.truncate(self._path(path), length)

    def flush(self, path, fh):
        return 0

    def release(self, path, fh):
        os.close(fh)
        return 0

    # ---- names and attributes --------------------------------------------------------------
    def getattr(self, path, fh=None):
        st = os.lstat(self._path(path))
        return {k: getattr(st, k) for k in ("st_mode", "st_nlink", "st_size", "st_uid", "st_gid",
                                              "st_atime", "st_mtime", "st_ctime")}

    def access(self, path, mode):
        if not os.access(self._path(path), mode):
            raise fusepy.FuseOSError(errno.EACCES)

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self._path(path))

    def opendir(self, path):
        return 0

    def mkdir(self, path, mode):
        os.mkdir(self._path(path), mode)

    def rmdir(self, path):
        os.rmdir(self._path(path))

    def unlink(self, path):
        os.unlink(self._path(path))

    def rename(self, old, new):
        os.rename(self._path(old), self._path(new))

    def link(self, target, source):
        os.link(self._path(source), self._path(target))

    def chmod(self, path, mode):
        os.chmod(self._path(path), mode)

    def chown(self, path, uid, gid):
        os.chown(self._path(path), uid, gid)

    def utimens(self, path, times=None):
        os.utime(self._path(path), times)

    def statfs(self, path):
        st = os.statvfs(self._path(path))
        return {k: getattr(st, k) for k in ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail",
                                              "f_ffree", "f_files", "f_flag", "f_frsize",
                                              "f_namemax")}


def main():
    backing, mountpoint, switch = sys.argv[1:4]
    # In the foreground: the test owns the process; direct mount as root. Threaded, so that a
    # held sync (SWITCH_FILE.hold) holds up only its caller, as a slow disk would.
    fusepy.FUSE(FaultyFs(backing, switch), mountpoint, foreground=True, nothreads=False,
                allow_other=False)


if __name__ == "__main__":
    main()
