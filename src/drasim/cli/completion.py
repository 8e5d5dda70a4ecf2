"""`kubectl_complete-dra`: kubectl's plugin completion (kubectl >= 1.26 runs it with the words after
`kubectl dra`; it answers in Cobra's `__complete` format) from click's own completion of the commands."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from click.shell_completion import CompletionItem, ShellComplete

__all__ = ["complete", "kubectl_complete"]

# Cobra's ShellCompDirective values.
DEFAULT = 0  # the shell may complete file names
NO_FILE_COMP = 4


def complete(words: Sequence[str]) -> list[CompletionItem]:
    """Click's completions of the last word of `words` (the words after the program name)."""
    from drasim.cli.main import cli

    args = list(words)
    incomplete = args.pop() if args else ""
    return ShellComplete(cli, {}, "kubectl dra", "_KUBECTL_DRA_COMPLETE").get_completions(args, incomplete)


def kubectl_complete(argv: Sequence[str] | None = None) -> None:
    """Print the completions of `argv` (default: this process's arguments), then `:DIRECTIVE`."""
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["__complete"]:
        words = words[1:]
    items = complete(words)
    files = any(item.type in ("file", "dir") for item in items)
    for item in items:
        if item.type == "plain":
            print(f"{item.value}\t{item.help}" if item.help else item.value)
    print(f":{DEFAULT if files else NO_FILE_COMP}")
