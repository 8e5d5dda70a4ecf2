"""Local reads are bounded and never block: FIFOs, devices and links where drasim's own or another file's
names lead are refused (or skipped), regular files are size-checked before reading, deep trees are walked."""

from __future__ import annotations

import hashlib
import json
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import msgspec
import pytest

from drasim.api.profile import profile_for
from drasim.errors import InputError
from drasim.sources import files, parsecache
from drasim.sources.inputs import read_inputs
from drasim.sources.outdir import MARKER, write_files
from drasim.sources.reading import read_bounded, walk

T = TypeVar("T")


class Hung(Exception):
    pass


def no_hang(fn: Callable[[], T]) -> T:
    """Run `fn`, failing (never hanging the suite) if it blocks: a guard, not a measure of speed."""
    def _alarm(signum: int, frame: object) -> None:
        raise Hung("blocked")

    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(30)
    try:
        return fn()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "fifo.yaml"
    os.mkfifo(path)
    yield path


def test_a_fifo_not_named_by_the_user_is_refused_without_blocking(fifo: Path) -> None:
    with pytest.raises(InputError, match="a FIFO, not a regular file") as err:
        no_hang(lambda: read_bounded(str(fifo), 1000))
    assert err.value.source == str(fifo)


def test_a_pipe_the_user_names_is_read_up_to_the_bound(tmp_path: Path) -> None:
    read, write = os.pipe()
    os.write(write, b"x" * 10)
    os.close(write)
    assert no_hang(lambda: read_bounded(f"/dev/fd/{read}", 10, named=True)) == b"x" * 10
    os.close(read)
    read, write = os.pipe()
    os.write(write, b"x" * 11)
    os.close(write)
    with pytest.raises(InputError, match="larger than"):
        no_hang(lambda: read_bounded(f"/dev/fd/{read}", 10, named=True))
    os.close(read)


def test_a_device_behind_a_link_is_refused_unless_named(tmp_path: Path) -> None:
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    with pytest.raises(InputError, match="a character device, not a regular file"):
        read_bounded(str(tmp_path / "zero.yaml"), 1 << 20)
    with pytest.raises(InputError, match="larger than 1 MiB"):  # named: read, but never past the bound
        read_bounded(str(tmp_path / "zero.yaml"), 1 << 20, named=True)


def test_a_regular_file_is_refused_by_its_size_before_it_is_read(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "big.yaml"
    with open(big, "wb") as f:
        f.truncate(files.MAX_FILE_BYTES + 1)  # sparse: nothing to read, only its size tells
    reads: list[int] = []
    real = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: reads.append(n) or real(fd, n))
    with pytest.raises(InputError, match="larger than 256 MiB"):
        files.read_input(str(big))
    assert reads == []


def test_a_file_swapped_for_a_fifo_after_the_walk_is_refused(fifo: Path) -> None:
    # load_paths checks a directory's entries when it lists them; reading checks the descriptor again.
    with pytest.raises(InputError, match="a FIFO"):
        no_hang(lambda: files.load_file(str(fifo), named=False))


def test_a_timeline_file_that_is_a_fifo_is_refused(tmp_path: Path, fifo: Path) -> None:
    timeline = tmp_path / "timeline.yaml"
    timeline.write_text("apiVersion: drasim.dev/v1alpha1\nkind: Timeline\nmetadata: {name: t}\nspec:\n  events:\n"
                        f"  - {{at: 1m, action: apply, file: {fifo.name}}}\n")
    inputs = no_hang(lambda: read_inputs([str(timeline)], profile_for("1.36"), timelines=True))
    (err,) = inputs.unreadable
    assert "a FIFO, not a regular file" in str(err) and err.source == str(fifo)


def test_a_tree_thousands_of_levels_deep_is_walked(tmp_path: Path) -> None:
    fds = [os.open(tmp_path, os.O_RDONLY)]
    try:
        for _ in range(1500):  # relative steps: the whole path stays under PATH_MAX
            os.mkdir("d", dir_fd=fds[-1])
            fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
        os.close(os.open("x.yaml", os.O_CREAT | os.O_WRONLY, dir_fd=fds[-1]))
        (found,) = walk(str(tmp_path))
        assert found.endswith("/d/x.yaml") and found.count("/d") == 1500
        assert files.input_files(str(tmp_path))[0] == [found]
    finally:  # bottom up and without recursion: shutil.rmtree (pytest's cleanup) would overflow the stack
        os.unlink("x.yaml", dir_fd=fds[-1])
        for parent, child in zip(reversed(fds[:-1]), reversed(fds[1:]), strict=True):
            os.close(child)
            os.rmdir("d", dir_fd=parent)
        os.close(fds[0])


# --- the parse cache ------------------------------------------------------------------------------------

@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("DRASIM_CACHE_DIR", str(root))
    folder = root / f"yaml-v{parsecache.FORMAT}"
    folder.mkdir(parents=True)
    return folder


def _entry(blob: bytes) -> bytes:
    return hashlib.sha256(blob).hexdigest().encode() + b"\n" + blob


@pytest.mark.parametrize("plant", ["fifo", "zero", "deep", "garbage"])
def test_a_damaged_or_planted_cache_entry_is_a_miss(cache: Path, plant: str) -> None:
    key = "k" * 64
    path = cache / f"{key}.msgpack"
    if plant == "fifo":
        os.mkfifo(path)
    elif plant == "zero":
        path.symlink_to("/dev/zero")
    elif plant == "deep":  # a valid checksum over 200,000 nested arrays
        path.write_bytes(_entry(b"\x91" * 200_000 + b"\xc0"))
    else:
        path.write_bytes(b"not a checksum\n" + b"\x00" * 10)
    assert no_hang(lambda: parsecache.lookup(key)) is None
    docs = [{"kind": "Node", "metadata": {"name": "n"}}]
    if plant == "garbage":  # the store replaces it and the next lookup hits
        parsecache.store(key, docs)
        assert parsecache.lookup(key) == docs


def test_a_good_cache_entry_is_read(cache: Path) -> None:
    docs = [{"a": [1, 2]}]
    (cache / ("c" * 64 + ".msgpack")).write_bytes(_entry(msgspec.msgpack.encode(docs)))
    assert parsecache.lookup("c" * 64) == docs


# --- output-directory markers -------------------------------------------------------------------------

@pytest.mark.parametrize("plant", ["fifo", "zero"])
def test_a_marker_that_is_a_fifo_or_a_device_is_refused_without_blocking(tmp_path: Path, plant: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    if plant == "fifo":
        os.mkfifo(out / MARKER)
    else:
        (out / MARKER).symlink_to("/dev/zero")
    with pytest.raises(InputError, match="not drasim's marker, refusing to write here") as err:
        no_hang(lambda: write_files(str(out), {"a.yaml": b"x"}, overwrite=True, command="test"))
    assert err.value.source == str(out)
    assert sorted(os.listdir(out)) == [MARKER]


def test_a_deeply_nested_marker_is_refused_not_a_crash(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / MARKER).write_bytes(b'{"files": ' + b"[" * 100_000)  # json.loads would overflow the stack
    with pytest.raises(InputError, match=r"is not drasim's marker: refusing to write here"):
        write_files(str(out), {"a.yaml": b"x"}, overwrite=True, command="test")
    assert sorted(os.listdir(out)) == [MARKER]


def test_a_sweep_workload_that_is_a_fifo_is_refused(tmp_path: Path, fifo: Path) -> None:
    from drasim.sweep import load_sweep

    spec = tmp_path / "sweep.yaml"
    spec.write_text(json.dumps({"apiVersion": "drasim.dev/v1alpha1", "kind": "Sweep", "metadata": {"name": "s"},
                                "spec": {"fleet": [{"nodes": "h100", "counts": [1]}], "workloads": [fifo.name]}}))
    with pytest.raises(InputError, match="a FIFO, not a regular file") as err:
        no_hang(lambda: load_sweep(str(spec)))
    assert err.value.path == "spec.workloads[0]"
