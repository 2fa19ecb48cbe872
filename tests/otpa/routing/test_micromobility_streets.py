"""Micromobility on a real network with elevation (Porto Alegre and its DEM).

Where the vehicle may ride comes from the OSM permissions (the ibi fork: wherever a
bicycle may), and each edge's riding time from its slope bins.  A bin's speed is the
ibi fork's closed form (``calculateMicromobilitySpeed``, checked against the fork's own
test values in the module's doctests); the test computes the air density itself and
checks that closed form against the power balance's exact root
``(CdA rho / 2) v^3 + Crv cos(b) v^2 + g m (Crr cos(b) + sin(b)) v - 0.8 W = 0``
(``numpy.roots``; the fork's Cardano terms are an approximation, within 1 %).
"""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path

import numpy as np
import pytest

from otpa.network import TransportNetwork
from otpa.osm.model import BICYCLE, WALK
from otpa.routing import Location, PlanRequest
from otpa.routing._micromobility import micromobility_costs, micromobility_speed
from otpa.routing.engine import street_options
from otpa.routing.preferences import MicromobilityPreferences
from tests.fixtures.networks import built_network

PREFS = MicromobilityPreferences()  # 250 W, 105 kg, 0.8 .. 5 m/s (ibi defaults)


@pytest.fixture(scope="module")
def poa(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "small/porto-alegre")


def _drag(altitude_m: float) -> float:
    """``Cd A rho``: 0.63 x 0.6 m^2 in dry air at the altitude (ibi's constants)."""
    t = 293.0 - 9.8 * altitude_m / 1000.0
    rho = 101325.0 * math.exp(-9.80665 * 0.0289644 * altitude_m / (8.3144598 * t)) / (287.058 * t)
    return 0.63 * 0.6 * rho


def _speed(grade: float, altitude_m: float, car_mps: float) -> float:
    """One bin's speed: the fork's closed form, bounded, at most the speed limit."""
    beta = math.atan(grade)
    k = _drag(altitude_m)
    v = float(micromobility_speed(PREFS.watts, PREFS.weight_kg, beta, k, -1e9, 1e9))
    frg = 9.80665 * PREFS.weight_kg * (0.005 * math.cos(beta) + math.sin(beta))
    roots = np.roots([k / 2.0, 0.1 * math.cos(beta), frg, -PREFS.watts * 0.8])
    exact = max(r.real for r in roots if abs(r.imag) < 1e-9)
    assert v == pytest.approx(exact, rel=0.01)
    v = min(max(v, PREFS.min_speed_mps), PREFS.max_speed_mps)
    return min(v, car_mps) if car_mps > 0 else v


def test_micromobility_rides_the_slope_bins_where_bicycles_may(poa: TransportNetwork) -> None:
    g = poa.street
    assert g is not None
    assert g.edge_rise_m is not None
    assert g.edge_fall_m is not None
    assert g.vertex_elevation_m is not None
    here = Location(lat=-30.03, lon=-51.22)
    request = PlanRequest(here, here, dt.datetime(2019, 5, 13, 14, 0))
    opts = street_options(request, "BICYCLE")  # the planner's MICROMOBILITY rules
    costs = micromobility_costs(g, opts, PREFS)
    perm = np.asarray(g.edge_perm)
    walking = np.asarray(costs.walking)
    riding = np.isfinite(costs.weight) & ~walking
    # permissions: ridden only where bicycles may go; walked (pushed) where only feet may
    assert not riding[(perm & BICYCLE) == 0].any()
    closed = ((perm & BICYCLE) == 0) & ((perm & WALK) == 0)
    assert np.isinf(costs.weight[closed]).all()
    kinds = np.asarray(g.highway_kinds, dtype=object)[np.asarray(g.seg_highway)[g.edge_segment]]
    motorway = np.isin(kinds, ["motorway", "motorway_link", "trunk", "trunk_link"])
    assert motorway.any()
    assert not riding[motorway & ((perm & BICYCLE) == 0)].any()
    footway = (kinds == "footway") & ((perm & BICYCLE) == 0) & ((perm & WALK) != 0)
    assert footway.any()
    assert walking[footway].all()
    assert riding.sum() > 0.5 * len(riding)
    # slope bins: edges that only climb, only descend, or both, over 20 m long
    length = np.asarray(g.edge_length_m, dtype=np.float64)
    rise, fall = np.asarray(g.edge_rise_m), np.asarray(g.edge_fall_m)
    z = np.asarray(g.vertex_elevation_m, dtype=np.float64)
    car = np.asarray(g.edge_car_speed_mps, dtype=np.float64)
    ok = riding & (length > 20) & np.isfinite(z[g.edge_from]) & np.isfinite(z[g.edge_to])
    picks = {
        "climb": np.flatnonzero(ok & (rise > 2) & (fall == 0)),
        "descent": np.flatnonzero(ok & (fall > 2) & (rise == 0)),
        "both": np.flatnonzero(ok & (rise > 1) & (fall > 1)),
    }
    slow = 0
    for name, edges in picks.items():
        assert edges.size >= 5, name
        for e in edges[:40]:
            alt = min(z[g.edge_from[e]], z[g.edge_to[e]])
            grade = math.floor((rise[e] + fall[e]) / length[e] * 100.0 + 0.5) / 100.0
            up = rise[e] / (rise[e] + fall[e])
            expected = length[e] * up / _speed(grade, alt, car[e]) + length[e] * (
                1 - up
            ) / _speed(-grade, alt, car[e])
            assert costs.time_s[e] == pytest.approx(expected, rel=1e-6), (name, e)
            slow += expected > length[e] / PREFS.max_speed_mps + 1e-6
    assert slow > 0  # some climbs are slower than the flat maximum
