"""Replays: re-simulate a game record through its engine, check that it reproduces, and show it."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterator

from arena.errors import FaultKind, ReplayError
from arena.games import Game, GameError, State, get_game
from arena.match.record import DecisionRecord, GameRecord, Phase, ordinal
from arena.match.wire import SeatClock, decide_request, game_over_request, match_ranks, new_game_request
from protocol import Message

Visit = Callable[[State, int, DecisionRecord], None]
LOG_LINE = "      | "  # the mark before each line a bot wrote, under its decision


@dataclass(frozen=True)
class AskedDecision:
    """A decision a bot was asked for: its number in the game (from 0), the bot's own count of the decide
    requests it was sent (from 1), and the record of its answer."""

    number: int
    asked: int
    record: DecisionRecord


@dataclass(frozen=True)
class Reproduction:
    """The replayed final state, and every way in which the replay differs from the record."""

    state: State
    problems: tuple[str, ...]

    @property
    def reproduces(self) -> bool:
        """True if the replay matches the record in every decision and in the result."""
        return not self.problems


def record_game(record: GameRecord) -> Game:
    """The game a record was played with; ReplayError if it is not registered."""
    try:
        return get_game(record.game)
    except GameError as exc:
        raise ReplayError(str(exc)) from None


def new_state(record: GameRecord) -> State:
    """The record's game at its start; ReplayError if its setup is not valid."""
    try:
        return record_game(record).new_state(record.num_players, record.seed, record.options)
    except GameError as exc:
        raise ReplayError(f"the record's setup is not valid: {exc}") from None


def resimulate(record: GameRecord, visit: Visit | None = None) -> Reproduction:
    """Play the recorded decisions again; `visit` sees the state before each one is applied."""
    state = new_state(record)
    problems = _replay_decisions(record, state, visit)
    if not problems:
        problems = _compare_result(record, state)
    return Reproduction(state, tuple(problems))


def _out_at_new_game(record: GameRecord) -> set[int]:
    """The seats whose game clock ran out at new_game, or whose new_game timed out: asked no decision."""
    return {f.seat for f in record.faults if f.phase == Phase.NEW_GAME and f.kind in (FaultKind.CLOCK,
                                                                                         FaultKind.TIMEOUT)}


def _replay_decisions(record: GameRecord, state: State, visit: Visit | None) -> list[str]:
    disqualified = record.earned_disqualifications()
    if disqualified != set(record.disqualified):
        return [f"the faults disqualify seats {sorted(disqualified)}, but the record says {list(record.disqualified)}"]
    out_of_clock = _out_at_new_game(record)  # seats whose game clock ran out: asked nothing more
    for number, d in enumerate(record.decisions):
        seat = state.current_player()
        if seat is None:
            return [f"the game is over after {number} decisions, but the record has {len(record.decisions)}"]
        if seat != d.seat:
            return [f"decision #{number}: seat {seat} is to move, but the record says seat {d.seat}"]
        if d.time is None and d.seat not in disqualified | out_of_clock:
            return [f"decision #{number}: seat {d.seat} was not asked, but it was not disqualified"]
        if d.fault == FaultKind.CLOCK:
            out_of_clock.add(d.seat)
        if (d.fault is not None or d.time is None) and d.index != 0:
            return [f"decision #{number}: a fault or a disqualified seat plays the default (0), "
                    f"but the record says {d.index}"]
        if visit is not None:
            visit(state, number, d)
        try:
            state.apply(d.index)
        except GameError as exc:
            return [f"decision #{number} (seat {seat}, index {d.index}) cannot be applied: {exc}"]
    if not state.is_terminal():
        return [f"the game is not over after the {len(record.decisions)} recorded decisions"]
    return []


def _compare_result(record: GameRecord, state: State) -> list[str]:
    problems = []
    result = state.result()
    if result != record.result:
        problems.append(f"the result differs: replayed {result.to_dict()}, recorded {record.result.to_dict()}")
    ranks = match_ranks(result.ranks, frozenset(record.disqualified))
    if ranks != record.ranks:
        problems.append(f"the match ranks differ: replayed {list(ranks)}, recorded {list(record.ranks)}")
    return problems


def seat_messages(record: GameRecord, seat: int) -> Iterator[Message]:
    """Exactly the messages the seat's bot was sent during the game, ids and clocks included."""
    return (message for message, _ in seat_transcript(record, seat))


def seat_transcript(record: GameRecord, seat: int) -> Iterator[tuple[Message, AskedDecision | None]]:
    """The messages the seat's bot was sent, each decide request with the decision it asked for (its number in
    the game, the bot's own count, and the record of the answer: time, fault, log)."""
    if not 0 <= seat < record.num_players:
        raise ReplayError(f"seat must be from 0 to {record.num_players - 1}, got {seat}")
    info = record.seats[seat]
    if info.first_request is None:
        return
    game = record_game(record)
    next_id = info.first_request
    yield _with_id(new_game_request(game, record.options, record.game_index, seat, record.num_players, info.seed,
                                    record.time), next_id), None
    clock, since, sent = SeatClock(record.time), 0, []
    clock.spend(info.new_game_charged)  # its new_game's time beyond the allowance, before its first decision

    def collect(state: State, number: int, d: DecisionRecord) -> None:
        nonlocal since
        if d.seat == seat and d.time is not None:
            request = decide_request(state, seat, since, record.game_index, clock.clock())
            sent.append((request, AskedDecision(number, len(sent) + 1, d)))
            since = state.num_events()
            clock.charge(d.time, d.fault == FaultKind.TIMEOUT, d.spent)

    final = resimulate(record, collect).state
    for request, asked in sent:
        next_id += 1
        yield _with_id(request, next_id), asked
    if info.game_over_sent:
        yield _with_id(game_over_request(final, seat, since, record.game_index, record.outcome), next_id + 1), None


def _with_id(message: Message, request_id: int) -> Message:
    return replace(message, id=request_id)


def turn_lines(record: GameRecord, referee: bool = False) -> Iterator[str]:
    """The game turn by turn: the log (as a spectator sees it, or everything with referee), every decision
    with who chose what and how long it took, and every fault."""
    game = record_game(record)
    names = [f"seat {s.seat} ({s.label})" for s in record.seats]
    faults = {f.decision: f for f in record.faults if f.decision is not None}
    asked = [0] * record.num_players  # each bot's own count of the decide requests it was sent
    out_of_clock = _out_at_new_game(record)
    late = {f.seat for f in record.faults if f.phase == Phase.NEW_GAME and f.kind == FaultKind.TIMEOUT}
    shown = 0
    lines: list[str] = []

    def visit(state: State, number: int, d: DecisionRecord) -> None:
        nonlocal shown
        events = state.referee_events(shown) if referee else state.events(None, shown)
        lines.extend(game.format_event(e) for e in events)
        shown = state.num_events()
        options = state.options()
        who = names[d.seat]
        if d.time is not None or d.fault is not None:
            asked[d.seat] += 1
            who += f", its {ordinal(asked[d.seat])}"
        why = "new_game not answered in time" if d.seat in late else "out of game clock" \
            if d.seat in out_of_clock else "disqualified"
        lines.append(_decision_line(who, number, d, options[d.index] if d.index < len(options) else None, why))
        lines.extend(log_lines(d))
        if d.fault == FaultKind.CLOCK:
            out_of_clock.add(d.seat)
        if number in faults:
            lines.append(f"    ! {faults[number].message()}")

    reproduction = resimulate(record, visit)
    yield from lines
    final = reproduction.state
    events = final.referee_events(shown) if referee else final.events(None, shown)
    yield from (game.format_event(e) for e in events)


def log_lines(d: DecisionRecord) -> list[str]:
    """What the bot wrote to stderr while deciding, a line each under the mark (any character that is not
    printable shown as '?', so that no escape sequence reaches a terminal), and how much was not kept."""
    lines = [LOG_LINE + "".join(c if c.isprintable() else "?" for c in line) for line in d.log.splitlines()]
    if d.log_dropped:
        lines.append(f"{LOG_LINE}[{d.log_dropped} more bytes not kept]")
    return lines


def _decision_line(who: str, number: int, d: DecisionRecord, option: dict[str, Any] | None,
                   why: str = "disqualified") -> str:
    chosen = json.dumps(option, separators=(", ", ": ")) if option is not None else "(no such option)"
    if d.time is None:
        return f"  #{number} {who}: {d.index} {chosen} ({why}: default played)"
    if d.fault is not None:
        return f"  #{number} {who}: {d.index} {chosen} (fault {d.fault.value}: default played)"
    return f"  #{number} {who}: {d.index} {chosen} in {took(d)}"


def took(d: DecisionRecord) -> str:
    """The time a decision took on the wall clock, and what it was charged of it where that was measured."""
    wall = "no answer" if d.time is None else f"{d.time * 1000:.1f} ms"
    if d.charged is not None:
        waited = "" if d.wait is None else f", {d.wait * 1000:.1f} ms waiting for a core"
        return f"{wall} (charged {d.charged * 1000:.1f} ms{waited})"
    return wall if d.cpu is None else f"{wall} (CPU {d.cpu * 1000:.1f} ms)"
