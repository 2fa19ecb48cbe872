"""Read a GraphQL-over-HTTP request, run it on a router's index, shape the answer.

* ``application/json``: ``{"query": str, "variables": object | JSON string | null,
  "operationName": str | null}``;
* ``application/graphql``: the body is the query.

An executed operation answers 201 (the service description's status for index
GraphQL) with ``{"data": ..., "errors": [...]}``; field errors leave partial
data.  Requests that cannot run (unreadable body, syntax errors, unknown fields,
limits, bad variables) answer 400 with the standard GraphQL ``errors`` array
next to the service's own error fields.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphql import ExecutionResult, GraphQLError, execute, parse, specified_rules, validate

from otpa.realtime import current_snapshot
from service.graphql.limits import MAX_QUERY_LENGTH, MAX_TOKENS, QueryLimitsRule
from service.graphql.schema import SCHEMA, IndexContext
from service.otp1.errors import error_body

if TYPE_CHECKING:
    from otpa.index import TransitIndex
    from otpa.network import TransportNetwork

__all__ = [
    "GRAPHQL_OK",
    "MAX_JSON_DEPTH",
    "GraphQLRequest",
    "GraphQLRequestError",
    "graphql_error_body",
    "parse_request",
    "run_query",
]

#: Status of an executed query.
GRAPHQL_OK = 201
#: Deepest JSON nesting of a request body or its ``variables`` (GraphiQL sends 2-3 levels).
MAX_JSON_DEPTH = 64
_JSON = "application/json"
_GRAPHQL = "application/graphql"


@dataclass(frozen=True)
class GraphQLRequest:
    """One GraphQL operation to run."""

    query: str
    variables: dict[str, Any] | None = None
    operation_name: str | None = None


class GraphQLRequestError(ValueError):
    """A request that cannot be executed: its HTTP status and the error messages."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.errors: list[dict[str, Any]] = [{"message": message}]


def graphql_error_body(status: int, errors: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The service's error fields (messages joined) plus the GraphQL ``errors`` array.

    Examples
    --------
    >>> graphql_error_body(400, [{"message": "Syntax Error: Unexpected <EOF>."}])["errors"]
    [{'message': 'Syntax Error: Unexpected <EOF>.'}]
    """
    body = error_body(status, "; ".join(str(e.get("message")) for e in errors))
    body["errors"] = [dict(e) for e in errors]
    return body


def _bad(message: str, status: int = 400) -> GraphQLRequestError:
    return GraphQLRequestError(status, message)


def _json_depth(value: Any) -> int:
    """Nesting depth of parsed JSON (iterative: no recursion on deep documents)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if depth > MAX_JSON_DEPTH:
                return depth
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest


def _loads(text: str, what: str) -> Any:
    """Parse JSON nested at most :data:`MAX_JSON_DEPTH` levels (400 otherwise)."""
    try:
        value = json.loads(text)
    except RecursionError:
        value = None
        too_deep = True
    except ValueError:
        msg = f"{what} is not valid JSON."
        raise _bad(msg) from None
    else:
        too_deep = _json_depth(value) > MAX_JSON_DEPTH
    if too_deep:
        msg = f"{what} is nested deeper than {MAX_JSON_DEPTH} levels."
        raise _bad(msg)
    return value


def _variables(raw: Any) -> dict[str, Any] | None:
    if isinstance(raw, str):  # OTP also took variables as a JSON string
        if not raw.strip():
            return None
        raw = _loads(raw, "variables (a JSON string)")
        if not isinstance(raw, dict):
            msg = "variables is a string but not a JSON object."
            raise _bad(msg)
    if raw is None or isinstance(raw, dict):
        return raw
    msg = "variables must be a JSON object."
    raise _bad(msg)


def parse_request(content_type: str | None, body: bytes) -> GraphQLRequest:
    """Read the request body according to its content type.

    Raises
    ------
    GraphQLRequestError
        415 for another content type, 400 for an unreadable body.
    """
    media = (content_type or "").partition(";")[0].strip().lower()
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        msg = "The request body is not UTF-8."
        raise _bad(msg) from None
    if media == _GRAPHQL:
        return GraphQLRequest(text)
    if media != _JSON:
        msg = f"Send {_JSON} or {_GRAPHQL}, not {media or '(no Content-Type)'}."
        raise _bad(msg, 415)
    doc = _loads(text, "The request body")
    if not isinstance(doc, dict) or not isinstance(doc.get("query"), str):
        msg = 'The JSON body needs a "query" string.'
        raise _bad(msg)
    name = doc.get("operationName")
    if name is not None and not isinstance(name, str):
        msg = "operationName must be a string."
        raise _bad(msg)
    return GraphQLRequest(doc["query"], _variables(doc.get("variables")), name or None)


def _formatted(errors: Sequence[GraphQLError]) -> list[dict[str, Any]]:
    return [dict(e.formatted) for e in errors]


def run_query(
    index_of: Callable[[TransportNetwork], TransitIndex],
    network: TransportNetwork,
    request: GraphQLRequest,
) -> tuple[int, dict[str, Any]]:
    """Parse, validate (with the size limits) and execute an operation.

    Parameters
    ----------
    index_of
        Gives the network's index (``TransitIndex.of``).
    network
        The router's network.
    request
        The operation.

    Returns
    -------
    tuple
        ``(status, body)``.
    """
    if len(request.query) > MAX_QUERY_LENGTH:
        msg = f"The query is longer than {MAX_QUERY_LENGTH} characters."
        return 400, graphql_error_body(400, [{"message": msg}])
    try:
        document = parse(request.query, max_tokens=MAX_TOKENS)
    except GraphQLError as exc:
        return 400, graphql_error_body(400, [dict(exc.formatted)])
    errors = validate(SCHEMA, document, [*specified_rules, QueryLimitsRule])
    if errors:
        return 400, graphql_error_body(400, _formatted(errors))
    context = IndexContext(
        index=index_of(network),
        now_s=int(time.time()),
        network=network,
        realtime=current_snapshot(network),
    )
    result = execute(
        SCHEMA,
        document,
        context_value=context,
        variable_values=request.variables,
        operation_name=request.operation_name,
    )
    if not isinstance(result, ExecutionResult):  # every resolver of the schema is synchronous
        msg = "asynchronous resolvers are not supported"
        raise TypeError(msg)
    if result.data is None and result.errors:
        return 400, graphql_error_body(400, _formatted(result.errors))
    return GRAPHQL_OK, dict(result.formatted)
