"""Legs, places and walk steps filled from field templates are the instances ``__init__`` makes.

:func:`otpa.routing.model.from_template` fills an instance's dict from a template of
all the class's fields (:func:`~otpa.routing.model.field_template`) and the values
given; the result must equal the constructor's, with the same fields in the same order.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

import pytest

from otpa.routing.model import (
    AbsoluteDirection,
    EncodedPolyline,
    Leg,
    Place,
    RelativeDirection,
    VertexType,
    WalkStep,
    field_template,
    from_template,
)

_WHEN = dt.datetime(2024, 5, 6, 8, 0, tzinfo=dt.UTC)
_PLACE = Place(name="A", lon=8.5, lat=49.4)


def _cases() -> list[tuple[type[Any], dict[str, Any]]]:
    return [
        (
            Leg,
            {
                "mode": "BUS",
                "start_time": _WHEN,
                "end_time": _WHEN + dt.timedelta(minutes=5),
                "from_place": _PLACE,
                "to_place": _PLACE,
                "distance": 1234.5,
                "leg_geometry": EncodedPolyline(points="_p~iF~ps|U", length=1),
                "agency_time_zone_offset": 0,
                "transit_leg": True,
                "route_id": "1:5",
                "service_date": "20240506",
            },
        ),
        (
            Place,
            {
                "name": "Stop",
                "lon": 8.5,
                "lat": 49.4,
                "vertex_type": VertexType.TRANSIT,
                "stop_id": "1:42",
                "stop_index": 3,
                "arrival": _WHEN,
            },
        ),
        (
            WalkStep,
            {
                "distance": 12.5,
                "relative_direction": RelativeDirection.LEFT,
                "street_name": "Hauptstraße",
                "absolute_direction": AbsoluteDirection.NORTH,
                "lon": 8.5,
                "lat": 49.4,
                "exit": "2",
            },
        ),
    ]


@pytest.mark.parametrize(("cls", "values"), _cases(), ids=lambda c: getattr(c, "__name__", ""))
def test_from_template_is_the_constructors_instance(cls: type[Any], values: dict[str, Any]) -> None:
    built = from_template(cls, field_template(cls), values)
    made = cls(**values)
    assert type(built) is cls
    assert built == made
    assert list(vars(built)) == [f.name for f in dataclasses.fields(cls)] == list(vars(made))
    assert repr(built) == repr(made)
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.lat = 0.0  # still frozen


def test_template_is_not_changed_by_building() -> None:
    template = field_template(Place)
    before = dict(template)
    from_template(Place, template, {"name": "x", "lon": 1.0, "lat": 2.0})
    assert template == before


def test_a_class_with_post_init_has_no_template() -> None:
    @dataclasses.dataclass(frozen=True)
    class Checked:
        x: int

        def __post_init__(self) -> None:
            pass

    with pytest.raises(TypeError):
        field_template(Checked)
