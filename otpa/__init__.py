"""otpa: a Python-first multimodal trip planner and transit accessibility platform.

The public API is the names in ``__all__``; everything else is internal.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
