"""Build a :class:`~otpa.street.graph.StreetGraph` from :class:`~otpa.osm.model.OsmStreetData`."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from otpa.errors import NetworkBuildError
from otpa.osm.model import FLAG_RESTRICTION_COPY, OsmStreetData
from otpa.street._elevation import SegmentElevation
from otpa.street._islands import prune_islands as _prune
from otpa.street._restrictions import resolve_restrictions
from otpa.street._segments import assemble, table_from_graph, table_from_osm
from otpa.street._via_way import apply_via_way_restrictions
from otpa.street.graph import BuildReport, StreetGraph
from otpa.types import IntArray

__all__ = [
    "ISLAND_MIN_VERTICES",
    "ISLAND_WITH_KEPT_MIN_VERTICES",
    "build_street_graph",
    "prune_graph_islands",
]

#: OTP 1.x ``islandWithoutStopsMaxSize``.
ISLAND_MIN_VERTICES = 40
#: OTP 1.x ``islandWithStopsMaxSize``.
ISLAND_WITH_KEPT_MIN_VERTICES = 5


def build_street_graph(
    osm: OsmStreetData,
    *,
    elevation: SegmentElevation | None = None,
    prune_islands: bool = True,
    island_min_vertices: int = ISLAND_MIN_VERTICES,
    island_with_kept_min_vertices: int = ISLAND_WITH_KEPT_MIN_VERTICES,
    keep_vertices: npt.ArrayLike | None = None,
) -> StreetGraph:
    """Build the directed street graph.

    Segments that nobody may traverse in either direction are dropped; every
    other segment gives a forward edge when ``seg_perm_fwd != 0`` and a
    backward edge when ``seg_perm_back != 0``.  Via-node turn restrictions
    become banned edge pairs (see :mod:`otpa.street._restrictions`); via-way
    restrictions become one-way copies of the via-way segments with banned
    pairs around them (see :mod:`otpa.street._via_way`).

    Parameters
    ----------
    osm
        The street data from :func:`otpa.osm.read_osm`.
    elevation
        Optional per-segment elevation summaries, copied onto the edges.
    prune_islands
        Remove each mode from its small connected components (OTP's
        ``PruneFloatingIslands``; see :mod:`otpa.street._islands`), then drop
        segments and vertices left unused.  Without pruning, the vertex ids
        are the OSM data's vertex indices.
    island_min_vertices
        A mode's components with fewer vertices are islands (the mode's
        largest component never is).
    island_with_kept_min_vertices
        The threshold for components containing one of ``keep_vertices``.
    keep_vertices
        OSM vertex indices (e.g. near transit stops) protecting their component.

    Returns
    -------
    StreetGraph
        The graph; :attr:`StreetGraph.report` says what was removed.

    Raises
    ------
    NetworkBuildError
        If the data is inconsistent or has no traversable segment.
    """
    table = table_from_osm(osm, elevation)
    if table.n_segments == 0:
        msg = "no traversable street segments"
        raise NetworkBuildError(msg)
    old_to_new = np.arange(table.n_vertices, dtype=np.int64)
    pruning: dict[str, int] = {}
    if prune_islands:
        keep = None if keep_vertices is None else np.asarray(keep_vertices, dtype=np.int64)
        res = _prune(
            table,
            island_min_vertices=island_min_vertices,
            island_with_kept_min_vertices=island_with_kept_min_vertices,
            keep_vertices=keep,
        )
        table, old_to_new = res.table, res.old_to_new_vertex
        pruning = {
            "islands_walk": res.islands["walk"],
            "islands_bicycle": res.islands["bicycle"],
            "islands_car": res.islands["car"],
            "segments_restricted": res.segments_restricted,
            "segments_removed": res.segments_removed,
            "vertices_removed": res.vertices_removed,
        }
    rr = resolve_restrictions(table, osm.restrictions, old_to_new)
    vw = apply_via_way_restrictions(rr.table, osm.restrictions, old_to_new)
    report = BuildReport(
        **pruning,
        restrictions_resolved=rr.resolved + vw.resolved,
        restrictions_unresolved=rr.unresolved + vw.unresolved,
        restrictions_via_way=vw.resolved,
        restriction_copy_segments=vw.copy_segments,
    )
    return assemble(
        vw.table,
        names=tuple(osm.names),
        highway_kinds=tuple(osm.highway_kinds),
        n_original_vertices=vw.table.n_vertices,
        report=report,
    )


def prune_graph_islands(
    graph: StreetGraph,
    *,
    keep_vertices: npt.ArrayLike | None = None,
    island_min_vertices: int = ISLAND_MIN_VERTICES,
    island_with_kept_min_vertices: int = ISLAND_WITH_KEPT_MIN_VERTICES,
) -> tuple[StreetGraph, IntArray]:
    """Island pruning on a built graph, e.g. after linking stops (to keep their islands).

    Works like the pruning of :func:`build_street_graph`, with ``keep_vertices``
    given as vertex ids of ``graph`` (such as linked stop vertices); turn bans
    are kept on the surviving edges.

    Returns
    -------
    tuple
        ``(graph, old_to_new)``: the pruned graph (a new object; ``graph`` is
        returned unchanged when nothing is pruned) and, for every vertex of
        ``graph``, its id in the new graph or ``-1`` if removed.  Vertices keep
        their relative order.  The report counts the islands of this pruning
        (and keeps the restriction counts of ``graph``).
    """
    keep = None if keep_vertices is None else np.asarray(keep_vertices, dtype=np.int64)
    res = _prune(
        table_from_graph(graph),
        island_min_vertices=island_min_vertices,
        island_with_kept_min_vertices=island_with_kept_min_vertices,
        keep_vertices=keep,
    )
    changed = res.segments_restricted or res.segments_removed or res.vertices_removed
    if not changed:
        return graph, res.old_to_new_vertex
    old = graph.report
    report = BuildReport(
        islands_walk=res.islands["walk"],
        islands_bicycle=res.islands["bicycle"],
        islands_car=res.islands["car"],
        segments_restricted=res.segments_restricted,
        segments_removed=res.segments_removed,
        vertices_removed=res.vertices_removed,
        restrictions_resolved=old.restrictions_resolved,
        restrictions_unresolved=old.restrictions_unresolved,
        restrictions_via_way_skipped=old.restrictions_via_way_skipped,
        restrictions_via_way=old.restrictions_via_way,
        restriction_copy_segments=int(
            np.count_nonzero(res.table.seg_flags & np.uint16(FLAG_RESTRICTION_COPY))
        ),
    )
    n_original = int(np.count_nonzero(res.old_to_new_vertex[: graph.n_original_vertices] >= 0))
    pruned = assemble(
        res.table,
        names=graph.names,
        highway_kinds=graph.highway_kinds,
        n_original_vertices=n_original,
        report=report,
    )
    return pruned, res.old_to_new_vertex
