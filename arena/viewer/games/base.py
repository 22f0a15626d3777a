"""What each game adds for the viewer: the referee's part of the table and the final scoring broken down (the
browser's engines compute both again, and are checked against these), the legend, the engine and board scripts,
and the modules whose fixed facts the engine loads as data."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable

from arena.games import State

REFEREE = "referee"

# The referee's own part of the table (beside the public view), from the state and every seat's private view.
RefereeView = Callable[[State, list[dict[str, Any]]], dict[str, Any]]
Scoring = Callable[[dict[str, Any], "dict[str, Any] | None"], dict[str, Any]]
# A game's legend as plain data: cards (wire name -> short form), islands (name -> letter), and entries
# ([abbreviation or mark, meaning], in the order the page lists them).
Legend = Callable[[], dict[str, Any]]


@dataclass(frozen=True)
class GameTable:
    """How the viewer draws one game: the referee's part of the table, the final scoring, the seat colours, the
    legend, the script (under static/engines) that re-plays its games in the browser and the one (under
    static/boards) that draws its board, both named after the game's package, and the modules that declare the
    fixed facts the engine loads."""

    referee: RefereeView
    scoring: Scoring
    colours: tuple[str, ...]
    legend: Legend
    script: str  # the game's package name: engines/SCRIPT.js, engines/SCRIPT.facts.js, boards/SCRIPT.js
    facts: tuple[ModuleType, ...]

    @property
    def engine(self) -> str:
        """The engine's script, under static/."""
        return f"engines/{self.script}.js"

    @property
    def facts_script(self) -> str:
        """The generated script that holds the game's fixed facts, beside the engine's."""
        return f"engines/{self.script}.facts.js"

    @property
    def board(self) -> str:
        """The script that draws the game's board, under static/."""
        return f"boards/{self.script}.js"
