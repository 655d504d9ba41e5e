"""Reading a configuration file an operator or a pull request names: a regular file (a link to one is
fine, as a mounted ConfigMap's or Secret's are), read up to a limit. Anything else under the name (a FIFO,
/dev/zero, a socket, a directory) is refused up front, so it never blocks a reload or fills memory.
"""

from __future__ import annotations

import errno
import os
import stat


def read_regular(path: str, limit: int, pipes: bool = False) -> bytes:
    """The bytes of the regular file at `path`; OSError when it is not one, or holds more than `limit`
    bytes. O_NONBLOCK: opening a FIFO does not wait for a writer (the check then refuses it). With `pipes`,
    a pipe is read too (a file the user names on the command line may be `<(command)`), blocking, as
    kubectl reads it; a device still is not."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if pipes and stat.S_ISFIFO(mode):
            os.set_blocking(fd, True)
        elif not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        chunks, size = [], 0
        while size <= limit and (chunk := os.read(fd, limit + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit} bytes", str(path))
        return b"".join(chunks)
    finally:
        os.close(fd)
