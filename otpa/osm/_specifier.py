"""OTP's ``OSMSpecifier`` matching: score how well a way's tags fit ``k=v;k2=v2`` rules.

For every ``key=value`` pair of a specifier, a tag scores 100 for an exact match, 75 when
only the part before a ``:`` matches (``cobblestone:flattened`` -> ``cobblestone``), 1 for a
``*`` wildcard matching any present value, and 0 otherwise; a specifier all of whose pairs
match gets a bonus of 10.  Each pair is scored twice, once against ``key:left`` and once
against ``key:right`` (each falling back to plain ``key``), which gives a *left* and a
*right* score: OTP takes the forward (right-hand side) properties from the best right
score and the backward ones from the best left score.  Ties go to the rule listed first.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["Specifier", "match_score", "match_scores", "parse_specifier"]

Specifier = tuple[tuple[str, str], ...]


def parse_specifier(spec: str) -> Specifier:
    """Parse ``"highway=footway;footway=sidewalk"`` into ``(("highway", "footway"), ...)``.

    Examples
    --------
    >>> parse_specifier("highway=*;cycleway=lane")
    (('highway', '*'), ('cycleway', 'lane'))
    """
    pairs = []
    for part in spec.split(";"):
        key, _, value = part.partition("=")
        pairs.append((key.strip(), value.strip()))
    return tuple(pairs)


def _tag_score(wanted: str, actual: str | None) -> int:
    if actual is None:
        return 0
    if wanted == "*":
        return 1
    if wanted == actual:
        return 100
    if ":" in wanted and wanted.split(":", 1)[0] == actual:
        return 75
    return 0


def match_scores(spec: Specifier, tags: Mapping[str, str]) -> tuple[int, int]:
    """``(left_score, right_score)`` of ``tags`` against ``spec``.

    Examples
    --------
    >>> match_scores(parse_specifier("highway=residential;cycleway=lane"),
    ...              {"highway": "residential", "cycleway:right": "lane"})
    (100, 210)
    """
    left = right = 0
    left_hits = right_hits = 0
    for key, wanted in spec:
        plain = tags.get(key)
        left_value = tags.get(key + ":left", plain)
        right_value = tags.get(key + ":right", plain)
        score = _tag_score(wanted, left_value)
        left += score
        left_hits += score > 0
        score = _tag_score(wanted, right_value)
        right += score
        right_hits += score > 0
    if left_hits == len(spec):
        left += 10
    if right_hits == len(spec):
        right += 10
    return left, right


def match_score(spec: Specifier, tags: Mapping[str, str]) -> int:
    """Single score of ``tags`` against ``spec``, ignoring ``:left``/``:right`` tags.

    Examples
    --------
    >>> match_score(parse_specifier("highway=footway;footway=sidewalk"),
    ...             {"highway": "footway", "footway": "sidewalk"})
    210
    """
    score = 0
    hits = 0
    for key, wanted in spec:
        tag = _tag_score(wanted, tags.get(key))
        score += tag
        hits += tag > 0
    return score + (10 if hits == len(spec) else 0)
