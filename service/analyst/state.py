"""What the analyst handlers share: limits, the surface store and the point-set registry."""

from __future__ import annotations

from dataclasses import dataclass

from service.analyst.limits import AnalystLimits
from service.analyst.pointsets import PointSetRegistry
from service.analyst.surfaces import SurfaceStore
from service.config import ServiceConfig

__all__ = ["AnalystState"]


@dataclass(frozen=True, eq=False)
class AnalystState:
    """The analyst API's state, one per application (handed to handlers by the URL table).

    Attributes
    ----------
    limits
        The cost bounds.
    surfaces
        Stored time surfaces.
    pointsets
        Point sets from the configured folder and uploads.
    """

    limits: AnalystLimits
    surfaces: SurfaceStore
    pointsets: PointSetRegistry

    @classmethod
    def from_config(cls, config: ServiceConfig) -> AnalystState:
        """Fresh state for a service configuration."""
        limits = AnalystLimits.from_config(config)
        return cls(
            limits=limits,
            surfaces=SurfaceStore(limits.max_surfaces),
            pointsets=PointSetRegistry(
                config.pointsets_dir, max_uploads=limits.max_uploaded_pointsets
            ),
        )
