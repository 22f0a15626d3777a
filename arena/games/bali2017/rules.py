"""The rules of bali-2017: setup, legal choices and their effects (README.md, rules §6-§17).

Every function here works on a State and the State's own seeded RNG; nothing here does I/O.
A decision with a single legal choice is never asked: the state applies it at once and logs it like any other.
"""

from __future__ import annotations

from typing import Any

from arena.games.bali2017.cards import (
    ALTAR_VALUES,
    BONUS_MINIMUM,
    BUY_BASE_COST,
    DECK_CARDS,
    EXTRA_FARMER_COST,
    FARMERS,
    FIRST_STONES,
    GAME_END,
    HAND_SIZE,
    KIND_NAMES,
    MAX_FARMERS_PLAYED,
    MAX_PLAYERS,
    NUM_KINDS,
    NUM_ROWS,
    OFFERING_NAMES,
    OFFERING_TYPE,
    OFFERINGS_PER_TYPE,
    ORACLE_CARDS,
    ORACLE_LOOK,
    PLAY_ORDER,
    ROW_SIZE,
    SHRINE_COST,
    SHRINE_POINTS,
    STONES_PER_POINT,
    TYPES,
    Kind,
)
from arena.games.bali2017.state import Act, Action, Pending, Phase, State
from arena.games.base import GameInvariantError, GameResult, competition_ranks, seat_or_none

_STONEMASON, _PRIEST, _SHRINE, _ORACLE = int(Kind.STONEMASON), int(Kind.PRIEST), int(Kind.SHRINE), int(Kind.ORACLE)
_PLAY_RANK = {kind: rank for rank, kind in enumerate(PLAY_ORDER)}
_PLAYS = tuple(Action(Act.PLAY, kind=kind, cost=SHRINE_COST if kind == _SHRINE else 0) for kind in PLAY_ORDER)
# Every action that does not depend on counts, built once.
_SKIP, _STOP = Action(Act.SKIP), Action(Act.STOP)
_BUYS = tuple(tuple(Action(Act.BUY, kind=t, cost=cost) for cost in range(BUY_BASE_COST + 1)) for t in TYPES)
_EXTRA_FARMERS = tuple(Action(Act.PLAY, kind=t, cost=EXTRA_FARMER_COST) for t in FARMERS)
_OFFERS = tuple(Action(Act.OFFER, kind=t) for t in TYPES)
_SUBSTITUTES = tuple(Action(Act.SUBSTITUTE, kind=t) for t in TYPES)
_TAKES = tuple(tuple(Action(Act.TAKE, kind=kind, row=row) for kind in range(NUM_KINDS)) for row in range(NUM_ROWS))


# --- setup (rules §6-§9) ---------------------------------------------------------------------------------------------
def setup(s: State) -> None:
    """Lay out a new game on an empty state: start sets, offering displays, altar, rows and stones; seat 0 to move."""
    n, options, rng = s.num_players, s.opts, s.rng
    for seat in range(n):
        stonemason, *farmers = s.start_set(seat)
        s.add_to_display(seat, stonemason)
        s.hands[seat] = farmers
    s.box = [card for seat in range(n, MAX_PLAYERS) for card in s.start_set(seat)]
    s.supply = [list(range(t * OFFERINGS_PER_TYPE, (t + 1) * OFFERINGS_PER_TYPE)) for t in TYPES]
    for seat in range(n):
        s.offerings[seat] = [s.supply[t].pop() for t in TYPES]
        for viewer in _others(s, seat):
            s.offer_known[viewer][seat] = [1] * len(TYPES)
    if options.oracle:
        start_altar = [s.supply[t].pop() for t in TYPES]
        rng.shuffle(start_altar)
        for card in start_altar:
            _push_altar(s, card, face_up=False, placer=-1)
    deck = list(DECK_CARDS)
    rng.shuffle(deck)
    s.rows = [[deck.pop() for _ in range(ROW_SIZE)] for _ in range(NUM_ROWS)]
    if options.oracle:
        deck += ORACLE_CARDS
        rng.shuffle(deck)
    s.deck = deck
    s.demon = 0 if options.demon else -1
    s.stones = [FIRST_STONES + seat for seat in range(n)]
    s.log_event({"type": "setup", "players": n, "oracle": options.oracle, "demon": seat_or_none(s.demon),
             "stones": list(s.stones), "rows": [_kind_names(s, row) for row in s.rows], "deck": len(s.deck),
             "altar": len(s.altar)})
    for seat in range(n):
        s.log_event({"type": "deal", "seat": seat, "count": len(s.hands[seat])}, seat,
             {"cards": _kind_names(s, s.hands[seat])})
    _begin_turn(s, 0)


# --- legal choices ---------------------------------------------------------------------------------------------------
def legal_actions(s: State) -> list[Action]:
    """The legal choices of the pending decision, the default first."""
    return _LEGAL[s.pending.phase](s)


def buy_cost(s: State, seat: int, offering: int) -> int:
    """What one offering card of a type costs seat (rules §10)."""
    return max(0, BUY_BASE_COST - s.count_kind(seat, offering))


def _buy_actions(s: State) -> list[Action]:
    seat = s.active
    acts = [_SKIP]
    for t in TYPES:
        if s.supply[t]:
            cost = buy_cost(s, seat, t)
            if cost <= s.stones[seat]:
                acts.append(_BUYS[t][cost])
    return acts


def _playable(s: State, seat: int) -> list[Action]:
    kinds = s.kinds
    in_hand = sorted({_PLAY_RANK[kinds[card]] for card in s.hands[seat]})
    plays = [_PLAYS[rank] for rank in in_hand]
    if plays and plays[-1].kind == _SHRINE and s.stones[seat] < SHRINE_COST:
        plays.pop()
    return plays


def _play_actions(s: State) -> list[Action]:
    return _playable(s, s.active)


def _more_farmers_actions(s: State) -> list[Action]:
    p, seat = s.pending, s.active
    acts = [_STOP]
    if (p.count < MAX_FARMERS_PLAYED and s.stones[seat] >= EXTRA_FARMER_COST
            and any(s.kinds[card] == p.kind for card in s.hands[seat])):
        acts.append(_EXTRA_FARMERS[p.kind])
    return acts


def _return_actions(s: State) -> list[Action]:
    in_hand = sorted({s.kinds[card] for card in s.hands[s.active]})
    return [Action(Act.RETURN, kind=kind) for kind in in_hand]


def _own_offering_actions(s: State) -> list[Action]:
    counts = s.offering_counts(s.pending.seat)
    return [_OFFERS[t] for t in TYPES if counts[t]]


def _supply_offering_actions(s: State) -> list[Action]:
    return [_OFFERS[t] for t in TYPES if s.supply[t]]


def _take_actions(s: State) -> list[Action]:
    kinds, demon = s.kinds, s.demon
    return [_TAKES[r][kinds[row[-1]]] for r, row in enumerate(s.rows) if row and r != demon]


def _oracle_actions(s: State) -> list[Action]:
    altar = s.altar
    return [Action(Act.PICK, kind=OFFERING_TYPE[altar[-1 - depth]], depth=depth) for depth in range(s.pending.look)]


def _shrine_reward_actions(s: State) -> list[Action]:
    amount = _shrine_amount(s, s.pending.seat)
    return [Action(Act.POINTS, amount=amount), Action(Act.STONES, amount=amount)]


def _substitute_actions(s: State) -> list[Action]:
    return [_SUBSTITUTES[t] for t in TYPES if s.supply[t]]


def _no_actions(s: State) -> list[Action]:
    return []


_LEGAL = {
    Phase.BUY: _buy_actions, Phase.PLAY: _play_actions, Phase.MORE_FARMERS: _more_farmers_actions,
    Phase.RETURN: _return_actions, Phase.OFFER: _own_offering_actions, Phase.OFFER_DOWN: _own_offering_actions,
    Phase.OFFER_SUPPLY: _supply_offering_actions, Phase.TAKE: _take_actions, Phase.ORACLE: _oracle_actions,
    Phase.SHRINE_REWARD: _shrine_reward_actions, Phase.SUBSTITUTE: _substitute_actions, Phase.OVER: _no_actions,
}


# --- applying a choice -----------------------------------------------------------------------------------------------
def apply_one(s: State, action: Action) -> None:
    """Apply one legal action of the pending decision (the state applies the forced ones that follow)."""
    _APPLY[s.pending.phase](s, action)


# --- phases 1 and 2: buy and play (rules §10-§11) --------------------------------------------------------------------
def _begin_turn(s: State, seat: int) -> None:
    s.turn += 1
    s.active = seat
    s.log_event({"type": "turn", "turn": s.turn, "seat": seat})
    s.pending = Pending(phase=Phase.BUY, seat=seat)


def _on_buy(s: State, a: Action) -> None:
    seat = s.active
    if a.act == Act.SKIP:
        s.log_event({"type": "skip_buy", "seat": seat})
    else:
        s.stones[seat] -= a.cost
        s.offerings[seat].append(s.supply[a.kind].pop())
        for viewer in _others(s, seat):
            s.offer_known[viewer][seat][a.kind] += 1
        s.log_event({"type": "buy", "seat": seat, "offering": OFFERING_NAMES[a.kind], "cost": a.cost})
    s.pending = Pending(phase=Phase.PLAY if _playable(s, seat) else Phase.RETURN, seat=seat)


def _on_play(s: State, a: Action) -> None:
    seat = s.active
    _play_card(s, seat, a.kind, a.cost)
    if a.kind in FARMERS:
        s.pending = Pending(phase=Phase.MORE_FARMERS, seat=seat, kind=a.kind, count=1)
    elif a.kind == _SHRINE:
        _start_offering(s)
    else:
        if a.kind == _PRIEST and s.demon >= 0:
            before, s.demon = s.demon, (s.demon + 1) % NUM_ROWS
            s.log_event({"type": "demon", "from": before, "to": s.demon})
        _start_take(s)


def _on_more_farmers(s: State, a: Action) -> None:
    if a.act == Act.STOP:
        _start_take(s)
        return
    _play_card(s, s.active, a.kind, a.cost)
    s.pending.count += 1


def _on_return(s: State, a: Action) -> None:
    seat = s.active
    card = _remove_kind(s, seat, a.kind)
    s.box.append(card)
    s.log_event({"type": "return", "seat": seat, "card": KIND_NAMES[a.kind]})
    _start_take(s)


def _play_card(s: State, seat: int, kind: int, cost: int) -> None:
    s.add_to_display(seat, _remove_kind(s, seat, kind))
    s.stones[seat] -= cost
    s.log_event({"type": "play", "seat": seat, "card": KIND_NAMES[kind], "cost": cost})


# --- the offering phase (rules §12) ----------------------------------------------------------------------------------
def _start_offering(s: State) -> None:
    a = s.active
    s.pending = Pending(phase=Phase.OFFER, seat=a, queue=s.clockwise_from(a)[1:])
    _next_offerer(s)


def _next_offerer(s: State) -> None:
    p = s.pending
    while p.queue:
        seat = p.queue.pop(0)
        if s.offerings[seat]:
            p.phase, p.seat = Phase.OFFER, seat
            return
        s.log_event({"type": "no_offering", "seat": seat})
    p.seat = s.active
    if s.offerings[p.seat]:
        p.phase = Phase.OFFER_DOWN
        return
    s.log_event({"type": "no_offering", "seat": p.seat})
    _to_supply_offering(s)


def _to_supply_offering(s: State) -> None:
    if any(s.supply):
        s.pending = Pending(phase=Phase.OFFER_SUPPLY, seat=s.active)
    else:
        s.log_event({"type": "no_offering", "seat": s.active, "from_supply": True})
        _start_take(s)


def _on_offer(s: State, a: Action) -> None:
    seat = s.pending.seat
    _push_altar(s, _remove_offering(s, seat, a.kind), face_up=True, placer=seat)
    for viewer in _others(s, seat):
        known = s.offer_known[viewer][seat]
        known[a.kind] = max(0, known[a.kind] - 1)
    s.log_event({"type": "offer", "seat": seat, "face_up": True, "offering": OFFERING_NAMES[a.kind]})
    _next_offerer(s)


def _on_offer_down(s: State, a: Action) -> None:
    seat = s.active
    _push_altar(s, _remove_offering(s, seat, a.kind), face_up=False, placer=seat)
    # Nobody else can tell which card left, so every certainty about this display drops by one.
    for viewer in _others(s, seat):
        s.offer_known[viewer][seat] = [max(0, k - 1) for k in s.offer_known[viewer][seat]]
    s.log_event({"type": "offer", "seat": seat, "face_up": False}, seat, {"offering": OFFERING_NAMES[a.kind]})
    _to_supply_offering(s)


def _on_offer_supply(s: State, a: Action) -> None:
    seat = s.active
    _push_altar(s, s.supply[a.kind].pop(), face_up=True, placer=seat)
    s.log_event({"type": "offer", "seat": seat, "face_up": True, "offering": OFFERING_NAMES[a.kind],
             "from_supply": True})
    _start_take(s)


def _push_altar(s: State, card: int, face_up: bool, placer: int) -> None:
    s.altar.append(card)
    s.altar_up.append(face_up)
    for viewer in range(s.num_players):
        s.altar_known[viewer].append(face_up or viewer == placer)


# --- phase 3: take, new rows, oracles, the end (rules §13-§14) -------------------------------------------------------
def _start_take(s: State) -> None:
    s.pending = Pending(phase=Phase.TAKE, seat=s.active)


def _on_take(s: State, a: Action) -> None:
    seat = s.active
    card = s.rows[a.row].pop()
    s.hands[seat].append(card)
    s.pending.row = a.row
    s.log_event({"type": "take", "seat": seat, "row": a.row, "card": KIND_NAMES[s.kinds[card]]})
    if not s.rows[a.row]:
        _form_row(s, a.row)
        if s.pending.phase != Phase.TAKE:
            return
    _after_take(s)


def _after_take(s: State) -> None:
    if len(s.hands[s.active]) >= HAND_SIZE:
        _score(s, s.pending.row)


def _form_row(s: State, row: int) -> None:
    """Lay out a new row at once; remove its oracles (rules §13); end the game on an empty deck (rules §14)."""
    removed = 0
    while True:
        if not s.deck:
            _game_over(s, GAME_END)
            return
        drawn = [s.deck.pop() for _ in range(min(ROW_SIZE, len(s.deck)))]
        oracles = [card for card in drawn if s.kinds[card] == _ORACLE]
        s.box += oracles
        removed += len(oracles)
        s.rows[row] = [card for card in drawn if s.kinds[card] != _ORACLE]
        s.log_event({"type": "new_row", "row": row, "cards": _kind_names(s, s.rows[row]), "oracles": len(oracles),
                 "deck": len(s.deck)})
        if not s.deck:
            _game_over(s, GAME_END)
            return
        if s.rows[row]:
            break
    if removed:
        _start_oracle_look(s)


def _start_oracle_look(s: State) -> None:
    seat = s.active
    look = min(ORACLE_LOOK, len(s.altar))
    top = s.altar[len(s.altar) - look:]
    for i in range(len(s.altar) - look, len(s.altar)):
        s.altar_known[seat][i] = True
    s.log_event({"type": "oracle_look", "seat": seat, "count": look}, seat,
         {"cards": [OFFERING_NAMES[OFFERING_TYPE[card]] for card in reversed(top)]})
    if look:
        s.pending.phase, s.pending.look = Phase.ORACLE, look


def _on_pick(s: State, a: Action) -> None:
    seat, look = s.active, s.pending.look
    start = len(s.altar) - look  # the first looked-at position
    after = {viewer: _known_after_pick(s, viewer, start) for viewer in _others(s, seat)}
    position = len(s.altar) - 1 - a.depth
    card = s.altar.pop(position)
    s.altar_up.pop(position)
    for known in s.altar_known:
        known.pop(position)
    s.offerings[seat].append(card)
    for viewer, known in after.items():
        s.altar_known[viewer][start:] = known
    if s.altar and s.altar_up[-1]:
        for known in s.altar_known:
            known[-1] = True
    s.log_event({"type": "oracle_pick", "seat": seat, "returned": look - 1}, seat,
                {"depth": a.depth, "offering": OFFERING_NAMES[a.kind]})
    s.pending.phase, s.pending.look = Phase.TAKE, 0
    _after_take(s)


def _known_after_pick(s: State, viewer: int, start: int) -> list[bool]:
    """What viewer still knows of the looked-at cards that go back (rules §18): it did not see which one stayed out,
    so the card at each returned position is the one that lay there or the one above; viewer knows it exactly when
    it knew both and they are of one type."""
    known = s.altar_known[viewer]
    types = [OFFERING_TYPE[card] for card in s.altar]
    return [known[i] and known[i + 1] and types[i] == types[i + 1] for i in range(start, len(s.altar) - 1)]


# --- phase 4: scoring (rules §15) ------------------------------------------------------------------------------------
def sole_majority(counts: list[int]) -> int:
    """The seat that alone has the most, with at least BONUS_MINIMUM, or -1."""
    top = max(counts)
    if top < BONUS_MINIMUM or counts.count(top) != 1:
        return -1
    return counts.index(top)


def _score(s: State, row: int) -> None:
    kind = s.kinds[s.rows[row][-1]]
    counts = [s.count_kind(seat, kind) for seat in range(s.num_players)]
    bonus = sole_majority(counts)
    event: dict[str, Any] = {"type": "scoring", "row": row, "card": KIND_NAMES[kind], "counts": counts,
                             "bonus": seat_or_none(bonus)}
    if kind in (_STONEMASON, _PRIEST):
        _hand_out_tokens(s, kind, counts, bonus, event)
        return
    s.log_event(event)
    order = [seat for seat in s.clockwise_from(s.active) if counts[seat]]
    if kind == _SHRINE:
        s.pending = Pending(phase=Phase.SHRINE_REWARD, seat=s.active, queue=order, kind=kind, bonus=bonus)
        _next_shrine_reward(s)
    else:
        s.pending = Pending(phase=Phase.SUBSTITUTE, seat=s.active, queue=order, kind=kind, bonus=bonus)
        _next_farmer_reward(s)


def _hand_out_tokens(s: State, kind: int, counts: list[int], bonus: int, event: dict[str, Any]) -> None:
    """Stonemasons pay stones and priests points: one per card, one more for the sole majority."""
    gains = [c + (seat == bonus) for seat, c in enumerate(counts)]
    tokens = s.stones if kind == _STONEMASON else s.points
    for seat, gain in enumerate(gains):
        tokens[seat] += gain
    event["stones" if kind == _STONEMASON else "points"] = gains
    s.log_event(event)
    _end_turn(s)


def _shrine_amount(s: State, seat: int) -> int:
    return s.count_kind(seat, _SHRINE) + (seat == s.pending.bonus)


def _next_shrine_reward(s: State) -> None:
    p = s.pending
    if p.queue:
        p.seat = p.queue.pop(0)
    else:
        _end_turn(s)


def _on_shrine_reward(s: State, a: Action) -> None:
    seat = s.pending.seat
    tokens = s.points if a.act == Act.POINTS else s.stones
    tokens[seat] += a.amount
    s.log_event({"type": "shrine_reward", "seat": seat, "reward": "points" if a.act == Act.POINTS else "stones",
             "amount": a.amount})
    _next_shrine_reward(s)


def _next_farmer_reward(s: State) -> None:
    p = s.pending
    while True:
        if p.queue:
            seat, is_bonus = p.queue.pop(0), False
        elif p.bonus >= 0:
            seat, is_bonus, p.bonus = p.bonus, True, -1
        else:
            _end_turn(s)
            return
        if s.supply[p.kind]:
            _gain(s, seat, p.kind, is_bonus, substitute=False)
        elif any(s.supply):
            p.seat, p.is_bonus = seat, is_bonus
            return
        else:
            s.log_event({"type": "no_reward", "seat": seat, "bonus": is_bonus})


def _on_substitute(s: State, a: Action) -> None:
    _gain(s, s.pending.seat, a.kind, s.pending.is_bonus, substitute=True)
    _next_farmer_reward(s)


def _gain(s: State, seat: int, offering: int, is_bonus: bool, substitute: bool) -> None:
    s.offerings[seat].append(s.supply[offering].pop())
    for viewer in _others(s, seat):
        s.offer_known[viewer][seat][offering] += 1
    s.log_event({"type": "reward", "seat": seat, "offering": OFFERING_NAMES[offering], "bonus": is_bonus,
             "substitute": substitute})


def _end_turn(s: State) -> None:
    _begin_turn(s, (s.active + 1) % s.num_players)


# --- the end (rules §16-§17) -----------------------------------------------------------------------------------------
def altar_counts(s: State) -> list[int]:
    """How many cards of each type lie on the altar."""
    counts = [0] * len(TYPES)
    for card in s.altar:
        counts[OFFERING_TYPE[card]] += 1
    return counts


def altar_values(counts: list[int]) -> list[int]:
    """The value of one offering card of each type: dense rank of its altar count (rules §16)."""
    ranked = sorted({c for c in counts if c > 0}, reverse=True)
    return [ALTAR_VALUES[ranked.index(c)] if c > 0 else 0 for c in counts]


def score_breakdown(s: State, seat: int, values: list[int]) -> dict[str, int]:
    """The parts of seat's final score (rules §17)."""
    shrines = s.count_kind(seat, _SHRINE)
    offerings = sum(values[OFFERING_TYPE[card]] for card in s.offerings[seat])
    parts = {"points": s.points[seat], "shrines": SHRINE_POINTS * shrines,
             "stones": s.stones[seat] // STONES_PER_POINT, "offerings": offerings}
    return {**parts, "total": sum(parts.values())}


def game_result(s: State) -> GameResult:
    """Scores and ranks: score, then shrines, then stones; still tied, a shared rank (rules §17)."""
    values = altar_values(altar_counts(s))
    scores = [score_breakdown(s, seat, values)["total"] for seat in range(s.num_players)]
    keys = [(scores[seat], s.count_kind(seat, _SHRINE), s.stones[seat]) for seat in range(s.num_players)]
    return GameResult(tuple(scores), competition_ranks(keys), s.end_reason)


def _game_over(s: State, reason: str) -> None:
    s.pending = Pending(phase=Phase.OVER, seat=-1)
    s.end_reason = reason
    # Final scoring turns the altar over and counts every offering display: nothing is hidden any more.
    for known in s.altar_known:
        known[:] = [True] * len(s.altar)
    for viewer in range(s.num_players):
        for seat in _others(s, viewer):
            s.offer_known[viewer][seat] = s.offering_counts(seat)
    counts = altar_counts(s)
    values = altar_values(counts)
    r = game_result(s)
    s.log_event({"type": "game_over", "reason": reason,
             "altar": dict(zip(OFFERING_NAMES, counts)), "values": dict(zip(OFFERING_NAMES, values)),
             "offerings": [dict(zip(OFFERING_NAMES, s.offering_counts(seat))) for seat in range(s.num_players)],
             "breakdown": [score_breakdown(s, seat, values) for seat in range(s.num_players)],
             "scores": list(r.scores), "ranks": list(r.ranks)})


# --- small helpers ---------------------------------------------------------------------------------------------------
def _others(s: State, seat: int) -> list[int]:
    return [other for other in range(s.num_players) if other != seat]


def _kind_names(s: State, cards: list[int]) -> list[str]:
    return [KIND_NAMES[s.kinds[card]] for card in cards]


def _remove_kind(s: State, seat: int, kind: int) -> int:
    hand = s.hands[seat]
    for i, card in enumerate(hand):
        if s.kinds[card] == kind:
            return hand.pop(i)
    raise GameInvariantError(f"seat {seat} holds no {KIND_NAMES[kind]}")


def _remove_offering(s: State, seat: int, offering: int) -> int:
    cards = s.offerings[seat]
    for i, card in enumerate(cards):
        if OFFERING_TYPE[card] == offering:
            return cards.pop(i)
    raise GameInvariantError(f"seat {seat} holds no {OFFERING_NAMES[offering]} offering")


_APPLY = {
    Phase.BUY: _on_buy, Phase.PLAY: _on_play, Phase.MORE_FARMERS: _on_more_farmers, Phase.RETURN: _on_return,
    Phase.OFFER: _on_offer, Phase.OFFER_DOWN: _on_offer_down, Phase.OFFER_SUPPLY: _on_offer_supply,
    Phase.TAKE: _on_take, Phase.ORACLE: _on_pick, Phase.SHRINE_REWARD: _on_shrine_reward,
    Phase.SUBSTITUTE: _on_substitute,
}
