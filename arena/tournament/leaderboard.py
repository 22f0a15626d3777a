"""Leaderboards: a tournament's ratings and per-bot statistics, read from its store and ranked by the conservative
estimate, and their text formats."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from statistics import NormalDist
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from tabulate import tabulate

from arena.errors import ReplayError
from arena.games import get_game
from arena.match.seeds import PUBLIC_NOTE, stored_public_seed
from arena.ratings.order import FINALS_FORMAT
from arena.ratings.ranks import SIGMA_CALIBRATION, rank_intervals
from arena.ratings.trueskill import Rating, RatingConfig, Ratings, rate_all
from arena.storage import Store, Tournament, replay_path

if TYPE_CHECKING:  # the bots' processes are not imported by a command that only reads a board
    from arena.bots.entrants import Refusal

COLUMNS = ("rank", "bot", "conservative", "mu", "sigma", "games", "wins", "mean_score", "mean_rank", "fault_rate",
           "p_above_next", "rank_low", "rank_high", "decided")
# The text tables show the interval as one column beside the bot's name.
TABLE_COLUMNS = ("rank", "bot", "90% ranks", "conservative", "mu", "sigma", "games", "wins", "mean_score",
                 "mean_rank", "fault_rate", "p_above_next")


@dataclass(frozen=True)
class Row:
    """One bot on the leaderboard."""

    rank: int
    bot: str
    conservative: float
    mu: float
    sigma: float
    games: int
    wins: int
    mean_score: float | None
    mean_rank: float | None
    fault_rate: float
    p_above_next: float | None = None  # the chance its true skill is above the next ranked bot's (None: the last)
    rank_low: int | None = None  # the ranks it holds with 90% probability given the ratings (None: not ranked)
    rank_high: int | None = None
    decided: bool | None = None  # finals: its order against the next row decided at their confidence (else None)


@dataclass(frozen=True)
class Leaderboard:
    """The published ranking, and the bots withheld from it for too many faulty games."""

    title: str
    rows: tuple[Row, ...]
    withheld: tuple[Row, ...]
    max_fault_rate: float | None
    not_admitted: tuple[Refusal, ...] = ()  # submissions that failed their check
    public_seed: int | None = None  # the seed of a public-seeded run (None: its seed was secret)
    # The name each bot gave in its handshake, shown beside its entrant name in the text tables.
    handshakes: Mapping[str, str] = field(default_factory=dict)

    @property
    def seeding(self) -> str:
        """'secret', or 'public (seed N)'."""
        return "secret" if self.public_seed is None else f"public (seed {self.public_seed})"


def handshake_names(records: Iterable[Path], names: Iterable[str], most: int = 20) -> dict[str, str]:
    """The name each entrant gave in its handshake, from the first of its games' records (at most `most` records
    read; an unreadable one is passed over)."""
    wanted, found = set(names), {}
    for path in records:
        if most <= 0 or wanted <= found.keys():
            break
        most -= 1
        from arena.match.record import load_record  # with the protocol it reads, only once there is a record
        try:
            seats = load_record(path).seats
        except ReplayError:
            continue
        found.update({s.entrant: s.name for s in seats if s.entrant in wanted and s.entrant not in found and s.name})
    return found


def board_title(name: str, game: str, fmt: str, config: dict[str, Any]) -> str:
    """A leaderboard's heading: the tournament's title (if it has one), name, game, format and sandbox level."""
    sandbox = (config.get("sandbox") or {}).get("level", "unknown")
    title = config.get("title")
    return f"{title + ': ' if title else ''}{name} ({game}, {fmt}, sandbox {sandbox})"


RETIRED = " (retired)"  # marks a retired version in the all-versions view


def stored_ratings(store: Store, t: Tournament) -> Ratings:
    """The ratings the store keeps; rated from the games when it keeps none (a match's entry is not rated)."""
    config = RatingConfig.stored(get_game(t.game), t.config)
    table = {name: Rating(mu, sigma) for name, (mu, sigma) in store.stored_ratings(t.id).items()}
    return Ratings(config, table) if table else rate_all(config, store.outcomes(t.id))


def tournament_board(store: Store, t: Tournament, max_fault_rate: float | None = None, all_versions: bool = False,
                     ratings: Ratings | None = None, title: str | None = None,
                     results_dir: Path | None = None) -> Leaderboard:
    """A tournament's leaderboard from its store: its stored ratings (or `ratings`), statistics, refusals and retired
    versions; withheld above max_fault_rate (default: the tournament's own); titled by board_title unless `title` is
    given; with each bot's handshake name when the results folder its records lie in is given."""
    if max_fault_rate is None:
        max_fault_rate = t.config.get("max_fault_rate")
    board = rank(board_title(t.name, t.game, t.format, t.config) if title is None else title,
                 stored_ratings(store, t) if ratings is None else ratings, store.bot_stats(t.id), max_fault_rate,
                 tuple(store.refusals(t.id)), frozenset(store.retired(t.id)), all_versions,
                 stored_public_seed(t.config))
    if t.format == FINALS_FORMAT:
        board = _finals(board, store, t)
    if results_dir is None:
        return board
    records = (replay_path(replay, results_dir) for _, replay in store.game_replays(t.id))
    names = [r.bot for r in (*board.rows, *board.withheld)]
    return replace(board, handshakes=handshake_names((p for p in records if p is not None), names))


def rank(title: str, ratings: Ratings, stats: Mapping[str, Mapping[str, float]],
         max_fault_rate: float | None = None, not_admitted: tuple[Refusal, ...] = (),
         retired: frozenset[str] = frozenset(), all_versions: bool = False,
         public_seed: int | None = None) -> Leaderboard:
    """Rank every entrant by mu - 3 sigma (ties by name); withhold those above max_fault_rate; leave retired
    versions out, or (all_versions) rank them too, marked."""
    def row(name: str) -> Row:
        r, s = ratings.get(name), stats[name]
        return Row(0, name + (RETIRED if name in retired else ""), r.conservative, r.mu, r.sigma, int(s["games"]),
                   int(s["wins"]), s["mean_score"], s["mean_rank"], float(s["fault_rate"]))

    shown = [name for name in stats if all_versions or name not in retired]
    everyone = sorted((row(name) for name in shown), key=lambda r: (-r.conservative, r.bot))
    kept = [max_fault_rate is None or r.fault_rate <= max_fault_rate for r in everyone]
    ranked = [r for r, k in zip(everyone, kept) if k]
    withheld = [r for r, k in zip(everyone, kept) if not k]
    return Leaderboard(title, tuple(ranked_rows(ranked)), tuple(withheld), max_fault_rate, tuple(not_admitted),
                       public_seed)


def ranked_rows(rows: Iterable[Row], ranks: Iterable[int] | None = None) -> list[Row]:
    """These rows, in the order given, ranked 1, 2, ... among themselves (or by `ranks`): each with the chance it
    is above the next row and its 90% interval of ranks (ranks.rank_intervals, each skill drawn with sd
    SIGMA_CALIBRATION x sigma), widened to hold its own rank where
    the board's order (by mu - 3 sigma, or the finals') and the skills' order part (a bot of few games with a high
    mu)."""
    rows = list(rows)
    places = list(range(1, len(rows) + 1) if ranks is None else ranks)
    intervals = rank_intervals([r.mu for r in rows], [SIGMA_CALIBRATION * r.sigma for r in rows])
    return [replace(r, rank=i, p_above_next=None if below is None else above_next(r.mu, r.sigma, below.mu, below.sigma),
                    rank_low=min(low, i), rank_high=max(high, i))
            for i, r, below, (low, high) in zip(places, rows, [*rows[1:], None], intervals)]


def _finals(board: Leaderboard, store: Store, t: Tournament) -> Leaderboard:
    """A finals' board: its finalists alone (not the sample bots that filled their tables), in the order the finals
    decided, those not decided apart sharing a rank, each saying whether it is decided above the next."""
    from arena.tournament.formats.finals import settings_of, standing_of  # the match's modules, for finals only

    seats = int(t.config["seats"])
    names = [e["name"] for e in t.config["entrants"]]
    seeded = names[:len(names) - max(0, seats - 2)]
    standing = standing_of(seeded, seats, settings_of(t.config), store.outcomes(t.id))
    by_name = {r.bot: r for r in (*board.rows, *board.withheld)}
    rows = ranked_rows((by_name[name] for name in standing.order), standing.ranks)
    rows = [replace(r, decided=done) for r, done in zip(rows, standing.decided)]
    return replace(board, rows=tuple(rows), withheld=())


def above_next(mu: float, sigma: float, next_mu: float, next_sigma: float) -> float:
    """The chance that a bot's true skill is above the next bot's: the normal difference of their two ratings."""
    # The standard library's normal distribution: importing scipy.stats would cost every command that reads a
    # leaderboard most of a second of CPU.
    return NormalDist().cdf((mu - next_mu) / (sigma ** 2 + next_sigma ** 2) ** 0.5)


def _cells(r: Row, handshakes: Mapping[str, str]) -> list[object]:
    def num(x: float | None, digits: int = 2) -> object:
        return "" if x is None else round(x, digits)
    bot = _label(r.bot, handshakes)
    ranks = "" if r.rank_low is None else f"{r.rank_low}-{r.rank_high}"
    return [r.rank or "-", bot, ranks, num(r.conservative), num(r.mu), num(r.sigma), r.games, r.wins,
            num(r.mean_score), num(r.mean_rank), f"{100 * r.fault_rate:.1f}%", num(r.p_above_next)]


def _label(bot: str, handshakes: Mapping[str, str]) -> str:
    """The bot's entrant_label; the record reader it lives with is imported only once a handshake name was read."""
    if bot not in handshakes:
        return bot
    from arena.match.record import entrant_label
    return entrant_label(bot, handshakes[bot])


def _note(board: Leaderboard, markdown: bool = False) -> str:
    notes = []
    if any(r.decided is not None for r in board.rows):
        steps = ", ".join(f"{a.bot} {'>' if a.decided else '~'} {b.bot}" for a, b in zip(board.rows, board.rows[1:]))
        notes.append(f"finals: {steps} (> decided at the finals' confidence, ~ not decided: those share a rank)")
    if board.public_seed is not None:
        notes.append(f"public-seeded (seed {board.public_seed}): {PUBLIC_NOTE}")
    if board.withheld:
        names = ", ".join(f"{r.bot} ({100 * r.fault_rate:.1f}%)" for r in board.withheld)
        notes.append(f"withheld for a fault rate above {100 * (board.max_fault_rate or 0):.1f}%: {names}")
    if board.not_admitted:
        bullet = "- " if markdown else "  "  # a markdown list, else an indented one
        notes.append("not admitted:\n" + "\n".join(f"{bullet}{r.name}: {r.reason}" for r in board.not_admitted))
    return ("\n\n" if markdown else "\n").join(notes)


def _text(board: Leaderboard, fmt: str) -> str:
    text = tabulate([_cells(r, board.handshakes) for r in board.rows], headers=TABLE_COLUMNS,
                    tablefmt="github" if fmt == "markdown" else "simple")
    title = f"## {board.title}\n\n" if fmt == "markdown" else f"{board.title}\n\n"
    note = _note(board, fmt == "markdown")
    return title + text + (f"\n\n{note}" if note else "")


def _csv(board: Leaderboard) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow((*COLUMNS, "seeding"))  # every row says it: a csv file has no other place
    for r in board.rows:
        writer.writerow((*asdict(r).values(), board.seeding))
    return out.getvalue().rstrip("\n")


def row_json(r: Row, digits: int | None = None) -> dict[str, Any]:
    """A leaderboard row as JSON, the one shape of a row everywhere (`arena leaderboard --format json`, a server's
    /api/leaderboard): every column, and the faulty games as a count; its figures rounded to `digits` if given."""
    def num(x: float | None) -> float | None:
        return x if x is None or digits is None else round(x, digits)

    return {"rank": r.rank, "bot": r.bot, "conservative": num(r.conservative), "mu": num(r.mu), "sigma": num(r.sigma),
            "games": r.games, "wins": r.wins, "mean_score": num(r.mean_score), "mean_rank": num(r.mean_rank),
            "fault_rate": num(r.fault_rate), "faulty_games": round(r.fault_rate * r.games),
            "p_above_next": num(r.p_above_next), "rank_low": r.rank_low, "rank_high": r.rank_high,
            **({} if r.decided is None else {"decided": r.decided})}


def _json(board: Leaderboard) -> str:
    return json.dumps({"title": board.title, "seeding": "secret" if board.public_seed is None else "public",
                       "public_seed": board.public_seed, "max_fault_rate": board.max_fault_rate,
                       "ranking": [row_json(r) for r in board.rows],
                       "withheld": [{**row_json(r), "rank": None} for r in board.withheld],  # unranked
                       "not_admitted": [r.to_dict() for r in board.not_admitted]}, indent=2)


@dataclass(frozen=True)
class TextFormat:
    """How a leaderboard is written as text in one format."""

    render: Callable[[Leaderboard], str]
    handshakes: bool = False  # shows each bot's handshake name (read from its games' records)


# The text formats; arena.site.boards adds the html page.
TEXT_FORMATS: dict[str, TextFormat] = {
    "table": TextFormat(lambda board: _text(board, "table"), handshakes=True),
    "markdown": TextFormat(lambda board: _text(board, "markdown"), handshakes=True),
    "csv": TextFormat(_csv),
    "json": TextFormat(_json),
}
