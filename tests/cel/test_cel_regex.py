"""CEL regular expressions run on RE2: linear in the text, Go's error texts for invalid patterns."""

from __future__ import annotations

import pytest
from cel_helpers import device, outcome, run

from drasim.cel.library.regex import find_all, regex_error


def test_pathological_pattern_on_a_100000_character_attribute() -> None:
    # Backtracking engines take time doubling every two characters here; RE2 answers in linear time.
    dev = device({"x": "a" * 100_000 + "!"})
    assert run("device.attributes['dra.example.com'].x.matches('^(a+)+$')", dev) is False
    assert run("device.attributes['dra.example.com'].x.matches('^(a|aa)+!$')", dev) is True
    assert run("device.attributes['dra.example.com'].x.find('(a*)*b') == ''", dev) is True
    assert len(find_all("ab" * 50_000, "(a|ab)(c|bcd)?b?")) == 50_000


@pytest.mark.parametrize(("pattern", "message"), [
    ("(a", "missing closing ): `(a`"),
    ("[a", "missing closing ]: `[a`"),
    ("a**", "invalid nested repetition operator: `**`"),
    ("*", "missing argument to repetition operator: `*`"),
    ("(?=x)", "invalid or unsupported Perl syntax: `(?=`"),
    ("(a)\\1", "invalid escape sequence: `\\1`"),
    ("[z-a]", "invalid character class range: `z-a`"),
    ("x{1001}", "invalid repeat count: `{1001}`"),
    ("a\\", "trailing backslash at end of expression: `a\\`"),
])
def test_invalid_patterns_carry_gos_texts(pattern: str, message: str) -> None:
    assert regex_error(pattern) == message
    assert outcome(f"'x'.matches(dyn({pattern!r}))") == ("runtime", f"error parsing regexp: {message}")
    assert outcome(f"'x'.find(dyn({pattern!r})) == ''") == (
        "runtime", f"Illegal regex: error parsing regexp: {message}")


def test_re2_syntax_go_accepts() -> None:
    assert run("'a\\nb'.matches('a$')") is False  # `$` is the end of the text without (?m)
    assert run("'a\\nb'.matches('(?m)a$') && 'ab1'.matches('^[[:alpha:]]+[[:digit:]]$')") is True
    assert run("'héllo'.matches('^\\\\pL+$') && 'x'.matches('\\\\Ax\\\\z')") is True
    assert run("'123 abc 456'.findAll('[0-9]*') == ['123', '', '', '', '', '456']") is True
