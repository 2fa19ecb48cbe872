"""The ``otpa`` command line: ``otpa build``, ``otpa serve`` and ``otpa dashboard``.

``otpa build DIR [--out PATH]``
    Build every GTFS, OSM and GeoTIFF file in DIR into a saved graph
    (``DIR/graph`` by default).
``otpa serve [--graphs BASE] [--router ID ...] [--host H] [--port P] [--config FILE]``
    Serve every ``BASE/ID/graph`` as router ID over the OTP 1.x REST API.
    With no ``--graphs``, serve the built-in demo city.
``otpa dashboard [--graphs BASE] [--router ID ...] [--host H] [--port P]``
    Serve the scenario-comparison dashboard (Panel) over the same graphs (or the
    demo city); scenarios are kept in ``BASE/../scenarios`` like ``otpa serve``'s.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from otpa._version import __version__
from otpa.errors import OtpaError

__all__ = ["main"]


def _build(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from otpa.network import build_network

    source = Path(args.directory)
    out = Path(args.out) if args.out else source / "graph"
    t0 = time.perf_counter()
    with tqdm(
        total=None, desc="otpa build", unit=" step", file=sys.stderr, disable=args.quiet
    ) as bar:

        def progress(step: str) -> None:
            bar.set_postfix_str(step)
            bar.update(1)

        network = build_network(source, progress=progress)
        bar.set_postfix_str("save graph")
        network.save(out)
        bar.update(1)
    elapsed = time.perf_counter() - t0
    summary = network.summary()
    print(f"built {out} in {elapsed:.1f} s")
    for key in (
        "feeds",
        "stops",
        "routes",
        "trips",
        "patterns",
        "transfers",
        "street_vertices",
        "street_edges",
        "park_and_ride",
        "bike_parking",
        "bike_rental",
    ):
        print(f"  {key:<16}{summary[key]:>10}")
    n_warn = int(network.meta.get("n_warnings", 0))
    print(f"  {'warnings':<16}{n_warn:>10}")
    for line in network.meta.get("warnings", [])[: args.show_warnings]:
        print(f"    - {line}")
    if n_warn > args.show_warnings:
        print(f"    ... ({n_warn - args.show_warnings} more)")
    return 0


def _serve(args: argparse.Namespace) -> int:
    # The HTTP layer lives in the separate `service` package: the library never imports
    # it; this command-line entry point is the one place that starts it (an exception
    # declared in the import-linter contracts), with the same options and behaviour as
    # ``python -m service``.
    from service.server import serve_from_args

    return serve_from_args(args)


def _dashboard(args: argparse.Namespace) -> int:
    from otpa import dashboards
    from otpa.analysis import ScenarioStore
    from otpa.network import TransportNetwork
    from otpa.testing.demo import demo_network

    if args.graphs:
        base = Path(args.graphs)
        ids = args.router or sorted(p.parent.name for p in base.glob("*/graph"))
        if not ids:
            print(f"otpa: error: no <id>/graph under {base}", file=sys.stderr)
            return 2
        networks = {rid: TransportNetwork.load(base / rid / "graph") for rid in ids}
        store_dir = base.parent / "scenarios"
    else:
        networks = {"demo": demo_network()}
        store_dir = Path(args.scenarios) if args.scenarios else Path("scenarios")
    if args.scenarios:
        store_dir = Path(args.scenarios)
    dashboards.serve_dashboard(
        networks,
        port=args.port if args.port is not None else 5006,
        address=args.host or "127.0.0.1",
        store=ScenarioStore(store_dir),
    )
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="otpa", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"otpa {__version__}")
    sub = parser.add_subparsers(dest="command")
    b = sub.add_parser("build", help="build a saved graph from GTFS + OSM + GeoTIFF files")
    b.add_argument("directory", help="folder with the input files (and build-config.json)")
    b.add_argument("--out", help="where to write the graph (default: DIRECTORY/graph)")
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    b.add_argument(
        "--show-warnings",
        type=int,
        default=10,
        metavar="N",
        help="print the first N warnings (default 10)",
    )
    s = sub.add_parser("serve", help="serve saved graphs over the OTP 1.x REST API")
    from service.server import add_serve_arguments

    add_serve_arguments(s)
    d = sub.add_parser("dashboard", help="serve the scenario-comparison dashboard (Panel)")
    d.add_argument("--graphs", help="base folder holding ID/graph (default: the demo city)")
    d.add_argument("--router", action="append", help="router id to load (repeatable)")
    d.add_argument("--scenarios", help="scenario folder (default: BASE/../scenarios)")
    d.add_argument("--host", default=None, help="interface to bind (default 127.0.0.1)")
    d.add_argument("--port", type=int, default=None, help="port (default 5006)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``otpa`` command; returns the process exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["serve", *(argv or [])])
    try:
        if args.command == "build":
            return _build(args)
        if args.command == "dashboard":
            return _dashboard(args)
        return _serve(args)
    except (OtpaError, FileNotFoundError) as exc:
        print(f"otpa: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
