"""The HTML replay viewer: a page per game record, drawn in the browser from inline data: self-contained, or
linking to shared scripts and styles (a published site)."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import jinja2

from arena.errors import ReplayError
from arena.match.record import GameRecord
from arena.viewer.data import RECORD, replay_data
from arena.viewer.facts import facts_script
from arena.viewer.games import GAMES

__all__ = ["assets", "engine_scripts", "render_page", "render_replay", "replay_data", "write_replay"]


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.PackageLoader("arena.viewer", "templates"),
                              autoescape=jinja2.select_autoescape(["html", "j2"]), undefined=jinja2.StrictUndefined)


@lru_cache(maxsize=None)
def _static(name: str) -> str:
    """A file of static/, or a game's facts script, made from its Python modules."""
    for game, table in GAMES.items():
        if name == table.facts_script:
            return facts_script(game, table.facts)
    return files("arena.viewer").joinpath("static", name).read_text(encoding="utf-8")


def engine_scripts(game: str) -> list[str]:
    """The scripts that re-play a game's records, in the order they load: the generator, the shared core, the
    game's fixed facts and its engine."""
    table = GAMES[game]
    return ["engines/rng.js", "engines/base.js", table.facts_script, table.engine]


def script_json(data: Any) -> str:
    """Data as JSON that is safe inside an HTML script element: no '<' can close it or open a comment."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _scripts(data: dict[str, Any]) -> list[str]:
    """The scripts a page runs, in order: a referee's page re-plays its record with the game's engine; every page
    draws with the game's board."""
    engines = engine_scripts(data["game"]) if data["mode"] == RECORD else []
    return [*engines, GAMES[data["game"]].board, "viewer.js"]


def assets() -> dict[str, str]:
    """Every file a page may link to instead of holding it (a site's pages share one copy): path -> text."""
    names = ["viewer.css", "viewer.js", *dict.fromkeys(name for game in GAMES for name in engine_scripts(game)),
             *(table.board for table in GAMES.values())]
    return {name: _static(name) for name in names}


def render_page(data: dict[str, Any], back: tuple[str, str] | None = None, linked: str | None = None,
                heading: str | None = None) -> str:
    """A complete HTML page (no network request) for page data made by replay_data; back is an optional (link,
    label) shown above the title, such as the tournament page of a published site. Self-contained, or with linked
    (a relative URL of a folder holding assets()), linking to the shared styles and scripts there."""
    seat = data["page_seat"]
    heading = heading or f"game {data['game_index'] + 1} of match {data['match']}"
    game = f"{data['game']}: {heading}"
    view = "referee's view (everything)" if seat is None else seat_view(seat, data['seats'][seat]['name'])
    scripts = _scripts(data)
    return _environment().get_template("replay.html.j2").render(
        title=f"{game}, {view}", game=game, back=back, data=script_json(data), linked=linked,
        css=None if linked else _static("viewer.css"),
        scripts=scripts if linked else [_static(name) for name in scripts])


def seat_view(seat: int, name: str) -> str:
    """How a page names one seat's view (the browser names it the same way when the view changes)."""
    return f"seat {seat}'s view ({name})"


def render_replay(record: GameRecord, seat: int | None = None, back: tuple[str, str] | None = None,
                  linked: str | None = None, check: bool = True, bot_output: bool = True,
                  heading: str | None = None) -> str:
    """The replay page of a record: the referee's view (every seat's view too), or only what seat was sent; with
    check, a referee's page is made only if the record reproduces here (its browser checks that again); without
    bot_output, no text a bot wrote but its name and version (a public page). heading names the game (default: as
    its record does)."""
    return render_page(replay_data(record, seat, check, bot_output), back, linked, heading)


def write_replay(record: GameRecord, path: Path, seat: int | None = None) -> None:
    """Write the replay page of a record to path; ReplayError if it cannot be made or written (nothing written)."""
    page = render_replay(record, seat)
    try:
        path.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise ReplayError(f"cannot write {path}: {exc.strerror or exc}") from None
