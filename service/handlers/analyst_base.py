"""What the analyst handlers share: state, query access, off-loop computing, error mapping.

Analysis runs in worker threads (:meth:`AnalystHandler.compute`); library errors that
mean a client mistake become JSON 400s there: an origin away from the network
(``fromPlace``), a request needing too many cells or points (naming the parameter that
sets its size), an unreadable point set.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from otpa.analysis import PointSetError
from otpa.analysis.otp1.extent import TooManyTargetsError
from otpa.analysis.otp1.tiles import check_tile
from otpa.errors import InvalidArgumentError
from otpa.network import TransportNetwork
from otpa.routing.errors import OutsideBoundsError, SearchTimeoutError
from service.analyst.limits import AnalystLimits
from service.analyst.params import AnalysisQuery, Query, analysis_query
from service.analyst.state import AnalystState
from service.handlers.base import BaseHandler, RequestTimeLimitError, ServiceContext
from service.memory import MemoryReleaser
from service.openapi import Operation, Param
from service.otp1.errors import ApiError

__all__ = ["AnalystHandler", "int_query", "library_errors", "tile_path"]

T = TypeVar("T")

#: Cache-Control of answers that depend only on their URL (OTP's isochrones and tiles).
CACHE_AN_HOUR = "max-age=3600"


def int_query(name: str, default: int | None, lo: int, hi: int, description: str = "") -> Param:
    """The OpenAPI description of an integer query parameter read by ``int_param``."""
    schema: dict[str, Any] = {"type": "integer", "minimum": lo, "maximum": hi}
    if default is not None:
        schema["default"] = default
    return Param(name, schema, description)


def library_errors(exc: Exception, size_parameter: str) -> ApiError | None:
    """The 400 answer for a library error caused by the request, or None (a server error).

    Parameters
    ----------
    exc
        The exception.
    size_parameter
        The query parameter(s) that set the request's size, named in over-limit answers.
    """
    if isinstance(exc, OutsideBoundsError):
        return ApiError(400, f"fromPlace: {exc}.")
    if isinstance(exc, TooManyTargetsError):
        return ApiError(400, f"Request too large ({size_parameter}): {exc}.")
    if isinstance(exc, PointSetError):
        return ApiError(400, f"Invalid point set: {exc}.")
    return None


def tile_path(
    z_text: str, x_text: str, y_text: str, zooms: tuple[int, int]
) -> tuple[int, int, int]:
    """The ``z/x/y`` of a tile URL, checked: 400 for zooms out of ``zooms`` or missing tiles."""
    z, x, y = int(z_text), int(x_text), int(y_text)
    lo, hi = zooms
    if not lo <= z <= hi:
        raise ApiError(400, f"Tile zoom z={z} is out of range [{lo}, {hi}].")
    try:
        check_tile(z, x, y)
    except InvalidArgumentError as exc:
        raise ApiError(400, f"Tile {z}/{x}/{y}: {exc}.") from None
    return z, x, y


class AnalystHandler(BaseHandler):
    """Base of the analyst handlers: the context plus the analyst state.

    URL table arguments: ``ctx`` and ``analyst`` (:class:`AnalystState`).
    """

    analyst: AnalystState
    work_pool = "analysis"

    @classmethod
    def openapi_for(cls, kwargs: Mapping[str, Any]) -> dict[str, Operation]:
        """The OpenAPI description under the bounds of the URL rule's analyst state."""
        state = kwargs.get("analyst")
        limits = state.limits if isinstance(state, AnalystState) else AnalystLimits()
        return cls.openapi_doc(limits)

    @staticmethod
    def openapi_doc(lim: AnalystLimits) -> dict[str, Operation]:
        """Method -> :class:`~service.openapi.Operation`, under the bounds ``lim``."""
        return {}

    def initialize(self, ctx: ServiceContext, analyst: AnalystState) -> None:  # type: ignore[override]
        """Receive the service context and the analyst state."""
        super().initialize(ctx)
        self.analyst = analyst

    @property
    def limits(self) -> AnalystLimits:
        """The cost bounds."""
        return self.analyst.limits

    @property
    def query(self) -> Query:
        """The query parameters, decoded, every value of each."""
        cached: Query | None = getattr(self, "_query", None)
        if cached is None:
            cached = {
                name: [self.decode_argument(v, name) for v in values]
                for name, values in self.request.query_arguments.items()
            }
            self._query = cached
        return cached

    def params_summary(self) -> dict[str, str]:
        """The first value of each query parameter (OTP's TimeSurface ``params``)."""
        return {name: values[0] for name, values in self.query.items() if values}

    def read_analysis(
        self,
        network: TransportNetwork,
        *,
        max_time_s: int,
        window_s: int = 0,
        step_s: int = 60,
    ) -> AnalysisQuery:
        """Read the plan parameters of the query into an analysis request and an origin.

        A ``searchTimeout`` (milliseconds) becomes the analysis's own time limit when it
        is shorter than the server's (:meth:`time_left_s`).
        """
        try:
            aq = analysis_query(
                self.query, network, max_time_s=max_time_s, window_s=window_s, step_s=step_s
            )
        except OutsideBoundsError as exc:
            self.check_exposed(exc, "")
            raise
        timeout_ms = aq.plan.itineraries.search_timeout_ms
        if timeout_ms is not None:
            self._search_timeout_s: float | None = timeout_ms / 1000.0
        return aq

    def _own_limit_s(self) -> float | None:
        """The request's ``searchTimeout`` in seconds, when shorter than the server's limit."""
        own: float | None = getattr(self, "_search_timeout_s", None)
        if own is None or own >= self.ctx.config.request_time_limit_s:
            return None
        return own

    def time_left_s(self) -> float:
        """Seconds left of the server's limit, or of the request's ``searchTimeout``."""
        left = super().time_left_s()
        own = self._own_limit_s()
        if own is not None:
            left = min(left, max(own - self.request.request_time(), 0.0))
        return left

    def _time_limit_error(self, detail: str = "") -> ApiError:
        """The 504 of an analysis stopped at its time limit (the server's or ``searchTimeout``)."""
        own = self._own_limit_s()
        if own is not None:
            limit = f"its time limit of {own:g} s (searchTimeout)"
        else:
            limit = f"the server's limit of {self.ctx.config.request_time_limit_s:g} s"
        return ApiError(504, f"The analysis took longer than {limit} and was stopped{detail}.")

    def check_exposed(self, exc: Exception, size_parameter: str) -> None:
        """Raise the client error a library exception stands for, if it stands for one."""
        mapped = library_errors(exc, size_parameter)
        if mapped is not None:
            raise mapped from None

    async def compute(
        self, fn: Callable[..., T], *args: Any, size_parameter: str = "", **kwargs: Any
    ) -> T:
        """Run analysis in a worker thread; client-caused library errors become 400s.

        An analysis that reaches the request's time limit stops itself between its steps
        (origins, contours, columns: :mod:`otpa.routing.deadline`), frees its thread and
        is answered 504 (so is one that cannot stop in time).
        """
        try:
            return await self.run_blocking(fn, *args, **kwargs)
        except (OutsideBoundsError, TooManyTargetsError, PointSetError) as exc:
            self.check_exposed(exc, size_parameter)
            raise
        except SearchTimeoutError as exc:
            step = str(exc).removeprefix("the search ran out of time")
            raise self._time_limit_error(f" ({step.strip()})" if step else "") from None
        except RequestTimeLimitError:
            raise self._time_limit_error() from None
        finally:  # an analysis frees large arrays: hand the memory back (service.memory)
            memory = self.application.settings.get("otpa_memory")
            if isinstance(memory, MemoryReleaser):
                memory.release_soon()

    def write_bytes(
        self, data: bytes, content_type: str, *, cache_control: str | None = CACHE_AN_HOUR
    ) -> None:
        """Finish with a binary body (an image, a GeoTIFF, a zip)."""
        self.set_header("Content-Type", content_type)
        if cache_control is not None:
            self.set_header("Cache-Control", cache_control)
        self.finish(data)
