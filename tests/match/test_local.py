"""The engine benchmark: the games it times, and the command's own objects kept out of the collector's walks."""

from __future__ import annotations

import gc
from typing import Any

from arena.games import get_game
from arena.match.local import bench_engine


class _Watched:
    """A game that records, at each new game, how many objects the collector has set apart (gc.freeze)."""

    def __init__(self) -> None:
        self.game = get_game("bali-2001")
        self.name = self.game.name
        self.frozen: list[int] = []

    def new_state(self, num_players: int, seed: int, options: dict[str, Any] | None = None) -> Any:
        self.frozen.append(gc.get_freeze_count())
        return self.game.new_state(num_players, seed, options)


def test_the_objects_alive_before_are_not_walked_while_the_games_run() -> None:
    # What the command imported before (SciPy, for `arena bench`) made every full collection the games triggered
    # walk tens of thousands more objects, which the figure charged to the engine.
    held = [[i] for i in range(10_000)]
    watched = _Watched()
    bench_engine(watched, 3, 3)  # type: ignore[arg-type]
    assert len(watched.frozen) == 3
    assert all(count >= len(held) for count in watched.frozen)
    assert gc.get_freeze_count() == 0  # given back to the collector afterwards


def test_the_same_games_and_decisions_as_random_play() -> None:
    game = get_game("bali-2001")
    first, second = bench_engine(game, 3, 4), bench_engine(game, 3, 4)
    assert first.games == 4 and first.decisions == second.decisions > 0
