"""Validation report of a GTFS feed: the questionable and unusable rows found while reading."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

import numpy as np
import numpy.typing as npt

__all__ = ["Severity", "ValidationIssue", "ValidationReport"]

Severity: TypeAlias = Literal["error", "warning"]

#: At most this many issues are recorded one by one for the same kind of problem in the same
#: file; the rest are folded into one summary issue (keeps reports of very bad feeds small).
MAX_ROW_ISSUES = 50


@dataclass(frozen=True, slots=True)
class ValidationIssue:
    """One problem found in a feed.

    Attributes
    ----------
    severity
        ``"error"``: the row (or the trip it belongs to) was dropped because it cannot be used;
        ``"warning"``: questionable input that was kept, repaired or dropped as harmless.
    file
        The GTFS file name, e.g. ``"stop_times.txt"``.
    line
        1-based line number in that file (the header is line 1), or ``None`` when the issue
        concerns the whole file or many rows.
    field
        The column concerned, if any.
    message
        Human readable description, naming the file and line where there is one.
    """

    severity: Severity
    file: str
    line: int | None
    field: str | None
    message: str

    def __str__(self) -> str:
        return f"{self.severity}: {self.message}"


@dataclass
class ValidationReport:
    """All issues found while reading one feed, in the order they were found."""

    issues: list[ValidationIssue] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.issues)

    def __iter__(self) -> Iterator[ValidationIssue]:
        return iter(self.issues)

    @property
    def errors(self) -> list[ValidationIssue]:
        """The issues of severity ``"error"``."""
        return [i for i in self.issues if i.severity == "error"]

    @property
    def warnings(self) -> list[ValidationIssue]:
        """The issues of severity ``"warning"``."""
        return [i for i in self.issues if i.severity == "warning"]

    @property
    def ok(self) -> bool:
        """Whether no error was found (warnings are allowed)."""
        return not any(i.severity == "error" for i in self.issues)

    def summary(self, max_lines: int = 20) -> str:
        """Return a short multi-line text: counts per file and severity, then the first issues.

        Parameters
        ----------
        max_lines
            How many individual issues to list at most.
        """
        if not self.issues:
            return "GTFS validation: no issues"
        counts = Counter((i.file, i.severity) for i in self.issues)
        n_err = len(self.errors)
        head = f"GTFS validation: {n_err} error(s), {len(self.issues) - n_err} warning(s)"
        lines = [head]
        lines.extend(f"  {file}: {n} {sev}(s)" for (file, sev), n in sorted(counts.items()))
        lines.extend(f"  - {issue}" for issue in self.issues[:max_lines])
        if len(self.issues) > max_lines:
            lines.append(f"  ... and {len(self.issues) - max_lines} more")
        return "\n".join(lines)

    # -- recording (used by the reader) -------------------------------------------------------

    def add(
        self,
        severity: Severity,
        file: str,
        message: str,
        *,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        """Record one issue; ``message`` gets the ``file`` (and line) prefix added here."""
        where = file if line is None else f"{file} line {line}"
        self.issues.append(ValidationIssue(severity, file, line, field, f"{where}: {message}"))

    def add_rows(
        self,
        severity: Severity,
        file: str,
        lines: npt.ArrayLike,
        message: str,
        *,
        field: str | None = None,
        values: Sequence[object] | npt.ArrayLike | None = None,
    ) -> None:
        """Record the same problem on many rows (one issue per row, summarised past a cap).

        Parameters
        ----------
        severity
            Severity of every issue.
        file
            File name.
        lines
            1-based line numbers of the rows concerned.
        message
            Message; ``{value}`` in it is replaced by the matching entry of ``values``.
        field
            Column concerned.
        values
            Per-row values to put in the message.
        """
        line_arr = np.asarray(lines, dtype=np.int64).ravel()
        n = line_arr.size
        if n == 0:
            return
        vals = None if values is None else list(np.asarray(values, dtype=object)[:MAX_ROW_ISSUES])
        for k in range(min(n, MAX_ROW_ISSUES)):
            text = message if vals is None else message.replace("{value}", str(vals[k]))
            self.add(severity, file, text, line=int(line_arr[k]), field=field)
        if n > MAX_ROW_ISSUES:
            generic = message.replace(" '{value}'", "").replace("{value}", "…")
            rest = n - MAX_ROW_ISSUES
            self.add(severity, file, f"{rest} more rows like this: {generic}", field=field)
