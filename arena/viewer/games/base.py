"""What each game adds for the viewer: the referee's part of the table and the final scoring broken down (the
browser's engines compute both again, and are checked against these), the engine script, and the modules whose
fixed facts that script loads as data."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable

from arena.games import State
from arena.games.bali2001 import cards as cards2001
from arena.games.bali2001 import state as state2001
from arena.games.bali2001 import views as views2001
from arena.games.bali2001.cards import SEAL_POINTS
from arena.games.bali2017 import cards as cards2017
from arena.games.bali2017 import state as state2017
from arena.games.bali2017 import views as views2017
from arena.games.bali2017.cards import OFFERING_NAMES, SHRINE_POINTS, STONES_PER_POINT

REFEREE = "referee"


def _referee_2001(state: State, privates: list[dict[str, Any]]) -> dict[str, Any]:
    return {"hands": [p["hand"] for p in privates], **state.referee_view()}


def _referee_2017(state: State, privates: list[dict[str, Any]]) -> dict[str, Any]:
    return {"hands": [p["hand"] for p in privates],
            "offerings_known": [p["offerings"] for p in privates],  # exact: each seat knows its own display
            **state.referee_view()}


def _scoring_2001(view: dict[str, Any], game_over: dict[str, Any] | None) -> dict[str, Any]:
    seals = view["seals"]
    rows = [{"masks": sum(masks), "seals": SEAL_POINTS * sum(1 for s in seals.values() if s == seat),
             "total": view["scores"][seat]} for seat, masks in enumerate(view["masks"])]
    return {"columns": ["masks", "seals", "total"], "rows": rows}


def _scoring_2017(view: dict[str, Any], game_over: dict[str, Any] | None) -> dict[str, Any]:
    values = (game_over or {}).get("values", {name: 0 for name in OFFERING_NAMES})
    rows = []
    for seat, display in enumerate(view["displays"]):
        offered = view["offerings_known"][seat] if "hands" in view or seat != view["seat"] else view["offerings"]
        row = {"points": view["points"][seat], "shrines": SHRINE_POINTS * display["shrine"],
               "stones": view["stones"][seat] // STONES_PER_POINT,
               "offerings": sum(count * values[name] for name, count in offered.items())}
        row["total"] = sum(row.values())
        rows.append(row)
    return {"columns": ["points", "shrines", "stones", "offerings", "total"], "values": values, "rows": rows}


# The referee's own part of the table (beside the public view), from the state and every seat's private view.
RefereeView = Callable[[State, list[dict[str, Any]]], dict[str, Any]]
Scoring = Callable[[dict[str, Any], "dict[str, Any] | None"], dict[str, Any]]


@dataclass(frozen=True)
class GameTable:
    """How the viewer draws one game: the referee's part of the table, the final scoring, the seat colours, the
    script (under static/engines) that re-plays its games in the browser, and the modules that declare the fixed
    facts it loads."""

    referee: RefereeView
    scoring: Scoring
    colours: tuple[str, ...]
    engine: str
    facts: tuple[ModuleType, ...]

    @property
    def facts_script(self) -> str:
        """The name of the generated script that holds the game's fixed facts, beside the engine's."""
        return self.engine.removesuffix(".js") + ".facts.js"


GAMES: dict[str, GameTable] = {
    "bali-2001": GameTable(_referee_2001, _scoring_2001, cards2001.SEAT_COLOURS, "bali2001.js",
                           (cards2001, state2001, views2001)),
    "bali-2017": GameTable(_referee_2017, _scoring_2017, cards2017.SEAT_COLOURS, "bali2017.js",
                           (cards2017, state2017, views2017)),
}
