"""The fused leg kernels give what the separate steps gave (session 14).

The walk steps of a path without elevation come from one compiled call
(``_walk_steps._step_table``: edge columns, the step state machine and the per-step
values); each is compared with the Python builder and with the builder without its
*plain*-edge shortcut, and the steps' instance dicts with the dataclass's own
(tiny Atlanta: MARTA rail and buses with OSM streets).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from otpa.network import TransportNetwork
from otpa.routing import _walk_steps as walk_steps_module
from otpa.routing.model import WalkStep
from otpa.routing.street_router import StreetOptions, street_path
from tests.conftest import require_data
from tests.fixtures.networks import built_network

WALK_OPTS = StreetOptions(mode="WALK", speed_mps=1.33, reluctance=2.0)
OPTIONS = (
    WALK_OPTS,
    StreetOptions(mode="BICYCLE", speed_mps=5.0, reluctance=1.0),
    StreetOptions(mode="CAR", speed_mps=40.0, reluctance=1.0),
)


@pytest.fixture(scope="module")
def atlanta() -> TransportNetwork:
    return built_network(require_data(), "tiny/atlanta")


def test_step_table_steps_are_the_python_and_unshortened_steps(atlanta: TransportNetwork) -> None:
    graph = atlanta.street
    assert graph is not None
    rng = np.random.default_rng(14)
    n_steps = 0
    for opts in OPTIONS:
        for a, b in rng.integers(0, graph.n_vertices, size=(25, 2)).tolist():
            path = street_path(atlanta, a, b, opts)
            if path is None:
                continue
            for angle in (None, 1.1, -0.4):
                steps = walk_steps_module._compiled_steps(graph, path, angle)
                python = walk_steps_module._python_steps(graph, path, None, angle)
                assert repr(steps) == repr(python)
                assert steps == python
                full = walk_steps_module._compiled_steps(graph, path, angle, shortcut=False)
                assert repr(full) == repr(steps)
                for step, other in zip(steps, python, strict=True):
                    # the same instance dict as the dataclass's __init__ makes, in order
                    assert list(vars(step).items()) == list(vars(other).items())
                    for name, value in vars(step).items():
                        assert type(value) is type(getattr(other, name))
                n_steps += len(steps)
    assert n_steps > 100


def test_step_dict_is_the_dataclass_fields() -> None:
    names = [f.name for f in dataclasses.fields(WalkStep)]
    assert list(walk_steps_module._STEP_FIELDS) == names
