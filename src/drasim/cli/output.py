"""kubectl's `-o/--output` for every command: one option type (table, wide, json, yaml, name, sarif,
`jsonpath=TEMPLATE`) and the writers of the machine-readable formats."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from json import loads as json_loads
from typing import Any

import click

from drasim.api.encode import json_document, yaml_documents

__all__ = ["JSONPATH", "OutputFormat", "emit", "emit_names", "jsonpath", "object_name", "output_option",
           "ref_name"]

JSONPATH = "jsonpath"


class OutputFormat(click.ParamType):
    """One of `choices`, or `jsonpath=TEMPLATE` (kubectl's template syntax) when `jsonpath` is allowed."""

    name = "format"

    def __init__(self, choices: Sequence[str], *, allow_jsonpath: bool = True,
                 aliases: dict[str, str] | None = None) -> None:
        self.choices = tuple(choices)
        self.allow_jsonpath = allow_jsonpath
        self.aliases = dict(aliases or {})

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "|".join(self.choices) + ("|jsonpath=TEMPLATE" if self.allow_jsonpath else "")

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = str(value)
        if self.allow_jsonpath and text.startswith(JSONPATH + "="):
            template = text[len(JSONPATH) + 1:]
            try:
                _parse(template)
            except ValueError as err:
                self.fail(f"bad jsonpath template {template!r}: {err}", param, ctx)
            return text
        text = self.aliases.get(text, text)
        if text in self.choices:
            return text
        also = ", jsonpath=TEMPLATE" if self.allow_jsonpath else ""
        self.fail(f"{value!r} is not one of {', '.join(self.choices)}{also}.", param, ctx)

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
        from click.shell_completion import CompletionItem

        names = [*self.choices, *((JSONPATH + "=",) if self.allow_jsonpath else ())]
        return [CompletionItem(c) for c in names if c.startswith(incomplete)]


def output_option(*choices: str, default: str | None = "table", help: str = "Output format.",
                  allow_jsonpath: bool = True, aliases: dict[str, str] | None = None
                  ) -> Callable[[Any], Any]:
    """`-o/--output FORMAT`, passed as `output`."""
    return click.option("-o", "--output", "output", type=OutputFormat(choices, allow_jsonpath=allow_jsonpath,
                                                                     aliases=aliases),
                        default=default, show_default=default is not None, help=help)


def emit(data: Any, output: str) -> None:
    """Print `data` (JSON-ready) as json, yaml or `jsonpath=TEMPLATE`."""
    if output == "json":
        click.echo(json_document(data))
    elif output == "yaml":
        if isinstance(data, dict):
            click.echo(yaml_documents([data]), nl=False)
        else:
            import yaml

            click.echo(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), nl=False)
    elif output.startswith(JSONPATH + "="):
        click.echo(jsonpath(output[len(JSONPATH) + 1:], data), nl=False)
    else:  # pragma: no cover - the option type only lets the formats above reach here
        raise ValueError(f"not a data format: {output}")


def emit_names(names: Iterable[str]) -> None:
    """`-o name`: one `kind/name` a line, as kubectl prints them."""
    for name in names:
        click.echo(name)


# --- kubectl's JSONPath templates ------------------------------------------------------------------
# Text with {expressions}: `{.items[*].metadata.name}`, `{range .items[*]}...{end}`, `{"\n"}`, `{@}`;
# path steps `.field`, `['field']`, `[N]`, `[N:M]`, `[*]`, `.*`, `..field`. Several results print
# space-separated, strings as they are, everything else as JSON (as kubectl does).

_TOKEN = re.compile(r"\{((?:[^}\"']|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*')*)\}")
_STEP = re.compile(r"\[\?\(\s*@((?:\.[\w-]+)+)\s*(?:(==|!=|<=|>=|<|>)\s*('[^']*'|\"[^\"]*\"|-?\d+(?:\.\d+)?|true|false"
                   r"|null))?\s*\)\s*\]"
                   r"|\.\.([\w-]+)|\.([\w-]+|\*)"
                   r"|\[\s*(?:'([^']*)'|\"([^\"]*)\"|(\*)|(-?\d*)\s*:\s*(-?\d*)|(-?\d+))\s*\]")


def _parse(template: str) -> list[Any]:
    """Template -> nested nodes: str (text), ("path", steps), ("lit", text), ("range", steps, body)."""
    out: list[Any] = []
    stack: list[list[Any]] = [out]
    pos = 0
    for m in _TOKEN.finditer(template):
        if m.start() > pos:
            stack[-1].append(template[pos:m.start()])
        pos = m.end()
        expr = m.group(1).strip()
        if expr == "end":
            if len(stack) == 1:
                raise ValueError("{end} without {range}")
            stack.pop()
        elif expr.startswith("range "):
            body: list[Any] = []
            stack[-1].append(("range", _steps(expr[6:].strip()), body))
            stack.append(body)
        elif expr[:1] in ("'", '"') and expr[-1:] == expr[:1] and len(expr) >= 2:
            stack[-1].append(("lit", expr[1:-1].encode().decode("unicode_escape")))
        else:
            stack[-1].append(("path", _steps(expr)))
    if "{" in template[pos:] or "}" in template[pos:]:
        raise ValueError("unbalanced braces")
    if len(stack) != 1:
        raise ValueError("{range} without {end}")
    if pos < len(template):
        out.append(template[pos:])
    return out


def _steps(expr: str) -> list[tuple[str, Any]]:
    text = expr[1:] if expr.startswith(("$", "@")) else expr
    steps: list[tuple[str, Any]] = []
    pos = 0
    while pos < len(text):
        m = _STEP.match(text, pos)
        if m is None:
            raise ValueError(f"unexpected {text[pos:]!r}")
        fpath, fop, fvalue, deep, field, q1, q2, star, lo, hi, index = m.groups()
        if fpath is not None:
            value = None if fvalue is None else json_loads(fvalue.replace("'", '"') if fvalue[0] == "'" else fvalue)
            steps.append(("filter", ([("field", f) for f in fpath[1:].split(".")], fop, value)))
        elif deep is not None:
            steps.append(("deep", deep))
        elif field == "*" or star:
            steps.append(("all", None))
        elif field is not None:
            steps.append(("field", field))
        elif q1 is not None or q2 is not None:
            steps.append(("field", q1 if q1 is not None else q2))
        elif index is not None:
            steps.append(("index", int(index)))
        else:
            steps.append(("slice", (int(lo) if lo else None, int(hi) if hi else None)))
        pos = m.end()
    return steps


def _walk(values: list[Any], steps: list[tuple[str, Any]]) -> list[Any]:
    for op, arg in steps:
        nxt: list[Any] = []
        for v in values:
            if ((op == "field" and isinstance(v, dict) and arg in v)
                    or (op == "index" and isinstance(v, list) and -len(v) <= arg < len(v))):
                nxt.append(v[arg])
            elif op == "slice" and isinstance(v, list):
                nxt.extend(v[arg[0]:arg[1]])
            elif op == "all":
                nxt.extend(v.values() if isinstance(v, dict) else v if isinstance(v, list) else [])
            elif op == "filter":
                path, cmp, want = arg
                nxt.extend(x for x in (v if isinstance(v, list) else v.values() if isinstance(v, dict) else [])
                           if _keep(_walk([x], path), cmp, want))
            elif op == "deep":
                nxt.extend(_deep(v, arg))
        values = nxt
    return values


def _keep(found: list[Any], cmp: str | None, want: Any) -> bool:
    if cmp is None:
        return bool(found)
    if not found:
        return False
    got = found[0]
    if cmp == "==":
        return bool(got == want)
    if cmp == "!=":
        return bool(got != want)
    try:
        return bool({"<": got < want, ">": got > want, "<=": got <= want, ">=": got >= want}[cmp])
    except TypeError:
        return False


def _deep(value: Any, name: str) -> list[Any]:
    found: list[Any] = []
    if isinstance(value, dict):
        if name in value:
            found.append(value[name])
        for child in value.values():
            found.extend(_deep(child, name))
    elif isinstance(value, list):
        for child in value:
            found.extend(_deep(child, name))
    return found


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return json_document(value, indent=0).decode().replace("\n", "") if isinstance(value, (dict, list)) \
        else str(value)


def _render(nodes: list[Any], current: Any) -> str:
    parts: list[str] = []
    for node in nodes:
        if isinstance(node, str):
            parts.append(node)
        elif node[0] == "lit":
            parts.append(node[1])
        elif node[0] == "path":
            parts.append(" ".join(_text(v) for v in _walk([current], node[1])))
        else:
            parts.extend(_render(node[2], item) for item in _walk([current], node[1]))
    return "".join(parts)


def jsonpath(template: str, data: Any) -> str:
    """`template` (kubectl's JSONPath syntax) applied to `data`. Raises ValueError on a malformed template."""
    text = template.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]  # kubectl accepts the template quoted
    return _render(_parse(text), data)


def ref_name(ref: str) -> str:
    """`Kind/namespace/name` or `Kind/name` (drasim's object references) as `kubectl get -o name` prints it."""
    kind, _, rest = ref.partition("/")
    return object_name(kind, rest.rpartition("/")[2]) if rest else ref


def object_name(kind: str, name: str) -> str:
    """What `kubectl get -o name` prints: `pod/NAME`, `resourceclaim.resource.k8s.io/NAME`."""
    from drasim.api.kinds import KINDS

    group = next((g for g, kinds in KINDS.items() if kind in kinds), "")
    return f"{kind.lower()}{'.' + group if group else ''}/{name}"
