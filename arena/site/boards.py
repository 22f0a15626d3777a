"""A tournament's leaderboard in every format the arena writes it in: one renderer per format, the text formats and
the html page alike."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from arena.errors import ConfigError
from arena.storage import Store, Tournament
from arena.tournament.leaderboard import TEXT_FORMATS, TextFormat, tournament_board


@dataclass(frozen=True)
class BoardRequest:
    """Which leaderboard of a store is wanted: the tournament, whom it withholds and shows, where its records lie."""

    store: Store
    tournament: Tournament
    results_dir: Path
    max_fault_rate: float | None = None  # None: the tournament's own
    all_versions: bool = False  # the retired versions of a ladder's bots ranked too, marked


Renderer = Callable[[BoardRequest], str]


def _text(fmt: TextFormat) -> Renderer:
    def render(request: BoardRequest) -> str:
        return fmt.render(tournament_board(request.store, request.tournament, request.max_fault_rate,
                                           request.all_versions,
                                           results_dir=request.results_dir if fmt.handshakes else None))
    return render


def _html(request: BoardRequest) -> str:
    """The published site's leaderboard page, on its own."""
    from arena.site.build import leaderboard_page  # the site's builder only for this format: the text ones start faster
    from arena.site.data import tournament_data
    return leaderboard_page(tournament_data(request.store, request.tournament, request.max_fault_rate))


RENDERERS: dict[str, Renderer] = {**{name: _text(fmt) for name, fmt in TEXT_FORMATS.items()}, "html": _html}
FORMATS = tuple(RENDERERS)


def render_leaderboard(request: BoardRequest, fmt: str) -> str:
    """The requested leaderboard written in one of FORMATS."""
    if fmt not in RENDERERS:
        raise ConfigError(f"unknown leaderboard format {fmt!r}; formats: {', '.join(FORMATS)}")
    return RENDERERS[fmt](request)
