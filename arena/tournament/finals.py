"""`arena finals`: a tournament's top K played against each other, into a tournament of their own in the same store,
until every adjacent pair's order is decided at the confidence asked for or the budget is spent."""

from __future__ import annotations

from typing import Any

from arena.bots.entrants import Entrant
from arena.bots.sandbox import Isolation, Sandbox
from arena.bots.sandbox.limits import Limits
from arena.errors import ConfigError
from arena.games import get_game
from arena.match.seeds import stored_public_seed
from arena.ratings.order import finals_settings
from arena.ratings.trueskill import RatingConfig
from arena.storage import Store, Tournament
from arena.tournament.formats.base import Play, TournamentSpec, check_spec
from arena.tournament.formats.finals import Finals
from arena.tournament.leaderboard import tournament_board
from arena.tournament.opponents import sample_opponents
from protocol import TimeControl


def finals_spec(store: Store, source: Tournament, top: int, confidence: float, max_games: int | None,
                sandbox: Sandbox | None = None) -> TournamentSpec:
    """The finals of `source`'s top `top` bots on its board, seeded in its order, with its game, options, clocks,
    sandbox (or `sandbox`, its level resolved), ratings and public seed (a secret one if it has none), at tables of
    the game's smallest size (sample bots fill the seats past two): ConfigError naming the problem, before anything
    is stored."""
    if top < 2:
        raise ConfigError(f"--top must be at least 2, got {top}")
    try:
        settings = finals_settings(confidence, top)
    except ValueError as exc:
        raise ConfigError(f"--confidence: {exc}") from None
    config = source.config
    board = tournament_board(store, source)
    ranked = [r.bot for r in board.rows if r.games]
    if len(ranked) < top:
        raise ConfigError(f"tournament {source.name!r} has {len(ranked)} ranked bots with games, fewer than --top "
                          f"{top}")
    # A row names an entrant by its key in the tournament (NAME@VERSION for a later version of a living ladder's
    # bot): the roster says which bot and version that is, and the stored entrants how to start it.
    known = {(e["name"], e.get("version", "")): e for e in config.get("entrants", [])}
    keys = {key: (name, version) for key, name, version, _ in store.roster(source.id)}
    found = {key: known.get(keys.get(key, (key, ""))) for key in ranked[:top]}
    missing = [key for key, e in found.items() if e is None]
    if missing:
        raise ConfigError(f"tournament {source.name!r} does not say how to start {', '.join(missing)}")
    bots = [e["name"] for e in found.values() if e is not None]
    chosen = [Entrant(e["name"] if bots.count(e["name"]) == 1 else key, tuple(e["command"]), e.get("cwd"),
                      e.get("version", ""), e.get("author", "")) for key, e in found.items() if e is not None]
    game = get_game(source.game)
    seats = game.min_players
    opponents = sample_opponents(source.game, max(0, seats - 2), {e.name for e in chosen})
    play = Play(game=source.game, options=config.get("options"), time=_time(config),
                sandbox=sandbox or _sandbox(config), rating=RatingConfig.stored(game, config))
    spec = TournamentSpec(
        play=play, fmt=Finals(), entrants=(*chosen, *opponents), seats=seats, max_games=max_games, sprt=settings,
        seed=stored_public_seed(config),
        title=f"finals of {source.name}: its top {top} decided at confidence {confidence:g}")
    check_spec(spec)
    return spec


def _time(config: dict[str, Any]) -> TimeControl:
    return TimeControl(**config["time"]) if isinstance(config.get("time"), dict) else TimeControl()


def _sandbox(config: dict[str, Any]) -> Sandbox:
    stored = config.get("sandbox") or {}
    return Sandbox(Isolation(stored.get("level", Isolation.AUTO.value)),
                   Limits(**stored.get("limits", {}))).resolved()


def finals_name(source: Tournament, name: str | None) -> str:
    """The finals' tournament name: `name`, by default NAME-finals; ConfigError if it is the source's own."""
    if name == source.name:
        raise ConfigError(f"--name: the finals are played into a tournament of their own, not into {name!r}")
    return name or f"{source.name}-finals"
