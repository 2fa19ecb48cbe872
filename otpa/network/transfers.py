"""Stop-to-stop transfers computed outside a build (the scenario editor's new stops).

The build computes a network's transfers in :func:`otpa.network.build_network`;
this module exposes the pieces other packages reuse on their own stops.
"""

from __future__ import annotations

import numpy as np

from otpa.network import _links
from otpa.network.config import BuildConfig
from otpa.transit.model import TransitModel
from otpa.types import FloatArray, Int32Array, IntArray

__all__ = ["straight_line_transfers", "streetless_transfers"]


def straight_line_transfers(
    transit: TransitModel, stops: np.ndarray, max_distance_m: float
) -> tuple[IntArray, Int32Array, FloatArray]:
    """Transfers between stops closer than ``max_distance_m`` as the crow flies.

    What a build without streets gives its stops.

    Parameters
    ----------
    transit
        The transit model whose stops' coordinates are read.
    stops
        Indices of the stops that may transfer (boarding stops with a position).
    max_distance_m
        The longest transfer.

    Returns
    -------
    offsets : ndarray of int64
        CSR offsets over all ``transit.n_stops`` stops.
    to : ndarray of int32
        The stop each transfer leads to.
    distance_m : ndarray of float64
        Great-circle length of each transfer.
    """
    return _links.straight_line_transfers(transit, stops, max_distance_m)


def streetless_transfers(
    transit: TransitModel, stops: np.ndarray, config: BuildConfig
) -> tuple[IntArray, Int32Array, FloatArray]:
    """The transfers of a network without streets, as a build makes them.

    As in OTP 1.x: between the stops of one parent station and along transfers.txt
    rows; straight-line walks between any stops within ``max_transfer_distance_m`` only
    with the build option ``straightLineTransfers`` (``config.straight_line_transfers``).

    Parameters
    ----------
    transit
        The transit model whose stops, stations and transfer rules are read.
    stops
        Indices of the stops that may transfer (boarding stops with a position).
    config
        The build configuration.

    Returns
    -------
    offsets : ndarray of int64
        CSR offsets over all ``transit.n_stops`` stops.
    to : ndarray of int32
        The stop each transfer leads to.
    distance_m : ndarray of float64
        Length of each transfer.
    """
    return _links.streetless_transfers(transit, stops, config)
