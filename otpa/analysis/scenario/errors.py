"""The error a scenario raises when it cannot be read or applied."""

from __future__ import annotations

from collections.abc import Iterable

from otpa.errors import OtpaError

__all__ = ["ScenarioError"]


class ScenarioError(ValueError, OtpaError):
    """A scenario is malformed or does not fit the network it is applied to.

    Attributes
    ----------
    problems
        Every problem found, one sentence each (a scenario is checked as a
        whole, so all problems are reported together, not only the first).
    """

    def __init__(self, message: str, problems: Iterable[str] = ()) -> None:
        self.problems: tuple[str, ...] = tuple(problems)
        text = message
        if self.problems:
            text += ":\n" + "\n".join(f"- {p}" for p in self.problems)
        super().__init__(text)
