"""Lines and tables for a terminal (rich: colour, fitted to the window) or a pipe (plain aligned text)."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, TextIO, cast

if TYPE_CHECKING:
    from rich.console import Console

# rich is imported only for a terminal: a pipe (and every -o json/yaml run) does not pay its import.


class _Trimmed(io.TextIOBase):
    """A pipe receiving rich's output without the blanks rich pads table cells and titles with."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.pending = ""

    def write(self, text: str) -> int:
        *lines, self.pending = (self.pending + text).split("\n")
        if lines:
            self.out.write("".join(line.rstrip() + "\n" for line in lines))
        return len(text)

    def flush(self) -> None:
        if self.pending:
            self.out.write(self.pending.rstrip())
            self.pending = ""
        self.out.flush()

    def isatty(self) -> bool:
        return False


def rich_console(file: TextIO | None = None) -> Console:
    """A rich console: on a terminal fitted to the window, coloured unless NO_COLOR; on a pipe never wrapped,
    never coloured, no trailing blanks."""
    from rich.console import Console

    out = file if file is not None else sys.stdout
    if out.isatty():
        return Console(file=out, highlight=False, no_color=not colour_allowed(out))
    return Console(file=cast(IO[str], _Trimmed(out)), highlight=False, soft_wrap=True, width=100_000,
                   force_terminal=False, no_color=True)


def colour_allowed(file: TextIO) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set to a non-empty value (no-color.org)."""
    return file.isatty() and not os.environ.get("NO_COLOR")


def _cell(align: str, width: int) -> str:
    """A str.format field padding its cell to `width` (as str.ljust/rjust do; no padding at width 0)."""
    return f"{{:{align}{width}}}" if width else "{}"


class TextOut:
    """Where a command's text goes. On a pipe, a table costs one pass over its cells: each column is as
    wide as its widest cell, two spaces apart, nothing folded or truncated, no trailing blanks (what
    `grep`/`awk` want); on a terminal rich lays it out (bold headers, folded to the window)."""

    def __init__(self, file: TextIO | None = None, *, tty: bool | None = None) -> None:
        self.file = file if file is not None else sys.stdout
        self.tty = self.file.isatty() if tty is None else tty
        self._console: Console | None = None
        if self.tty:
            from rich.console import Console

            self._console = Console(file=self.file, highlight=False, soft_wrap=False, markup=False,
                                    no_color=bool(os.environ.get("NO_COLOR")))
        self._plain: list[str] = []

    def line(self, text: str = "") -> None:
        if self._console is not None:
            self._console.print(text)
        else:
            self._plain.append(text)

    def table(self, columns: Sequence[str], rows: Sequence[Sequence[str]], *, no_wrap: Sequence[str] = (),
              right: Sequence[str] = ()) -> None:
        """`rows` of cells under `columns`; on a terminal, `no_wrap` columns are never folded; `right`
        columns are right-aligned."""
        if self._console is not None:
            from rich.table import Table

            table = Table(box=None, pad_edge=False, show_edge=False)
            for col in columns:
                table.add_column(col, overflow="fold", no_wrap=col in no_wrap,
                                 justify="right" if col in right else "left")
            for row in rows:
                table.add_row(*row)
            self._console.print(table)
            return
        # Column widths and each row's padding in C (max over a column, one str.format per row): a wide
        # simulation prints tables of 100,000+ cells.
        widths = [max(len(c), *map(len, col)) for c, col in zip(columns, zip(*rows, strict=True), strict=True)] \
            if rows else [len(c) for c in columns]
        if right:
            fmt = "  ".join(_cell(">" if col in right else "<", w) for col, w in zip(columns, widths, strict=True))
        else:  # the last column is not padded
            fmt = "".join(_cell("<", w + 2) for w in widths[:-1]) + "{}"
        self._plain += [fmt.format(*row).rstrip() for row in (columns, *rows)]

    def close(self) -> None:
        """Write what a pipe gets in one go (the terminal was written as it went)."""
        if self._plain:
            self.file.write("\n".join(self._plain) + "\n")
            self._plain = []
        self.file.flush()
