"""The one place ``otpa.viz`` imports ipyleaflet: a clear message when the extra is missing."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["leaflet"]


def leaflet() -> ModuleType:
    """Return the ``ipyleaflet`` module, or explain which extra installs it.

    Raises
    ------
    ImportError
        When ipyleaflet is not installed (``pip install "otpa[notebook]"``).
    """
    try:
        return importlib.import_module("ipyleaflet")
    except ModuleNotFoundError as exc:
        if exc.name != "ipyleaflet":
            raise
        msg = (
            "otpa.viz draws maps with ipyleaflet, which is not installed: "
            'install the notebook extra, pip install "otpa[notebook]"'
        )
        raise ImportError(msg) from None
