"""The rules of bali-2001: setup, legal choices and their effects (README.md, rules §6-§22 and §24).

Every function here works on a State and the State's own seeded RNG; nothing here does I/O.
A decision with a single legal choice is never asked: the state applies it at once and logs it like any other.
"""

from __future__ import annotations

from typing import Any, Callable

from arena.games.bali2001.cards import (
    ACTIVE_DRAW,
    CARD_TYPE,
    COURT_PLAYS,
    DALANG_TYPES,
    DECK_SIZE,
    EXCHANGE_LIMIT,
    FLEE_KEEP,
    ISLAND_NAMES,
    ISLANDS,
    KIND_NAMES,
    NUM_START_CARDS,
    PASSIVE_DRAW,
    SCORING_PICKUP,
    SETUP_PILE_SIZE,
    TYPE_ISLANDS,
    Kind,
    card_dict,
    type_kind,
)
from arena.games.bali2001.state import Act, Action, Pending, Phase, State
from arena.games.base import GameInvariantError, GameResult, competition_ranks, seat_or_none

_WARRIOR, _SCHOLAR, _ARTIST = int(Kind.WARRIOR), int(Kind.SCHOLAR), int(Kind.ARTIST)
_PRIEST, _PRINCE = int(Kind.PRIEST), int(Kind.PRINCE)


# --- setup (rules §6-§9) ---------------------------------------------------------------------------------------------
def setup(s: State) -> None:
    """Lay out a new game on an empty state: piles dealt, start cards dealt, chips placed, first turn begun."""
    num_players, options, rng = s.num_players, s.opts, s.rng
    deck = list(range(DECK_SIZE))
    rng.shuffle(deck)
    for island in ISLANDS:
        for _ in range(SETUP_PILE_SIZE):
            for seat in range(num_players):
                s.piles[seat][island].append(deck.pop())
                s.known[seat][island].append(False)
    s.draw_pile = deck
    numbers = list(range(1, NUM_START_CARDS + 1))
    rng.shuffle(numbers)
    s.start_cards = numbers[:num_players]
    s.start_player = s.start_cards.index(min(s.start_cards))
    for seat, number in enumerate(s.start_cards):
        card = options.start_cards[number - 1]
        s.prince[card.prince] = seat
        s.priest[card.priest] = seat
    right_of_start = (s.start_player - 1) % num_players
    s.dalang = int(options.start_cards[s.start_cards[right_of_start] - 1].dalang)
    s.active = s.start_player
    s.log_event({"type": "setup", "start_cards": list(s.start_cards), "start_player": s.start_player,
             "dalang": ISLAND_NAMES[s.dalang]})
    for seat in range(num_players):
        _pick_up(s, seat, s.dalang, keep=None)
    _begin_turn(s, s.start_player)


# --- legal choices ---------------------------------------------------------------------------------------------------
def legal_actions(s: State) -> list[Action]:
    """The legal choices of the pending decision, the default first."""
    return _LEGAL[s.pending.phase](s)


def _turn_actions(s: State) -> list[Action]:
    counts = s.type_counts(s.active)
    acts = [Action(Act.END_TURN)]
    for t in COURT_PLAYS:
        if counts[t] == 0:
            continue
        if t == _WARRIOR and not s.present_passives():
            continue
        if t in (_PRIEST, _PRINCE) and counts[t] < 2:
            continue
        acts.append(Action(Act.PLAY, ctype=t))
    for t in DALANG_TYPES:
        if counts[t]:
            acts += [Action(Act.PLAY, ctype=t, island=i) for i in TYPE_ISLANDS[t] if i != s.dalang]
    return acts


def _exempt_actions(s: State) -> list[Action]:
    return [Action(Act.EXEMPT, seat=seat) for seat in s.present_passives()]


def _challenge_actions(s: State) -> list[Action]:
    warriors = s.type_counts(s.pending.seat)[_WARRIOR]
    acts = [Action(Act.FLEE)]
    if warriors >= 1:
        acts.append(Action(Act.DEFEND))
    if warriors >= 2 and not s.pending.turn_ended:
        acts.append(Action(Act.DEFEND_AND_END))
    return acts


def _place_actions(s: State, seat: int) -> list[Action]:
    counts = s.type_counts(seat)
    return [Action(Act.PLACE, ctype=t, island=i)
            for t, c in enumerate(counts) if c for i in ISLANDS if i != s.dalang]


def _flee_actions(s: State) -> list[Action]:
    return _place_actions(s, s.pending.seat)


def _scholar_actions(s: State) -> list[Action]:
    p = s.pending
    acts = [Action(Act.STOP)]
    if p.mode != Act.TAKE:
        acts += _place_actions(s, p.seat)
    if p.mode != Act.PLACE:
        piles = s.piles[p.seat]
        acts += [Action(Act.TAKE, island=i) for i in ISLANDS if i != s.dalang and piles[i]]
    return acts


def _artist_actions(s: State) -> list[Action]:
    counts = s.type_counts(s.pending.seat)
    return [Action(Act.STOP)] + [Action(Act.DISCARD, ctype=t) for t, c in enumerate(counts) if c]


def _react_actions(s: State) -> list[Action]:
    p = s.pending
    acts = [Action(Act.PASS)]
    if s.type_counts(p.seat)[p.ctype]:
        acts.append(Action(Act.PLAY, ctype=p.ctype))
    return acts


def _end_offer_actions(s: State) -> list[Action]:
    p = s.pending
    acts = [Action(Act.DECLINE)]
    if not p.turn_ended and s.type_counts(p.seat)[p.ctype]:
        acts.append(Action(Act.PLAY_SECOND, ctype=p.ctype))
    return acts


def _contest_open_actions(s: State) -> list[Action]:
    have = s.type_counts(s.active)[s.pending.ctype]
    return [Action(Act.SHOW, count=k) for k in range(1, have + 1)]


def _contest_respond_actions(s: State) -> list[Action]:
    p = s.pending
    have = s.type_counts(p.seat)[p.ctype]
    return [Action(Act.PASS)] + [Action(Act.SHOW, count=m) for m in range(p.high + 1, have + 1)]


def _block_actions(s: State) -> list[Action]:
    p = s.pending
    counts = s.type_counts(p.seat)
    return [Action(Act.PASS)] + [Action(Act.BLOCK, ctype=t) for t in DALANG_TYPES
                                 if counts[t] and p.island in TYPE_ISLANDS[t]]


def _arrange_actions(s: State) -> list[Action]:
    counts = s.type_counts(s.pending.seat)
    return [Action(Act.ARRANGE, ctype=t) for t, c in enumerate(counts) if c]


def _no_actions(s: State) -> list[Action]:
    return []


_LEGAL = {
    Phase.TURN: _turn_actions, Phase.WARRIOR_EXEMPT: _exempt_actions, Phase.CHALLENGE: _challenge_actions,
    Phase.FLEE: _flee_actions, Phase.SCHOLAR: _scholar_actions, Phase.ARTIST: _artist_actions,
    Phase.REACT: _react_actions, Phase.END_OFFER: _end_offer_actions, Phase.CONTEST_OPEN: _contest_open_actions,
    Phase.CONTEST_RESPOND: _contest_respond_actions, Phase.BLOCK: _block_actions, Phase.ARRANGE: _arrange_actions,
    Phase.OVER: _no_actions,
}


# --- applying a choice -----------------------------------------------------------------------------------------------
def apply_one(s: State, action: Action) -> None:
    """Apply one legal action of the pending decision (the state applies the forced ones that follow)."""
    _APPLY[s.pending.phase](s, action)


def _on_turn(s: State, a: Action) -> None:
    seat = s.active
    if a.act == Act.END_TURN:
        s.log_event({"type": "end_turn", "seat": seat})
        _end_turn(s)
        return
    _play(s, seat, a.ctype, target=a.island)
    kind = int(type_kind(a.ctype))
    s.pending = Pending(phase=Phase.TURN, seat=seat, ctype=a.ctype)
    if kind == _WARRIOR:
        s.pending.phase = Phase.WARRIOR_EXEMPT
    elif kind in (_SCHOLAR, _ARTIST):
        s.pending.phase = Phase.SCHOLAR if kind == _SCHOLAR else Phase.ARTIST
    elif kind in (_PRIEST, _PRINCE):
        s.pending.phase = Phase.CONTEST_OPEN
    else:
        s.pending.island = a.island
        s.pending.queue = s.present_passives()
        _next_blocker(s)


def _on_exempt(s: State, a: Action) -> None:
    s.log_event({"type": "exempt", "seat": s.active, "exempt": a.seat})
    s.pending.queue = [seat for seat in s.present_passives() if seat != a.seat]
    _next_challenged(s)


def _ask_next(s: State, phase: Phase, when_done: Callable[[State], None]) -> None:
    """Ask the next seat of the queue for a decision of this phase; with no one left, go on with when_done."""
    p = s.pending
    if p.queue:
        p.phase, p.seat = phase, p.queue.pop(0)
    else:
        when_done(s)


def _next_challenged(s: State) -> None:
    _ask_next(s, Phase.CHALLENGE, _after_card)


def _on_challenge(s: State, a: Action) -> None:
    p = s.pending
    seat = p.seat
    if a.act == Act.FLEE:
        s.log_event({"type": "flee", "seat": seat})
        p.remaining = min(FLEE_KEEP, len(s.hands[seat]))
        p.phase = Phase.FLEE
        if p.remaining == 0:
            _finish_flee(s)
        return
    _play(s, seat, _WARRIOR)
    s.log_event({"type": "defend", "seat": seat})
    if a.act == Act.DEFEND_AND_END:
        _play(s, seat, _WARRIOR)
        _force_end(s, seat)
    _next_challenged(s)


def _on_flee(s: State, a: Action) -> None:
    p = s.pending
    _place(s, p.seat, a.ctype, a.island)
    p.remaining -= 1
    if p.remaining == 0:
        _finish_flee(s)


def _finish_flee(s: State) -> None:
    seat = s.pending.seat
    rest, s.hands[seat] = s.hands[seat], []
    _discard_cards(s, seat, rest)
    s.absent[seat] = True
    _next_challenged(s)


def _on_scholar(s: State, a: Action) -> None:
    p = s.pending
    if a.act == Act.STOP:
        _finish_exchange(s)
        return
    if a.act == Act.PLACE:
        _place(s, p.seat, a.ctype, a.island)
    else:
        _take(s, p.seat, a.island)
    p.mode = int(a.act)
    p.done += 1
    if p.done == EXCHANGE_LIMIT:
        _finish_exchange(s)


def _on_artist(s: State, a: Action) -> None:
    p = s.pending
    if a.act == Act.DISCARD:
        _discard_cards(s, p.seat, [_remove_type(s, p.seat, a.ctype)])
        p.done += 1
        if p.done < EXCHANGE_LIMIT:
            return
    if p.done:
        _draw(s, p.seat, p.done)
    _finish_exchange(s)


def _finish_exchange(s: State) -> None:
    p = s.pending
    p.done, p.mode = 0, -1
    if p.seat == s.active:
        p.queue = s.present_passives()
        _next_reactor(s)
    else:
        p.phase = Phase.END_OFFER


def _next_reactor(s: State) -> None:
    _ask_next(s, Phase.REACT, _after_card)


def _on_react(s: State, a: Action) -> None:
    p = s.pending
    if a.act == Act.PASS:
        s.log_event({"type": "pass", "seat": p.seat})
        _next_reactor(s)
        return
    _play(s, p.seat, p.ctype)
    p.phase = Phase.SCHOLAR if p.ctype == _SCHOLAR else Phase.ARTIST


def _on_end_offer(s: State, a: Action) -> None:
    p = s.pending
    if a.act == Act.PLAY_SECOND:
        _play(s, p.seat, p.ctype)
        _force_end(s, p.seat)
    _next_reactor(s)


def _on_contest_open(s: State, a: Action) -> None:
    p = s.pending
    _show(s, s.active, a.count)
    p.queue = s.present_passives()
    _next_responder(s)


def _on_contest_respond(s: State, a: Action) -> None:
    p = s.pending
    if a.act == Act.PASS:
        s.log_event({"type": "pass", "seat": p.seat})
    else:
        _show(s, p.seat, a.count)
    _next_responder(s)


def _show(s: State, seat: int, count: int) -> None:
    p = s.pending
    p.high, p.high_seat = count, seat
    s.log_event({"type": "show", "seat": seat, "kind": KIND_NAMES[p.ctype], "count": count})


def _next_responder(s: State) -> None:
    _ask_next(s, Phase.CONTEST_RESPOND, _resolve_contest)


def _resolve_contest(s: State) -> None:
    """The highest count shown takes the chip; both chips in one village take the seal (rules §18-§19)."""
    p = s.pending
    chips = s.priest if p.ctype == _PRIEST else s.prince
    island = s.dalang
    before = chips[island]
    chips[island] = p.high_seat
    s.log_event({"type": "chip", "chip": KIND_NAMES[p.ctype], "island": ISLAND_NAMES[island],
             "seat": p.high_seat, "from": seat_or_none(before)})
    owner = s.prince[island]
    if owner >= 0 and owner == s.priest[island] and s.seals[island] != owner:
        s.log_event({"type": "seal", "island": ISLAND_NAMES[island], "seat": owner,
                    "from": seat_or_none(s.seals[island])})
        s.seals[island] = owner
    _after_card(s)


def _next_blocker(s: State) -> None:
    _ask_next(s, Phase.BLOCK, _move_dalang)


def _on_block(s: State, a: Action) -> None:
    p = s.pending
    if a.act == Act.PASS:
        s.log_event({"type": "pass", "seat": p.seat})
        _next_blocker(s)
        return
    _play(s, p.seat, a.ctype)
    s.log_event({"type": "block", "seat": p.seat, "target": ISLAND_NAMES[p.island]})
    _after_card(s)


def _move_dalang(s: State) -> None:
    p = s.pending
    left, target = s.dalang, p.island
    s.log_event({"type": "dalang_move", "from": ISLAND_NAMES[left], "to": ISLAND_NAMES[target]})
    s.dalang = target
    s.pending = Pending(phase=Phase.ARRANGE, island=left, queue=s.clockwise_from(s.active))
    _next_arranger(s)


def _next_arranger(s: State) -> None:
    p = s.pending
    while p.queue:
        p.seat, p.done = p.queue.pop(0), 0
        if s.hands[p.seat]:
            return
        s.log_event({"type": "pile_down", "seat": p.seat, "island": ISLAND_NAMES[p.island], "count": 0})
    _arrival(s, left=p.island)


def _on_arrange(s: State, a: Action) -> None:
    p = s.pending
    seat = p.seat
    card = _remove_type(s, seat, a.ctype)
    s.piles[seat][p.island].append(card)
    s.known[seat][p.island].append(True)
    p.done += 1
    if s.hands[seat]:
        return
    pile = s.piles[seat][p.island]
    s.log_event({"type": "pile_down", "seat": seat, "island": ISLAND_NAMES[p.island], "count": p.done},
         seat, {"cards": [card_dict(c) for c in pile]})
    _next_arranger(s)


def _arrival(s: State, left: int) -> None:
    """Rules §21 after every hand is down: check scoring, pick up, and go on or end the turn."""
    island, a = s.dalang, s.active
    chips = (s.prince[island], s.priest[island])
    scored = a in chips
    if scored:
        other = next((c for c in chips if c not in (a, -1)), -1)
        awards: list[tuple[int, int]] = []
        if other >= 0 and len(s.masks_left) >= 2:
            awards.append((other, s.masks_left.pop(0)))
        awards.append((a, s.masks_left.pop(0)))
        for seat, value in awards:
            s.masks_won[seat].append(value)
        s.log_event({"type": "scoring", "island": ISLAND_NAMES[island], "seat": a,
                 "masks": [{"seat": seat, "value": value} for seat, value in awards],
                 "masks_left": len(s.masks_left)})
    for seat in s.clockwise_from(a):
        _pick_up(s, seat, island, keep=SCORING_PICKUP if scored else None)
    s.absent = [False] * s.num_players
    if not scored:
        s.pending = Pending(phase=Phase.TURN, seat=a)
    elif not s.masks_left:
        s.ender = a
        _game_over(s, "the last mask was handed out")
    else:
        _end_turn(s)


# --- turns (rules §10-§11) -------------------------------------------------------------------------------------------
def _begin_turn(s: State, seat: int) -> None:
    if s.turn >= s.opts.max_turns:
        s.cut_short = True
        _game_over(s, f"max_turns ({s.opts.max_turns}) reached")
        return
    s.turn += 1
    s.active = seat
    s.absent = [False] * s.num_players
    s.log_event({"type": "turn", "turn": s.turn, "seat": seat})
    _draw(s, seat, ACTIVE_DRAW)
    for other in s.clockwise_from(seat)[1:]:
        _draw(s, other, PASSIVE_DRAW)
    s.pending = Pending(phase=Phase.TURN, seat=seat)


def _end_turn(s: State) -> None:
    _begin_turn(s, (s.active + 1) % s.num_players)


def _after_card(s: State) -> None:
    if s.pending.turn_ended:
        _end_turn(s)
    else:
        s.pending = Pending(phase=Phase.TURN, seat=s.active)


def _force_end(s: State, seat: int) -> None:
    s.pending.turn_ended = True
    s.log_event({"type": "turn_ended_by", "seat": seat, "active": s.active})
    _draw(s, seat, 1)


def _game_over(s: State, reason: str) -> None:
    s.pending = Pending(phase=Phase.OVER, seat=-1)
    s.end_reason = reason
    r = game_result(s)
    s.log_event({"type": "game_over", "reason": reason, "scores": list(r.scores), "ranks": list(r.ranks)})


def game_result(s: State) -> GameResult:
    """Scores and ranks (rules §22; no tie-break when cut short, rules §24)."""
    scores = [s.score(seat) for seat in range(s.num_players)]
    top = max(scores)
    keys = [(score, 1 if seat == s.ender and score == top and not s.cut_short else 0)
            for seat, score in enumerate(scores)]
    return GameResult(tuple(scores), competition_ranks(keys), s.end_reason, s.cut_short)


# --- card movements --------------------------------------------------------------------------------------------------
def _remove_type(s: State, seat: int, ctype: int) -> int:
    hand = s.hands[seat]
    for i, card in enumerate(hand):
        if CARD_TYPE[card] == ctype:
            return hand.pop(i)
    raise GameInvariantError(f"seat {seat} holds no card of type {ctype}")


def _play(s: State, seat: int, ctype: int, target: int = -1) -> int:
    card = _remove_type(s, seat, ctype)
    s.discard.append(card)
    event: dict[str, Any] = {"type": "play", "seat": seat, "card": card_dict(card)}
    if target >= 0:
        event["target"] = ISLAND_NAMES[target]
    s.log_event(event)
    return card


def _discard_cards(s: State, seat: int, cards: list[int]) -> None:
    """Put cards that seat no longer holds face up on the discard pile."""
    if not cards:
        return
    s.discard.extend(cards)
    s.log_event({"type": "discard", "seat": seat, "cards": [card_dict(c) for c in cards]})


def _place(s: State, seat: int, ctype: int, island: int) -> None:
    card = _remove_type(s, seat, ctype)
    s.piles[seat][island].append(card)
    s.known[seat][island].append(True)
    s.log_event({"type": "place", "seat": seat, "pile": ISLAND_NAMES[island]}, seat, {"card": card_dict(card)})


def _take(s: State, seat: int, island: int) -> None:
    card = s.piles[seat][island].pop()
    s.known[seat][island].pop()
    s.hands[seat].append(card)
    s.log_event({"type": "take", "seat": seat, "pile": ISLAND_NAMES[island]}, seat, {"card": card_dict(card)})


def _pick_up(s: State, seat: int, island: int, keep: int | None) -> None:
    pile = s.piles[seat][island]
    kept = pile if keep is None else pile[:keep]
    rest = [] if keep is None else pile[keep:]
    s.hands[seat].extend(kept)
    s.piles[seat][island] = []
    s.known[seat][island] = []
    s.log_event({"type": "pick_up", "seat": seat, "island": ISLAND_NAMES[island], "count": len(kept)},
         seat, {"cards": [card_dict(c) for c in kept]})
    if rest:
        s.discard.extend(rest)
        s.log_event({"type": "discard", "seat": seat, "cards": [card_dict(c) for c in rest]})


def _draw(s: State, seat: int, count: int) -> None:
    drawn: list[int] = []
    for _ in range(count):
        if not s.draw_pile:
            if not s.discard:
                break
            s.draw_pile, s.discard = s.discard, []
            s.rng.shuffle(s.draw_pile)
            s.log_event({"type": "reshuffle", "count": len(s.draw_pile)})
        drawn.append(s.draw_pile.pop())
    s.hands[seat].extend(drawn)
    s.log_event({"type": "draw", "seat": seat, "count": len(drawn)}, seat, {"cards": [card_dict(c) for c in drawn]})


_APPLY = {
    Phase.TURN: _on_turn, Phase.WARRIOR_EXEMPT: _on_exempt, Phase.CHALLENGE: _on_challenge, Phase.FLEE: _on_flee,
    Phase.SCHOLAR: _on_scholar, Phase.ARTIST: _on_artist, Phase.REACT: _on_react, Phase.END_OFFER: _on_end_offer,
    Phase.CONTEST_OPEN: _on_contest_open, Phase.CONTEST_RESPOND: _on_contest_respond, Phase.BLOCK: _on_block,
    Phase.ARRANGE: _on_arrange,
}
