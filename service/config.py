"""Service configuration: a frozen :class:`ServiceConfig`, loaded and validated at start-up.

Sources, later ones winning key by key:

1. defaults (:class:`ServiceConfig`);
2. a YAML (``.yml``/``.yaml``) or JSON (``.json``) file, e.g. ``service.yml``::

       graphs_dir: /var/otpa/graphs      # relative paths are relative to this file
       routers: [portland, seattle]      # optional; first one answers to "default"
       host: 127.0.0.1
       port: 8080
       max_upload_bytes: 536870912
       users:
         alice: {password_hash: "scrypt$16384$8$1$...$...", roles: [ROUTERS]}

3. environment variables ``OTPA_GRAPHS_DIR``, ``OTPA_ROUTERS`` (comma list),
   ``OTPA_HOST``, ``OTPA_PORT`` and ``OTPA_USERS``.

``OTPA_USERS`` holds users separated by ``;`` or newlines; each is
``name:password_hash[:ROLE,ROLE...]``, e.g.
``alice:scrypt$16384$8$1$c2FsdA==$aGFzaA==:ROUTERS;bob:scrypt$...``.  Hashes
never contain ``:``, ``;`` or ``,``.  Users from the environment are added to (or
replace same-named) users from the file.

Unknown keys produce a :class:`ConfigWarning`; wrong types raise :class:`ConfigError`.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from service.auth import PasswordHashError, UserEntry
from service.registry import InvalidRouterIdError, validate_router_id

__all__ = [
    "DEFAULT_DRAIN_TIMEOUT_S",
    "DEFAULT_HEAVY_QUEUE",
    "DEFAULT_HEAVY_WORKERS",
    "DEFAULT_LIGHT_QUEUE",
    "DEFAULT_LIGHT_WORKERS",
    "DEFAULT_MAX_ANALYSIS_CELLS",
    "DEFAULT_MAX_POINTSET_BYTES",
    "DEFAULT_MAX_SURFACES",
    "DEFAULT_MAX_UNZIPPED_BYTES",
    "DEFAULT_MAX_UPLOAD_BYTES",
    "DEFAULT_REQUEST_TIME_LIMIT_S",
    "DEFAULT_SCRIPT_MEMORY_BYTES",
    "GEOCODER_BACKENDS",
    "ConfigError",
    "ConfigWarning",
    "ServiceConfig",
    "UserEntry",
    "load_config",
    "parse_users_env",
]

#: Largest request body accepted by ``POST /otp/routers/...`` (512 MiB).
DEFAULT_MAX_UPLOAD_BYTES = 512 * 1024**2
#: Largest total uncompressed content of an uploaded GTFS/OSM zip (4 GiB).
DEFAULT_MAX_UNZIPPED_BYTES = 4 * 1024**3
#: Time surfaces kept in memory by the analyst API (least recently used are dropped).
DEFAULT_MAX_SURFACES = 64
#: Most grid cells one analyst request may compute.
DEFAULT_MAX_ANALYSIS_CELLS = 250_000
#: Largest point set accepted by ``POST /otp/pointsets`` (16 MiB).
DEFAULT_MAX_POINTSET_BYTES = 16 * 1024**2
_MAX_PORT = 65535
#: Address space one script run may use (2 GiB).
DEFAULT_SCRIPT_MEMORY_BYTES = 2 * 1024**3
#: Threads and queue of the light work pool (server info, index, geocoding...).
DEFAULT_LIGHT_WORKERS = 4
DEFAULT_LIGHT_QUEUE = 256
#: Threads and queue of the heavy work pool (plans, graph loads).
DEFAULT_HEAVY_WORKERS = 4
DEFAULT_HEAVY_QUEUE = 128
#: Threads and queue of the analysis work pool (isochrones, surfaces, profiles...).
DEFAULT_ANALYSIS_WORKERS = 2
DEFAULT_ANALYSIS_QUEUE = 64
#: Longest time one request may take.
DEFAULT_REQUEST_TIME_LIMIT_S = 120.0
#: Longest wait for the requests in flight when the server stops.
DEFAULT_DRAIN_TIMEOUT_S = 30.0
#: Backends of ``GET /otp/geocode``.
GEOCODER_BACKENDS = ("builtin", "nominatim", "pelias")


class ConfigError(ValueError):
    """The service configuration is invalid."""


class ConfigWarning(UserWarning):
    """The service configuration has something questionable (an unknown key...)."""


@dataclass(frozen=True)
class ServiceConfig:
    """Everything the HTTP service needs to know, fixed at start-up.

    Attributes
    ----------
    graphs_dir
        Folder of saved graphs ``<graphs_dir>/<id>/graph``; None serves only
        networks handed to :func:`service.server.serve`.
    routers
        Router ids to load (instead of every folder found); the first is the default.
    host, port
        Where to listen (port 0 picks a free port).
    users
        Users allowed to authenticate, by name.  Empty: all writes are refused.
    max_upload_bytes
        Largest accepted upload body.
    max_unzipped_bytes
        Largest total content of an uploaded zip once extracted.
    cors
        Send OTP's CORS headers.
    allow_basic_auth_over_http
        Accept Basic credentials over plain HTTP (OTP refused them; we allow
        them so loopback and TLS-terminating proxies work — run behind TLS).
    xheaders
        Trust ``X-Forwarded-Proto``/``X-Real-Ip`` from a reverse proxy.
    scenarios_dir
        Folder of stored scenarios ``<scenarios_dir>/<routerId>/<id>.json``; None: a
        ``scenarios`` folder beside ``graphs_dir``.
    pointsets_dir
        Folder of analyst point sets (``*.csv``, ``*.json``, ``*.geojson``; ids are the file
        stems); None: only uploaded point sets.
    max_surfaces
        Time surfaces the analyst API keeps in memory (least recently used are dropped).
    max_analysis_cells
        Most grid cells one analyst request (isochrone, timegrid, surface...) may compute.
    max_pointset_bytes
        Largest point-set upload.
    geocoder
        Backend of ``GET /otp/geocode``: ``builtin`` (the default router's own
        index, offline), ``nominatim`` or ``pelias`` (HTTP services at ``geocoder_url``).
    geocoder_url
        Base URL of the HTTP geocoder (``https://nominatim.example.org``).
    geocoder_timeout_s
        Time limit of one HTTP geocoder request.
    scripting_enabled
        Serve ``POST /otp/scripting/run`` (off by default; callers also need the
        ROUTERS role).
    script_time_limit_s, script_memory_limit_bytes
        CPU/wall time and address-space limits of one script run.
    dashboard, dashboard_basemap_url
        Mount the scenario-comparison dashboard at ``/dashboard`` (Panel/Bokeh in the
        same process, over the loaded networks); the tile URL template of its basemap
        (``{z}/{x}/{y}``, ``{router}``), None for the service's own basemap tiles.
    light_workers, light_queue
        Threads and queue length of the ``light`` work pool (server info, routers, index,
        GraphQL, geocoding, tiles; :mod:`service.workpools`).  A request that finds the
        pool's threads busy and its queue full is shed: 503 with ``Retry-After``.
    heavy_workers, heavy_queue
        The same for the ``heavy`` pool (trip plans, graph loads).
    analysis_workers, analysis_queue
        The same for the ``analysis`` pool (isochrones, time grids, surfaces and their
        tiles, profiles, point sets, scenario graphs): analyses take seconds each, so
        they have their own threads and plans never wait behind them.
    request_time_limit_s
        Longest time one request may take (from its arrival): a plan past it answers
        OTP's ``REQUEST_TIMEOUT`` error, other work 504.  ``searchTimeout`` of a plan is
        capped by it.
    drain_timeout_s
        On SIGTERM/SIGINT, longest wait for the requests in flight before exiting.
    """

    graphs_dir: Path | None = None
    routers: tuple[str, ...] = ()
    host: str = "127.0.0.1"
    port: int = 8080
    users: Mapping[str, UserEntry] = field(default_factory=lambda: MappingProxyType({}))
    max_upload_bytes: int = DEFAULT_MAX_UPLOAD_BYTES
    max_unzipped_bytes: int = DEFAULT_MAX_UNZIPPED_BYTES
    cors: bool = True
    allow_basic_auth_over_http: bool = True
    xheaders: bool = False
    scenarios_dir: Path | None = None
    pointsets_dir: Path | None = None
    max_surfaces: int = DEFAULT_MAX_SURFACES
    max_analysis_cells: int = DEFAULT_MAX_ANALYSIS_CELLS
    max_pointset_bytes: int = DEFAULT_MAX_POINTSET_BYTES
    # -- geocoding and the script runner --
    geocoder: str = "builtin"
    geocoder_url: str | None = None
    geocoder_timeout_s: float = 5.0
    scripting_enabled: bool = False
    script_time_limit_s: float = 60.0
    script_memory_limit_bytes: int = DEFAULT_SCRIPT_MEMORY_BYTES
    dashboard: bool = False
    dashboard_basemap_url: str | None = None
    # -- overload and time limits (service.workpools) --
    light_workers: int = DEFAULT_LIGHT_WORKERS
    light_queue: int = DEFAULT_LIGHT_QUEUE
    heavy_workers: int = DEFAULT_HEAVY_WORKERS
    heavy_queue: int = DEFAULT_HEAVY_QUEUE
    analysis_workers: int = DEFAULT_ANALYSIS_WORKERS
    analysis_queue: int = DEFAULT_ANALYSIS_QUEUE
    request_time_limit_s: float = DEFAULT_REQUEST_TIME_LIMIT_S
    drain_timeout_s: float = DEFAULT_DRAIN_TIMEOUT_S

    def __post_init__(self) -> None:
        for name in ("graphs_dir", "scenarios_dir", "pointsets_dir"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, Path):
                object.__setattr__(self, name, Path(value))
        try:
            routers = tuple(validate_router_id(r) for r in self.routers)
        except InvalidRouterIdError as exc:
            raise ConfigError(str(exc)) from None
        object.__setattr__(self, "routers", routers)
        object.__setattr__(self, "users", MappingProxyType(dict(self.users)))
        if not isinstance(self.port, int) or isinstance(self.port, bool):
            msg = f"port must be an integer, not {self.port!r}"
            raise ConfigError(msg)
        if not 0 <= self.port <= _MAX_PORT:
            msg = f"port must be between 0 and {_MAX_PORT}, not {self.port}"
            raise ConfigError(msg)
        for name in (
            "max_upload_bytes",
            "max_unzipped_bytes",
            "max_surfaces",
            "max_analysis_cells",
            "max_pointset_bytes",
            "light_workers",
            "heavy_workers",
            "analysis_workers",
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                msg = f"{name} must be a positive integer, not {value!r}"
                raise ConfigError(msg)
        for name in ("light_queue", "heavy_queue", "analysis_queue"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                msg = f"{name} must be an integer >= 0, not {value!r}"
                raise ConfigError(msg)
        self._check_geocoding_and_scripting()

    def _check_geocoding_and_scripting(self) -> None:
        if self.geocoder not in GEOCODER_BACKENDS:
            msg = f"geocoder must be one of {', '.join(GEOCODER_BACKENDS)}, not {self.geocoder!r}"
            raise ConfigError(msg)
        url = self.geocoder_url
        if self.geocoder != "builtin" and (
            not isinstance(url, str) or not url.startswith(("http://", "https://"))
        ):
            msg = f"geocoder {self.geocoder} needs geocoder_url, an http(s) URL, not {url!r}"
            raise ConfigError(msg)
        for name in (
            "geocoder_timeout_s",
            "script_time_limit_s",
            "request_time_limit_s",
            "drain_timeout_s",
        ):
            value = getattr(self, name)
            if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
                msg = f"{name} must be a positive number, not {value!r}"
                raise ConfigError(msg)
        limit = self.script_memory_limit_bytes
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 64 * 1024**2:
            msg = f"script_memory_limit_bytes must be an integer >= 64 MiB, not {limit!r}"
            raise ConfigError(msg)


# -- loading ----------------------------------------------------------------------------------


def _one_line(exc: Exception) -> str:
    """A parser error as one line (YAML's messages span several, with a caret drawing)."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None)
    if problem is not None and mark is not None:
        return f"{problem} at line {mark.line + 1}, column {mark.column + 1}"
    return " ".join(str(exc).split())


def _read_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        msg = f"cannot read config file {path}: {exc}"
        raise ConfigError(msg) from None
    try:
        data = json.loads(text) if path.suffix.lower() == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        kind = "JSON" if path.suffix.lower() == ".json" else "YAML"
        msg = f"config file {path} is not valid {kind}: {_one_line(exc)}"
        raise ConfigError(msg) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        msg = f"config file {path} must hold a mapping at the top level"
        raise ConfigError(msg)
    return data


def _expect(key: str, value: Any, kind: type | tuple[type, ...], what: str) -> Any:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        msg = f"{key} must be {what}, not {value!r}"
        raise ConfigError(msg)
    return value


def _router_list(key: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    _expect(key, value, list, "a list of router ids or a comma-separated string")
    return tuple(_expect(key, v, str, "a list of strings") for v in value)


def _roles(name: str, value: Any) -> frozenset[str]:
    if value is None:
        return frozenset()
    if isinstance(value, str):
        return frozenset(r.strip() for r in value.split(",") if r.strip())
    _expect(f"users.{name}.roles", value, list, "a list of role names")
    return frozenset(_expect(f"users.{name}.roles", r, str, "a list of strings") for r in value)


def _make_user(name: str, password_hash: Any, roles: frozenset[str]) -> UserEntry:
    _expect(f"users.{name}.password_hash", password_hash, str, "a string")
    if not name or ":" in name or any(c.isspace() for c in name):
        msg = f"invalid user name {name!r}: no colons or spaces"
        raise ConfigError(msg)
    try:
        return UserEntry(name=name, password_hash=password_hash, roles=roles)
    except PasswordHashError as exc:
        msg = f"users.{name}: {exc}"
        raise ConfigError(msg) from None


def _users_from_mapping(value: Any) -> dict[str, UserEntry]:
    _expect("users", value, dict, "a mapping of user name to {password_hash, roles}")
    users = {}
    for name, entry in value.items():
        _expect(f"users.{name}", entry, dict, "a mapping with password_hash and roles")
        for key in sorted(set(entry) - {"password_hash", "roles"}):
            warnings.warn(f"unknown key users.{name}.{key} ignored", ConfigWarning, stacklevel=4)
        users[str(name)] = _make_user(
            str(name), entry.get("password_hash"), _roles(name, entry.get("roles"))
        )
    return users


def parse_users_env(text: str) -> dict[str, UserEntry]:
    """Parse ``OTPA_USERS``: ``name:hash[:ROLE,ROLE]`` entries separated by ``;`` or newlines.

    Parameters
    ----------
    text
        The variable's value.

    Returns
    -------
    dict of str to UserEntry

    Raises
    ------
    ConfigError
        If an entry is malformed.
    """
    users = {}
    for raw in text.replace("\n", ";").split(";"):
        entry = raw.strip()
        if not entry:
            continue
        name, sep, rest = entry.partition(":")
        password_hash, _, roles = rest.partition(":")
        if not sep or not password_hash:
            msg = f"OTPA_USERS entry {name!r} must be name:password_hash[:ROLE,...]"
            raise ConfigError(msg)
        users[name.strip()] = _make_user(name.strip(), password_hash.strip(), _roles(name, roles))
    return users


def _bool(key: str, value: Any) -> bool:
    return bool(_expect(key, value, bool, "true or false"))


def _int(key: str, value: Any) -> int:
    return int(_expect(key, value, int, "an integer"))


def _graphs_dir(value: Any, base: Path | None, key: str = "graphs_dir") -> Path:
    path = Path(_expect(key, value, (str, os.PathLike), "a path")).expanduser()
    return base / path if base is not None and not path.is_absolute() else path


_CONVERTERS: dict[str, Any] = {
    "routers": _router_list,
    "host": lambda k, v: _expect(k, v, str, "a host name or address"),
    "port": _int,
    "max_upload_bytes": _int,
    "max_unzipped_bytes": _int,
    "cors": _bool,
    "allow_basic_auth_over_http": _bool,
    "xheaders": _bool,
    "max_surfaces": _int,
    "max_analysis_cells": _int,
    "max_pointset_bytes": _int,
    "geocoder": lambda k, v: _expect(k, v, str, "builtin, nominatim or pelias"),
    "geocoder_url": lambda k, v: None if v is None else _expect(k, v, str, "a URL"),
    "geocoder_timeout_s": lambda k, v: float(_expect(k, v, (int, float), "a number")),
    "scripting_enabled": _bool,
    "script_time_limit_s": lambda k, v: float(_expect(k, v, (int, float), "a number")),
    "script_memory_limit_bytes": _int,
    "dashboard": _bool,
    "dashboard_basemap_url": lambda k, v: _expect(k, v, str, "a tile URL template"),
    "light_workers": _int,
    "light_queue": _int,
    "heavy_workers": _int,
    "heavy_queue": _int,
    "analysis_workers": _int,
    "analysis_queue": _int,
    "request_time_limit_s": lambda k, v: float(_expect(k, v, (int, float), "a number")),
    "drain_timeout_s": lambda k, v: float(_expect(k, v, (int, float), "a number")),
}


def _from_env(env: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if env.get("OTPA_GRAPHS_DIR"):
        out["graphs_dir"] = _graphs_dir(env["OTPA_GRAPHS_DIR"], None)
    if env.get("OTPA_ROUTERS"):
        out["routers"] = _router_list("OTPA_ROUTERS", env["OTPA_ROUTERS"])
    if env.get("OTPA_HOST"):
        out["host"] = env["OTPA_HOST"]
    if env.get("OTPA_PORT"):
        try:
            out["port"] = int(env["OTPA_PORT"])
        except ValueError:
            msg = f"OTPA_PORT must be an integer, not {env['OTPA_PORT']!r}"
            raise ConfigError(msg) from None
    return out


def load_config(
    path: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None
) -> ServiceConfig:
    """Load, validate and freeze the service configuration.

    Parameters
    ----------
    path
        A ``.yml``/``.yaml``/``.json`` file, or None for defaults plus environment.
    env
        Environment variables (``os.environ`` when None).

    Returns
    -------
    ServiceConfig

    Raises
    ------
    ConfigError
        If the file is unreadable or a value has the wrong type.

    Warns
    -----
    ConfigWarning
        For each unknown key.

    Examples
    --------
    >>> load_config(None, env={"OTPA_PORT": "9090"}).port
    9090
    """
    env = os.environ if env is None else env
    file_path = Path(path) if path is not None else None
    data = _read_file(file_path) if file_path is not None else {}
    known = {f.name for f in fields(ServiceConfig)}
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key not in known:
            warnings.warn(f"unknown config key {key!r} ignored", ConfigWarning, stacklevel=2)
        elif key in ("graphs_dir", "scenarios_dir", "pointsets_dir"):
            values[key] = (
                None if value is None else _graphs_dir(value, file_path and file_path.parent, key)
            )
        elif key == "users":
            values[key] = _users_from_mapping(value or {})
        else:
            values[key] = _CONVERTERS[key](key, value)
    values.update(_from_env(env))
    if env.get("OTPA_USERS"):
        values["users"] = {**values.get("users", {}), **parse_users_env(env["OTPA_USERS"])}
    return ServiceConfig(**values)
