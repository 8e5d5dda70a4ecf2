"""The credentials drasim holds in memory, and the one scrubber keeping them out of all it prints or writes."""

from __future__ import annotations

import base64
import contextlib
import re

__all__ = ["REDACTED", "Secrets", "strip_userinfo"]

REDACTED = "<redacted>"
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/?#\s@]*@")
# A value shorter than this (a user name like "a") would blank out unrelated text; tokens and keys are long.
MIN_SECRET = 6
# PEM bodies are base64 lines of 64 characters: a server echoing part of a key shows whole lines.
_PEM_LINE = re.compile(r"^[A-Za-z0-9+/=]{16,}$")


def strip_userinfo(text: str) -> str:
    """`text` with the user info (`user:password@`) of every URL in it removed."""
    return _USERINFO.sub(r"\1", text)


class Secrets:
    """Every credential of one connection, in each form it may come back in: raw, base64 (basic auth,
    `*-data` fields), as an HTTP header value, JSON-escaped, and a PEM key's lines."""

    def __init__(self) -> None:
        self._values: set[str] = set()
        self._ordered: list[str] = []
        self._bytes: list[bytes] = []

    def add(self, value: str | bytes | None) -> None:
        """Remember a credential (a token, password, key, ...) and its derived forms."""
        if not value:
            return
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        forms = {text, text.strip(), base64.b64encode(text.encode()).decode(), f"Bearer {text.strip()}"}
        if "-----BEGIN" in text or "\n" in text.strip():
            lines = [line.strip() for line in text.splitlines()]
            forms.update(line for line in lines if _PEM_LINE.match(line))
            forms.add(text.strip().replace("\n", "\\n"))  # as a JSON string shows it
        self._update(forms)

    def add_basic(self, username: str | None, password: str | None) -> None:
        """Basic auth: the password, `user:password` raw, base64 and as the `Basic ...` header value."""
        self.add(password)
        if username is not None and password:
            pair = f"{username}:{password}"
            encoded = base64.b64encode(pair.encode()).decode()
            self._update({pair, encoded, f"Basic {encoded}"})

    def add_base64(self, data: str | None) -> None:
        """A `*-data` field: the base64 text as written and what it decodes to."""
        if not data:
            return
        self._update({data.strip()})
        with contextlib.suppress(ValueError):
            self.add(base64.b64decode(data, validate=False))

    def _update(self, forms: set[str]) -> None:
        new = {f for f in forms if len(f) >= MIN_SECRET} - self._values
        if new:
            self._values |= new
            self._ordered = sorted(self._values, key=len, reverse=True)  # a longer form first: no half-redactions
            self._bytes = [s.encode() for s in self._ordered]

    def __bool__(self) -> bool:
        return bool(self._values)

    def scrub(self, text: str) -> str:
        """`text` without URL user info and without any credential."""
        text = strip_userinfo(text)
        for secret in self._ordered:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text

    def scrub_bytes(self, data: bytes) -> bytes:
        """A response body without any credential (before anything decodes it: objects, dumps and warnings
        made from it cannot carry one)."""
        for secret in self._bytes:
            if secret in data:
                data = data.replace(secret, REDACTED.encode())
        return data
