"""The OpenAPI 3.1 document of the service, generated from the running application.

:func:`openapi_document` walks the application's URL table
(``app.wildcard_router.rules``, built by :func:`service.app.make_app`): each
URL regex becomes a path template (``/otp/routers/([^/]+)/plan/?`` ->
``/otp/routers/{routerId}/plan``), each method a handler class implements
becomes an operation.  What a handler says about itself comes from its
``openapi`` class attribute (method -> :class:`Operation`), or from an
``openapi_for(url_kwargs)`` class method when one class serves several paths
(the transit index); a handler without one is documented from its docstring,
with its path parameters and the generic error answers.

``/plan``'s query parameters come from the table that parses them,
:data:`service.otp1.plan_params.PARAMETERS`, with their ranges from
:data:`otpa.routing.preferences.PARAMETER_RANGES`.  Response bodies refer to
the schemas of :mod:`service.openapi_schemas`.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import tornado.web

import otpa
from otpa.errors import InvalidArgumentError
from otpa.routing.preferences import PARAMETER_RANGES, Optimize
from otpa.routing.request import PlanRequest
from service.openapi_schemas import SCHEMAS, ref
from service.otp1.plan_params import PARAMETERS, PlanParam

__all__ = [
    "Operation",
    "Param",
    "implemented_methods",
    "library_default",
    "openapi_document",
    "path_template",
    "plan_parameter_schema",
]

_METHODS = ("get", "head", "post", "put", "delete", "patch")
_GROUP = re.compile(r"\((?!\?)((?:[^()\\]|\\.)*)\)")
#: Names of path groups, by the literal path segment before a run of groups and the
#: run's length (``agencies/{feedId}/{agencyId}``, ``tile/{z}/{x}/{y}.png``).
_GROUP_NAMES: Mapping[tuple[str, int], tuple[str, ...]] = {
    ("routers", 1): ("routerId",),
    ("feeds", 1): ("feedId",),
    ("agencies", 1): ("feedId",),
    ("agencies", 2): ("feedId", "agencyId"),
    ("routes", 1): ("routeId",),
    ("patterns", 1): ("patternId",),
    ("trips", 1): ("tripId",),
    ("stops", 1): ("stopId",),
    ("stoptimes", 1): ("date",),
    ("clusters", 1): ("clusterId",),
    ("flexAreas", 1): ("flexAreaId",),
    ("services", 1): ("serviceId",),
    ("surfaces", 1): ("surfaceId",),
    ("pointsets", 1): ("pointSetId",),
    ("scenarios", 1): ("scenarioId",),
    ("tile", 3): ("z", "x", "y"),
    ("isotiles", 3): ("z", "x", "y"),
    ("differencetiles", 4): ("otherSurfaceId", "z", "x", "y"),
    ("tile", 5): ("layer", "z", "x", "y", "format"),
    ("legend", 1): ("format",),
    ("updaters", 1): ("updaterId",),
}
_OTP_TYPES: Mapping[str, dict[str, Any]] = {
    "String": {"type": "string"},
    "Boolean": {"type": "boolean"},
    "Integer": {"type": "integer", "format": "int32"},
    "int": {"type": "integer", "format": "int32"},
    "Long": {"type": "integer", "format": "int64"},
    "Double": {"type": "number", "format": "double"},
    "double": {"type": "number", "format": "double"},
    "List<String>": {"type": "array", "items": {"type": "string"}},
    "QualifiedModeSet": {"type": "string", "examples": ["WALK,TRANSIT"]},
    "OptimizeType": {"type": "string", "enum": [o.value for o in Optimize]},
}


#: The schema of an empty query value (``?name=``), read as the parameter left out.
_EMPTY_VALUE: dict[str, Any] = {"type": "string", "maxLength": 0}


@dataclass(frozen=True)
class Param:
    """A query parameter of an operation.

    Attributes
    ----------
    name
        The query parameter.
    schema
        Its JSON Schema (``{"type": "integer", "minimum": 0}``).
    description
        One line for readers.
    required
        Whether a request without it is refused.
    empty_is_absent
        The handler reads an empty value (``?detail=``) as the parameter left out, as
        OTP 1.x's parameter binding did: the document allows it (``allowEmptyValue``,
        the empty string beside the schema), so a client and a fuzzer know it is taken.
    """

    name: str
    schema: Mapping[str, Any]
    description: str = ""
    required: bool = False
    empty_is_absent: bool = False


@dataclass(frozen=True)
class Operation:
    """What the document says about one method of one handler.

    Attributes
    ----------
    summary
        One line.
    query
        The query parameters.
    plan_query
        True when the operation also reads every ``/plan`` query parameter.
    response
        Name of the 200 body's schema in :data:`service.openapi_schemas.SCHEMAS`;
        ``"array:<name>"`` for a list of them (``"array:<a>|<b>"``: of either);
        None for an undescribed body.
    media_type
        The 200 body's media type.
    status
        The success status (GraphQL answers 201, an upload 201...).
    errors
        The 4xx/5xx statuses the operation answers with the JSON error body.
    request_body
        Media types of the request body it takes (POST/PUT uploads).
    other
        Other answers that are not the JSON error body: ``(status, schema name or None)``
        (readiness' 503 is a ``Health`` body).
    xml
        True when ``Accept: application/xml`` gets the same body as XML (OTP 1.x's JAXB).
    text_errors
        Error statuses that may also come as OTP 1.x's plain-text answer (``text/plain``)
        besides the JSON error body.
    body_schema
        Name of the JSON request body's schema in :data:`service.openapi_schemas.SCHEMAS`
        (for the ``application/json`` media type of ``request_body``).
    creates
        The path parameter naming what the operation creates (``"scenarioId"``), whose
        value its success body carries as ``id``: the document links the answer to the
        operations on the created resource (OpenAPI ``links``, :func:`openapi_document`).
    """

    summary: str
    query: tuple[Param, ...] = ()
    plan_query: bool = False
    response: str | None = None
    media_type: str = "application/json"
    status: int = 200
    errors: tuple[int, ...] = (400, 404)
    request_body: tuple[str, ...] = ()
    xml: bool = False
    other: tuple[tuple[int, str | None], ...] = ()
    text_errors: tuple[int, ...] = ()
    body_schema: str | None = None
    creates: str | None = None


def path_template(regex: str, *, strict: bool = True) -> tuple[str, list[tuple[str, str]]]:
    """Return a URL regex as an OpenAPI path template, with its groups' names and regexes.

    Parameters
    ----------
    regex
        A Tornado URL pattern (as in ``URLSpec.regex.pattern``).
    strict
        False: a group the table does not name is called ``param<n>`` instead of
        raising (the served document never fails; the tests are strict).

    Returns
    -------
    tuple of (str, list of (name, group regex))

    Raises
    ------
    ValueError
        A group whose name the table of this module does not know.

    Examples
    --------
    >>> path_template(r"/otp/routers/([^/]+)/index/agencies/([^/]+)/([^/]+)/?$")[0]
    '/otp/routers/{routerId}/index/agencies/{feedId}/{agencyId}'
    >>> path_template(r"/otp/analyst/legend\\.([^/]+)$")
    ('/otp/analyst/legend.{format}', [('format', '[^/]+')])
    """
    text = regex.removesuffix("$").removesuffix("/?") or "/"
    groups: list[tuple[str, str]] = []
    out: list[str] = []
    pos = 0
    matches = list(_GROUP.finditer(text))
    i = 0
    while i < len(matches):
        run = [matches[i]]
        while i + len(run) < len(matches) and _only_separators(
            text[run[-1].end() : matches[i + len(run)].start()]
        ):
            run.append(matches[i + len(run)])
        literal = text[pos : run[0].start()]
        segment = _unescape(literal).rstrip("/").split("/")[-1].rstrip(".")
        names = _GROUP_NAMES.get((segment, len(run)))
        if names is None:
            if strict:
                msg = f"no name for the {len(run)} path group(s) after {segment!r} in {regex!r}"
                raise InvalidArgumentError(msg)
            names = tuple(f"param{len(groups) + k + 1}" for k in range(len(run)))
        out.append(_unescape(literal))
        for k, (match, name) in enumerate(zip(run, names, strict=True)):
            if k:
                out.append(_unescape(text[run[k - 1].end() : match.start()]))
            out.append("{" + name + "}")
            groups.append((name, match.group(1)))
        pos = run[-1].end()
        i += len(run)
    out.append(_unescape(text[pos:]))
    return "".join(out), groups


def _only_separators(text: str) -> bool:
    return text in ("/", "\\.")


def _unescape(text: str) -> str:
    return text.replace("\\.", ".")


def _group_schema(group: str) -> dict[str, Any]:
    if re.fullmatch(r"\\d\{\d+,\d+\}", group):
        return {"type": "integer", "minimum": 0}
    return {"type": "string"}


def library_default(param: PlanParam) -> Any:
    """Return the library's default of a plan parameter's target field, when it is a JSON scalar.

    The default of ``PlanRequest().<target>`` (``walk.speed_mps`` -> 1.33), or None
    when the field has none (``fromPlace``), is not a bool, number or string
    (``mode``, the filter sets) or is not finite.  A router's ``routingDefaults``
    may override it.

    Examples
    --------
    >>> from service.otp1.plan_params import PARAMETERS_BY_NAME
    >>> [library_default(PARAMETERS_BY_NAME[name]) for name in ("walkSpeed", "mode")]
    [1.33, None]
    """
    head, _, rest = param.target.partition(".")
    fields = {f.name: f for f in dataclasses.fields(PlanRequest)}
    if head not in fields:
        return None
    f = fields[head]
    if f.default is not dataclasses.MISSING:
        value: Any = f.default
    elif f.default_factory is not dataclasses.MISSING:
        value = f.default_factory()
    else:
        return None
    for part in rest.split(".") if rest else ():
        value = getattr(value, part, None)
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int | float) and math.isfinite(value):
        return value
    return None


def _fits(schema: Mapping[str, Any], value: Any) -> bool:
    kind = schema["type"]
    if kind == "boolean" or kind == "string":
        return isinstance(value, bool if kind == "boolean" else str) and (
            "enum" not in schema or value in schema["enum"]
        )
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if kind == "integer" and not float(value).is_integer():
        return False
    low = schema.get("minimum", schema.get("exclusiveMinimum", -math.inf))
    high = schema.get("maximum", math.inf)
    return low <= value <= high and value != schema.get("exclusiveMinimum")


def plan_parameter_schema(param: PlanParam) -> dict[str, Any]:
    """Return the JSON Schema of one ``/plan`` query parameter.

    The type follows the parameter's OTP type; ``minimum``/``maximum`` (or
    ``exclusiveMinimum``) come from :data:`otpa.routing.preferences.PARAMETER_RANGES`;
    ``default`` is the table's, else the library's (:func:`library_default`).

    Examples
    --------
    >>> from service.otp1.plan_params import PARAMETERS_BY_NAME
    >>> plan_parameter_schema(PARAMETERS_BY_NAME["numItineraries"])
    {'type': 'integer', 'format': 'int32', 'minimum': 1, 'maximum': 20, 'default': 3}
    """
    schema = dict(_OTP_TYPES.get(param.otp_type, {"type": "string"}))
    if param.name in PARAMETER_RANGES:
        lo, hi, lo_excluded = PARAMETER_RANGES[param.name]
        if schema["type"] == "string":  # a percentage such as 50%: the range is in words
            pass
        else:
            cast = int if schema["type"] == "integer" else float
            schema["exclusiveMinimum" if lo_excluded else "minimum"] = cast(lo)
            if math.isfinite(hi):
                schema["maximum"] = cast(hi)
    default = param.default if param.default is not None else library_default(param)
    if default is not None and _fits(schema, default):
        if schema["type"] == "integer":
            default = int(default)
        schema["default"] = default
    return schema


def _plan_parameters() -> list[dict[str, Any]]:
    out = []
    for param in PARAMETERS:
        if not param.query:
            continue
        entry: dict[str, Any] = {
            "name": param.name,
            "in": "query",
            "description": f"OTP 1.x {param.otp_type}",
            "schema": plan_parameter_schema(param),
        }
        if param.name in PARAMETER_RANGES and entry["schema"]["type"] == "string":
            lo, hi, _ = PARAMETER_RANGES[param.name]
            entry["description"] += f"; from {lo:g} to {hi:g}"
        if param.otp_type == "List<String>":
            entry["style"], entry["explode"] = "form", True
        out.append(entry)
    return out


def _first_line(text: str | None) -> str:
    return (text or "").strip().split("\n")[0].strip()


def _response_content(op: Operation) -> dict[str, Any]:
    if op.response is None:
        return {op.media_type: {}, **({"application/xml": {}} if op.xml else {})}
    if op.response.startswith("array:"):
        names = op.response[6:].split("|")
        items = ref(names[0]) if len(names) == 1 else {"anyOf": [ref(n) for n in names]}
        schema: dict[str, Any] = {"type": "array", "items": items}
    else:
        schema = ref(op.response)
    content: dict[str, Any] = {op.media_type: {"schema": schema}}
    if op.xml:
        content["application/xml"] = {}
    return content


def _operation(
    handler: type[tornado.web.RequestHandler],
    method: str,
    op: Operation | None,
    groups: Sequence[tuple[str, str]],
    operation_id: str,
) -> dict[str, Any]:
    if op is None:
        doc = getattr(handler, method).__doc__ or handler.__doc__
        op = Operation(summary=_first_line(doc) or handler.__name__)
    params: list[dict[str, Any]] = [
        {"name": name, "in": "path", "required": True, "schema": _group_schema(group)}
        for name, group in groups
    ]
    if op.plan_query:
        params.extend(
            {"$ref": f"#/components/parameters/plan.{p.name}"} for p in PARAMETERS if p.query
        )
    for q in op.query:
        entry: dict[str, Any] = {"name": q.name, "in": "query", "schema": dict(q.schema)}
        if q.empty_is_absent:
            entry["allowEmptyValue"] = True
            entry["schema"] = {"anyOf": [dict(q.schema), _EMPTY_VALUE]}
        if q.description:
            entry["description"] = q.description
        if q.required:
            entry["required"] = True
        params.append(entry)
    ok = str(op.status)
    responses: dict[str, Any] = {ok: {"description": _STATUS_TEXT.get(op.status, "OK")}}
    if method != "head":
        responses[ok]["content"] = _response_content(op)
    for status, schema in op.other:
        body = Operation(op.summary, response=schema)
        text = _STATUS_TEXT.get(status, "Other answer")
        responses[str(status)] = {"description": text, "content": _response_content(body)}
    for status in sorted({*op.errors, 500}):
        responses.setdefault(str(status), {"$ref": f"#/components/responses/E{status}"})
    for status in op.text_errors:
        responses[str(status)] = {
            "description": _STATUS_TEXT.get(status, "Error"),
            "content": {"application/json": {"schema": ref("Error")}, "text/plain": {}},
        }
    out: dict[str, Any] = {
        "operationId": operation_id,
        "summary": op.summary,
        "tags": [_tag(handler)],
        "responses": responses,
    }
    if params:
        out["parameters"] = params
    if op.request_body:
        out["requestBody"] = {
            "required": True,
            "content": {
                media: {"schema": ref(op.body_schema)}
                if op.body_schema is not None and media == "application/json"
                else {}
                for media in op.request_body
            },
        }
    return out


@dataclass(frozen=True)
class _Documented:
    """One documented operation, for the links between them."""

    template: str
    method: str
    operation_id: str
    path_parameters: tuple[str, ...]
    op: Operation | None


def _links(documented: Sequence[_Documented]) -> dict[tuple[str, str], dict[str, Any]]:
    """OpenAPI links from each creating operation to the operations on what it creates.

    An operation that declares ``creates="scenarioId"`` (its success body's ``id`` names
    the new resource) links to every operation under its path whose path parameters are
    its own plus ``scenarioId``: ``POST /otp/routers/{routerId}/scenarios`` ->
    ``GET``/``DELETE /otp/routers/{routerId}/scenarios/{scenarioId}``.  Returns
    ``(template, method) -> links``.
    """
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for source in documented:
        created = source.op.creates if source.op is not None else None
        if created is None:
            continue
        known = {*source.path_parameters, created}
        links: dict[str, Any] = {}
        for target in documented:
            params = set(target.path_parameters)
            if (
                created not in params
                or not params <= known
                or not target.template.startswith(source.template.rstrip("/") + "/")
            ):
                continue
            values = {p: f"$request.path.{p}" for p in target.path_parameters if p != created}
            values[created] = "$response.body#/id"
            links[target.operation_id] = {
                "operationId": target.operation_id,
                "parameters": values,
                "description": f"{target.method.upper()} the created resource",
            }
        if links:
            out[(source.template, source.method)] = links
    return out


def _tag(handler: type[Any]) -> str:
    return handler.__module__.rsplit(".", 1)[-1]


def implemented_methods(handler: type[tornado.web.RequestHandler]) -> list[str]:
    """Return the HTTP methods (lower case, no OPTIONS) a handler class implements."""
    base = tornado.web.RequestHandler
    return [m for m in _METHODS if getattr(handler, m) is not getattr(base, m)]


def _operations(handler: type[Any], kwargs: Mapping[str, Any]) -> Mapping[str, Operation]:
    openapi_for = getattr(handler, "openapi_for", None)
    if openapi_for is not None:
        return dict(openapi_for(kwargs))
    return dict(getattr(handler, "openapi", {}))


_STATUS_TEXT = {
    200: "OK",
    201: "Created",
    202: "Accepted",
    204: "No content",
    400: "Bad request: a malformed or out-of-range parameter or body",
    401: "Authentication required",
    403: "Not allowed",
    404: "No such router, id or resource",
    405: "Method not allowed",
    409: "Conflict with the server's state",
    413: "Request body too large",
    415: "Unsupported media type",
    500: "Internal error (the body's requestId names the log entry; never a traceback)",
    502: "The external service failed",
    503: "Not ready",
}


def openapi_document(app: tornado.web.Application, *, strict: bool = True) -> dict[str, Any]:
    """Return the OpenAPI 3.1 document of an application made by :func:`service.app.make_app`.

    Parameters
    ----------
    app
        The application; its URL table is walked.
    strict
        False: an unnamed path group gets a generic name, and a second URL rule
        with the same template is left out (first match wins, as in Tornado),
        instead of raising.

    Returns
    -------
    dict
        The document (JSON-serializable).

    Raises
    ------
    ValueError
        A URL group this module cannot name, or two URLs with one template.
    """
    paths: dict[str, dict[str, Any]] = {}
    statuses: set[int] = {500}
    documented: list[_Documented] = []
    for rule in app.wildcard_router.rules:
        handler = rule.target
        matcher = rule.matcher
        pattern = getattr(getattr(matcher, "regex", None), "pattern", None)
        if not isinstance(handler, type) or pattern is None:
            continue
        template, groups = path_template(pattern, strict=strict)
        if template in paths:
            if not strict:
                continue
            msg = f"two URL rules map to {template}"
            raise InvalidArgumentError(msg)
        ops = _operations(handler, rule.target_kwargs or {})
        item: dict[str, Any] = {}
        for method in implemented_methods(handler):
            op = ops.get(method)
            statuses.update(op.errors if op is not None else (400, 404))
            op_id = f"{method}{re.sub(r'[^A-Za-z0-9]+', '_', template).rstrip('_')}"
            item[method] = _operation(handler, method, op, groups, op_id)
            names = tuple(name for name, _ in groups)
            documented.append(_Documented(template, method, op_id, names, op))
        paths[template] = item
    for (template, method), links in _links(documented).items():
        operation = paths[template][method]
        ok = next(code for code in operation["responses"] if code.startswith("2"))
        operation["responses"][ok]["links"] = links
    return {
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
        "info": {
            "title": "otpa: OpenTripPlanner 1.x compatible API",
            "version": otpa.__version__,
            "description": (
                "Generated from the running service's URL table and the tables that parse "
                "its parameters.  Every path also answers OPTIONS (CORS preflight).  "
                "``routerId`` may be ``default``.  /plan answers refusals and impossible "
                "trips with HTTP 200 and OTP's ``error`` object; every other error is a "
                "4xx/5xx with the JSON error body."
            ),
        },
        "paths": paths,
        "components": {
            "schemas": SCHEMAS,
            "parameters": {f"plan.{p['name']}": p for p in _plan_parameters()},
            "responses": {
                f"E{status}": {
                    "description": _STATUS_TEXT.get(status, "Error"),
                    "content": {"application/json": {"schema": ref("Error")}},
                }
                for status in sorted(statuses)
            },
        },
    }
