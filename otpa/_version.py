"""The otpa version (one place; read by packaging and saved graphs)."""

__version__ = "0.1.0"
