"""CEL selectors at admission: compiled in the new-expressions environment of the gates, cost estimate checked."""

from __future__ import annotations

from functools import lru_cache

from drasim.api.gates import ValidationFeatures
from drasim.api.limits import CEL_SELECTOR_EXPRESSION_MAX_COST
from drasim.cel import CelCompileError, CelEnvironment, compile_selector

__all__ = ["default_cel_checker"]

_TOO_COMPLEX = ("Forbidden", "too complex, exceeds cost limit")


def default_cel_checker(expression: str, features: ValidationFeatures) -> tuple[str, str] | None:
    """None when the expression compiles within the cost limit, else (finding type, message)."""
    return _check(expression, features.consumable_capacity, features.list_type_attributes)


# The verdict depends only on the expression and the two gates that shape the environment; objects repeat
# the same selectors (every claim of a template, every class of a fleet), so each is checked once.
@lru_cache(maxsize=4096)
def _check(expression: str, consumable_capacity: bool, list_type_attributes: bool) -> tuple[str, str] | None:
    env = CelEnvironment(consumable_capacity=consumable_capacity, list_type_attributes=list_type_attributes,
                         stored=False)
    try:
        program = compile_selector(expression, env)
    except CelCompileError as err:
        if "exceeds cost limit" in err.message:
            return _TOO_COMPLEX
        return ("Invalid", err.message)
    if program.max_cost is not None and program.max_cost > CEL_SELECTOR_EXPRESSION_MAX_COST:
        return _TOO_COMPLEX
    return None
