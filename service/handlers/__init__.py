"""Tornado request handlers, one module per resource family."""

from __future__ import annotations
