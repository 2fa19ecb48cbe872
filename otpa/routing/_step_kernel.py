"""Compiled walk-step builder for paths without elevation profiles.

The same state machine as :func:`otpa.routing._walk_steps.build_steps` (new steps on
a name change, a roundabout or a link, relative and absolute directions, roundabout
exits and sense, "stay on" turns, zag removal), edge by edge in the same order and
with the same arithmetic (holding the GIL: see :mod:`otpa.routing._path_kernel`).  It
returns the steps as columns; the caller makes the :class:`~otpa.routing.model.WalkStep`
objects.  Paths with elevation
profiles keep the Python builder (their per-step profiles are lists).

Relative directions are indices into :data:`RELATIVE`, absolute ones into the
``AbsoluteDirection`` members in order.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from otpa.osm.model import FLAG_BOGUS_NAME, FLAG_LINK, FLAG_ROUNDABOUT
from otpa.routing.model import RelativeDirection
from otpa.types import BoolArray, FloatArray, Int32Array, IntArray, UInt8Array, UInt16Array

__all__ = ["RELATIVE", "build_step_columns"]

#: Relative directions by code.
RELATIVE = (
    RelativeDirection.DEPART,
    RelativeDirection.CONTINUE,
    RelativeDirection.SLIGHTLY_RIGHT,
    RelativeDirection.SLIGHTLY_LEFT,
    RelativeDirection.RIGHT,
    RelativeDirection.LEFT,
    RelativeDirection.HARD_RIGHT,
    RelativeDirection.HARD_LEFT,
    RelativeDirection.CIRCLE_CLOCKWISE,
    RelativeDirection.CIRCLE_COUNTERCLOCKWISE,
    RelativeDirection.UTURN_LEFT,
    RelativeDirection.UTURN_RIGHT,
)
_DEPART, _CONTINUE, _S_RIGHT, _S_LEFT, _RIGHT, _LEFT, _H_RIGHT, _H_LEFT = range(8)
_CW, _CCW, _U_LEFT, _U_RIGHT = 8, 9, 10, 11
_TWO_PI = 2 * math.pi
#: OTP 1.x ``MAX_ZAG_DISTANCE`` and the turn deciding a roundabout's sense (as in
#: :mod:`otpa.routing._walk_steps`).
_MAX_ZAG_M = 30.0
_MIN_CIRCLE_TURN = 0.5
#: No name key (name keys are >= 0).
_NO_KEY = -2


@njit(cache=True)  # type: ignore[misc]
def _relative(last: float, this: float, roundabout: bool) -> int:
    """``relative_direction`` as a code."""
    diff = this - last
    if diff < 0:
        diff += _TWO_PI
    ccw = _TWO_PI - diff
    if roundabout:
        return _CW if diff > ccw else _CCW
    if diff < 0.3 or ccw < 0.3:
        return _CONTINUE
    if diff < 0.7:
        return _S_RIGHT
    if ccw < 0.7:
        return _S_LEFT
    if diff < 2:
        return _RIGHT
    if ccw < 2:
        return _LEFT
    if diff < math.pi:
        return _H_RIGHT
    return _H_LEFT


@njit(cache=True)  # type: ignore[misc]
def _absolute(angle: float) -> int:
    return (8 + math.floor(angle * 8 / _TWO_PI + 0.5)) % 8  # type: ignore[no-any-return]


@njit(cache=True)  # type: ignore[misc]
def _abs_angle_diff(a: float, b: float) -> float:
    diff = a - b
    if diff < 0:
        diff += _TWO_PI
    return min(diff, _TWO_PI - diff)


@njit(cache=True)  # type: ignore[misc]
def _wrap(angle: float) -> float:
    return angle - _TWO_PI * math.ceil((angle - math.pi) / _TWO_PI)  # type: ignore[no-any-return]


@njit(cache=True)  # type: ignore[misc]
def _is_exit(
    prev: int,
    nxt: int,
    bit: int,
    edge_to: Int32Array,
    edge_reverse: Int32Array,
    out_indptr: IntArray,
    ban_indptr: IntArray,
    ban_to: Int32Array,
    ban_modes: UInt8Array,
    edge_perm: UInt8Array,
) -> bool:
    """Whether the mode could leave the roundabout at the vertex between two of its edges."""
    v = edge_to[prev]
    back = edge_reverse[prev]
    for f in range(out_indptr[v], out_indptr[v + 1]):
        if f == nxt or f == back:  # noqa: SIM109 (numba: ints of two widths)
            continue
        banned = False
        for j in range(ban_indptr[prev], ban_indptr[prev + 1]):
            if ban_to[j] == f and (ban_modes[j] & bit) != 0:
                banned = True
        if not banned and (edge_perm[f] & bit) != 0:
            return True
    return False


@njit(cache=True)  # type: ignore[misc]
def _should_continue(
    e: int,
    this: float,
    last_angle: float,
    edge_from: Int32Array,
    out_indptr: IntArray,
    exact: IntArray,
    edge_name: Int32Array,
    first_angle: FloatArray,
) -> bool:
    """OTP's test for a "turn to stay on the same street" step at edge ``e``'s start."""
    v = edge_from[e]
    angle_diff = _abs_angle_diff(this, last_angle)
    own = exact[edge_name[e]]
    for f in range(out_indptr[v], out_indptr[v + 1]):
        if exact[edge_name[f]] == own:
            continue  # same-named alternatives usually come from split streets
        alt_diff = _abs_angle_diff(first_angle[f], last_angle)
        if angle_diff > math.pi / 4 or alt_diff - angle_diff < math.pi / 16:
            return True
    return False


@njit(cache=True)  # type: ignore[misc]
def build_step_columns(
    edges: IntArray,
    keys: IntArray,
    flags: UInt16Array,
    lengths: FloatArray,
    first: FloatArray,
    last: FloatArray,
    walking: BoolArray,
    plain: BoolArray,
    initial_angle: float,
    has_initial: bool,
    bit: int,
    graph_arrays: tuple[
        Int32Array, Int32Array, Int32Array, IntArray, IntArray, Int32Array, UInt8Array,
        UInt8Array, IntArray, Int32Array, FloatArray,
    ],
) -> tuple[IntArray, IntArray, IntArray, FloatArray, BoolArray, IntArray]:
    """The steps of a path as columns (see the module docstring).

    Parameters
    ----------
    edges, keys, flags, lengths, first, last, walking, plain
        Per path edge: graph edge, name key, flags, length, first and last angle,
        walked flag, *plain* flag (``_walk_steps._edge_columns``).
    initial_angle, has_initial
        Direction at the end of a preceding leg, if any.
    bit
        The mode's permission bit.
    graph_arrays
        ``edge_from, edge_to, edge_reverse, out_indptr, ban_indptr, ban_to, ban_modes,
        edge_perm, exact name ids per name index, edge_name, first_angle``.

    Returns
    -------
    tuple
        Per step: the path edge that starts it, relative and absolute direction
        codes, distance, ``stay_on`` and exit number (-1: none).
    """
    (edge_from, edge_to, edge_reverse, out_indptr, ban_indptr, ban_to, ban_modes,
     edge_perm, exact, edge_name, first_angle) = graph_arrays  # fmt: skip
    n = edges.shape[0]
    s_edge = np.empty(n, dtype=np.int64)
    s_rel = np.empty(n, dtype=np.int64)
    s_abs = np.empty(n, dtype=np.int64)
    s_dist = np.zeros(n)
    s_stay = np.zeros(n, dtype=np.bool_)
    s_exit = np.full(n, -1, dtype=np.int64)
    ns = 0
    cur = -1  # the current step (-1: none yet)
    last_angle = 0.0
    c_step, c_exits, c_before, c_turned = -1, 0, _NO_KEY, 0.0  # the roundabout followed
    prev = -1
    for i in range(n):
        if plain[i] and cur >= 0:  # only lengthens the step
            s_dist[cur] += lengths[i]
            last_angle = last[i]
            prev = -1
            continue
        if prev < 0 and i > 0:
            prev = i - 1
        created = False
        roundabout = (flags[i] & FLAG_ROUNDABOUT) != 0
        if cur < 0 or prev < 0:
            cur, ns, created = ns, ns + 1, True
            _start(cur, i, s_edge, s_dist, s_stay, s_exit)
            s_abs[cur] = _absolute(first[i])
            s_rel[cur] = _relative(initial_angle, first[i], False) if has_initial else _DEPART
            if roundabout:  # starting on a roundabout: the step follows it to its exit
                c_step, c_exits, c_turned, c_before = cur, 1, _wrap(last[i] - first[i]), _NO_KEY
        elif _changes_step(s_edge[cur], prev, i, roundabout, c_step >= 0, keys, flags):
            _leave(c_step, c_exits, c_before, c_turned, keys[i], s_rel, s_stay, s_exit)
            c_step = -1
            cur, ns, created = ns, ns + 1, True
            _start(cur, i, s_edge, s_dist, s_stay, s_exit)
            s_rel[cur] = _relative(last_angle, first[i], roundabout)
            s_abs[cur] = _absolute(first[i])
            if roundabout:
                c_step, c_exits, c_turned, c_before = cur, 1, _wrap(last[i] - first[i]), keys[prev]
        elif roundabout:
            if _is_exit(edges[prev], edges[i], bit, edge_to, edge_reverse, out_indptr,
                        ban_indptr, ban_to, ban_modes, edge_perm):  # fmt: skip
                c_exits += 1
            c_turned += _wrap(first[i] - last[prev]) + _wrap(last[i] - first[i])
        elif _relative(last_angle, first[i], False) != _CONTINUE and _should_continue(
            edges[i], first[i], last_angle, edge_from, out_indptr, exact, edge_name, first_angle
        ):
            cur, ns, created = ns, ns + 1, True  # a turn to stay on the same street
            _start(cur, i, s_edge, s_dist, s_stay, s_exit)
            s_rel[cur] = _relative(last_angle, first[i], False)
            s_abs[cur] = _absolute(first[i])
            s_stay[cur] = True
        if created and prev >= 0 and walking[i] == walking[prev] and ns >= 3:
            cur, ns, c_step = _remove_zag(
                ns, c_step, keys, s_edge, s_rel, s_abs, s_dist, s_stay, s_exit
            )
        s_dist[cur] += lengths[i]
        last_angle = last[i]
        prev = i
    _leave(c_step, c_exits, c_before, c_turned, _NO_KEY, s_rel, s_stay, s_exit)  # the end
    return s_edge[:ns], s_rel[:ns], s_abs[:ns], s_dist[:ns], s_stay[:ns], s_exit[:ns]


@njit(cache=True)  # type: ignore[misc]
def _start(
    step: int, i: int, s_edge: IntArray, s_dist: FloatArray, s_stay: BoolArray, s_exit: IntArray
) -> None:
    """A new step at path edge ``i`` (its slot may be a merged step's)."""
    s_edge[step], s_dist[step], s_stay[step], s_exit[step] = i, 0.0, False, -1


@njit(cache=True)  # type: ignore[misc]
def _changes_step(
    step_edge: int, prev: int, i: int, roundabout: bool, on: bool, keys: IntArray,
    flags: UInt16Array,
) -> bool:  # fmt: skip
    """OTP's new-step test: another street, on to or off a roundabout, on to a link."""
    renamed = keys[i] != keys[step_edge] and not (
        (flags[step_edge] & FLAG_BOGUS_NAME) != 0 and (flags[i] & FLAG_BOGUS_NAME) != 0
    )
    link = (flags[i] & FLAG_LINK) != 0 and (flags[prev] & FLAG_LINK) == 0
    return renamed or roundabout != on or link


@njit(cache=True)  # type: ignore[misc]
def _leave(
    c_step: int, exits: int, before: int, turned: float, key: int, s_rel: IntArray,
    s_stay: BoolArray, s_exit: IntArray,
) -> None:  # fmt: skip
    """Leave the roundabout followed (if any) on to an edge of name ``key`` (or the end).

    Its exit number, ``stay_on`` when the street after it has the name of the street
    before it, and the sense the path actually turned on it.
    """
    if c_step < 0:
        return
    if key != _NO_KEY:
        s_exit[c_step] = exits
        if key == before:
            s_stay[c_step] = True
    if s_rel[c_step] != _DEPART and abs(turned) > _MIN_CIRCLE_TURN:
        s_rel[c_step] = _CW if turned > 0 else _CCW


@njit(cache=True)  # type: ignore[misc]
def _remove_zag(
    ns: int,
    c_step: int,
    keys: IntArray,
    s_edge: IntArray,
    s_rel: IntArray,
    s_abs: IntArray,
    s_dist: FloatArray,
    s_stay: BoolArray,
    s_exit: IntArray,
) -> tuple[int, int, int]:
    """OTP's zag removal on the last three steps: ``(current step, steps, roundabout step)``."""
    three, two, last = ns - 3, ns - 2, ns - 1
    if s_rel[two] == _CW or s_rel[two] == _CCW or s_rel[last] == _CW or s_rel[last] == _CCW:
        return last, ns, c_step  # keep roundabout instructions
    if not (s_dist[two] < _MAX_ZAG_M and keys[s_edge[last]] == keys[s_edge[three]]):
        return last, ns, c_step
    rights = (s_rel[last] == _RIGHT or s_rel[last] == _H_RIGHT) and (
        s_rel[two] == _RIGHT or s_rel[two] == _H_RIGHT
    )
    lefts_last = s_rel[last] == _LEFT or s_rel[last] == _H_LEFT
    lefts = lefts_last and (s_rel[two] == _LEFT or s_rel[two] == _H_LEFT)
    if rights or lefts:
        # two rights or two lefts in quick succession: a U-turn (the last step, moved)
        dist = s_dist[last] + s_dist[two]
        s_edge[two], s_abs[two], s_exit[two] = s_edge[last], s_abs[last], s_exit[last]
        s_dist[two] = dist
        s_rel[two] = _U_LEFT if lefts_last else _U_RIGHT
        s_stay[two] = True
        return two, ns - 1, two if c_step == last else c_step
    # a short detour off the street and back: one step along the street
    s_dist[three] += s_dist[two]
    return three, ns - 2, c_step
