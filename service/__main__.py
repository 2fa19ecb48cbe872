"""``python -m service``: run the OTP 1.x compatible HTTP service."""

from __future__ import annotations

from service.server import main

raise SystemExit(main())
