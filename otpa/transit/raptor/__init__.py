"""RAPTOR transit routing over plain arrays (sealed: imports no other otpa domain).

Entry points live in :mod:`otpa.transit.raptor.api` (request, journeys, searches) and
:mod:`otpa.transit.raptor.spi` (the timetable and transfer rules RAPTOR consumes); see
``README.md`` next to this file.  The kernels release the GIL, so searches can run in
parallel threads.
"""
