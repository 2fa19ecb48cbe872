"""OpenTripPlanner 1.x analyst and profile emulation, for the service's OTP 1.x endpoints.

The research API is :mod:`otpa.analysis` (surfaces, matrices, accessibility,
isochrones, scenarios); this subpackage holds what OTP 1.x clients need on top of
it, in OTP 1.x's shapes and encodings:

- :mod:`~otpa.analysis.otp1.extent` -- the grid an origin can reach in time;
- :mod:`~otpa.analysis.otp1.offroad` -- off-road distance of grid cells;
- :mod:`~otpa.analysis.otp1.street_shed` -- ``isochroneOld`` street sheds;
- :mod:`~otpa.analysis.otp1.circle_isochrones` -- ``simpleIsochrone`` circle unions;
- :mod:`~otpa.analysis.otp1.timegrid` -- the ``/timegrid`` RGBA PNG;
- :mod:`~otpa.analysis.otp1.render`, :mod:`~otpa.analysis.otp1.tiles` -- analyst tiles
  and legends;
- :mod:`~otpa.analysis.otp1.raster` -- GeoTIFF exports (OTP's one-byte minutes, or
  float32 seconds);
- :mod:`~otpa.analysis.otp1.profile` -- profile routing (``/profile``) and the
  ``/rrtr`` check.

The research API never imports this subpackage (an import-linter contract).
"""
