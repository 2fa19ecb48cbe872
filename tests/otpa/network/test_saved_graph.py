"""The saved-graph format on real networks: exact round trips, size, old versions, elevation."""

from __future__ import annotations

import dataclasses
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import pytest

from otpa.errors import GraphFormatError
from otpa.network import TransportNetwork
from otpa.network._container import write_container
from otpa.network.transport_network import QUANTIZED_MEMBERS
from otpa.street import StreetGraph
from otpa.street._elevation import ELEVATION_FIELDS
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import built_network

#: Saved graphs must stay within this multiple of their input files' size.
MAX_SIZE_RATIO = 2.0


def _network(name: str) -> TransportNetwork:
    require_data(*name.split("/"))
    return built_network(DATA_ROOT, name)


def _members(net: TransportNetwork) -> dict[str, npt.NDArray[Any]]:
    """Every array of a network by its member name (street arrays complete)."""
    out: dict[str, npt.NDArray[Any]] = {}
    for f in dataclasses.fields(net.transit):
        value = getattr(net.transit, f.name)
        if isinstance(value, np.ndarray):
            out[f"transit.{f.name}"] = value
    if net.street is not None:
        out.update({f"street.{k}": v for k, v in net.street.to_arrays().items()})
    for name in ("stop_vertex", "stop_link_distance_m", "transfer_offsets", "transfer_to"):
        out[f"links.{name}"] = getattr(net, name)
    out["links.transfer_distance_m"] = net.transfer_distance_m
    return out


def _is_text(series: pd.Series[Any]) -> bool:
    return not (
        pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_bool_dtype(series.dtype)
    ) or isinstance(series.dtype, pd.CategoricalDtype)


def assert_same_table(back: pd.DataFrame, built: pd.DataFrame) -> None:
    """Equal values; text columns (any text dtype when built) load as pandas' ``"string"``."""
    assert back.columns.tolist() == built.columns.tolist()
    assert len(back) == len(built)
    for column in built.columns:
        if _is_text(built[column]):
            assert back[column].dtype == pd.StringDtype(na_value=pd.NA), column
            want = [None if pd.isna(v) else str(v) for v in built[column]]
            got = [None if pd.isna(v) else v for v in back[column]]
            assert got == want, column
        else:
            pd.testing.assert_series_equal(back[column], built[column], check_exact=True)


def assert_same_network(back: TransportNetwork, net: TransportNetwork, *, exact: bool) -> None:
    """Same dtypes and shapes everywhere; same bits except the quantised members (<= 0.5 mm)."""
    ours, theirs = _members(back), _members(net)
    assert ours.keys() == theirs.keys()
    for name, array in theirs.items():
        got = ours[name]
        assert (got.dtype, got.shape) == (array.dtype, array.shape), name
        assert not got.flags.writeable, name
        if exact or name not in QUANTIZED_MEMBERS:
            assert got.tobytes() == array.tobytes(), name
        else:
            assert np.array_equal(np.isnan(got), np.isnan(array)), name
            np.testing.assert_allclose(got, array, rtol=0, atol=0.0005 + 1e-9, err_msg=name)
    for table in ("feeds", "agencies", "stops", "routes", "trips", "transfer_rules"):
        assert_same_table(getattr(back.transit, table), getattr(net.transit, table))
    for attr in ("timezones", "service_ids", "shape_ids", "service_first_day"):
        assert getattr(back.transit, attr) == getattr(net.transit, attr)
    if net.street is not None:
        assert back.street is not None
        assert back.street.names == net.street.names
        assert back.street.highway_kinds == net.street.highway_kinds
        assert back.street.report == net.street.report
    assert back.features == net.features
    assert back.meta == json.loads(json.dumps({**net.meta, "has_street": net.street is not None}))
    assert back.summary() == net.summary()


def test_round_trip_atlanta(tmp_path: Path) -> None:
    net = _network("tiny/atlanta")
    back = TransportNetwork.load(net.save(tmp_path / "graph"))
    assert_same_network(back, net, exact=False)


def test_quantised_members_are_rounded_to_the_millimetre(tmp_path: Path) -> None:
    net = _network("tiny/atlanta")
    back = TransportNetwork.load(net.save(tmp_path / "graph"))
    np.testing.assert_array_equal(back.transfer_distance_m, np.round(net.transfer_distance_m, 3))
    assert back.street is not None
    assert net.street is not None
    np.testing.assert_array_equal(back.street.edge_length_m, np.round(net.street.edge_length_m, 3))
    # coordinates, including the points added by linking stops, are exact
    assert back.street.geom_lat.tobytes() == net.street.geom_lat.tobytes()


def test_save_load_save_is_byte_identical(tmp_path: Path) -> None:
    net = _network("tiny/atlanta")
    first = net.save(tmp_path / "a")
    second = TransportNetwork.load(first).save(tmp_path / "b")
    assert first.read_bytes() == second.read_bytes()


def test_uncompressed_save_is_exact_and_mapped(tmp_path: Path) -> None:
    net = _network("tiny/atlanta")
    path = net.save(tmp_path / "graph", compress=False)
    back = TransportNetwork.load(path)
    assert_same_network(back, net, exact=True)
    assert back.transit.departure_s.base is not None  # a view into the file
    with zipfile.ZipFile(path) as zf:
        assert {i.compress_type for i in zf.infolist()} == {zipfile.ZIP_STORED}


def test_street_members_leave_out_what_is_recomputed(tmp_path: Path) -> None:
    net = _network("tiny/atlanta")
    with zipfile.ZipFile(net.save(tmp_path / "graph")) as zf:
        names = set(zf.namelist())
        meta = json.loads(zf.read("json/street.meta.json"))
    assert meta["derived"] == ["in_indptr", "in_edges", "edge_length_m", "edge_reverse"]
    for name in meta["derived"]:
        assert f"arrays/street.{name}.npy" not in names


def test_bad_derived_list(tmp_path: Path) -> None:
    net = _network("tiny/atlanta")
    path = net.save(tmp_path / "graph")
    bad = tmp_path / "bad"
    with zipfile.ZipFile(path) as zin, zipfile.ZipFile(bad, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "json/street.meta.json":
                meta = json.loads(data)
                meta["derived"] = ["edge_to"]
                data = json.dumps(meta).encode()
            zout.writestr(info.filename, data)
    with pytest.raises(GraphFormatError, match="derived"):
        TransportNetwork.load(bad, verify=False)


def _write_v1(net: TransportNetwork, path: Path) -> None:
    """Write ``net`` the way format version 1 did: every array, text tables, all stored."""
    arrays, docs = net.transit.to_members()
    for key, doc in docs.items():
        if key.startswith("table."):
            table = key[len("table.") :]
            for column, categories in doc.pop("categories").items():
                codes = arrays.pop(f"{table}.{column}.__codes__")
                doc["text"][column] = [None if c < 0 else categories[c] for c in codes]
    assert net.street is not None
    arrays.update({f"street.{k}": v for k, v in net.street.to_arrays().items()})
    docs["street.meta"] = net.street.meta()
    for name in (
        "stop_vertex",
        "stop_link_distance_m",
        "transfer_offsets",
        "transfer_to",
        "transfer_distance_m",
    ):
        arrays[f"links.{name}"] = getattr(net, name)
    docs["features"] = net.features
    tmp = write_container(
        path.with_suffix(".tmp"),
        arrays=arrays,
        documents=docs,
        meta={**net.meta, "has_street": True},
        compress=False,
    )
    with zipfile.ZipFile(tmp) as zin, zipfile.ZipFile(path, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "manifest.json":
                manifest = json.loads(data)
                manifest["format_version"] = 1
                data = json.dumps(manifest).encode()
            zout.writestr(info, data)


def test_reads_format_version_1(tmp_path: Path) -> None:
    net = _network("tiny/atlanta")
    _write_v1(net, tmp_path / "graph")
    back = TransportNetwork.load(tmp_path / "graph")
    assert_same_network(back, net, exact=True)


def _with_elevation(graph: StreetGraph) -> StreetGraph:
    rng = np.random.default_rng(11)
    n = graph.n_edges
    rise = rng.random(n) * 5
    values = {
        "max_slope": rng.random(n) * 0.2,
        "rise_m": rise,
        "fall_m": rise[np.maximum(graph.edge_reverse, 0)],
        "slope_speed_effective_length_m": graph.edge_length_m * (1 + rng.random(n) / 10),
        "slope_work_cost": graph.edge_length_m * (1 + rng.random(n)),
        "slope_safety_cost_m": rng.random(n) * 3,
        "effective_walk_length_m": np.where(
            rng.random(n) < 0.5, graph.edge_length_m, graph.edge_length_m * 1.01
        ),
    }
    assert set(values) == set(ELEVATION_FIELDS)
    fields: dict[str, Any] = {f"edge_{k}": v for k, v in values.items()}
    return dataclasses.replace(graph, **fields)


def test_elevation_round_trip(tmp_path: Path) -> None:
    net = _network("tiny/atlanta")
    assert net.street is not None
    hilly = dataclasses.replace(net, street=_with_elevation(net.street))
    back = TransportNetwork.load(hilly.save(tmp_path / "graph"))
    assert_same_network(back, hilly, exact=False)
    assert back.street is not None
    assert hilly.street is not None
    assert back.street.has_elevation
    # equal lengths stay equal after rounding
    flat = hilly.street.edge_effective_walk_length_m == hilly.street.edge_length_m
    assert flat.any()
    assert np.array_equal(
        back.street.edge_effective_walk_length_m[flat], back.street.edge_length_m[flat]
    )


@pytest.mark.parametrize(
    "name",
    [
        "tiny/atlanta",
        pytest.param("small/rnv", marks=pytest.mark.slow),
        pytest.param("small/porto-alegre", marks=pytest.mark.slow),
    ],
)
def test_graph_size_within_twice_the_inputs(name: str, tmp_path: Path) -> None:
    net = _network(name)
    inputs = sum(int(i["size"]) for i in net.meta["inputs"])
    path = net.save(tmp_path / "graph")
    assert path.stat().st_size <= MAX_SIZE_RATIO * inputs
    assert_same_network(TransportNetwork.load(path), net, exact=False)
