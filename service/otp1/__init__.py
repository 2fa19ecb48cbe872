"""OTP 1.x wire formats: response mapping (JSON and XML) and the error table.

Modules here turn library objects into the exact dictionaries OpenTripPlanner 1.x
clients expect, and serialize them.  They hold no HTTP state.
"""

from __future__ import annotations
