"""Every library function of the environment: at least one true and one false or error case each."""

from __future__ import annotations

from typing import Any

import pytest
from cel_helpers import LISTS, device, outcome

# (expression, expected): True/False, ("runtime", exact message), ("compile", substring)
CASES: list[tuple[str, Any]] = [
    # --- standard: arithmetic and overflow ------------------------------------------------------
    ("1 + 2 == 3", True),
    ("9223372036854775807 + 1 > 0", ("runtime", "integer overflow")),
    ("-9223372036854775808 - 1 < 0", ("runtime", "integer overflow")),
    ("4611686018427387904 * 2 > 0", ("runtime", "integer overflow")),
    ("-(-9223372036854775807 - 1) > 0", ("runtime", "integer overflow")),
    ("7 / -2 == -3 && -7 % 3 == -1", True),
    ("(-9223372036854775807 - 1) / -1 == 1", ("runtime", "integer overflow")),
    ("(-9223372036854775807 - 1) % -1 == 0", ("runtime", "integer overflow")),
    ("1 / 0 == 0", ("runtime", "division by zero")),
    ("1 % 0 == 0", ("runtime", "modulus by zero")),
    ("1u - 2u == 0u", ("runtime", "unsigned integer overflow")),
    ("18446744073709551615u + 1u > 0u", ("runtime", "unsigned integer overflow")),
    ("3u / 2u == 1u && 3u % 2u == 1u", True),
    ("1.5 * 2.0 == 3.0 && 1.0 / 0.0 > 1e308", True),
    ("'a' + 'b' == 'ab' && b'a' + b'b' == b'ab' && [1] + [2] == [1, 2]", True),
    # --- standard: comparisons (with Kubernetes' cross-type numeric comparisons) ------------------
    ("1 < 2.0 && 2u > 1 && 1.5 >= 1 && 3 <= 3u", True),
    ("2 < 1.0", False),
    ("'a' < 'b' && b'a' < b'b' && false < true", True),
    ("dyn(1) == 1.0 && dyn(1) == 1u && dyn(1u) == 1.0", True),
    ("dyn(true) == 1", False),
    ("dyn('a') < 1", ("runtime", "no such overload")),
    ("[1, 2] == [1, 2] && {'a': 1} == {'a': 1} && [1] != [2]", True),
    ("null == null", True),
    # --- standard: conversions --------------------------------------------------------------------
    ("int('12') == 12 && int(1.9) == 1 && int(2u) == 2", True),
    ("int('x') == 1", ("runtime", 'strconv.ParseInt: parsing "x": invalid syntax')),
    ("int(1e100) == 1", ("runtime", "integer overflow")),
    ("uint(1) == 1u && uint('2') == 2u", True),
    ("uint(-1) == 1u", ("runtime", "unsigned integer overflow")),
    ("double(1) == 1.0 && double('1.5') == 1.5 && double(2u) == 2.0", True),
    ("double('x') == 1.0", ("runtime", 'strconv.ParseFloat: parsing "x": invalid syntax')),
    ("string(1) == '1' && string(1.0) == '1' && string(1e6) == '1e+06' && string(123.25) == '123.25'", True),
    ("string(true) == 'true' && string(b'ab') == 'ab' && string(2u) == '2'", True),
    ("string(b'\\xff') == ''", ("runtime", "invalid UTF-8 in bytes, cannot convert to string")),
    ("bool('true') && !bool('f')", True),
    ("bool('yes')", ("runtime", 'strconv.ParseBool: parsing "yes": invalid syntax')),
    ("bytes('a') == b'a'", True),
    ("type(1) == int && type('a') == string && type([1]) == list && type({'a': 1}) == map", True),
    ("type(1) == string", False),
    ("dyn(1) == 1", True),
    # --- standard: strings, size, in, has ---------------------------------------------------------
    ("'hello'.contains('ell') && 'hello'.startsWith('he') && 'hello'.endsWith('lo')", True),
    ("'hello'.contains('x')", False),
    ("'abc'.matches('^a.c$') && matches('abc', 'b')", True),
    ("'a\\nb'.matches('a$')", False),
    ("'a\\nb'.matches('(?m)a$') && 'ab1'.matches('^[[:alpha:]]+[[:digit:]]$')", True),
    ("'a+'.matches('a\\\\++')", True),
    ("'aa'.matches(dyn('(a)\\\\1'))", ("runtime", "error parsing regexp: invalid escape sequence: "
                                                 "`\\1`")),
    ("size('héllo') == 5 && 'abc'.size() == 3 && size([1, 2]) == 2 && size({'a': 1}) == 1", True),
    ("size(b'ab') == 2", True),
    ("2 in [1, 2] && 'a' in {'a': 1}", True),
    ("3 in [1, 2]", False),
    ("has({'a': 1}.a)", True),
    ("has({'a': 1}.b)", False),
    ("{'a': 1}['b'] == 1", ("runtime", "no such key: b")),
    ("[1][3] == 1", ("runtime", "index '3' out of range in list size '1'")),
    ("true ? 1 == 1 : 1 / 0 == 0", True),
    # --- macros -----------------------------------------------------------------------------------
    ("[1, 2, 3].exists(x, x > 2) && [1, 2].all(x, x > 0) && [1, 2, 3].exists_one(x, x > 2)", True),
    ("[1, 2].exists(x, x > 5)", False),
    ("[1, 2, 3].exists_one(x, x > 1)", False),
    ("[1, 2].map(x, x * 2) == [2, 4] && [1, 2, 3].filter(x, x > 1) == [2, 3]", True),
    ("[1, 2, 3].map(x, x > 1, x * 10) == [20, 30]", True),
    ("{'a': 1, 'b': 2}.all(k, k.size() == 1)", True),
    ("[1, 2].all(i, v, v > i) && {'a': 1}.exists(k, v, v == 1)", True),
    ("[1, 2].existsOne(i, v, v == 2)", True),
    ("[1, 2].transformList(i, v, v * 2) == [2, 4] && {'a': 1}.transformMap(k, v, v + 1) == {'a': 2}", True),
    ("cel.bind(x, 2, x * x == 4)", True),
    ("cel.bind(x, 1 / 0, true)", True),
    ("cel.bind(x, 1 / 0, x == 1)", ("runtime", "division by zero")),
    # --- optionals --------------------------------------------------------------------------------
    ("optional.of(1).value() == 1 && optional.of(1).hasValue() && !optional.none().hasValue()", True),
    ("optional.none().orValue(2) == 2 && optional.none().or(optional.of(3)).value() == 3", True),
    ("optional.none().value() == 1", ("runtime", "optional.none() dereference")),
    ("optional.ofNonZeroValue(0).hasValue()", False),
    ("optional.ofNonZeroValue('a').hasValue()", True),
    ("{'a': 1}.?a.orValue(0) == 1 && {'a': 1}.?b.orValue(0) == 0 && [1][?3].orValue(9) == 9", True),
    ("[?optional.none(), ?optional.of(2)] == [2] && {?'a': optional.none(), 'b': 1} == {'b': 1}", True),
    ("optional.of(2).optMap(v, v * 2).value() == 4", True),
    ("optional.of(2).optFlatMap(v, optional.none()).hasValue()", False),
    ("[1, 2].first().value() == 1 && [1, 2].last().value() == 2 && ![].first().hasValue()", True),
    ("optional.none().orValue(1 / 0) == 0", ("runtime", "division by zero")),
    ("optional.of(1).orValue(1 / 0) == 1", True),
    # --- ext.Strings v2 ---------------------------------------------------------------------------
    ("'hello'.charAt(1) == 'e' && 'hello'.charAt(5) == ''", True),
    ("'hello'.charAt(6) == ''", ("runtime", "index out of range: 6")),
    ("'hello mellow'.indexOf('ello') == 1 && 'hello mellow'.indexOf('ello', 2) == 7", True),
    ("'hello'.indexOf('x') == -1 && 'hello'.indexOf('', 2) == 2 && 'hello'.indexOf('l', 20) == -1", True),
    ("'hello'.indexOf('l', -1) == 1", ("runtime", "index out of range: -1")),
    ("'hello mellow'.lastIndexOf('ello') == 7 && 'hello mellow'.lastIndexOf('ello', 6) == 1", True),
    ("'hello mellow'.lastIndexOf('') == 12 && 'hello'.lastIndexOf('x') == -1", True),
    ("'TacoCÆt'.lowerAscii() == 'tacocÆt' && 'TacoCÆt'.upperAscii() == 'TACOCÆT'", True),
    ("'hello hello'.replace('he', 'we') == 'wello wello' && 'hello hello'.replace('he', 'we', 1) == "
     "'wello hello'", True),
    ("'ab'.replace('', '_') == '_a_b_' && 'hello'.replace('l', 'L', 0) == 'hello'", True),
    ("'a b c'.split(' ') == ['a', 'b', 'c'] && 'a b c'.split(' ', 2) == ['a', 'b c'] && "
     "'a b'.split(' ', 0) == []", True),
    ("'tacocat'.substring(4) == 'cat' && 'tacocat'.substring(0, 4) == 'taco'", True),
    ("'tacocat'.substring(2, 1) == ''", ("runtime", "invalid substring range. start: 2, end: 1")),
    ("'tacocat'.substring(-1) == ''", ("runtime", "index out of range: -1")),
    ("'  \\ttrim\\n '.trim() == 'trim'", True),
    ("['a', 'b'].join() == 'ab' && ['a', 'b'].join('-') == 'a-b' && [].join('/') == ''", True),
    ("strings.quote('a\"b\\n') == '\"a\\\\\"b\\\\n\"'", True),
    ("'%s=%d, %.2f, %x, %b, %o, %e'.format(['a', 5, 1.5, 255, 5, 8, 1000.0]) == "
     "'a=5, 1.50, ff, 101, 10, 1.000000e+03'", True),
    ("'%d'.format(['a']) == ''", ("runtime",
                                  "error during formatting: decimal clause can only be used on integers, "
                                  "was given string")),
    ("'%s %s'.format(['a']) == ''", ("runtime", "index 1 out of range")),
    ("'%s'.format([[1, 'a'], true]) == '[1, \"a\"]'", True),
    ("'a'.reverse() == 'a'", ("compile", "found no matching overload for 'reverse' applied to 'string.()'")),
    # --- Kubernetes lists -------------------------------------------------------------------------
    ("[1, 2, 2].isSorted() && ['a', 'b'].isSorted() && [].isSorted()", True),
    ("[2.0, 1.0].isSorted()", False),
    ("[1, 3].sum() == 4 && [1.0, 3.0].sum() == 4.0 && [duration('1m'), duration('1s')].sum() == "
     "duration('61s')", True),
    ("[1u].sum() == 1u", True),
    ("[1, 3].min() == 1 && [1, 3].max() == 3 && ['b', 'a'].min() == 'a'", True),
    ("[].min() == 1", ("runtime", "min called on empty list")),
    ("[].max() == 1", ("runtime", "max called on empty list")),
    ("[1, 2, 2, 3].indexOf(2) == 1 && ['a', 'b', 'b'].lastIndexOf('b') == 2", True),
    ("[1.0].indexOf(1.1) == -1 && [].indexOf('a') == -1", True),
    ("[1].indexOf('a') == 0", ("compile", "found no matching overload for 'indexOf'")),
    # --- Kubernetes regex -------------------------------------------------------------------------
    ("'abc 123'.find('[0-9]+') == '123' && 'abc'.find('x') == ''", True),
    ("'123 abc 456'.findAll('[0-9]+') == ['123', '456'] && '123 abc 456'.findAll('[0-9]+', 1) == ['123']",
     True),
    ("'123 abc 456'.findAll('[0-9]*') == ['123', '', '', '', '', '456']", True),
    ("'abc'.findAll('x') == []", True),
    ("'abc'.find(dyn('(')) == ''", ("runtime", "Illegal regex: error parsing regexp: "
                                               "missing closing ): `(`")),
    # --- Kubernetes quantity ----------------------------------------------------------------------
    ("quantity('12Mi') == quantity('12582912') && isQuantity('20M')", True),
    ("isQuantity('20Mo') || isQuantity('10Mm')", False),
    ("quantity('10Mo') == quantity('1')",
     ("runtime", "quantities must match the regular expression "
                 "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")),
    ("quantity('10Mm') == quantity('1')", ("runtime", "unable to parse quantity's suffix")),
    ("quantity('200M').compareTo(quantity('0.2G')) == 0 && quantity('50M').compareTo(quantity('50Mi')) == -1",
     True),
    ("quantity('150Mi').isGreaterThan(quantity('100Mi')) && quantity('50M').isLessThan(quantity('100M'))",
     True),
    ("quantity('50Mi').isGreaterThan(quantity('100Mi')) || quantity('100M').isLessThan(quantity('50M'))",
     False),
    ("quantity('50k').add(quantity('20')) == quantity('50.02k')", True),
    ("quantity('50k').add(20) == quantity('50020')", True),
    ("quantity('50k').sub(quantity('20')) == quantity('49.98k') && quantity('50k').sub(20000) == "
     "quantity('30k')", True),
    ("quantity('50k').add(20).sub(quantity('100k')).sub(-50000).asInteger() == 20", True),
    ("quantity('9999999999999999999999999999999999999G').asInteger() == 1",
     ("runtime", "cannot convert value to integer")),
    ("quantity('50').isInteger() && !quantity('9999999999999999999999999999999999999G').isInteger()", True),
    ("quantity('50.703k').asApproximateFloat() == 50703.0", True),
    ("sign(quantity('-1')) == -1 && sign(quantity('0')) == 0 && sign(quantity('5')) == 1", True),
    ("quantity('1').sign() == 1", ("compile", "undeclared reference to 'sign'")),
    # --- Kubernetes semver ------------------------------------------------------------------------
    ("semver('1.2.3').major() == 1 && semver('1.2.3').minor() == 2 && semver('1.2.3').patch() == 3", True),
    ("semver('1.2.3').compareTo(semver('2.0.0')) == -1 && semver('1.2.3').compareTo(semver('0.1.2')) == 1",
     True),
    ("semver('1.2.3').isGreaterThan(semver('1.2.4')) || semver('1.2.3').isLessThan(semver('1.2.2'))", False),
    ("semver('v1.0', true) == semver('1.0.0') && semver('01.01.01', true) == semver('1.1.1')", True),
    ("isSemver('1.0.0') && isSemver('v1.0', true)", True),
    ("isSemver('v1.0') || isSemver('hello')", False),
    ("semver('bad') == semver('1.0.0')", ("runtime", "No Major.Minor.Patch elements found")),
    ("semver('1.0.0-alpha').isLessThan(semver('1.0.0'))", True),
    # --- ext.Lists v3 -----------------------------------------------------------------------------
    ("[1, 2, 3, 4].slice(1, 3) == [2, 3]", True),
    ("[1, 2].slice(1, 3) == []", ("runtime", "cannot slice(1, 3), list is length 2")),
    ("[[1], [2, 3]].flatten() == [1, 2, 3] && [[[1]], [[2]]].flatten(1) == [[1], [2]]", True),
    ("[[[1]], [[2]]].flatten(2) == [1, 2]", True),
    ("[[1]].flatten(-1) == []", ("runtime", "level must be non-negative")),
    ("[3, 1, 2].sort() == [1, 2, 3] && ['b', 'a'].sort() == ['a', 'b']", True),
    ("[[2], [1]].sortBy(e, e[0]) == [[1], [2]]", True),
    ("[1, 2, 2, 3, 3, 3].distinct() == [1, 2, 3] && [5, 3, 1, 2].reverse() == [2, 1, 3, 5]", True),
    ("lists.range(3) == [0, 1, 2] && lists.range(0) == []", True),
    # --- ext.Sets ---------------------------------------------------------------------------------
    ("sets.contains([1, 2, 3], [2, 3]) && sets.equivalent([1, 1, 2], [2, 1]) && sets.intersects([1], [1, 2])",
     True),
    ("sets.contains([1], [2]) || sets.equivalent([1], [1, 2]) || sets.intersects([1], [2])", False),
    ("sets.contains([dyn(1), dyn(2.0)], [dyn(2u)])", True),
    # --- timestamps and durations (basics) --------------------------------------------------------
    ("timestamp('2024-01-01T00:00:00Z') + duration('1h') > timestamp('2024-01-01T00:30:00Z')", True),
    ("timestamp('2024-01-01T10:20:30Z').getHours() == 10", True),
    ("timestamp('2024-03-01T00:00:00Z').getMonth() == 2", True),
    ("duration('1h30m').getMinutes() == 90 && string(duration('1.5s')) == '1.5s'", True),
    ("timestamp('2024-01-01T00:00:00Z') - timestamp('2023-12-31T00:00:00Z') == duration('24h')", True),
    ("timestamp('bad') > timestamp(0)", ("compile", "invalid timestamp argument")),
]


@pytest.mark.parametrize(("expr", "expected"), CASES)
def test_function(expr: str, expected: Any) -> None:
    got = outcome(expr, device(), LISTS)
    if isinstance(expected, tuple) and expected[0] == "compile":
        assert isinstance(got, tuple) and got[0] == "compile", got
        assert expected[1] in got[1]
    else:
        assert got == expected, got
