"""``GeocodeIndex``: names of stops, stations, street corners and places, searchable.

The index is a handful of flat arrays (kind, position, the two streets of a
corner) and string tables (display names, ids, stop codes, street names), so
that it is saved in the graph file like every other member (never pickled).
Searching folds text (:func:`otpa.geocode.fold`: no accents, no case, no
punctuation) and ranks candidates in tiers, best first:

0. the query *is* a stop code, an id or a whole name;
1. every word of the query starts a word of the name (``autocomplete``), or is a
   whole word of it; corners ``"A & B"`` (either order) whose two streets match;
2. fuzzy matches (:func:`rapidfuzz.fuzz.WRatio`) in which every query word is
   covered by a name word: the same word, one a prefix of the other (``MA`` for
   ``Mannheim``) or a close spelling;
3. other fuzzy matches.

Within a tier the rapidfuzz score decides, then the kind (cluster, stop, corner,
place), then the shorter name.  Fuzzy matching runs over the names of stops,
clusters and places; corners are found by their streets (each side of the
``&`` matched exactly, as a prefix such as ``Moltkestr`` or fuzzily) or when
the query holds the words of both streets.  All scoring runs in rapidfuzz's C++ (``extract``
and ``cdist``) or numpy string operations; Python only reorders the few dozen
candidates kept.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
from rapidfuzz import fuzz, process

from otpa.errors import InvalidArgumentError
from otpa.geocode._normalize import fold
from otpa.types import FloatArray, Int32Array, UInt8Array

__all__ = [
    "INDEX_VERSION",
    "KINDS",
    "MAX_QUERY_CHARS",
    "MAX_RESULTS",
    "GeocodeIndex",
    "GeocodeQueryError",
    "GeocodeResult",
]

#: Entry kinds, by their code in :attr:`GeocodeIndex.kind` (the OTP 1.x categories + places).
KINDS: tuple[str, ...] = ("stop", "cluster", "corner", "place")
STOP, CLUSTER, CORNER, PLACE = range(4)
#: Version of the saved members; bumped when their layout changes.
INDEX_VERSION = 1
#: Most results one search returns (OTP 1.x's Lucene geocoder returned 10).
MAX_RESULTS = 10
#: Longest accepted query; longer ones are refused (fuzzy scoring grows with length).
MAX_QUERY_CHARS = 256
#: Prefix of the saved members.
MEMBER_PREFIX = "geocode."

_PHRASE = re.compile(r'"([^"]*)"')
_CORNER_SPLIT = re.compile(r"\s*(?:&|@|/|\band\b|\bat\b|\bund\b|\be\b|\by\b)\s*", re.IGNORECASE)
_FUZZY_CUTOFF = 72.0
_FUZZY_CANDIDATES = 60
_STREET_CANDIDATES = 12
_STREET_CUTOFF = 80.0
_MIN_FUZZY_CHARS = 3
#: Order of kinds among equally good matches: a station before its platforms.
_KIND_ORDER = (1, 0, 2, 3)


class GeocodeQueryError(ValueError):
    """A query the geocoder refuses (too long, or a bounding box that is not one)."""


@dataclass(frozen=True)
class GeocodeResult:
    """One match.

    Attributes
    ----------
    lat, lng
        Position (degrees).
    name
        The display name.
    kind
        ``stop``, ``cluster``, ``corner`` or ``place``.
    id
        Stop or cluster id (``feedId:stopId``); None for corners and places.
    code
        The stop code, if any.
    tier, score
        Rank tier (0 best) and rapidfuzz score (0-100).
    """

    lat: float
    lng: float
    name: str
    kind: str
    id: str | None = None
    code: str | None = None
    tier: int = 0
    score: float = 100.0

    @property
    def description(self) -> str:
        """OTP 1.x's description: ``"<category> <name>"``, plus ``" (<code>)"`` for coded stops."""
        text = f"{self.kind} {self.name}"
        return f"{text} ({self.code})" if self.code else text

    def to_otp(self) -> dict[str, Any]:
        """The OTP 1.x JSON object ``{lat, lng, description, id}`` (id omitted when None)."""
        out: dict[str, Any] = {"lat": self.lat, "lng": self.lng, "description": self.description}
        if self.id is not None:
            out["id"] = self.id
        return out


@dataclass
class _Lookup:
    """Search structures derived from the stored members (built on first search)."""

    keys: list[str]  # unique folded names
    fuzzy_keys: list[str]  # the keys of stops, clusters and places (corners match by street)
    fuzzy_rows: npt.NDArray[np.int64]  # their rows in ``keys``
    words: npt.NDArray[np.str_]  # sorted unique words of the keys
    word_start: npt.NDArray[np.int64]  # CSR: keys holding each word
    word_keys: npt.NDArray[np.int64]
    key_start: npt.NDArray[np.int64]  # CSR: entries of each key
    key_entries: npt.NDArray[np.int64]
    key_index: dict[str, int]
    by_code: dict[str, list[int]]
    by_id: dict[str, list[int]]
    streets: list[str]  # unique folded street names
    street_array: npt.NDArray[np.str_]
    corners: dict[tuple[int, int], list[int]]
    street_index: dict[str, int]

    def entries(self, key: int) -> npt.NDArray[np.int64]:
        return self.key_entries[self.key_start[key] : self.key_start[key + 1]]


def _covered(query_words: Sequence[str], name: str) -> bool:
    """Whether every query word is matched by a name word (same, prefix either way, close)."""
    words = name.split()
    for q in query_words:
        if not any(
            w == q
            or (len(w) >= 2 and q.startswith(w))
            or (len(q) >= 2 and w.startswith(q))
            or fuzz.ratio(q, w) >= 80
            for w in words
        ):
            return False
    return True


@dataclass(frozen=True, eq=False)
class GeocodeIndex:
    """Searchable names with positions (see the module docstring).

    Build one with :meth:`from_entries` (the network build does, see
    :func:`otpa.geocode.entries_for_network`), search it with :meth:`search`.

    Attributes
    ----------
    kind
        Entry kind codes (index into :data:`KINDS`).
    lat, lon
        Entry positions.
    names
        Display names.
    ids
        Stop/cluster ids (None for corners and places).
    codes
        Stop codes (None when absent).
    street_a, street_b
        For corners, the two streets (indices into ``streets``); -1 otherwise.
    streets
        Street names of corners.
    """

    kind: UInt8Array
    lat: FloatArray
    lon: FloatArray
    names: tuple[str, ...]
    ids: tuple[str | None, ...]
    codes: tuple[str | None, ...]
    street_a: Int32Array
    street_b: Int32Array
    streets: tuple[str, ...]
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _cache: dict[str, _Lookup] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        n = len(self.names)
        arrays = (self.kind, self.lat, self.lon, self.street_a, self.street_b)
        if any(len(a) != n for a in arrays) or len(self.ids) != n or len(self.codes) != n:
            msg = "geocode index: members of different lengths"
            raise InvalidArgumentError(msg)
        if n and int(np.max(self.kind)) >= len(KINDS):
            msg = "geocode index: unknown entry kind"
            raise InvalidArgumentError(msg)
        corner_streets = np.concatenate([self.street_a, self.street_b])
        if corner_streets.size and int(corner_streets.max(initial=-1)) >= len(self.streets):
            msg = "geocode index: corner street out of range"
            raise InvalidArgumentError(msg)

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def from_entries(
        cls,
        *,
        kind: Sequence[int] | npt.ArrayLike,
        lat: npt.ArrayLike,
        lon: npt.ArrayLike,
        names: Sequence[str],
        ids: Sequence[str | None] | None = None,
        codes: Sequence[str | None] | None = None,
        corner_streets: Sequence[tuple[str, str] | None] | None = None,
    ) -> GeocodeIndex:
        """Build an index from parallel sequences.

        Parameters
        ----------
        kind
            Kind code per entry (``KINDS.index("stop")``...).
        lat, lon
            Positions (degrees).
        names
            Display names.
        ids, codes
            Optional ids and stop codes per entry.
        corner_streets
            For corners, the two street names; None for other entries.

        Returns
        -------
        GeocodeIndex

        Examples
        --------
        >>> idx = GeocodeIndex.from_entries(
        ...     kind=[0, 2], lat=[49.48, 49.49], lon=[8.47, 8.46],
        ...     names=["MA Hauptbahnhof", "Kaiserring & Tattersallstraße"],
        ...     ids=["rnv:241705", None], codes=[None, None],
        ...     corner_streets=[None, ("Kaiserring", "Tattersallstraße")])
        >>> [r.description for r in idx.search("tattersallstrasse & kaiserring")]
        ['corner Kaiserring & Tattersallstraße']
        """
        n = len(names)
        street_pairs = list(corner_streets) if corner_streets is not None else [None] * n
        street_row: dict[str, int] = {}
        a = np.full(n, -1, dtype=np.int32)
        b = np.full(n, -1, dtype=np.int32)
        for i, pair in enumerate(street_pairs):
            if pair is not None:
                a[i] = street_row.setdefault(pair[0], len(street_row))
                b[i] = street_row.setdefault(pair[1], len(street_row))
        return cls(
            kind=np.asarray(kind, dtype=np.uint8).reshape(n),
            lat=np.asarray(lat, dtype=np.float64).reshape(n),
            lon=np.asarray(lon, dtype=np.float64).reshape(n),
            names=tuple(str(s) for s in names),
            ids=tuple(ids) if ids is not None else (None,) * n,
            codes=tuple(codes) if codes is not None else (None,) * n,
            street_a=a,
            street_b=b,
            streets=tuple(street_row),
        )

    def __len__(self) -> int:
        return len(self.names)

    def counts(self) -> dict[str, int]:
        """Entries per kind."""
        found = np.bincount(self.kind, minlength=len(KINDS))
        return {k: int(c) for k, c in zip(KINDS, found, strict=True)}

    # -- persistence --------------------------------------------------------------------------
    def to_members(self) -> tuple[dict[str, npt.NDArray[Any]], dict[str, Any]]:
        """Arrays and one JSON document for the saved graph (prefix ``geocode.``)."""
        p = MEMBER_PREFIX
        arrays: dict[str, npt.NDArray[Any]] = {
            f"{p}kind": self.kind,
            f"{p}lat": self.lat,
            f"{p}lon": self.lon,
            f"{p}street_a": self.street_a,
            f"{p}street_b": self.street_b,
        }
        doc = {
            "version": INDEX_VERSION,
            "names": list(self.names),
            "ids": list(self.ids),
            "codes": list(self.codes),
            "streets": list(self.streets),
        }
        return arrays, {"geocode": doc}

    @classmethod
    def from_members(
        cls, arrays: Mapping[str, npt.NDArray[Any]], documents: Mapping[str, Any]
    ) -> GeocodeIndex | None:
        """Read the saved members; None when the graph has none or an older/newer version.

        Raises
        ------
        ValueError
            If the members are present but inconsistent.
        """
        doc = documents.get("geocode")
        if not isinstance(doc, dict) or doc.get("version") != INDEX_VERSION:
            return None
        p = MEMBER_PREFIX

        def strings(key: str) -> tuple[str | None, ...]:
            values = doc[key]
            if not isinstance(values, list) or any(
                v is not None and not isinstance(v, str) for v in values
            ):
                msg = f"geocode index: {key} is not a list of strings"
                raise InvalidArgumentError(msg)
            return tuple(values)

        names = strings("names")
        streets = strings("streets")
        if any(v is None for v in (*names, *streets)):
            msg = "geocode index: null name"
            raise InvalidArgumentError(msg)
        return cls(
            kind=arrays[f"{p}kind"],
            lat=arrays[f"{p}lat"],
            lon=arrays[f"{p}lon"],
            names=tuple(str(s) for s in names),
            ids=strings("ids"),
            codes=strings("codes"),
            street_a=arrays[f"{p}street_a"],
            street_b=arrays[f"{p}street_b"],
            streets=tuple(str(s) for s in streets),
        )

    # -- search -------------------------------------------------------------------------------
    def _lookup(self) -> _Lookup:
        cached = self._cache.get("lookup")
        if cached is not None:
            return cached
        with self._lock:
            cached = self._cache.get("lookup")
            if cached is None:
                cached = self._build_lookup()
                self._cache["lookup"] = cached
        return cached

    def _build_lookup(self) -> _Lookup:
        folded = np.array([fold(n) for n in self.names] or [""], dtype=str)[: len(self.names)]
        keys, inverse = np.unique(folded, return_inverse=True)
        order = np.argsort(inverse, kind="stable")
        start = np.zeros(len(keys) + 1, dtype=np.int64)
        np.cumsum(np.bincount(inverse, minlength=len(keys)), out=start[1:])
        by_code: dict[str, list[int]] = {}
        by_id: dict[str, list[int]] = {}
        for i, (code, ident) in enumerate(zip(self.codes, self.ids, strict=True)):
            if code:
                by_code.setdefault(fold(code), []).append(i)
            if ident:
                by_id.setdefault(ident.casefold(), []).append(i)
        street_keys = [fold(s) for s in self.streets]
        unique_streets = sorted(set(street_keys))
        street_index = {s: i for i, s in enumerate(unique_streets)}
        corners: dict[tuple[int, int], list[int]] = {}
        for i in np.flatnonzero(self.street_a >= 0).tolist():
            sa = street_index[street_keys[int(self.street_a[i])]]
            sb = street_index[street_keys[int(self.street_b[i])]]
            corners.setdefault((sa, sb), []).append(i)
            if sa != sb:
                corners.setdefault((sb, sa), []).append(i)
        key_list = [str(k) for k in keys]
        not_corner = np.zeros(len(keys), dtype=bool)
        not_corner[inverse[self.kind != CORNER]] = True
        fuzzy_rows = np.flatnonzero(not_corner)
        return _Lookup(
            keys=key_list,
            fuzzy_keys=[key_list[i] for i in fuzzy_rows.tolist()],
            fuzzy_rows=fuzzy_rows.astype(np.int64),
            **_word_index(key_list),
            key_start=start,
            key_entries=order.astype(np.int64),
            key_index={k: i for i, k in enumerate(key_list)},
            by_code=by_code,
            by_id=by_id,
            streets=unique_streets,
            street_array=np.array(unique_streets or [""], dtype=str)[: len(unique_streets)],
            corners=corners,
            street_index=street_index,
        )

    def search(
        self,
        query: str,
        *,
        autocomplete: bool = False,
        stops: bool = True,
        clusters: bool = False,
        corners: bool = True,
        places: bool = True,
        limit: int = MAX_RESULTS,
        bbox: tuple[float, float, float, float] | None = None,
    ) -> list[GeocodeResult]:
        """Find entries matching a query, best first (see the module docstring).

        Parameters
        ----------
        query
            Free text: a name, part of one (``autocomplete``), a stop code or id,
            ``"Street A & Street B"``; ``"quoted phrases"`` must appear as words.
        autocomplete
            Match the query's words as word prefixes (type-ahead).
        stops, clusters, corners, places
            Which kinds to return (OTP 1.x's switches, plus ``places`` for OSM
            places and points of interest).
        limit
            Most results (at most :data:`MAX_RESULTS` is usual).
        bbox
            ``(min_lat, min_lon, max_lat, max_lon)``: only results inside.

        Returns
        -------
        list of GeocodeResult

        Raises
        ------
        GeocodeQueryError
            If the query is longer than :data:`MAX_QUERY_CHARS` or ``bbox`` is not a box.
        """
        if len(query) > MAX_QUERY_CHARS:
            msg = f"query is longer than {MAX_QUERY_CHARS} characters"
            raise GeocodeQueryError(msg)
        allowed = np.array([stops, clusters, corners, places], dtype=bool)
        box = _check_bbox(bbox)
        phrases = [f" {p} " for p in (fold(x) for x in _PHRASE.findall(query)) if p]
        text = fold(query.replace('"', " "))
        if not text or not len(self) or not allowed.any() or limit <= 0:
            return []
        lk = self._lookup()
        ranked: dict[int, tuple[int, float]] = {}

        def add(entries: Iterable[int], tier: int, score: float) -> None:
            for e in entries:
                old = ranked.get(e)
                if old is None or (tier, -score) < (old[0], -old[1]):
                    ranked[e] = (tier, score)

        add(lk.by_code.get(text, ()), 0, 100.0)
        add(lk.by_id.get(query.strip().casefold(), ()), 0, 100.0)
        exact = lk.key_index.get(text)
        if exact is not None:
            add(lk.entries(exact).tolist(), 0, 100.0)
        if corners:
            self._corner_candidates(lk, query, add)
        self._word_candidates(lk, text, autocomplete=autocomplete, add=add)
        if len(text) >= _MIN_FUZZY_CHARS:
            self._fuzzy_candidates(lk, text, add)
        if not ranked:
            return []
        entries = np.fromiter(ranked, dtype=np.int64, count=len(ranked))
        keep = allowed[self.kind[entries]]
        if box is not None:
            la, lo = self.lat[entries], self.lon[entries]
            keep &= (la >= box[0]) & (la <= box[2]) & (lo >= box[1]) & (lo <= box[3])
        if phrases:
            padded = [f" {fold(self.names[e])} " for e in entries.tolist()]
            keep &= np.array([all(p in s for p in phrases) for s in padded], dtype=bool)
        chosen = entries[keep].tolist()
        chosen.sort(
            key=lambda e: (
                ranked[e][0],
                -ranked[e][1],
                _KIND_ORDER[int(self.kind[e])],
                len(self.names[e]),
                e,
            )
        )
        return [self._result(e, *ranked[e]) for e in chosen[:limit]]

    def _result(self, e: int, tier: int, score: float) -> GeocodeResult:
        return GeocodeResult(
            lat=float(self.lat[e]),
            lng=float(self.lon[e]),
            name=self.names[e],
            kind=KINDS[int(self.kind[e])],
            id=self.ids[e],
            code=self.codes[e],
            tier=tier,
            score=round(float(score), 2),
        )

    @staticmethod
    def _word_candidates(lk: _Lookup, text: str, *, autocomplete: bool, add: Any) -> None:
        """Tier 1: names holding every query word (as a word prefix when autocompleting)."""
        hits: npt.NDArray[np.int64] | None = None
        for word in text.split():
            lo = int(np.searchsorted(lk.words, word, side="left"))
            if autocomplete:  # every word starting with it: one contiguous range
                hi = int(np.searchsorted(lk.words, word + "\U0010ffff", side="left"))
            else:
                hi = lo + 1 if lo < len(lk.words) and lk.words[lo] == word else lo
            found = np.unique(lk.word_keys[lk.word_start[lo] : lk.word_start[hi]])
            hits = found if hits is None else np.intersect1d(hits, found, assume_unique=True)
            if not len(hits):
                return
        if hits is None:
            return
        subset = [lk.keys[i] for i in hits.tolist()]
        scores = process.cdist([text], subset, scorer=fuzz.ratio, dtype=np.float32)[0]
        best = np.argsort(-scores, kind="stable")[: _FUZZY_CANDIDATES * 2]
        for j in best.tolist():
            add(lk.entries(int(hits[j])).tolist(), 1, float(scores[j]))

    @staticmethod
    def _fuzzy_candidates(lk: _Lookup, text: str, add: Any) -> None:
        """Tiers 2 and 3: rapidfuzz's best WRatio matches, split by word coverage."""
        words = text.split()
        found = process.extract(
            text,
            lk.fuzzy_keys,
            scorer=fuzz.WRatio,
            processor=None,
            limit=_FUZZY_CANDIDATES,
            score_cutoff=_FUZZY_CUTOFF,
        )
        for key, score, i in found:
            tier = 2 if _covered(words, key) else 3
            add(lk.entries(int(lk.fuzzy_rows[i])).tolist(), tier, float(score))

    @staticmethod
    def _corner_candidates(lk: _Lookup, query: str, add: Any) -> None:
        """Tier 1: ``A & B`` (``@``, ``/``, ``and``, ``at``...) where both streets match."""
        parts = [fold(p) for p in _CORNER_SPLIT.split(query.replace('"', " "), maxsplit=1)]
        if len(parts) != 2 or not parts[0] or not parts[1] or not lk.streets:
            return

        def streets_like(part: str) -> list[tuple[int, float]]:
            exact = lk.street_index.get(part)
            if exact is not None:
                return [(exact, 100.0)]
            prefixed = np.flatnonzero(np.strings.startswith(lk.street_array, part))
            if 0 < len(prefixed) <= _STREET_CANDIDATES:  # "Moltkestr." for "Moltkestraße"
                return [(int(i), 95.0) for i in prefixed.tolist()]
            found = process.extract(
                part,
                lk.streets,
                scorer=fuzz.ratio,
                processor=None,
                limit=_STREET_CANDIDATES,
                score_cutoff=_STREET_CUTOFF,
            )
            return [(int(i), float(s)) for _, s, i in found]

        first, second = streets_like(parts[0]), streets_like(parts[1])
        for sa, score_a in first:
            for sb, score_b in second:
                entries = lk.corners.get((sa, sb))
                if entries:
                    add(entries, 1, min(score_a, score_b))


def _word_index(keys: Sequence[str]) -> dict[str, Any]:
    """Sorted unique words and, per word, the keys holding it (CSR)."""
    pairs = sorted({(w, k) for k, key in enumerate(keys) for w in key.split()})
    words = [w for w, _ in pairs]
    vocabulary, first = np.unique(np.array(words or [""], dtype=str), return_index=True)
    if not pairs:
        vocabulary, first = vocabulary[:0], first[:0]
    start = np.append(first, len(pairs)).astype(np.int64)
    return {
        "words": vocabulary,
        "word_start": start,
        "word_keys": np.array([k for _, k in pairs], dtype=np.int64),
    }


def _check_bbox(
    bbox: tuple[float, float, float, float] | None,
) -> tuple[float, float, float, float] | None:
    if bbox is None:
        return None
    min_lat, min_lon, max_lat, max_lon = (float(v) for v in bbox)
    if not (-90.0 <= min_lat <= max_lat <= 90.0 and -180.0 <= min_lon <= max_lon <= 180.0):
        msg = (
            "bbox must be minLat,minLon,maxLat,maxLon with -90 <= lat <= 90, "
            "-180 <= lon <= 180 and min <= max"
        )
        raise GeocodeQueryError(msg)
    return min_lat, min_lon, max_lat, max_lon
