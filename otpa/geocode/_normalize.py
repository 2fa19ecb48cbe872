"""Text folding shared by the index and the queries: accents, case and punctuation ignored."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["fold", "tokens"]

_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)


def fold(text: str) -> str:
    """Fold a name for matching: no accents, no case, words separated by one space.

    Examples
    --------
    >>> fold("  Praça  XV de Novembro!")
    'praca xv de novembro'
    >>> fold("Hauptstraße")
    'hauptstrasse'
    """
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return _NON_WORD.sub(" ", stripped).strip()


def tokens(text: str) -> list[str]:
    """The words of a folded text.

    Examples
    --------
    >>> tokens("MA Hauptbahnhof")
    ['ma', 'hauptbahnhof']
    """
    return fold(text).split()
