"""`arena compare`: is NEW better than BASE? Paired duplicate games and a sequential test, stored and resumable."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

from arena.bots.entrants import Entrant, from_command
from arena.games import get_game
from arena.match.seeds import Seed
from arena.numbering import free_name
from arena.ratings.pairing import GAMES_PER_PAIR
from arena.ratings.sprt import DEFAULT_ELO0, DEFAULT_ELO1, PairCounts, SprtSettings, TestKind, Verdict, report
from arena.storage import Store, Tournament
from arena.tournament.formats.base import Play, TournamentSpec, check_spec
from arena.tournament.formats.compare import Compare, futile, verdict
from arena.tournament.opponents import sample_opponents

DEFAULT_MAX_GAMES = 4000  # the cap on a sequential test: 2,000 pairs
ADVICE_DRAWS = 0.75  # undecided with at least this share of drawn pairs: the report says what to try instead
LOPSIDED = 0.15  # both versions won at most this share of their games (or lost at most it): the opponents decide
FAULTED = "faulted"  # the verdict of a test one of whose sides faulted in most of its games: its fault, no verdict
FAULT_SAMPLE = 4  # games of a side before its faults say it faulted in most of them


def entrants(new: Entrant, base: Entrant, opponents: Sequence[Entrant]) -> tuple[Entrant, ...]:
    """NEW, BASE and the opponents, renamed where names clash (BASE's name gets '-base', an opponent a number)."""
    if base.name == new.name:
        base = replace(base, name=f"{base.name}-base")
    taken = {new.name, base.name}
    seated = [new, base]
    for opponent in opponents:
        name = free_name(opponent.name, taken)
        taken.add(name)
        seated.append(replace(opponent, name=name))
    return tuple(seated)


def sequential_test(test: str | None, elo0: float | None, elo1: float | None, alpha: float,
                    beta: float) -> SprtSettings:
    """The test asked for: `test` if named, else the classic one if elo0 or elo1 is given, else the mixture."""
    classic = elo0 is not None or elo1 is not None
    kind = TestKind(test) if test else TestKind.CLASSIC if classic else TestKind.MIXTURE
    return SprtSettings(DEFAULT_ELO0 if elo0 is None else elo0, DEFAULT_ELO1 if elo1 is None else elo1, alpha, beta,
                        kind)


def spec(play: Play, players: tuple[Entrant, ...], seats: int, *, sprt: SprtSettings | None = None,
         max_games: int | None = None, seed: Seed | None = None) -> TournamentSpec:
    """The comparison as a tournament of the compare format: its sequential test `sprt` (None: a fixed number of
    games), `max_games` its cap."""
    return TournamentSpec(play, Compare(), players, seats, max_games=max_games, seed=seed, sprt=sprt)


def assemble(play: Play, new: str, base: str, opponents: Sequence[str] = (), seats: int | None = None, *,
             sprt: SprtSettings | None = None, max_games: int | None = None,
             seed: Seed | None = None) -> TournamentSpec:
    """NEW against BASE (command lines, NAME=COMMAND or submission folders) played as `play` says, with `opponents`
    and as many sample bots as fill a table of `seats` (default: the game's smallest), checked before anything is
    stored: ConfigError naming the problem. `sprt`, `max_games` and `seed` as `spec` takes them."""
    seats = seats or get_game(play.game).min_players
    chosen = [from_command(o) for o in opponents]
    new_bot, base_bot = from_command(new), from_command(base)
    taken = {new_bot.name, base_bot.name, *(o.name for o in chosen)}
    chosen += sample_opponents(play.game, max(0, seats - 1 - len(chosen)), taken)
    found = spec(play, entrants(new_bot, base_bot, chosen), seats, sprt=sprt, max_games=max_games, seed=seed)
    check_spec(found)
    return found


def deals_played(store: Store, tid: int) -> int:
    """How many deals, from the first, have both their games stored (played or failed)."""
    done = store.done_seqs(tid)
    deals = 0
    while GAMES_PER_PAIR * deals in done and GAMES_PER_PAIR * deals + 1 in done:
        deals += 1
    return deals


def current(store: Store, tournament: Tournament, comparison: TournamentSpec) -> tuple[PairCounts, Verdict]:
    """The counts and verdict of a comparison from what its store holds, pairs taken in deal order."""
    counts, result, _ = verdict(comparison, store.outcomes(tournament.id), deals_played(store, tournament.id))
    return counts, result


def final_report(store: Store, tournament: Tournament, comparison: TournamentSpec) -> dict[str, Any]:
    """The whole report as plain data: the `--json` object and what the text report shows."""
    counts, result = current(store, tournament, comparison)
    out = report(counts, comparison.sprt, result)
    new, base = comparison.names()[:2]
    stats = store.bot_stats(tournament.id)
    out.update(new=new, base=base, opponents=comparison.names()[2:], game=comparison.game,
               seats=comparison.seats, tournament=tournament.name,
               failed_games=store.failed_count(tournament.id),
               fault_rates={name: stats.get(name, {}).get("fault_rate", 0.0) for name in (new, base)},
               pairs_cap=pairs_cap(comparison), stopped_early=futile(comparison, counts))
    out["advice"] = advice(out, {name: stats.get(name, {}) for name in (new, base)})
    out["faulted"] = faulted(store, tournament, comparison)
    if out["faulted"] is not None and comparison.sprt is not None:
        out["verdict"] = FAULTED  # a side that mostly faults loses or draws every pair: the test measures its fault
    return out


def faulted(store: Store, tournament: Tournament, comparison: TournamentSpec) -> dict[str, Any] | None:
    """NEW or BASE if it faulted in most of its games (FAULT_SAMPLE at least): {"bot", "share" of its games with a
    fault, "fault": its first fault's kind and detail}; else None. Such a comparison has no verdict, and stops."""
    stats = store.bot_stats(tournament.id)
    for name in comparison.names()[:2]:
        played = stats.get(name, {})
        if played.get("games", 0) >= FAULT_SAMPLE and played.get("fault_rate", 0.0) > 0.5:
            first = next((" ".join(f"{kind}: {detail}".split())
                          for _, _, _, bot, _, kind, detail, _ in store.fault_rows(tournament.id) if bot == name), "")
            return {"bot": name, "share": played["fault_rate"], "fault": first}
    return None


def pairs_cap(comparison: TournamentSpec) -> int | None:
    """The most pairs the comparison plays (its --max-games in pairs), None if it has no cap."""
    return None if comparison.max_games is None else -(-comparison.max_games // GAMES_PER_PAIR)


def advice(out: dict[str, Any], stats: dict[str, dict[str, float]]) -> str | None:
    """What to try when drawn pairs keep the test from deciding: opponents that leave outcomes open, from how
    often NEW and BASE won their games; None once decided or while draws do not dominate."""
    pairs, draws = out["pairs"], out["draws"]
    if out["verdict"] != Verdict.UNDECIDED.value or not pairs or draws < ADVICE_DRAWS * pairs:
        return None
    won = {name: s["wins"] / s["games"] for name, s in stats.items() if s.get("games")}
    shares = " and ".join(f"{name} won {100 * share:.0f}%" for name, share in won.items())
    head = (f"{100 * draws / pairs:.0f}% of the pairs were draws ({shares} of their games against "
            f"{', '.join(out['opponents'])}): both versions end most deals alike")
    if won and max(won.values()) <= LOPSIDED:
        return (f"{head}, losing them; try weaker opponents, which leave outcomes open: "
                f"--opponents 'python3 -m sample_bots.random_bot'")
    if won and min(won.values()) >= 1 - LOPSIDED:
        return (f"{head}, winning them; try stronger opponents: "
                f"--opponents 'python3 -m sample_bots.search_bot'")
    return f"{head}: the difference, if any, is small; --games N gives an estimate with its interval"

