"""Tables stored as arrays + JSON: exact round trips, dictionary-encoded text, bad members."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from otpa.util.tables import frame_from_members, frame_to_members


def _frame() -> pd.DataFrame:
    n = 12
    return pd.DataFrame(
        {
            "trip_id": [f"feed:{i}" for i in range(n)],  # unique: a JSON list
            "route_id": ["feed:r1", "feed:r2", None] * 4,  # repeated: dictionary
            "headsign": pd.array(["Hbf"] * (n - 1) + [None], dtype="string"),
            "empty": [None] * n,
            "kind": pd.Categorical(["bus", "tram"] * 6),
            "feed": np.zeros(n, dtype=np.int32),
            "lat": np.linspace(49.0, 49.1, n),
            "wheelchair": pd.array([1, None] * 6, dtype="Int8"),
            "flag": pd.array([True, None, False] * 4, dtype="boolean"),
        }
    )


def _expected(frame: pd.DataFrame) -> pd.DataFrame:
    """Text columns (object, categorical, string) all read back as pandas' "string" dtype."""
    out = frame.copy()
    for column in ("trip_id", "route_id", "headsign", "empty", "kind"):
        out[column] = pd.array(
            [None if pd.isna(v) else str(v) for v in frame[column]], dtype="string"
        )
    return out


def test_round_trip() -> None:
    frame = _frame()
    arrays, docs = frame_to_members("t", frame)
    doc = docs["table.t"]
    assert set(doc["text"]) == {"trip_id"}
    assert doc["categories"] == {
        "route_id": ["feed:r1", "feed:r2"],
        "headsign": ["Hbf"],
        "empty": [],
        "kind": ["bus", "tram"],
    }
    assert arrays["t.route_id.__codes__"].tolist() == [0, 1, -1] * 4
    assert all(a.dtype != object for a in arrays.values())
    back = frame_from_members("t", arrays, docs)
    pd.testing.assert_frame_equal(back, _expected(frame), check_exact=True)


def test_empty_table() -> None:
    frame = pd.DataFrame({"fare_id": pd.array([], dtype="string"), "price": np.zeros(0)})
    arrays, docs = frame_to_members("f", frame)
    back = frame_from_members("f", arrays, docs)
    assert back.columns.tolist() == ["fare_id", "price"]
    assert len(back) == 0
    assert back["fare_id"].dtype == "string"


def test_reads_documents_without_categories() -> None:
    """Format version 1 wrote every text column as a JSON list."""
    docs = {"table.t": {"columns": ["a", "n"], "length": 2, "text": {"a": ["x", None]}}}
    back = frame_from_members("t", {"t.n": np.array([1, 2])}, docs)
    assert back["a"].tolist() == ["x", pd.NA]
    assert back["a"].dtype == "string"
    assert back["n"].tolist() == [1, 2]


@pytest.mark.parametrize(
    ("categories", "codes", "match"),
    [
        (["x"], np.array([0, 1]), "out of range"),
        (["x"], np.array([0, -2]), "out of range"),
        (["x"], np.array([0]), "wrong dtype or length"),
        (["x"], np.array([0.0, 0.0]), "wrong dtype or length"),
        ([1, 2], np.array([0, 1]), "list of strings"),
        ("x", np.array([0, 0]), "list of strings"),
    ],
)
def test_bad_dictionary_members(categories: object, codes: np.ndarray, match: str) -> None:
    docs = {"table.t": {"columns": ["a"], "length": 2, "text": {}, "categories": {"a": categories}}}
    with pytest.raises(ValueError, match=match):
        frame_from_members("t", {"t.a.__codes__": codes}, docs)


def test_missing_member_is_a_key_error() -> None:
    docs = {"table.t": {"columns": ["a"], "length": 2, "text": {}, "categories": {"a": ["x"]}}}
    with pytest.raises(KeyError):
        frame_from_members("t", {}, docs)
