"""Options shared by the commands that read manifests (`-f` like kubectl)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

FILENAME_HELP = "File, directory (read recursively) or - for stdin. Repeatable. Default: the bundled demo cluster."


def filename_option(help_text: str = FILENAME_HELP) -> Callable[[Any], Any]:
    """`-f/--filename PATH` (repeatable), stored as `paths`."""
    return click.option("-f", "--filename", "paths", multiple=True, metavar="PATH", help=help_text)
