"""Pure helpers (geometry, polylines, time parsing). Imports nothing else from otpa."""
