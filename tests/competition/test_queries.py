"""The competition's queries beside the season: the served ladder's tournament is looked up until its first wave
has made it and then held; and whose logs a game's page holds is the viewer's to say."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.competition.access import EVERYONE, Viewer
from arena.competition.queries import LadderTournament
from arena.storage import Store, Tournament


def test_the_ladders_tournament_is_looked_up_until_it_exists_then_held(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    with Store(tmp_path / "arena.sqlite") as store:
        looks: list[str | None] = []
        lookup = store.tournament

        def counted(name: str | None = None) -> Tournament:
            looks.append(name)
            return lookup(name)

        monkeypatch.setattr(store, "tournament", counted)
        ladder = LadderTournament("season")
        assert ladder(store) is None and ladder(store) is None and looks == ["season", "season"]
        made = store.open_tournament("season", "bali-2001", "ladder", {"seats": 3}, [])
        assert [ladder(store).id for _ in range(5)] == [made.id] * 5  # type: ignore[union-attr]
        assert looks == ["season"] * 3
        assert LadderTournament("")(store) is None and len(looks) == 3  # no name: never the latest tournament


def _data() -> dict[str, Any]:
    return {"decisions": [[0, 1], [1, 0], [0, 2]], "logs": {"0": "mine", "1": "theirs", "2": "mine again"},
            "faults": [{"seat": 0, "kind": "timeout", "detail": "d0", "stderr": "e0"},
                       {"seat": 1, "kind": "crash", "detail": "d1", "stderr": "e1"}]}


def test_the_viewer_decides_whose_logs_a_game_page_holds() -> None:
    assert EVERYONE.shown(_data()) == _data()
    assert Viewer.of_bot("alicebot", []) is None  # the bot had no seat in the game: nothing of it to see
    viewer = Viewer.of_bot("alicebot", [0])
    assert viewer is not None and viewer.bot == "alicebot"
    shown = viewer.shown(_data())
    assert shown["logs"] == {"0": "mine", "2": "mine again"}
    assert shown["faults"] == [{"seat": 0, "kind": "timeout", "detail": "d0", "stderr": "e0"},
                               {"seat": 1, "kind": "crash"}]
