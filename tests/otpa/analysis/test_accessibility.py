"""Accessibility: exact sums on a hand-made matrix, alignment by id, laziness, real data."""

from __future__ import annotations

import csv
import math

import dask.array as dsa
import numpy as np
import pandas as pd
import pytest
import xarray as xr

import otpa.analysis.accessor  # noqa: F401  (registers .otpa)
from otpa.analysis._layout import matrix_array, surface_dataset
from otpa.analysis.accessibility import accessibility
from otpa.analysis.pointset import PointSet
from otpa.util.geo import haversine_m
from tests.conftest import require_data

NAN = float("nan")
JOBS = {"a": 1.0, "b": 2.0, "c": 4.0}
# travel times [origin][destination] = (p50, p90)
TIMES = {
    "o1": {"a": (0.0, 600.0), "b": (1200.0, 1800.0), "c": (NAN, 2400.0)},
    "o2": {"a": (1800.0, NAN), "b": (600.0, 900.0), "c": (2400.0, 3000.0)},
}


def _destinations() -> PointSet:
    frame = pd.DataFrame(
        {
            "id": ["a", "b", "c"],
            "lat": [0.0, 0.01, 0.02],
            "lon": [0.0, 0.0, 0.0],
            "jobs": [1, 2, 4],
            "pop": [10.0, 20.0, 40.0],
            "name": ["x", "y", "z"],
        }
    )
    return PointSet.from_frame(frame, name="dest")


def _matrix() -> xr.DataArray:
    origins = PointSet(np.array(["o1", "o2"]), np.array([0.0, 0.1]), np.array([0.0, 0.1]))
    tt = np.array([[[TIMES[o][d][p] for p in range(2)] for d in "abc"] for o in ("o1", "o2")])
    return matrix_array(origins, _destinations(), tt, [50, 90], attrs={"modes": "WALK"})


def _by_formula(weight: object) -> np.ndarray:
    """Independent sums: origin x percentile x cutoff for jobs, with weight(t, cutoff)."""
    out = np.zeros((2, 2, 2))
    for i, o in enumerate(("o1", "o2")):
        for p in range(2):
            for k, cutoff in enumerate((1200.0, 1800.0)):
                total = 0.0
                for d, jobs in JOBS.items():
                    t = TIMES[o][d][p]
                    if not math.isnan(t):
                        total += weight(t, cutoff) * jobs  # type: ignore[operator]
                out[i, p, k] = total
    return out


def test_layout_of_the_result() -> None:
    acc = accessibility(_matrix(), _destinations(), cutoffs=[1200, 1800])
    assert acc.name == "accessibility"
    assert acc.dims == ("origin", "percentile", "cutoff", "opportunity")
    assert acc["origin"].values.tolist() == ["o1", "o2"]
    assert acc["percentile"].values.tolist() == [50, 90]
    assert acc["cutoff"].values.tolist() == [1200, 1800]
    assert acc["cutoff"].attrs["units"] == "s"
    assert acc["opportunity"].values.tolist() == ["jobs", "pop"]
    assert acc["origin_lat"].values.tolist() == [0.0, 0.1]  # origin coords survive
    assert acc.attrs["decay"] == "step"
    assert acc.attrs["modes"] == "WALK"
    assert acc.attrs["units"] == "opportunities"


def test_step_exact() -> None:
    acc = accessibility(_matrix(), _destinations(), cutoffs=[1200, 1800])
    jobs = acc.sel(opportunity="jobs").values
    expected = [[[3, 3], [1, 3]], [[2, 3], [2, 2]]]
    assert jobs.tolist() == expected
    assert (acc.sel(opportunity="pop").values == 10 * jobs).all()


def test_linear_exact() -> None:
    acc = accessibility(
        _matrix(), _destinations(), cutoffs=[1200, 1800], decay="linear", width_s=600
    )
    assert acc.sel(opportunity="jobs").values.tolist() == [
        [[2.0, 3.0], [1.0, 2.0]],
        [[2.0, 2.5], [2.0, 2.0]],
    ]
    assert acc.attrs["decay"] == "linear"
    assert acc.attrs["width_s"] == 600.0


def test_logistic_and_exponential_match_the_formulas() -> None:
    std = 300.0
    kappa = math.pi / (std * math.sqrt(3))

    def logistic(t: float, c: float) -> float:
        return (1 + math.exp(-c * kappa)) / (1 + math.exp((t - c) * kappa))

    acc = accessibility(
        _matrix(), _destinations(), cutoffs=[1200, 1800], decay="logistic", std_s=std
    )
    np.testing.assert_allclose(
        acc.sel(opportunity="jobs").values, _by_formula(logistic), rtol=1e-12
    )
    acc = accessibility(_matrix(), _destinations(), cutoffs=[1200, 1800], decay="exponential")
    np.testing.assert_allclose(
        acc.sel(opportunity="jobs").values, _by_formula(lambda t, c: 0.5 ** (t / c)), rtol=1e-12
    )
    # o1, p90, cutoff 1200: 1 * 2**-0.5 + 2 * 2**-1.5 + 4 * 2**-2
    assert acc.sel(origin="o1", percentile=90, cutoff=1200, opportunity="jobs").item() == (
        pytest.approx(math.sqrt(2) + 1, rel=1e-12)
    )


def test_opportunities_are_matched_by_id() -> None:
    dest = _destinations()
    shuffled = PointSet.from_frame(
        pd.concat(
            [
                dest.to_frame().iloc[::-1],
                pd.DataFrame(
                    {"id": ["zz"], "lat": [1.0], "lon": [1.0], "jobs": [1000], "pop": [1e6]}
                ),
            ]
        ),
    )
    base = accessibility(_matrix(), dest, cutoffs=[1800])
    again = accessibility(_matrix(), shuffled, cutoffs=[1800])
    xr.testing.assert_identical(base, again)
    only_jobs = accessibility(_matrix(), dest, cutoffs=[1800], columns=["jobs"])
    assert only_jobs["opportunity"].values.tolist() == ["jobs"]
    with pytest.raises(ValueError, match="no opportunity column"):
        accessibility(_matrix(), dest, columns=["schools"])
    missing = dest.subset(["a", "b"])
    with pytest.raises(ValueError, match=r"1 destination ids have no opportunities, e\.g\. 'c'"):
        accessibility(_matrix(), missing)
    no_columns = PointSet(dest.ids, dest.lat, dest.lon)
    with pytest.raises(ValueError, match="no opportunity columns"):
        accessibility(_matrix(), no_columns)


def test_missing_opportunity_values_count_as_zero() -> None:
    dest = _destinations()
    frame = dest.to_frame()
    frame.loc[1, "jobs"] = np.nan
    acc = accessibility(_matrix(), PointSet.from_frame(frame), cutoffs=[1800])
    assert acc.sel(origin="o1", percentile=50, opportunity="jobs").item() == 1.0


def test_point_set_surface() -> None:
    dest = _destinations()
    ds = surface_dataset(
        dest,
        np.array([[0.0, 1200.0, np.nan], [600.0, 1800.0, 2400.0]]),
        [50, 90],
        attrs={"origin_lat": 0.0},
    )
    acc = accessibility(ds, cutoffs=[1200, 1800])  # its own opportunity variables
    assert acc.dims == ("percentile", "cutoff", "opportunity")
    assert acc.sel(opportunity="jobs").values.tolist() == [[3.0, 3.0], [1.0, 3.0]]
    assert acc.attrs["origin_lat"] == 0.0
    assert ds["travel_time"].attrs == {"units": "s", "long_name": "travel time"}  # untouched
    xr.testing.assert_identical(
        accessibility(ds["travel_time"], dest, cutoffs=[1200, 1800]).drop_attrs(), acc.drop_attrs()
    )
    xr.testing.assert_identical(ds.otpa.accessibility(cutoffs=[1200, 1800]), acc)


def test_bad_inputs() -> None:
    dest = _destinations()
    with pytest.raises(ValueError, match="unknown decay function"):
        accessibility(_matrix(), dest, decay="power")
    with pytest.raises(ValueError, match="linear decay needs width_s"):
        accessibility(_matrix(), dest, decay="linear")
    with pytest.raises(TypeError, match="unknown decay parameter"):
        accessibility(_matrix(), dest, widht_s=5.0)
    with pytest.raises(ValueError, match="at least one cutoff"):
        accessibility(_matrix(), dest, cutoffs=[])
    with pytest.raises(ValueError, match="opportunities are required"):
        accessibility(_matrix())
    from otpa.analysis.grid import Grid

    grid = Grid.from_bounds(0.0, 0.0, 0.01, 0.01, cell_size_m=500.0)
    surface = surface_dataset(grid, np.zeros((1, grid.n_cells)), [50], attrs={})
    with pytest.raises(ValueError, match="this is a grid surface"):
        accessibility(surface, dest)


def test_dask_matrix_stays_lazy() -> None:
    eager = _matrix()
    lazy = eager.chunk({"origin": 1})
    acc = accessibility(lazy, _destinations(), cutoffs=[1200, 1800], decay="linear", width_s=600)
    assert isinstance(acc.data, dsa.Array)
    expected = accessibility(
        eager, _destinations(), cutoffs=[1200, 1800], decay="linear", width_s=600
    )
    xr.testing.assert_identical(acc.compute(), expected)
    assert lazy.otpa.accessibility(_destinations(), cutoffs=[1800]).chunks is not None


# -- Porto Alegre hexagons: a straight-line walking matrix against a brute-force count ------
def _hexgrid() -> tuple[list[dict[str, str]], PointSet]:
    path = require_data("small", "porto-alegre", "poa_hexgrid.csv")
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return rows, PointSet.from_csv(path)


def test_porto_alegre_jobs_within_cutoffs_match_brute_force() -> None:
    rows, hexes = _hexgrid()
    origins = hexes.subset(hexes.ids[::40])
    speed = 5.0  # m/s, straight-line
    dist = haversine_m(
        origins.lat[:, None], origins.lon[:, None], hexes.lat[None, :], hexes.lon[None, :]
    )
    tt = (dist / speed).astype(np.float32)[:, :, None]
    matrix = matrix_array(origins, hexes, tt, [50], attrs={})
    cutoffs = (300, 600, 900)
    acc = accessibility(matrix, hexes, cutoffs=cutoffs, columns=["jobs", "population"])

    by_id = {r["id"]: r for r in rows}
    for i, origin in enumerate(origins.ids.tolist()):
        assert by_id[origin]["lat"] == rows[i * 40]["lat"]
        for _k, cutoff in enumerate(cutoffs):
            jobs = population = 0.0
            for j, row in enumerate(rows):
                if float(tt[i, j, 0]) <= cutoff:
                    jobs += float(row["jobs"] or 0)
                    population += float(row["population"] or 0)
            got = acc.sel(origin=origin, percentile=50, cutoff=cutoff)
            assert got.sel(opportunity="jobs").item() == pytest.approx(jobs, rel=1e-12)
            assert got.sel(opportunity="population").item() == pytest.approx(population, rel=1e-12)
    # more time never reaches fewer jobs, and the origin's own hexagon always counts
    values = acc.sel(opportunity="jobs", percentile=50).values
    assert np.all(np.diff(values, axis=1) >= 0)
    assert values[:, -1].max() > values[:, 0].max()
    lazy = accessibility(
        matrix.chunk({"origin": 8, "destination": 500}),
        hexes,
        cutoffs=cutoffs,
        columns=["jobs", "population"],
    )
    assert isinstance(lazy.data, dsa.Array)
    np.testing.assert_allclose(lazy.values, acc.values, rtol=1e-12)
