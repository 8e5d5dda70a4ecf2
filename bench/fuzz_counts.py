"""Per-command counts of the fuzz inputs (tests/fuzz_inputs.py): how many mutated inputs each command was given
and how they ended (accepted: exit 0; rejected: one clean message, non-zero exit). Any traceback fails.

`python bench/fuzz_counts.py [N]` runs N cases per command (default 200) and prints the table for the note.
"""

from __future__ import annotations

import resource
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from hypothesis import HealthCheck, given, settings

from fuzz_inputs import COMMANDS, COUNTS, SCENARIOS, mutated_manifest, run


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 200
    config = settings(max_examples=n, deadline=None, database=None,
                      suppress_health_check=list(HealthCheck))
    def fuzz(command: str) -> None:
        @config
        @given(mutated_manifest())
        def one(case: tuple[bytes, str, str]) -> None:
            run(command, case[0], case[1])

        one()

    for command in sorted(COMMANDS):
        fuzz(command)

    @config
    @given(mutated_manifest(corpus=SCENARIOS))
    def allocate(case: tuple[bytes, str, str]) -> None:
        run("allocate", case[0], ".yaml", lambda f, d: ["allocate", "--check", str(f)])

    allocate()
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    print(f"== fuzz: mutated real inputs per command (hypothesis, {n} examples each; no traceback in any)")
    print(f"{'command':<24}{'tried':>8}{'accepted':>10}{'rejected':>10}")
    for command, counts in sorted(COUNTS.items()):
        print(f"{command:<24}{sum(counts.values()):>8}{counts['accepted']:>10}{counts['rejected']:>10}")
    print(f"({cpu.ru_utime + cpu.ru_stime:.0f} CPU-s)")


if __name__ == "__main__":
    main()
