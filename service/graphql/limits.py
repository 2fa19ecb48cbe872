"""Size limits on GraphQL queries, checked before anything runs.

* the query text: at most :data:`MAX_QUERY_LENGTH` characters and
  :data:`MAX_TOKENS` lexical tokens (graphql-core's parser stops early);
* the selection tree, with fragments expanded: at most :data:`MAX_DEPTH` nested
  fields and :data:`MAX_FIELDS` field selections in all (aliases count, so an
  alias flood or a fragment fan-out is refused), by :class:`QueryLimitsRule`.

Introspection queries (GraphiQL's is 13 levels deep) fit within the limits.
"""

from __future__ import annotations

from typing import Any, ClassVar

from graphql import (
    FieldNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    ValidationRule,
)

__all__ = ["MAX_DEPTH", "MAX_FIELDS", "MAX_QUERY_LENGTH", "MAX_TOKENS", "QueryLimitsRule"]

#: Longest query text accepted (characters).
MAX_QUERY_LENGTH = 20_000
#: Most lexical tokens in a query.
MAX_TOKENS = 5_000
#: Deepest nesting of fields (``{ stop { routes { id } } }`` is 3).
MAX_DEPTH = 15
#: Most field selections in one operation, fragments expanded.
MAX_FIELDS = 1_000


class _TooManyFieldsError(Exception):
    """Raised inside the walk once the field budget is spent."""


class QueryLimitsRule(ValidationRule):
    """Refuse operations nested deeper than ``max_depth`` or selecting more than ``max_fields``."""

    max_depth: ClassVar[int] = MAX_DEPTH
    max_fields: ClassVar[int] = MAX_FIELDS

    def enter_operation_definition(self, node: OperationDefinitionNode, *_args: Any) -> None:
        """Walk the operation's selections, fragments included, and report a breach."""
        self._fields = 0
        name = f"Operation {node.name.value!r}" if node.name else "The operation"
        try:
            depth = self._depth(node.selection_set, frozenset())
        except _TooManyFieldsError:
            msg = (
                f"{name} selects more than {self.max_fields} fields (aliases and fragments count)."
            )
            self.report_error(GraphQLError(msg, node))
            return
        if depth > self.max_depth:
            msg = f"{name} is nested {depth} levels deep; the limit is {self.max_depth}."
            self.report_error(GraphQLError(msg, node))

    def _depth(self, selection_set: SelectionSetNode | None, fragments: frozenset[str]) -> int:
        if selection_set is None:
            return 0
        deepest = 0
        for selection in selection_set.selections:
            if isinstance(selection, FieldNode):
                self._fields += 1
                if self._fields > self.max_fields:
                    raise _TooManyFieldsError
                deepest = max(deepest, 1 + self._depth(selection.selection_set, fragments))
            elif isinstance(selection, InlineFragmentNode):
                deepest = max(deepest, self._depth(selection.selection_set, fragments))
            elif isinstance(selection, FragmentSpreadNode):
                name = selection.name.value
                fragment = self.context.get_fragment(name)
                if fragment is None or name in fragments:  # unknown or cyclic: other rules report
                    continue
                deepest = max(deepest, self._depth(fragment.selection_set, fragments | {name}))
        return deepest
