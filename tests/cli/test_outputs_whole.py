"""Outputs are written whole or not at all: files through a temporary renamed over them, output directories
left as they were (or resumable) when interrupted, and a failed write to stdout one line and a non-zero exit."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from drasim.cli.exits import catch_termination
from drasim.errors import InputError
from drasim.sources import atomic
from drasim.sources.outdir import MARKER, write_files

DRASIM = [sys.executable, "-m", "drasim"]


def _listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _fail_at_second_fsync(monkeypatch: pytest.MonkeyPatch, fail: Callable[[], None]) -> None:
    calls: list[int] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        calls.append(fd)
        if len(calls) == 2:
            fail()
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)


def _enospc() -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_failed_write_leaves_the_old_file_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "out.csv"
    path.write_text("old\n")
    monkeypatch.setattr(os, "fsync", lambda fd: _enospc())
    with pytest.raises(InputError, match=f"--csv {path}: No space left on device"):
        atomic.write_file(str(path), "new\n" * 1000, what="--csv")
    assert _listing(tmp_path) == {"out.csv": b"old\n"}  # no temporary left either


def test_an_interrupted_write_leaves_no_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupt(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupt)
    with pytest.raises(KeyboardInterrupt):
        atomic.write_file(str(tmp_path / "chart.svg"), "<svg/>", what="--chart")
    assert list(tmp_path.iterdir()) == []


def test_a_written_file_has_the_umask_mode_and_replaces_a_link_not_its_target(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / "report.html").symlink_to(victim)
    old = os.umask(0o027)
    try:
        atomic.write_file(str(tmp_path / "report.html"), "<html/>", what="--report")
    finally:
        os.umask(old)
    assert victim.read_text() == "keep" and not (tmp_path / "report.html").is_symlink()
    assert (tmp_path / "report.html").stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize("stop", ["enospc", "sigint", "sigterm"])
def test_an_interrupted_output_dir_is_left_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     stop: str) -> None:
    def fail() -> None:
        if stop == "enospc":
            _enospc()
        elif stop == "sigint":
            raise KeyboardInterrupt
        else:
            os.kill(os.getpid(), signal.SIGTERM)  # catch_termination turns it into SystemExit(143) here

    files = {"a.yaml": b"a", "b.yaml": b"b", "c.yaml": b"c"}
    new, empty, earlier = tmp_path / "new", tmp_path / "empty", tmp_path / "earlier"
    empty.mkdir()
    write_files(str(earlier), {"a.yaml": b"old", "z.yaml": b"old"}, overwrite=True, command="test")
    before = _listing(earlier)
    old_handler = signal.getsignal(signal.SIGTERM)
    catch_termination()
    try:
        for folder in (new, empty, earlier):
            with monkeypatch.context() as m:
                _fail_at_second_fsync(m, fail)
                with pytest.raises((InputError, KeyboardInterrupt, SystemExit)) as err:
                    write_files(str(folder), files, overwrite=True, command="test")
            if stop == "sigterm":
                assert isinstance(err.value, SystemExit) and err.value.code == 128 + signal.SIGTERM
    finally:
        signal.signal(signal.SIGTERM, old_handler)
    assert not new.exists() and list(empty.iterdir()) == [] and _listing(earlier) == before
    assert write_files(str(earlier), files, overwrite=True, command="test") == list(files)  # and it resumes
    assert _listing(earlier) == {MARKER: (earlier / MARKER).read_bytes(), **files}


def test_sigint_during_fleet_output_dir_leaves_nothing_half_written(tmp_path: Path) -> None:
    """Ctrl-C sent to a real `drasim fleet --output-dir` once its directory appears: the directory is gone
    (the run had made it), empty (the signal came as it was made) or whole with its marker, never temporaries
    without one; the next run writes it."""
    out = tmp_path / "fleet"
    args = [*DRASIM, "fleet", "--nodes", "h100:1500", "--output-dir", str(out)]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    while proc.poll() is None and not out.exists():
        time.sleep(0.001)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate()
    assert b"Traceback" not in stderr
    names = sorted(os.listdir(out)) if out.exists() else []
    assert not names or (MARKER in names and not [n for n in names if n.endswith(".tmp")]), names
    assert proc.returncode in (0, 128 + signal.SIGINT)
    again = subprocess.run(args, capture_output=True)
    assert again.returncode == 0, again.stderr
    assert sorted(os.listdir(out)) == sorted([MARKER, "deviceclasses.yaml", "nodes.yaml", "resourceslices.yaml"])


# --- stdout --------------------------------------------------------------------------------------------

def _one_error_line(stderr: bytes, reason: str) -> None:
    errors = [line for line in stderr.decode().splitlines() if not line.startswith("warning:")]
    assert errors == [f"error: cannot write the output to stdout: {reason}"], stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk_on_stdout_is_one_line_and_exit_1() -> None:
    with open("/dev/full", "wb") as full:
        result = subprocess.run([*DRASIM, "simulate", "-o", "json"], stdout=full, stderr=subprocess.PIPE)
    assert result.returncode == 1
    _one_error_line(result.stderr, "No space left on device")


def test_a_closed_stdout_is_one_line_and_exit_1() -> None:
    result = subprocess.run([*DRASIM, "fleet", "--nodes", "h100:1"], stdout=None, stderr=subprocess.PIPE,
                            preexec_fn=lambda: os.close(1))  # as the shell's `>&-`
    assert result.returncode == 1
    _one_error_line(result.stderr, "Bad file descriptor")


def test_a_reader_that_left_is_one_line_and_exit_1() -> None:
    proc = subprocess.Popen([*DRASIM, "simulate", "-o", "yaml"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # as `| head` does after its lines
    stderr = proc.stderr.read()
    assert proc.wait() == 1
    _one_error_line(stderr, "Broken pipe")
