"""The old name of :mod:`otpa.util.heap`, while the two street-search kernels still import it.

``otpa/street/_search_kernel.py`` and ``otpa/routing/_street_search.py`` switch to
``from otpa.util.heap import heap_pop, heap_push``; then this module goes (and the
exception for them in ``tests/test_architecture.py``).
"""

from __future__ import annotations

from otpa.util.heap import heap_pop, heap_push

__all__ = ["heap_pop", "heap_push"]
