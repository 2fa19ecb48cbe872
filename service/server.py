"""Run the service: load routers, listen, stop cleanly on SIGINT/SIGTERM.

Stopping drains: the listening sockets close, readiness turns 503, the requests in
flight are answered (for at most ``drain_timeout_s``), then the idle connections
close and the process exits (:mod:`service.drain`).

* :func:`serve` blocks until SIGINT/SIGTERM (command line, containers);
* :func:`start_in_thread` runs the same server in a background thread and
  returns ``(url, stop)`` (tests, notebooks);
* :func:`main` is ``python -m service``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import logging
import queue
import signal
import sys
import threading
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from logging.handlers import QueueHandler, QueueListener
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tornado.netutil import bind_sockets

from otpa.errors import OtpaError
from otpa.testing.demo import demo_city_dir, demo_network
from service.app import make_app
from service.config import ConfigError, ServiceConfig, load_config
from service.drain import InFlight
from service.handlers.base import Builder
from service.http_limits import LimitedHTTPServer
from service.memory import freeze_served_objects, tune_malloc
from service.registry import Loader, RouterRegistry

if TYPE_CHECKING:
    from otpa.network import TransportNetwork

__all__ = [
    "ServiceStartError",
    "add_serve_arguments",
    "build_registry",
    "config_from_args",
    "demo_networks",
    "demo_registry",
    "landing_url",
    "log_to_stderr",
    "main",
    "serve",
    "serve_from_args",
    "service_url",
    "start_in_thread",
]

logger = logging.getLogger(__name__)

_SHUTDOWN_GRACE_S = 5.0  # closing idle connections, after the drain
_LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_START_TIMEOUT_S = 300.0


class ServiceStartError(RuntimeError):
    """The service could not start (a configured router failed to load...)."""


def build_registry(
    config: ServiceConfig,
    networks: Mapping[str, TransportNetwork] | None = None,
    *,
    loader: Loader | None = None,
) -> RouterRegistry:
    """Create the registry and load the routers (blocking).

    Networks passed in are registered first, in order (the first is the default
    unless ``config.routers`` names one).  Then, with a graphs folder, every
    ``<graphs_dir>/<id>/graph`` is loaded (or only ``config.routers``), without
    replacing networks passed in.

    Parameters
    ----------
    config
        The service configuration.
    networks
        In-memory networks by router id.
    loader
        Graph file loader (default ``TransportNetwork.load``).

    Returns
    -------
    RouterRegistry

    Raises
    ------
    ServiceStartError
        If a router named in ``config.routers`` cannot be loaded.
    """
    registry = RouterRegistry(config.graphs_dir, loader, routers=config.routers)
    for router_id, network in (networks or {}).items():
        registry.register(router_id, network)
    if config.graphs_dir is not None:
        report = registry.reload_all(pre_evict=False, force=False)
        if config.routers and report.failed:
            details = "; ".join(f"{rid}: {why}" for rid, why in report.failed.items())
            msg = f"configured routers could not be loaded: {details}"
            raise ServiceStartError(msg)
    missing = [r for r in config.routers if r not in registry]
    if missing:
        msg = f"configured routers not found: {', '.join(missing)}"
        raise ServiceStartError(msg)
    return registry


def service_url(host: str, port: int) -> str:
    """Return the URL of the default router's RouterInfo for a listening address.

    Examples
    --------
    >>> service_url("0.0.0.0", 8080)
    'http://127.0.0.1:8080/otp/routers/default'
    """
    shown = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/otp/routers/default"


def landing_url(router_url: str) -> str:
    """Return the landing page's URL (``/``) of the server that serves ``router_url``.

    Examples
    --------
    >>> landing_url("http://127.0.0.1:8080/otp/routers/default")
    'http://127.0.0.1:8080/'
    """
    parts = urllib.parse.urlsplit(router_url)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/", "", ""))


def _announce(url: str) -> None:
    # people open the landing page; it links the API, each router and the dashboard
    print(f"otpa service ready: {landing_url(url)}", flush=True)


async def _drain(server: LimitedHTTPServer, inflight: InFlight, timeout_s: float) -> None:
    """Stop accepting connections, then wait for the requests in flight to be answered."""
    server.stop()
    inflight.draining = True  # readiness answers 503 from now on
    if inflight.count:
        logger.info("draining %d request(s) in flight", inflight.count)
    if not await inflight.wait_idle(timeout_s):
        logger.warning("%d request(s) still in flight after %g s", inflight.count, timeout_s)


async def _run(
    config: ServiceConfig,
    *,
    networks: Mapping[str, TransportNetwork] | None,
    registry: RouterRegistry | None,
    builder: Builder | Literal["auto"] | None,
    ready: Callable[[str], None],
    stop: asyncio.Event,
    install_signals: bool,
    freeze_gc: bool = False,
) -> str:
    if registry is None:
        registry = build_registry(config, networks)
    else:
        for router_id, network in (networks or {}).items():
            registry.register(router_id, network)
    app = make_app(config, registry, builder=builder)
    if freeze_gc:  # full collections skip the loaded networks (service.memory)
        frozen = freeze_served_objects(registry.add_drop_listener)
        logger.debug("%d objects frozen out of the cyclic garbage collector", frozen)
    sockets = bind_sockets(config.port, config.host or None)
    # body sizes and read times are bounded (service.http_limits): 413s, no hung connections
    server = LimitedHTTPServer(app, xheaders=config.xheaders, config=config)
    server.add_sockets(sockets)
    url = service_url(config.host, sockets[0].getsockname()[1])
    loop = asyncio.get_running_loop()
    signals = (signal.SIGINT, signal.SIGTERM) if install_signals else ()
    for sig in signals:
        loop.add_signal_handler(sig, stop.set)
    try:
        ready(url)
        await stop.wait()
    finally:
        for sig in signals:
            loop.remove_signal_handler(sig)
        await _drain(server, app.settings["otpa_inflight"], config.drain_timeout_s)
        app.settings["otpa_updaters"].close()  # the routers' real-time updaters
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(server.close_all_connections(), _SHUTDOWN_GRACE_S)
        app.settings["otpa_pools"].close()
        app.settings["otpa_memory"].close()
        logger.info("otpa service stopped")
    return url


def serve(
    config: ServiceConfig,
    *,
    networks: Mapping[str, TransportNetwork] | None = None,
    ready: Callable[[str], None] | None = None,
    registry: RouterRegistry | None = None,
    builder: Builder | Literal["auto"] | None = "auto",
) -> str:
    """Load the routers and serve until SIGINT or SIGTERM (call from the main thread).

    Once the routers are loaded, every object alive is frozen out of the cyclic garbage
    collector until a network is dropped (:func:`service.memory.freeze_served_objects`).

    Parameters
    ----------
    config
        The service configuration.
    networks
        In-memory networks by router id, served besides those of ``graphs_dir``.
    ready
        Called with the default router's URL once listening; prints it when None.
    registry
        A ready-made registry (then only ``networks`` are added to it).
    builder
        See :func:`service.app.make_app`.

    Returns
    -------
    str
        The URL that was served, after a clean shutdown.
    """

    async def main() -> str:
        return await _run(
            config,
            networks=networks,
            registry=registry,
            builder=builder,
            ready=ready or _announce,
            stop=asyncio.Event(),
            install_signals=True,
            freeze_gc=True,
        )

    return asyncio.run(main())


@dataclasses.dataclass
class _ThreadState:
    started: threading.Event = dataclasses.field(default_factory=threading.Event)
    url: str = ""
    loop: asyncio.AbstractEventLoop | None = None
    stop: asyncio.Event | None = None
    error: BaseException | None = None


def start_in_thread(
    config: ServiceConfig,
    networks: Mapping[str, TransportNetwork] | None = None,
    *,
    registry: RouterRegistry | None = None,
    builder: Builder | Literal["auto"] | None = "auto",
) -> tuple[str, Callable[[], None]]:
    """Start the service in a background thread (tests, notebooks).

    Parameters
    ----------
    config
        The service configuration (``port=0`` picks a free port).
    networks
        In-memory networks by router id.
    registry
        A ready-made registry, e.g. with a custom loader.
    builder
        See :func:`service.app.make_app`.

    Returns
    -------
    tuple of (str, callable)
        The default router's URL, and a function that stops the server and
        waits for the thread.

    Raises
    ------
    ServiceStartError
        If the server failed to start (the cause is chained).
    """
    state = _ThreadState()

    def ready(url: str) -> None:
        state.url = url
        state.started.set()

    async def main() -> None:
        state.loop, state.stop = asyncio.get_running_loop(), asyncio.Event()
        await _run(
            config,
            networks=networks,
            registry=registry,
            builder=builder,
            ready=ready,
            stop=state.stop,
            install_signals=False,
        )

    def target() -> None:
        try:
            asyncio.run(main())
        except BaseException as exc:  # reported to the starting thread
            state.error = exc
            state.started.set()

    thread = threading.Thread(target=target, name="otpa-service", daemon=True)
    thread.start()
    if not state.started.wait(_START_TIMEOUT_S):
        msg = "otpa service did not start in time"
        raise ServiceStartError(msg)
    if state.error is not None:
        msg = f"otpa service failed to start: {state.error}"
        raise ServiceStartError(msg) from state.error

    def stop() -> None:
        if state.loop is not None and state.stop is not None and thread.is_alive():
            with contextlib.suppress(RuntimeError):  # loop already closed
                state.loop.call_soon_threadsafe(state.stop.set)
        thread.join(config.drain_timeout_s + _SHUTDOWN_GRACE_S + 5)

    return state.url, stop


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the serve options shared by ``otpa serve`` and ``python -m service``.

    Parameters
    ----------
    parser
        The (sub)parser to extend.
    """
    parser.add_argument("--config", type=Path, help="service configuration file (YAML or JSON)")
    parser.add_argument("--graphs", type=Path, help="base folder holding <ID>/graph per router")
    parser.add_argument(
        "--router",
        action="append",
        help="router id to serve (repeatable, or comma-separated); the first is the default",
    )
    parser.add_argument("--host", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (default 8080; 0 picks a free port)")
    parser.add_argument("--log-level", default="INFO", help="logging level (default INFO)")


def _router_ids(values: Sequence[str] | None) -> tuple[str, ...]:
    return tuple(r.strip() for value in values or () for r in value.split(",") if r.strip())


def config_from_args(args: argparse.Namespace) -> ServiceConfig:
    """Load the configuration file (if any) and apply the command-line overrides.

    Parameters
    ----------
    args
        Parsed arguments of :func:`add_serve_arguments`.

    Returns
    -------
    ServiceConfig

    Raises
    ------
    ConfigError
        If the file or an override is invalid.
    """
    config = load_config(args.config)
    overrides: dict[str, Any] = {}
    if args.graphs is not None:
        overrides["graphs_dir"] = args.graphs
    if args.router:
        overrides["routers"] = _router_ids(args.router)
    if args.host is not None:
        overrides["host"] = args.host
    if args.port is not None:
        if not 0 <= args.port <= 65535:
            msg = f"--port must be between 0 and 65535, not {args.port}"
            raise ConfigError(msg)
        overrides["port"] = args.port
    return dataclasses.replace(config, **overrides)


def demo_networks() -> dict[str, TransportNetwork]:
    """The demo city as router ``demo`` (its updaters run once registered with its folder,
    see :func:`demo_registry`)."""
    return {"demo": demo_network()}


def demo_registry(config: ServiceConfig) -> RouterRegistry:
    """A registry serving the demo city as router ``demo``, with its folder.

    The folder holds the city's ``router-config.json``, so the service's updater manager
    runs its updaters as any router's: the GBFS bike share is polled every
    ``frequencySec`` (status on ``/otp/routers/demo/updaters``) and the ride-hail
    estimator is configured.
    """
    registry = RouterRegistry(None, routers=config.routers)
    for router_id, network in demo_networks().items():
        registry.register(router_id, network, folder=demo_city_dir())
    missing = [r for r in config.routers if r not in registry]
    if missing:
        msg = f"configured routers not found: {', '.join(missing)}"
        raise ServiceStartError(msg)
    return registry


def log_to_stderr(level: str) -> QueueListener | None:
    """Configure the root logger, writing to stderr from a thread of its own.

    The same lines as ``logging.basicConfig`` with :data:`_LOG_FORMAT` (nothing changes when
    the root logger already has handlers), but the event loop only queues its records
    (the access log's line per request): the write to stderr, a system call that lets go
    of the GIL, happens in the listener's thread, so the loop does not wait to take the
    GIL back from the plans after each answer.

    Parameters
    ----------
    level
        The root logger's level (``INFO``, ``WARNING``...).

    Returns
    -------
    QueueListener or None
        The started listener (stop it to flush), or None when logging was configured before.
    """
    root = logging.getLogger()
    if root.handlers:
        return None
    stream = logging.StreamHandler()
    stream.setFormatter(logging.Formatter(_LOG_FORMAT))
    records: queue.SimpleQueue[logging.LogRecord] = queue.SimpleQueue()
    root.setLevel(level)
    root.addHandler(QueueHandler(records))
    listener = QueueListener(records, stream)
    listener.start()
    return listener


def stop_logging(listener: QueueListener) -> None:
    """Write what :func:`log_to_stderr`'s queue holds, then log to stderr directly.

    The queue's handler leaves the root logger and the listener's stream handler takes
    its place, so a line logged afterwards (at exit, by a caller that serves again) is
    written, not queued for a listener that is gone.

    Parameters
    ----------
    listener
        What :func:`log_to_stderr` returned.
    """
    listener.stop()
    root = logging.getLogger()
    for handler in list(root.handlers):
        if isinstance(handler, QueueHandler) and handler.queue is listener.queue:
            root.removeHandler(handler)
    for handler in listener.handlers:
        root.addHandler(handler)


def serve_from_args(args: argparse.Namespace) -> int:
    """Serve as the command line asked; with no graphs folder anywhere, the demo city.

    Problems the operator must fix (a bad configuration, a router that does not load,
    a port in use) print one line on stderr and give exit status 2, without a traceback.

    Parameters
    ----------
    args
        Parsed arguments of :func:`add_serve_arguments`.

    Returns
    -------
    int
        The exit status.
    """
    listener = log_to_stderr(str(args.log_level).upper())
    logging.captureWarnings(True)
    tune_malloc()  # large arrays are unmapped when freed (service.memory)
    try:
        config = config_from_args(args)
        registry = None
        if config.graphs_dir is None:
            registry = demo_registry(config)
        serve(config, registry=registry)
    except (ConfigError, ServiceStartError, OtpaError, OSError) as exc:
        failure: str | None = f"error: {exc}"
    else:
        failure = None
    finally:
        if listener is not None:  # every queued line is written before the process ends
            stop_logging(listener)
    if failure is not None:
        print(failure, file=sys.stderr)
        return 2
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point: ``python -m service``, the same as ``otpa serve``.

    Returns
    -------
    int
        The exit status.
    """
    parser = argparse.ArgumentParser(prog="python -m service", description="Serve the OTP 1.x API.")
    add_serve_arguments(parser)
    return serve_from_args(parser.parse_args(argv))
