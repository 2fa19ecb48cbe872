"""Transport networks: build from GTFS + OSM + elevation, save, load.

The saved format is one file: a zip archive of ``.npy`` arrays and JSON
documents with a versioned, checksummed manifest, memory-mapped on load and
never unpickled (see :mod:`otpa.network._container`).
"""

from __future__ import annotations

from otpa.network._geocoding import build_geocode_index
from otpa.network.build import BuildReport, build_network
from otpa.network.config import BuildConfig, load_build_config
from otpa.network.transport_network import TransportNetwork

__all__ = [
    "BuildConfig",
    "BuildReport",
    "TransportNetwork",
    "build_geocode_index",
    "build_network",
    "load_build_config",
]
