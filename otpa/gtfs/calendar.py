"""Which services run on which dates: calendar.txt + calendar_dates.txt resolved to a matrix."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from otpa.errors import UnknownIdError
from otpa.types import BoolArray, IntArray

__all__ = ["ServiceCalendar", "yyyymmdd_to_days"]

_EPOCH = dt.date(1970, 1, 1)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def yyyymmdd_to_days(values: np.ndarray) -> IntArray:
    """Convert YYYYMMDD integers to days since 1970-01-01 (vectorised, no validation)."""
    v = np.asarray(values, dtype=np.int64)
    y, md = np.divmod(v, 10000)
    m, d = np.divmod(md, 100)
    months = (y - 1970) * 12 + (m - 1)
    first = months.astype("datetime64[M]").astype("datetime64[D]").astype(np.int64)
    return np.asarray(first + d - 1, dtype=np.int64)


def _to_date(day: dt.date | int) -> dt.date:
    if isinstance(day, dt.datetime):
        return day.date()
    if isinstance(day, dt.date):
        return day
    y, md = divmod(int(day), 10000)
    m, d = divmod(md, 100)
    return dt.date(y, m, d)


@dataclass(frozen=True, eq=False)
class ServiceCalendar:
    """Service activity per date.

    Attributes
    ----------
    service_ids
        Every service id of calendar.txt then calendar_dates.txt (row order of ``active``).
    first_date
        Date of column 0 of ``active``.
    active
        Boolean matrix (n_services, n_days): service ``i`` runs on ``first_date + j`` days.
        Weekday pattern within [start_date, end_date], then calendar_dates exceptions
        (1 adds the date, 2 removes it).
    """

    service_ids: list[str]
    first_date: dt.date
    active: BoolArray
    _index: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {s: i for i, s in enumerate(self.service_ids)})

    @classmethod
    def from_tables(cls, calendar: pd.DataFrame, calendar_dates: pd.DataFrame) -> ServiceCalendar:
        """Build from cleaned calendar / calendar_dates frames (dates as int YYYYMMDD)."""
        ids = pd.unique(
            pd.concat([calendar["service_id"], calendar_dates["service_id"]], ignore_index=True)
        )
        service_ids = [str(s) for s in ids]
        index = pd.Index(service_ids)
        start = yyyymmdd_to_days(calendar["start_date"].to_numpy())
        end = yyyymmdd_to_days(calendar["end_date"].to_numpy())
        dates = yyyymmdd_to_days(calendar_dates["date"].to_numpy())
        lows = [a.min() for a in (start, dates) if a.size]
        highs = [a.max() for a in (end, dates) if a.size]
        if not lows:
            return cls(service_ids, _EPOCH, np.zeros((len(service_ids), 1), dtype=bool))
        first, last = int(min(lows)), int(max(max(highs), min(lows)))
        days = np.arange(first, last + 1, dtype=np.int64)
        active = np.zeros((len(service_ids), days.size), dtype=bool)
        if len(calendar):
            weekday = (days + 3) % 7  # 1970-01-01 was a Thursday; Monday = 0
            flags = calendar[list(_WEEKDAYS)].to_numpy(dtype=bool)
            within = (days >= start[:, None]) & (days <= end[:, None])
            rows = index.get_indexer(calendar["service_id"])
            active[rows] = within & flags[:, weekday]
        if len(calendar_dates):
            rows = index.get_indexer(calendar_dates["service_id"])
            cols = dates - first
            add = calendar_dates["exception_type"].to_numpy() == 1
            active[rows[add], cols[add]] = True
            active[rows[~add], cols[~add]] = False
        return cls(service_ids, _EPOCH + dt.timedelta(days=first), active)

    @property
    def n_days(self) -> int:
        """Number of date columns of :attr:`active`."""
        return int(self.active.shape[1])

    @property
    def last_date(self) -> dt.date:
        """Date of the last column of :attr:`active`."""
        return self.first_date + dt.timedelta(days=self.n_days - 1)

    @property
    def date_range(self) -> tuple[dt.date, dt.date]:
        """First and last date covered (inclusive)."""
        return self.first_date, self.last_date

    def _column(self, day: dt.date | int) -> int | None:
        col = (_to_date(day) - self.first_date).days
        return col if 0 <= col < self.n_days else None

    def active_on(self, day: dt.date | int) -> BoolArray:
        """Per service (order of :attr:`service_ids`): whether it runs on ``day``.

        ``day`` is a date or an int YYYYMMDD; outside the range nothing runs.
        """
        col = self._column(day)
        if col is None:
            return np.zeros(len(self.service_ids), dtype=bool)
        return self.active[:, col].copy()

    def services_on(self, day: dt.date | int) -> set[str]:
        """Ids of the services running on ``day``."""
        on = self.active_on(day)
        return {self.service_ids[i] for i in np.flatnonzero(on)}

    def is_active(self, service_id: str, day: dt.date | int) -> bool:
        """Whether ``service_id`` runs on ``day``.

        Raises
        ------
        UnknownIdError
            If the service id is in neither calendar file.
        """
        row = self._index.get(service_id)
        if row is None:
            msg = f"unknown service_id {service_id!r}"
            raise UnknownIdError(msg)
        col = self._column(day)
        return col is not None and bool(self.active[row, col])
