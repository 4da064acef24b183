"""A real small disk for tests: an 8 MiB ext4 image with 1 KiB blocks, loop-mounted (root only).

1 KiB blocks are what mkfs.ext4 picks below 512 MiB, and what makes SQLite's sparse `-shm` pages a
SIGBUS trap on a full disk. Outside CI a machine that cannot loop-mount skips these tests; in CI
(CI=true) it fails them, so that they never go silently unrun.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must be able to loop-mount a small ext4 disk: {reason}")
    pytest.skip(f"cannot loop-mount a small ext4 disk here: {reason}")


@contextmanager
def small_disk(folder: Path, megabytes: int = 8) -> Iterator[Path]:
    """Mount a fresh ext4 (1 KiB blocks) at `folder / 'disk'` for the duration of the block."""
    if os.geteuid() != 0 or shutil.which("mkfs.ext4") is None:
        _unavailable("needs root and mkfs.ext4")
    image, mount = folder / "disk.img", folder / "disk"
    mount.mkdir()
    with image.open("wb") as handle:
        handle.truncate(megabytes << 20)
    made = subprocess.run(
        ["mkfs.ext4", "-q", "-b", "1024", str(image)], capture_output=True, text=True, check=False
    )
    mounted = made.returncode == 0 and (
        subprocess.run(
            ["mount", "-o", "loop", str(image), str(mount)], capture_output=True, check=False
        ).returncode
        == 0
    )
    if not mounted:
        _unavailable(made.stderr.strip()[:200] or "mount -o loop failed")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True, check=False)


def fill(mount: Path, leave_kib: int) -> None:
    """Fill the disk until the file system refuses a byte, then give back `leave_kib` KiB."""
    path = mount / "filler"
    path.unlink(missing_ok=True)
    os.sync()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        block = b"\0" * 1024
        while True:
            os.write(fd, block)
    except OSError:
        pass
    os.fsync(fd)
    os.ftruncate(fd, max(os.fstat(fd).st_size - leave_kib * 1024, 0))
    os.fsync(fd)
    os.close(fd)
    os.sync()


def remount(mount: Path, mode: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{mode}", str(mount)], check=True, capture_output=True)
