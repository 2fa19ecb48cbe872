"""GraphQL over a router's transit index (OTP 1.x's ``/index/graphql``), with graphql-core."""

from __future__ import annotations

from service.graphql.execute import (
    GRAPHQL_OK,
    GraphQLRequest,
    GraphQLRequestError,
    graphql_error_body,
    parse_request,
    run_query,
)
from service.graphql.schema import SCHEMA, IndexContext

__all__ = [
    "GRAPHQL_OK",
    "SCHEMA",
    "GraphQLRequest",
    "GraphQLRequestError",
    "IndexContext",
    "graphql_error_body",
    "parse_request",
    "run_query",
]
