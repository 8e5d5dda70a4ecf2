"""The Kubernetes DRA CEL environment for device selectors.

    compile_selector(expression, env) -> Program;  Program.evaluate(device_input(driver, device))
    -> True | False | CelRuntimeError;  CelCompileError carries upstream's compile error text.

Parsing and type checking are done by cel-cpp (`cel-expr-python`), whose syntax errors and most
checker messages are byte-identical to cel-go's (the others are rewritten into cel-go's words).
The checked AST is decoded from its protobuf bytes and compiled into Python closures; evaluation,
the Kubernetes libraries and the `device` variable are implemented here. Differences from upstream
(k8s.io/dynamic-resource-allocation v0.36 on cel-go):

* Runtime cost. The limit (1,000,000 per evaluation, error "operation cancelled: actual cost limit
  exceeded", never absorbed by `&&`/`||`) is metered more coarsely than cel-go: each comprehension
  iteration costs one unit per non-constant node of its loop condition and step, and
  size-proportional functions (string/list/bytes `+`, matches, find, findAll, split, join, replace,
  format, flatten, sort, distinct, sets.*, lists.range) cost about a tenth of their input sizes;
  all other nodes are free. Loops hit the limit at about the same point as in cel-go; straight-line
  expressions cost less than cel-go says.
* Estimated cost and length. "too complex, exceeds cost limit" and "Too long: may not be more than
  10240 bytes" apply only to the NewExpressions environment (`stored=False`), as upstream applies
  them in API validation; the allocator's stored environment never rejects on them, like upstream.
  The estimator multiplies the per-iteration cost by the range size; sizes it cannot bound (lists
  computed at runtime) count as unbounded, so it rejects some comprehensions that cel-go's
  estimator sizes, and its figures differ from cel-go's `MaxCost`.
* Regular expressions run on RE2 (`google-re2`), linear in the text like Go's regexp; errors for
  invalid patterns carry Go's texts ("missing closing )" quoting the pattern).
* Not declared (compile error "undeclared reference"): the Kubernetes URL, IP, CIDR, Format and
  Authz libraries, `optional.unwrap`/`unwrapOpt`, and quantity `mul`/`div`/`divInt` (newer than
  v1.36). `string.format` supports %s %d %f %e %b %x %X %o without the compile-time format
  validator; its error texts are approximate. Timestamps and durations: parse, compare,
  arithmetic and the get* accessors only; their error texts are approximate.
* Parsing: cel-cpp's parser nests at most 32 levels (cel-go allows 250), so a chain of 32 or more
  `+` terms or very deep parentheses fails with "Exceeded max recursion depth of 32 when parsing."
  or "Expression recursion limit exceeded. limit: 32" where upstream compiles it. `&&`/`||` chains
  and nested macros are not affected in practice.
* `device` is declared as qualified variables (`device.driver`, ...) plus an opaque `device`.
  `device.foo` reports cel-go's "undefined field 'foo'"; but `has(device.driver)` (always true
  upstream) is typed by cel-cpp as the field itself, and `device.?driver` or selecting fields of
  `device` bound to a variable do not compile.
* When several attributes of a device fail conversion, the first in the slice's order is
  reported (Go's map order is random); when an unqualified name (`model`) and its qualified twin
  (`<driver>/model`) are both published, lookups see the unqualified one (upstream: random).
* Runtime conversion messages for non-bool results other than string and list, and a few rare
  runtime error texts (index/key type errors), are best-effort copies of cel-go's.
"""

from drasim.cel.cache import SelectorCache
from drasim.cel.compile import Program, compile_selector
from drasim.cel.device import DeviceInput, device_input
from drasim.cel.env import DEFAULT_ENV, CelEnvironment, stored_environment
from drasim.cel.errors import CelCompileError, CelRuntimeError

__all__ = [
    "DEFAULT_ENV",
    "CelCompileError",
    "CelEnvironment",
    "CelRuntimeError",
    "DeviceInput",
    "Program",
    "SelectorCache",
    "compile_selector",
    "device_input",
    "stored_environment",
]
