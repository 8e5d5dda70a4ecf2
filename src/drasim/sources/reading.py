"""Local reads that are bounded and never block: regular files only (size checked before reading) unless the
user named a pipe, and directory trees walked without recursion."""

from __future__ import annotations

import errno
import os
import stat

from drasim.errors import InputError

__all__ = ["NONBLOCK_READ", "describe", "read_bounded", "too_big", "walk"]

# Open flags for a read that cannot hang on a FIFO without a writer (the type is checked on the descriptor).
NONBLOCK_READ = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def describe(mode: int) -> str:
    """What a file that is not a regular one is, in words (`a FIFO`)."""
    return ("a FIFO" if stat.S_ISFIFO(mode) else "a character device" if stat.S_ISCHR(mode)
            else "a block device" if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a directory" if stat.S_ISDIR(mode) else "not a regular file")


def read_bounded(path: str, limit: int, *, named: bool = False, follow: bool = True) -> bytes:
    """The bytes of `path`, at most `limit`, raising InputError (source: the path) otherwise.

    The file is opened without blocking (a FIFO with no writer would hang an ordinary open) and checked on the
    descriptor itself (no race with a file swapped after a check): a regular file's size is compared with
    `limit` before anything is read. Anything else (FIFO, device, socket) is refused, unless the user `named`
    it on the command line, as `-f <(cmd)` names a pipe: that is read, never beyond `limit`. `follow=False`
    refuses a symbolic link (drasim's own files: cache entries, markers)."""
    flags = NONBLOCK_READ | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise InputError("no such file or directory", source=path) from None
    except IsADirectoryError:
        raise InputError("is a directory (expected a file)", source=path) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow:
            raise InputError("is a symbolic link, not a regular file", source=path) from None
        raise InputError(exc.strerror or str(exc), source=path) from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise InputError("is a directory (expected a file)", source=path)
        if stat.S_ISREG(st.st_mode):
            if st.st_size > limit:
                raise too_big(path, limit)
        elif not named:
            raise InputError(f"{describe(st.st_mode)}, not a regular file", source=path)
        os.set_blocking(fd, True)  # the user's pipe: wait for its writer, as `cat` does
        chunks: list[bytes] = []
        left = limit + 1  # one byte past the limit tells a file that grew, or a stream, is too big
        # A regular file in one read of its size (and a byte more, to see it grew): no chunks to join, which
        # copied a 168 MB fleet once more.
        size = st.st_size + 1 if stat.S_ISREG(st.st_mode) else 1 << 24
        while left > 0:
            chunk = os.read(fd, min(left, size))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
            size = 1 << 24
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), source=path) from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise too_big(path, limit)
    return data


def too_big(path: str, limit: int) -> InputError:
    """The refusal of an input larger than `limit` bytes."""
    return InputError(f"larger than {limit // (1024 * 1024)} MiB: drasim reads at most that much from one file "
                      "(split it)", source=path)


def walk(root: str, *, hidden: bool = True) -> list[str]:
    """Every non-directory entry under `root`, sorted by path, found with a stack rather than recursion (a
    tree thousands of levels deep is walked, not a RecursionError). Symbolic links to directories are neither
    followed nor listed (os.walk's default); directories starting with `.` are skipped unless `hidden`; a directory
    that cannot be listed is skipped, as os.walk does."""
    out: list[str] = []
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as entries:
                listed = list(entries)
        except OSError:
            continue
        for entry in listed:
            try:
                is_dir, is_link = entry.is_dir(), entry.is_symlink()
            except OSError:
                is_dir = is_link = False
            if not is_dir:
                out.append(entry.path)
            elif not is_link and (hidden or not entry.name.startswith(".")):
                stack.append(entry.path)
    return sorted(out)
