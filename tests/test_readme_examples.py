"""Every ```sh block of README.md runs as written, from the repository root, and exits as it should.

The rules (README authors: keep to them, or mark the block):
- A block runs with `bash -e -o pipefail`, in a scratch folder that links every top-level entry of the
  repository (so `examples/...` and `src/...` resolve as in a fresh clone, while files a block writes, such
  as `fleet/` or `report.html`, land in the scratch folder), with this venv's `bin` first on PATH, a
  scratch HOME, the parse cache off and NO_COLOR; it must exit 0 within BLOCK_TIMEOUT seconds.
- `pip install ...` and `python -m pip install ...` lines are not run (the test runs in the installed
  venv); `pip install X && REST` runs REST. `python -m pytest` lines are not run (that is this suite).
- A line `#> TEXT` quotes output: TEXT must appear in the block's stdout, where `...` stands for anything.
- The line before the block (blank lines aside) `<!-- readme-test: skip (REASON) -->` skips it (a live
  cluster, a dask scheduler, minutes of CPU); `<!-- readme-test: exit N (REASON) -->` expects exit code N.
- A ```yaml block whose first line is `# PATH` or `# PATH: ...` of a repository file shows that file: it
  must equal it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BLOCK_TIMEOUT = 300
_FENCE = re.compile(r"^```(\w*)\s*$")
_MARKER = re.compile(r"^<!--\s*readme-test:\s*(skip|exit\s+(\d+))\s*\((.+)\)\s*-->\s*$")
_PIP = re.compile(r"^\s*(?:python3?\s+-m\s+)?pip\s+install\b[^&|;]*(?:&&\s*(?P<rest>.*))?$")
_PYTEST = re.compile(r"^\s*python3?\s+-m\s+pytest\b")
_SHOWN_FILE = re.compile(r"# ([\w./-]+?):?(?:\s|$)")


@dataclass(frozen=True)
class Block:
    lang: str
    line: int  # 1-based line of the opening fence
    text: str
    marker: tuple[str, int, str] | None  # ("skip" | "exit", code, reason)


def readme_blocks(text: str) -> list[Block]:
    """The fenced blocks of `text`, with the readme-test marker written before each."""
    lines = text.splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m or not m.group(1):
            i += 1
            continue
        start = i
        j = i + 1
        while j < len(lines) and lines[j].strip() != "```":
            j += 1
        k = start - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        marker = None
        mm = _MARKER.match(lines[k]) if k >= 0 else None
        if mm:
            marker = ("skip", 0, mm.group(3)) if mm.group(1) == "skip" else ("exit", int(mm.group(2)), mm.group(3))
        out.append(Block(m.group(1), start + 1, "\n".join(lines[start + 1:j]) + "\n", marker))
        i = j + 1
    return out


def script_of(block: str) -> tuple[str, list[str]]:
    """The commands to run (pip and pytest lines dropped) and the quoted output (`#> ` lines)."""
    commands: list[str] = []
    quoted: list[str] = []
    for line in block.splitlines():
        if line.startswith("#> "):
            quoted.append(line[3:])
            continue
        pip = _PIP.match(line)
        if pip:
            line = pip.group("rest") or ""
        if _PYTEST.match(line):
            continue
        commands.append(line)
    return "\n".join(commands) + "\n", quoted


def quoted_in(quote: str, output: str) -> bool:
    """Whether `quote` (with `...` for anything) appears in `output`."""
    pattern = ".*?".join(re.escape(part.strip()) for part in quote.split("..."))
    return re.search(pattern, output, re.DOTALL) is not None


BLOCKS = readme_blocks(README.read_text(encoding="utf-8"))
SH_BLOCKS = [b for b in BLOCKS if b.lang in ("sh", "bash", "shell")]


def _run(block: Block, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    work = tmp_path / "repo"
    work.mkdir()
    for entry in ROOT.iterdir():
        if entry.name != ".git":
            (work / entry.name).symlink_to(entry)
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "HOME": str(home), "DRASIM_CACHE_DIR": "off", "NO_COLOR": "1", "TMPDIR": tempfile.gettempdir()}
    script, _ = script_of(block.text)
    return subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=work, env=env, text=True,
                          capture_output=True, timeout=BLOCK_TIMEOUT, check=False)


@pytest.mark.parametrize("block", SH_BLOCKS, ids=[f"README.md:{b.line}" for b in SH_BLOCKS])
def test_readme_block_runs_as_written(block: Block, tmp_path: Path) -> None:
    if block.marker is not None and block.marker[0] == "skip":
        pytest.skip(block.marker[2])
    expected = block.marker[1] if block.marker is not None else 0
    proc = _run(block, tmp_path)
    where = f"README.md line {block.line}:\n{block.text}"
    assert proc.returncode == expected, (f"{where}\nexit {proc.returncode}\nstdout:\n{proc.stdout}\n"
                                         f"stderr:\n{proc.stderr}")
    assert "Traceback" not in proc.stderr, where
    for quote in script_of(block.text)[1]:
        assert quoted_in(quote, proc.stdout), f"{where}\nquoted output {quote!r} not in:\n{proc.stdout}"


def test_yaml_blocks_that_name_a_file_show_it() -> None:
    shown = 0
    for block in BLOCKS:
        named = _SHOWN_FILE.match(block.text)
        path = ROOT / named.group(1) if named else None
        if block.lang == "yaml" and path is not None and path.is_file():
            assert path.read_text(encoding="utf-8") == block.text, f"README.md line {block.line} differs from {path}"
            shown += 1
    assert shown >= 1  # the sweep file at least


def test_the_rules_read_markers_pip_lines_and_quotes() -> None:
    text = ("a\n\n<!-- readme-test: skip (live cluster) -->\n\n```sh\nkubectl dra simulate --context prod\n```\n"
            "<!-- readme-test: exit 1 (pending pods) -->\n```sh\ndrasim simulate --fail-on-pending\n```\n"
            "```sh\npython -m pip install . && drasim simulate\npip install 'dask[distributed]'\n"
            "python -m pytest\n#> Simulated ... placed\n```\n")
    skip, fail, plain = readme_blocks(text)
    assert skip.marker == ("skip", 0, "live cluster") and skip.line == 5
    assert fail.marker == ("exit", 1, "pending pods")
    script, quoted = script_of(plain.text)
    assert script.split("\n") == ["drasim simulate", "", ""]
    assert quoted == ["Simulated ... placed"]
    assert quoted_in(quoted[0], "Simulated 15 pod(s): 13 placed, 2 pending")
    assert not quoted_in(quoted[0], "placed first, Simulated later")
