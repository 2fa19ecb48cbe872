"""``pred_chain``: the path of a search's predecessor labels, guarded against bad chains."""

from __future__ import annotations

import numpy as np
import pytest

from otpa.errors import InternalError, OtpaError
from otpa.street._search_kernel import pred_chain


def test_chain_from_the_seed_in_search_order() -> None:
    pred = np.asarray([-1, 0, 1, 1, -1], np.int32)  # 0 -> 1 -> {2, 3}; 4 a seed
    assert pred_chain(pred, 3).tolist() == [0, 1, 3]
    assert pred_chain(pred, 4).tolist() == [4]
    assert pred_chain(pred, -1).tolist() == []


@pytest.mark.parametrize(
    ("pred", "state"),
    [
        ([-1, 2, 1], 1),  # 1 -> 2 -> 1: a cycle would never end
        ([1, 0], 0),  # a cycle through every state
        ([-1, 7], 1),  # a predecessor beyond the states
        ([-1, 0], 2),  # a state beyond them
    ],
)
def test_a_bad_chain_is_refused_not_followed(pred: list[int], state: int) -> None:
    with pytest.raises(InternalError, match="pred_chain") as caught:
        pred_chain(np.asarray(pred, np.int32), state)
    # a failed invariant of the search, not bad input: no ValueError a service would
    # answer as a bad request
    assert isinstance(caught.value, OtpaError)
    assert isinstance(caught.value, RuntimeError)
    assert not isinstance(caught.value, ValueError)
