"""drasim lint: API validation plus checks that catch what DRA users trip over (rules in `RULES`)."""

from drasim.lint.base import LintFinding
from drasim.lint.rules import RULES, Rule, lint_objects

__all__ = ["RULES", "LintFinding", "Rule", "lint_objects"]
