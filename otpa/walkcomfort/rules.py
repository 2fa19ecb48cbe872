"""Walk-comfort rules: ibi-group OTP 1.x's ``walk-config.json``, read, checked and applied.

A configuration is ``{"rules": [rule, ...]}``; a rule is a *test* plus a ``factor``. A way
satisfying a rule's test gets its factor; a way's walk-comfort factor is the product of the
factors of every rule it satisfies (1 when none), and multiplies its walking cost (above 1:
avoided, below 1: preferred).  Tests:

``equal`` (the default ``type``)
    ``key`` has ``value``, one string or a list of strings.
``absent``
    ``key`` is not tagged.
``numeric-equal``, ``greater``, ``less``, ``greater-equal``, ``less-equal``
    ``key``'s value, as a number, compares so with ``value`` (a number); a value that is
    not a number fails the test.
``and``, ``or``
    every / any of ``tests`` (a list of tests, nested freely).

Unlike OTP, a malformed configuration is refused as a whole with every problem named
(:class:`WalkComfortConfigError`), never half-applied.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from otpa.errors import OtpaError
from otpa.types import FloatArray, PathLike

__all__ = [
    "WALK_CONFIG_FILENAME",
    "WalkComfortConfigError",
    "WalkComfortRules",
    "load_walk_config",
]

#: The configuration's file name, in a build folder or a router's graph folder.
WALK_CONFIG_FILENAME = "walk-config.json"
#: Largest configuration document read (bytes).
MAX_CONFIG_BYTES = 1 << 20
_MAX_DEPTH = 16

Test = Callable[[Mapping[str, str]], bool]
_NUMERIC: dict[str, Callable[[float, float], bool]] = {
    "numeric-equal": lambda a, b: a == b,
    "greater": lambda a, b: a > b,
    "less": lambda a, b: a < b,
    "greater-equal": lambda a, b: a >= b,
    "less-equal": lambda a, b: a <= b,
}
_TYPES = ("equal", "absent", *_NUMERIC, "and", "or")


class WalkComfortConfigError(ValueError, OtpaError):
    """A walk-comfort configuration cannot be used; ``problems`` lists why."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(self.problems))


def _number(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _compile(spec: Any, where: str, problems: list[str], keys: set[str], depth: int = 0) -> Test:
    """A test function for a test document (problems are collected, not raised)."""
    never: Test = lambda tags: False  # noqa: E731
    if depth > _MAX_DEPTH:
        problems.append(f"{where}: tests nested deeper than {_MAX_DEPTH}")
        return never
    if not isinstance(spec, Mapping):
        problems.append(f"{where}: a test must be an object")
        return never
    kind = spec.get("type", "equal")
    if kind not in _TYPES:
        problems.append(f"{where}: unknown test type {kind!r} (types: {', '.join(_TYPES)})")
        return never
    if kind in ("and", "or"):
        subs = spec.get("tests")
        if not isinstance(subs, list) or not subs:
            problems.append(f"{where}: an {kind!r} test needs a non-empty list 'tests'")
            return never
        tests = [
            _compile(sub, f"{where}.tests[{i}]", problems, keys, depth + 1)
            for i, sub in enumerate(subs)
        ]
        if kind == "and":
            return lambda tags: all(t(tags) for t in tests)
        return lambda tags: any(t(tags) for t in tests)
    key = spec.get("key")
    if not isinstance(key, str) or not key:
        problems.append(f"{where}: a {kind!r} test needs a tag 'key' (a string)")
        return never
    keys.add(key)
    if kind == "absent":
        return lambda tags: key not in tags
    value = spec.get("value")
    if kind == "equal":
        values = value if isinstance(value, list) else [value]
        if not values or not all(isinstance(v, str) for v in values):
            problems.append(f"{where}: an 'equal' test needs a 'value': a string or strings")
            return never
        accepted = frozenset(values)
        return lambda tags: tags.get(key) in accepted
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        problems.append(f"{where}: a {kind!r} test needs a numeric 'value'")
        return never
    compare = _NUMERIC[kind]
    reference = float(value)

    def numeric(tags: Mapping[str, str]) -> bool:
        found = _number(tags.get(key))
        return found is not None and compare(found, reference)

    return numeric


@dataclass(frozen=True, eq=False)
class WalkComfortRules:
    """A checked walk-comfort configuration.

    Attributes
    ----------
    document
        The configuration as given (saved with the network).
    factors
        Each rule's factor.
    keys
        Every tag key the rules read.
    """

    document: dict[str, Any]
    factors: tuple[float, ...]
    keys: frozenset[str]
    _tests: tuple[Test, ...]

    @classmethod
    def from_document(cls, document: Any) -> WalkComfortRules:
        """Check a configuration document (``{"rules": [...]}``).

        Raises
        ------
        WalkComfortConfigError
            Listing every problem.

        Examples
        --------
        >>> rules = WalkComfortRules.from_document(
        ...     {"rules": [{"key": "highway", "value": "primary", "factor": 1.5}]}
        ... )
        >>> rules.factor_of({"highway": "primary"}), rules.factor_of({"highway": "path"})
        (1.5, 1.0)
        >>> WalkComfortRules.from_document({"rules": [{"type": "near", "factor": 2}]})
        Traceback (most recent call last):
        ...
        otpa.walkcomfort.rules.WalkComfortConfigError: rules[0]: unknown test type 'near' ...
        """
        problems: list[str] = []
        if not isinstance(document, Mapping) or not isinstance(document.get("rules"), list):
            raise WalkComfortConfigError(['a walk configuration is {"rules": [...]}'])
        tests: list[Test] = []
        factors: list[float] = []
        keys: set[str] = set()
        for i, rule in enumerate(document["rules"]):
            where = f"rules[{i}]"
            tests.append(_compile(rule, where, problems, keys))
            factor = rule.get("factor") if isinstance(rule, Mapping) else None
            if (
                isinstance(factor, bool)
                or not isinstance(factor, int | float)
                or not math.isfinite(factor)
                or factor <= 0
            ):
                problems.append(f"{where}: 'factor' must be a positive number")
                factor = 1.0
            factors.append(float(factor))
        if problems:
            raise WalkComfortConfigError(problems)
        return cls(dict(document), tuple(factors), frozenset(keys), tuple(tests))

    def __len__(self) -> int:
        return len(self.factors)

    def factor_of(self, tags: Mapping[str, str]) -> float:
        """The walk-comfort factor of a way with these tags (product of matching rules)."""
        factor = 1.0
        for test, f in zip(self._tests, self.factors, strict=True):
            if test(tags):
                factor *= f
        return factor

    def factors_of(self, tag_sets: Sequence[Mapping[str, str]]) -> FloatArray:
        """:meth:`factor_of` of each tag set."""
        return np.fromiter((self.factor_of(t) for t in tag_sets), np.float64, len(tag_sets))


def load_walk_config(path: PathLike) -> WalkComfortRules:
    """Read and check a ``walk-config.json``.

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    WalkComfortConfigError
        If it is too large, not JSON, or not a valid configuration.
    """
    p = Path(path)
    data = p.read_bytes()
    if len(data) > MAX_CONFIG_BYTES:
        msg = f"{p.name}: larger than {MAX_CONFIG_BYTES} bytes"
        raise WalkComfortConfigError([msg])
    try:
        document = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise WalkComfortConfigError([f"{p.name}: not JSON ({exc})"]) from None
    return WalkComfortRules.from_document(document)
