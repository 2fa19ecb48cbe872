"""The router registry: which transport network answers for which router id.

A router id names a folder ``<graphs_dir>/<id>/`` holding a saved graph file
``graph``.  The registry maps ids to loaded networks, thread-safely:

* lookups (:meth:`RouterRegistry.get`) are cheap and happen on the event loop;
  a request takes its network reference once and keeps it, so a swap never
  disturbs requests in flight;
* loads (:meth:`RouterRegistry.load`, :meth:`RouterRegistry.install`) are slow
  and run in worker threads; the new network replaces the old one only once it
  has loaded completely, so a failed load leaves the old graph serving.

``default``, the empty id and any case of ``"default"`` resolve to the default
router: the first configured router id, else the first one registered.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from otpa.errors import OtpaError, UnknownIdError
from service.storage import replace_file

if TYPE_CHECKING:
    from otpa.network import TransportNetwork

__all__ = [
    "GRAPH_FILE",
    "ROUTER_ID_PATTERN",
    "STAGING_DIR",
    "InvalidRouterIdError",
    "Loader",
    "NoGraphsDirError",
    "ReloadReport",
    "RouterRegistry",
    "UnknownRouterError",
    "is_default_alias",
    "load_network",
    "validate_router_id",
]

logger = logging.getLogger(__name__)

#: What a router id may look like (also what keeps ids from escaping the graphs folder).
ROUTER_ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: The saved graph's file name inside ``<graphs_dir>/<id>/``.
GRAPH_FILE = "graph"
#: Folder under ``graphs_dir`` for uploads in progress (never a valid router id).
STAGING_DIR = ".incoming"

Loader = Callable[[Path], "TransportNetwork"]


class InvalidRouterIdError(ValueError, OtpaError):
    """A router id is not 1-64 characters of ``A-Z a-z 0-9 _ -``."""


class UnknownRouterError(UnknownIdError):
    """No router is registered under this id."""


class NoGraphsDirError(OtpaError):
    """The operation needs a graphs folder and the service was started without one."""


@dataclass(frozen=True)
class ReloadReport:
    """What :meth:`RouterRegistry.reload_all` did.

    Attributes
    ----------
    loaded
        Ids (re)loaded from disk.
    failed
        Ids whose graph could not be loaded, with the reason; their previous
        network, if any, still serves.
    evicted
        Ids dropped because no graph for them was found on disk.
    """

    loaded: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    evicted: list[str] = field(default_factory=list)


def load_network(path: Path) -> TransportNetwork:
    """Load a saved graph with :meth:`otpa.network.TransportNetwork.load` (checksums verified)."""
    from otpa.network import TransportNetwork

    return TransportNetwork.load(path, verify=True)


def is_default_alias(router_id: str) -> bool:
    """Tell whether an id means "the default router" (``""`` or any case of ``default``)."""
    return router_id == "" or router_id.lower() == "default"


def validate_router_id(router_id: str) -> str:
    """Return ``router_id`` if it is a valid id, else raise :class:`InvalidRouterIdError`.

    Examples
    --------
    >>> validate_router_id("portland_2024")
    'portland_2024'
    """
    if not isinstance(router_id, str) or not ROUTER_ID_PATTERN.fullmatch(router_id):
        shown = router_id[:80] if isinstance(router_id, str) else router_id
        msg = f"Invalid router id {shown!r}: use 1-64 characters among A-Z a-z 0-9 _ -."
        raise InvalidRouterIdError(msg)
    return router_id


class RouterRegistry:
    """Thread-safe map of router ids to loaded transport networks.

    Parameters
    ----------
    graphs_dir
        The graphs folder (``<graphs_dir>/<id>/graph``), or None for an
        in-memory registry that only takes :meth:`register`.
    loader
        Function path → network; :func:`load_network` by default.  Tests pass a fake.
    routers
        Configured router ids (``--router a,b``): the first is the default and
        :meth:`discover` returns exactly these instead of scanning the folder.

    Examples
    --------
    >>> registry = RouterRegistry(None)
    >>> registry.ids(), registry.default_id
    ([], None)
    """

    def __init__(
        self,
        graphs_dir: Path | None = None,
        loader: Loader | None = None,
        *,
        routers: Sequence[str] = (),
    ) -> None:
        self._graphs_dir = Path(graphs_dir) if graphs_dir is not None else None
        self._loader: Loader = loader if loader is not None else load_network
        self._routers = tuple(validate_router_id(r) for r in routers)
        self._networks: dict[str, TransportNetwork] = {}
        #: folders of in-memory routers (their router-config.json), by id
        self._folders: dict[str, Path] = {}
        self._lock = threading.Lock()
        self._id_locks: dict[str, threading.Lock] = {}
        self._listeners: list[Callable[[], None]] = []
        self._drop_listeners: list[Callable[[TransportNetwork], None]] = []

    # -- read side ---------------------------------------------------------------------------

    @property
    def graphs_dir(self) -> Path | None:
        """The graphs folder, or None."""
        return self._graphs_dir

    def router_dir(self, router_id: str) -> Path | None:
        """The folder holding a router's ``router-config.json``: the one it was registered
        with, else ``<graphs_dir>/<id>`` (None without either)."""
        with self._lock:
            folder = self._folders.get(router_id)
        if folder is not None:
            return folder
        return None if self._graphs_dir is None else self._graphs_dir / router_id

    @property
    def loader(self) -> Loader:
        """The function that loads (and thereby validates) a saved graph file."""
        return self._loader

    @property
    def default_id(self) -> str | None:
        """The id ``default`` resolves to: first configured id, else first registered."""
        with self._lock:
            return self._default_locked()

    def _default_locked(self) -> str | None:
        if self._routers:
            return self._routers[0]
        return next(iter(self._networks), None)

    def ids(self) -> list[str]:
        """Registered ids, in registration order."""
        with self._lock:
            return list(self._networks)

    def items(self) -> list[tuple[str, TransportNetwork]]:
        """A snapshot of ``(id, network)`` pairs, in registration order."""
        with self._lock:
            return list(self._networks.items())

    def __len__(self) -> int:
        with self._lock:
            return len(self._networks)

    def __contains__(self, router_id: object) -> bool:
        with self._lock:
            return router_id in self._networks

    def lookup(self, router_id: str) -> tuple[str, TransportNetwork]:
        """Return ``(canonical id, network)`` for an id or the default alias.

        Raises
        ------
        InvalidRouterIdError
            If the id is malformed.
        UnknownRouterError
            If no router answers to it.
        """
        alias = is_default_alias(router_id)
        if not alias:
            validate_router_id(router_id)
        with self._lock:
            network = self._networks.get(router_id)
            if network is not None:
                return router_id, network
            default = self._default_locked() if alias else None
            if default is not None and default in self._networks:
                return default, self._networks[default]
        msg = f"Graph id '{router_id}' not registered."
        raise UnknownRouterError(msg)

    def get(self, router_id: str) -> TransportNetwork:
        """Return the network of a router (id or default alias); see :meth:`lookup`."""
        return self.lookup(router_id)[1]

    def resolve(self, router_id: str) -> str:
        """Return the canonical id of a registered router; see :meth:`lookup`."""
        return self.lookup(router_id)[0]

    # -- paths -------------------------------------------------------------------------------

    def write_target(self, router_id: str) -> str:
        """Return the id a write addresses: the default alias means the default (or ``default``)."""
        if is_default_alias(router_id):
            return self.default_id or "default"
        return validate_router_id(router_id)

    def require_graphs_dir(self) -> Path:
        """Return the graphs folder or raise :class:`NoGraphsDirError`."""
        if self._graphs_dir is None:
            msg = (
                "This server has no graphs directory (graphs_dir); it cannot load or store graphs."
            )
            raise NoGraphsDirError(msg)
        return self._graphs_dir

    def graph_path(self, router_id: str) -> Path:
        """Return ``<graphs_dir>/<id>/graph`` for a valid id."""
        return self.require_graphs_dir() / validate_router_id(router_id) / GRAPH_FILE

    def staging_dir(self) -> Path:
        """Return (creating it) the folder where uploads are staged."""
        path = self.require_graphs_dir() / STAGING_DIR
        path.mkdir(parents=True, exist_ok=True)
        return path

    def discover(self) -> list[str]:
        """Ids to load from disk: the configured ones, else every ``<graphs_dir>/<id>/graph``."""
        if self._routers:
            return list(self._routers)
        if self._graphs_dir is None or not self._graphs_dir.is_dir():
            return []
        return sorted(
            p.name
            for p in self._graphs_dir.iterdir()
            if ROUTER_ID_PATTERN.fullmatch(p.name) and (p / GRAPH_FILE).is_file()
        )

    # -- write side --------------------------------------------------------------------------

    def add_listener(self, listener: Callable[[], None]) -> None:
        """Call ``listener()`` after every change of the served networks (any thread)."""
        self._listeners.append(listener)

    def add_drop_listener(self, listener: Callable[[TransportNetwork], None]) -> None:
        """Call ``listener(network)`` for each network replaced or evicted (any thread)."""
        self._drop_listeners.append(listener)

    def _dropped(self, networks: Sequence[TransportNetwork]) -> None:
        for network in networks:
            for listener in list(self._drop_listeners):
                try:
                    listener(network)
                except Exception:
                    logger.exception("registry drop listener failed")

    def _changed(self) -> None:
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:
                logger.exception("registry listener failed")

    def _id_lock(self, router_id: str) -> threading.Lock:
        with self._lock:
            return self._id_locks.setdefault(router_id, threading.Lock())

    def _swap(self, router_id: str, network: TransportNetwork) -> bool:
        with self._lock:
            old = self._networks.get(router_id)
            self._networks[router_id] = network
        self._changed()
        if old is not None and old is not network:
            self._dropped([old])
        return old is not None

    def register(
        self, router_id: str, network: TransportNetwork, *, folder: Path | None = None
    ) -> bool:
        """Serve ``network`` under ``router_id``; return True if it replaced one.

        ``folder``: where the router's ``router-config.json`` is, for a network that is
        not in the graphs folder (the demo city): its updaters run as any router's.
        """
        target = self.write_target(router_id)
        if folder is not None:
            with self._lock:
                self._folders[target] = Path(folder)
        return self._swap(target, network)

    def load(self, router_id: str) -> tuple[str, bool]:
        """Load ``<graphs_dir>/<id>/graph`` and swap it in (blocking: call in a worker thread).

        Returns
        -------
        tuple of (str, bool)
            The id loaded and whether it replaced a registered network.

        Raises
        ------
        FileNotFoundError
            If there is no graph file.
        otpa.errors.GraphFormatError
            If the file is not a usable graph; the old network keeps serving.
        """
        target = self.write_target(router_id)
        path = self.graph_path(target)
        with self._id_lock(target):
            network = self._loader(path)
            return target, self._swap(target, network)

    def install(self, router_id: str, staged: Path, *, register: bool = True) -> tuple[str, bool]:
        """Validate a staged graph file, move it to ``<graphs_dir>/<id>/graph``, and swap it in.

        Blocking: call in a worker thread.  The file is loaded first (which
        validates it), so a bad file changes nothing, on disk or in memory.

        Parameters
        ----------
        router_id
            Target id (the default alias is allowed).
        staged
            A complete graph file inside :meth:`staging_dir`.
        register
            False to only store the file (``POST /routers/save``).

        Returns
        -------
        tuple of (str, bool)
            The target id and whether a registered network was replaced.
        """
        target = self.write_target(router_id)
        dest = self.graph_path(target)
        with self._id_lock(target):
            network = self._loader(staged)
            replace_file(staged, dest)
            if not register:
                return target, False
            return target, self._swap(target, network)

    def adopt(self, router_id: str, network: TransportNetwork) -> tuple[str, bool]:
        """Save a freshly built network to the graphs folder and swap it in (blocking)."""
        target = self.write_target(router_id)
        dest = self.graph_path(target)
        with self._id_lock(target):
            dest.parent.mkdir(parents=True, exist_ok=True)
            network.save(dest)
            return target, self._swap(target, network)

    def evict(self, router_id: str) -> str:
        """Stop serving a router (id or default alias) and return its id.

        Raises
        ------
        UnknownRouterError
            If no router answers to the id.
        """
        target, _ = self.lookup(router_id)
        with self._lock:
            old = self._networks.pop(target, None)
            if old is None:
                msg = f"Graph id '{router_id}' not registered."
                raise UnknownRouterError(msg)
        self._changed()
        self._dropped([old])
        return target

    def evict_all(self) -> int:
        """Stop serving every router; return how many there were."""
        with self._lock:
            dropped = list(self._networks.values())
            self._networks.clear()
        self._changed()
        self._dropped(dropped)
        return len(dropped)

    def reload_all(self, *, pre_evict: bool = True, force: bool = True) -> ReloadReport:
        """Load every router found on disk (blocking: call in a worker thread).

        Parameters
        ----------
        pre_evict
            Also stop serving routers that have no graph on disk (OTP's
            ``preEvict``).  Routers whose graph fails to load keep serving.
        force
            Reload routers that are already registered; when False only new
            ones are loaded.

        Returns
        -------
        ReloadReport

        Raises
        ------
        NoGraphsDirError
            If the registry has no graphs folder.
        """
        self.require_graphs_dir()
        report = ReloadReport()
        on_disk = self.discover()
        for router_id in on_disk:
            if not force and router_id in self:
                continue
            try:
                self.load(router_id)
            except Exception as exc:
                logger.warning("router %r not loaded: %s", router_id, exc)
                report.failed[router_id] = str(exc) or type(exc).__name__
            else:
                report.loaded.append(router_id)
        if pre_evict:
            keep = set(on_disk)
            dropped = []
            with self._lock:
                for router_id in [r for r in self._networks if r not in keep]:
                    dropped.append(self._networks.pop(router_id))
                    report.evicted.append(router_id)
            self._changed()
            self._dropped(dropped)
        return report
