"""A file a test suite names, kept inside the suite's own directory (or `test --suite-root DIR`).

A suite may come from a pull request that CI checks with secrets nearby (`~/.kube/config`,
`~/.docker/config.json`, `/proc/self/environ`). So a reference is a relative path; it is resolved with
every symbolic link followed, and the file it leads to must lie under the root (resolved the same way)
and be a regular file: no absolute path, no `..` out of the root, no link pointing out of it, no FIFO,
device or socket (which could block the run or stream forever). What is refused says why, and names the
reference as the suite wrote it, never what lies outside.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath, PureWindowsPath


class OutsideRoot(Exception):
    """A reference that may not be read; the message says why."""


class Unreadable(Exception):
    """A reference inside the root to nothing that can be read (missing, no permission)."""


def resolve(root: Path, base: Path, reference: str) -> Path:
    """The real path of the regular file `reference` (relative to `base`) names, which lies under `root`;
    OutsideRoot otherwise. Nothing outside the root is opened."""
    if "\x00" in reference:
        raise OutsideRoot("a path cannot hold a NUL character")
    if PurePosixPath(reference).is_absolute() or PureWindowsPath(reference).drive:
        raise OutsideRoot(f"an absolute path; references are relative to the suite's directory, inside {_shown(root)}")
    real_root = Path(os.path.realpath(root))
    target = Path(os.path.realpath(base / reference))
    if target != real_root and real_root not in target.parents:
        raise OutsideRoot(f"leads outside {_shown(root)} (through '..' or a symbolic link); a suite reads only "
                          "files under its own directory (or --suite-root)")
    try:
        mode = os.stat(target).st_mode
    except OSError as exc:
        raise Unreadable(f"cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else
                "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
                else "not a regular file")
        raise OutsideRoot(f"{kind}, not a regular file")
    return target


def _shown(root: Path) -> str:
    return str(root) or "."
