"""A bot against each rival it met, head to head: the finished games they played together, how often it finished
ahead of the rival, behind it or level, and its mean score beside the rival's, in all and by the seat it sat in."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from tabulate import tabulate

from arena.errors import ConfigError
from arena.storage import Store, Tournament


@dataclass(frozen=True)
class Tally:
    """Games of a bot with one rival: the counts, and the scores summed over the games that have one."""

    games: int = 0
    ahead: int = 0
    behind: int = 0
    level: int = 0
    score: float = 0.0
    scored: int = 0
    rival_score: float = 0.0
    rival_scored: int = 0

    def __add__(self, other: "Tally") -> "Tally":
        return Tally(*(a + b for a, b in zip(self.fields(), other.fields())))

    def fields(self) -> tuple[float, ...]:
        """The tally's figures in order, for adding."""
        return (self.games, self.ahead, self.behind, self.level, self.score, self.scored, self.rival_score,
                self.rival_scored)

    def to_dict(self) -> dict[str, Any]:
        """The tally as the interface shows it: counts and mean scores (None where no game had a score)."""
        return {"games": self.games, "ahead": self.ahead, "behind": self.behind, "level": self.level,
                "mean_score": self.score / self.scored if self.scored else None,
                "rival_mean_score": self.rival_score / self.rival_scored if self.rival_scored else None}


def head_to_head(store: Store, t: Tournament, names: Iterable[str],
                 rival_of: Callable[[str], str] = str) -> list[dict[str, Any]]:
    """The entrants `names` (one bot, or every version of one) against each rival, the rivals' entrants grouped by
    `rival_of` (by default each entrant apart), most games first: {"rival", "games", "ahead", "behind", "level",
    "mean_score", "rival_mean_score", "by_seat": [the same by the seat the bot sat in, and "seat"]}. A rival that
    `rival_of` makes one of `names`' own is left out: a bot's versions are not its rivals."""
    names = list(names)
    own = {rival_of(n) for n in names}
    tallies: dict[str, dict[int, Tally]] = {}
    for _, rival, seat, *figures in store.rival_rows(t.id, names):
        key = rival_of(rival)
        if key in own:
            continue
        seats = tallies.setdefault(key, {})
        seats[seat] = seats.get(seat, Tally()) + Tally(*figures)
    out = []
    for rival, seats in tallies.items():
        total = sum(seats.values(), Tally())
        out.append({"rival": rival, **total.to_dict(),
                    "by_seat": [{"seat": seat, **seats[seat].to_dict()} for seat in sorted(seats)]})
    return sorted(out, key=lambda r: (-r["games"], r["rival"]))


def bot_rivals(store: Store, t: Tournament, bot: str) -> list[dict[str, Any]]:
    """`head_to_head` of one entrant of a tournament: ConfigError if it has no such entrant."""
    if bot not in store.entrant_ids(t.id):
        raise ConfigError(f"tournament {t.name!r} has no bot named {bot!r}")
    return head_to_head(store, t, [bot])


COLUMNS = ("rival", "games", "ahead", "behind", "level", "mean_score", "rival_mean_score")
FORMATS = ("table", "markdown", "csv", "json")


def render_rivals(bot: str, rivals: list[dict[str, Any]], fmt: str) -> str:
    """The head-to-head list in one of FORMATS: json the list itself, the others a row a rival (the seats apart in
    the text tables)."""
    if fmt == "json":
        return json.dumps(rivals, indent=2)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(("bot", *COLUMNS, "seat"))
        for r in rivals:
            writer.writerow((bot, *(r[c] for c in COLUMNS), ""))
            writer.writerows((bot, r["rival"], *(s[c] for c in COLUMNS[1:]), s["seat"]) for s in r["by_seat"])
        return out.getvalue().rstrip("\n")
    if fmt not in FORMATS:
        raise ConfigError(f"--rivals is written as {', '.join(FORMATS)}, not {fmt}")

    def num(x: float | None) -> object:
        return "" if x is None else round(x, 2)

    rows = []
    for r in rivals:
        rows.append((r["rival"], "all", r["games"], r["ahead"], r["behind"], r["level"], num(r["mean_score"]),
                     num(r["rival_mean_score"])))
        rows += [("", f"seat {s['seat']}", s["games"], s["ahead"], s["behind"], s["level"], num(s["mean_score"]),
                  num(s["rival_mean_score"])) for s in r["by_seat"]]
    table = tabulate(rows, headers=("rival", bot, "games", "ahead", "behind", "level", "its mean score",
                                    "rival's mean score"), tablefmt="github" if fmt == "markdown" else "simple")
    return f"{bot} head to head with each rival (finished games they both played)\n\n{table}"
