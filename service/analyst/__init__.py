"""The analyst API's service-side pieces: limits, query parsing, surface and point-set stores.

The HTTP handlers live in ``service/handlers/analyst*.py``; everything they compute comes
from the public :mod:`otpa.analysis` API.

=====================  =============================================================
Module                 Role
=====================  =============================================================
``limits.py``          :class:`AnalystLimits`: the cost bounds of every request
``params.py``          typed query parameters (400 naming the parameter) and the plan
                       query -> :class:`~otpa.analysis.AnalysisRequest` mapping
``surfaces.py``        :class:`SurfaceStore`: time surfaces by id, bounded LRU
``pointsets.py``       :class:`PointSetRegistry`: point sets from a folder and uploads
``models.py``          OTP 1.x's JSON shapes (TimeSurfaceShort, indicator, point sets)
``state.py``           :class:`AnalystState`: what the handlers share
=====================  =============================================================
"""
