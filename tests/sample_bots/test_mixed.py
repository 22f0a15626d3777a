"""The diluted heuristic bot: its P from the command line, the heuristic's move that often."""

from __future__ import annotations

import pytest

from sample_bots.mixed_bot import MixedBot, probability


def test_p_is_the_argument_before_the_endpoint() -> None:
    assert probability(["mixed_bot.py", "0.3", "ipc:///tmp/x.sock"]) == 0.3
    assert probability(["mixed_bot.py", "ipc:///tmp/x.sock"]) == 1.0


def test_a_p_outside_0_to_1_is_refused() -> None:
    with pytest.raises(SystemExit, match="between 0 and 1"):
        probability(["mixed_bot.py", "1.5"])


@pytest.mark.parametrize("p, heuristic", [(0.0, 0), (1.0, 40), (0.5, 20)])
def test_the_heuristic_plays_a_share_p_of_the_decisions(p: float, heuristic: int) -> None:
    bot = MixedBot(p)
    calls = []
    bot.strategy = lambda view, options, decision: calls.append(1) or 0
    for _ in range(40):
        bot.decide({}, [{}, {}, {}], {})
    assert len(calls) == heuristic if p in (0.0, 1.0) else 10 < len(calls) < 30
