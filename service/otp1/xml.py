"""A small, generic dict → XML serializer shaped like OTP 1.x's JAXB output, and Accept negotiation.

JAXB rules reproduced here:

* the document has one root element named after the class (``ServerInfo``,
  ``RouterInfo``, ``RouterList``, ``Response``...);
* every mapping entry becomes a child element named after the key;
* a list is written as *repeated* elements named after the key (no wrapper):
  ``{"transitModes": ["BUS", "RAIL"]}`` → ``<transitModes>BUS</transitModes>
  <transitModes>RAIL</transitModes>``; a list nested directly in a list (which
  JAXB cannot express) becomes one element whose items are ``<item>`` elements;
* ``None`` values are omitted; booleans are ``true``/``false``.

OTP resources offered XML at a lower quality (``qs=0.5``) than JSON, so a
client gets XML only when its ``Accept`` header prefers it that strongly:
:func:`prefers_xml` makes that choice.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any
from xml.sax.saxutils import escape

from otpa.errors import InvalidArgumentError

__all__ = ["XML_MEDIA_TYPES", "prefers_xml", "to_xml", "xml_media_type"]

XML_MEDIA_TYPES = ("application/xml", "text/xml")
_XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
# Characters XML 1.0 cannot carry at all, even escaped.
_INVALID_XML_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_XML_QUALITY = 0.5  # OTP's @Produces(... + ";qs=0.5") for XML


def to_xml(root: str, value: Mapping[str, Any]) -> bytes:
    """Serialize a mapping to an XML document with the given root element.

    Parameters
    ----------
    root
        Name of the root element, e.g. ``"RouterInfo"``.
    value
        The mapping whose entries become the root's children.

    Returns
    -------
    bytes
        A UTF-8 encoded document with an XML declaration.

    Raises
    ------
    ValueError
        If a key is not a valid XML element name.

    Examples
    --------
    >>> to_xml("RouterInfo", {"routerId": "a", "transitModes": ["BUS", "RAIL"], "x": None})[55:]
    b'<RouterInfo><routerId>a</routerId><transitModes>BUS</transitModes><transitModes>RAIL</transitModes></RouterInfo>'
    """
    parts: list[str] = [_XML_DECLARATION]
    _write_element(parts, root, value)
    return "".join(parts).encode("utf-8")


def _check_name(name: str) -> str:
    if not _NAME_RE.fullmatch(name) or name.lower().startswith("xml"):
        msg = f"{name!r} is not a valid XML element name"
        raise InvalidArgumentError(msg)
    return name


def _scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    return _INVALID_XML_CHARS.sub("", escape(str(value)))


def _write_element(parts: list[str], name: str, value: Any) -> None:
    if value is None:
        return
    if isinstance(value, list | tuple):
        for item in value:
            if isinstance(item, list | tuple):
                _write_element(parts, name, {"item": list(item)})
            else:
                _write_element(parts, name, item)
        return
    tag = _check_name(name)
    if isinstance(value, Mapping):
        parts.append(f"<{tag}>")
        for key, item in value.items():
            _write_element(parts, str(key), item)
        parts.append(f"</{tag}>")
        return
    parts.append(f"<{tag}>{_scalar_text(value)}</{tag}>")


def _parse_accept(header: str) -> list[tuple[str, str, float]]:
    ranges: list[tuple[str, str, float]] = []
    for raw in header.split(","):
        fields = [f.strip() for f in raw.split(";")]
        media = fields[0].lower()
        if "/" not in media:
            continue
        main, _, sub = media.partition("/")
        quality = 1.0
        for param in fields[1:]:
            key, _, val = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = max(0.0, min(1.0, float(val)))
                except ValueError:
                    quality = 0.0
        ranges.append((main.strip(), sub.strip(), quality))
    return ranges


def _quality_for(ranges: list[tuple[str, str, float]], media_type: str) -> float:
    main, _, sub = media_type.partition("/")
    best_specificity, best_q = -1, 0.0
    for r_main, r_sub, q in ranges:
        if r_main == main and r_sub == sub:
            specificity = 2
        elif r_main == main and r_sub == "*":
            specificity = 1
        elif r_main == "*" and r_sub == "*":
            specificity = 0
        else:
            continue
        if specificity > best_specificity:
            best_specificity, best_q = specificity, q
    return best_q


def prefers_xml(accept: str | None) -> bool:
    """Tell whether a request's ``Accept`` header makes OTP 1.x answer in XML.

    JSON is served at quality 1 and XML at 0.5, as OTP's ``qs`` parameters did;
    each is weighted by the client's own ``q`` for it (the most specific matching
    range wins).  XML is chosen only when it scores strictly higher, so a client
    gets XML when it accepts only ``application/xml`` or ``text/xml``, and JSON
    when the header is missing, ``*/*``, or lists JSON at all comparably.

    Parameters
    ----------
    accept
        The raw ``Accept`` header value, or None.

    Returns
    -------
    bool
        True to answer in XML.

    Examples
    --------
    >>> prefers_xml("application/xml"), prefers_xml("*/*"), prefers_xml(None)
    (True, False, False)
    >>> prefers_xml("text/xml, application/json;q=0.4")
    True
    """
    if not accept:
        return False
    ranges = _parse_accept(accept)
    json_score = _quality_for(ranges, "application/json")
    xml_score = _XML_QUALITY * max(_quality_for(ranges, t) for t in XML_MEDIA_TYPES)
    return xml_score > json_score


def xml_media_type(accept: str | None) -> str:
    """The XML media type to answer with: ``text/xml`` when the client prefers it.

    JAX-RS answered with the negotiated type, so a client that asks for
    ``text/xml`` gets ``text/xml``; otherwise ``application/xml``.

    Examples
    --------
    >>> xml_media_type("text/xml"), xml_media_type("application/xml, text/xml;q=0.9")
    ('text/xml', 'application/xml')
    """
    ranges = _parse_accept(accept or "")
    text, application = (_quality_for(ranges, t) for t in ("text/xml", "application/xml"))
    return "text/xml" if text > application else "application/xml"
