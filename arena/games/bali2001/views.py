"""What each seat may know (README.md, rules §23), the pending decision, and readable event text."""

from __future__ import annotations

from typing import Any

from arena.games.bali2001.cards import ISLAND_NAMES, ISLANDS, KIND_NAMES, SEAT_COLOURS, card_dict
from arena.games.bali2001.state import Act, Phase, State
from arena.games.base import seat_label, seat_or_none


def public_dict(s: State) -> dict[str, Any]:
    """What every seat's view shows alike, beside the game and the number of players: what is public."""
    n = s.num_players
    return {
        "turn": s.turn,
        "max_turns": s.opts.max_turns,
        "active": s.active,
        "start_player": s.start_player,
        "start_cards": list(s.start_cards),
        "dalang": ISLAND_NAMES[s.dalang],
        "hand_sizes": [len(h) for h in s.hands],
        "pile_sizes": [{ISLAND_NAMES[i]: len(s.piles[x][i]) for i in ISLANDS} for x in range(n)],
        "draw_pile": len(s.draw_pile),
        "discard": [card_dict(c) for c in s.discard],
        "chips": {ISLAND_NAMES[i]: {"prince": seat_or_none(s.prince[i]), "priest": seat_or_none(s.priest[i])}
                  for i in ISLANDS},
        "seals": {ISLAND_NAMES[i]: seat_or_none(s.seals[i]) for i in ISLANDS},
        "masks_left": list(s.masks_left),
        "masks": [list(m) for m in s.masks_won],
        "scores": [s.score(x) for x in range(n)],
        "fled": [x for x in range(n) if s.absent[x]],
        "decision": decision_dict(s),
    }


def private_dict(s: State, seat: int) -> dict[str, Any]:
    """The part of a seat's view that only it has: its hand and what it knows of its own piles."""
    return {
        "seat": seat,
        "hand": [card_dict(c) for c in s.hands[seat]],
        "piles": {ISLAND_NAMES[i]: [card_dict(c) if k else None for c, k in zip(s.piles[seat][i], s.known[seat][i])]
                  for i in ISLANDS},
    }


def referee_dict(s: State) -> dict[str, Any]:
    """Every card of every pile, those no seat knows included: a seat's view only shows it what it placed."""
    return {"piles": [{ISLAND_NAMES[i]: [card_dict(c) for c in s.piles[seat][i]] for i in ISLANDS}
                      for seat in range(s.num_players)]}


def decision_dict(s: State) -> dict[str, Any]:
    """The pending decision: its kind, the seat that decides, and the context it needs."""
    p = s.pending
    d: dict[str, Any] = {"kind": p.phase.wire, "seat": seat_or_none(p.seat), "active": s.active}
    if p.phase in (Phase.SCHOLAR, Phase.ARTIST):
        d["done"] = p.done
        if p.phase == Phase.SCHOLAR:
            d["mode"] = None if p.mode < 0 else Act(p.mode).wire
    elif p.phase in (Phase.REACT, Phase.END_OFFER):
        d["card"] = KIND_NAMES[p.ctype]
        d["turn_ended"] = p.turn_ended
    elif p.phase == Phase.CHALLENGE:
        d["turn_ended"] = p.turn_ended
    elif p.phase == Phase.FLEE:
        d["remaining"] = p.remaining
    elif p.phase in (Phase.CONTEST_OPEN, Phase.CONTEST_RESPOND):
        d["chip"] = KIND_NAMES[p.ctype]
        d["highest"] = p.high
        d["leader"] = seat_or_none(p.high_seat)
    elif p.phase == Phase.BLOCK:
        d["target"] = ISLAND_NAMES[p.island]
    elif p.phase == Phase.ARRANGE:
        d["island"] = ISLAND_NAMES[p.island]
        d["placed"] = p.done
    return d


def _who(seat: Any) -> str:
    return seat_label(seat, SEAT_COLOURS)


def _count(n: int) -> str:
    return "1 card" if n == 1 else f"{n} cards"


def _card_text(card: dict[str, Any]) -> str:
    if card["kind"] == "dalang":
        return "Dalang " + "/".join(card["islands"])
    return card["kind"]


EVENT_VERBS = {"defend": "defends", "flee": "flees", "pass": "passes", "end_turn": "ends the turn"}


def format_event(e: dict[str, Any]) -> str:
    """One event as a line of text for logs and replays."""
    who = _who(e.get("seat"))
    return _hand_text(e, who) or _board_text(e, who) or str(e)


def _hand_text(e: dict[str, Any], who: str) -> str | None:
    """The text of the setup, a turn's start, or an event of the cards (drawn, played, placed, taken, shown), said
    of the seat `who`; None for another event."""
    t = e["type"]
    if t == "setup":
        return (f"setup: start cards {e['start_cards']}, start player {_who(e['start_player'])}, "
                f"Dalang on {e['dalang']}")
    if t == "turn":
        return f"--- turn {e['turn']}: {who} is active"
    if t == "draw":
        cards = f": {', '.join(_card_text(c) for c in e['cards'])}" if "cards" in e else ""
        return f"{who} draws {e['count']}{cards}"
    if t == "reshuffle":
        return f"the discard pile ({e['count']} cards) is shuffled into a new draw pile"
    if t == "play":
        target = f" targeting {e['target']}" if "target" in e else ""
        return f"{who} plays {_card_text(e['card'])}{target}"
    if t == "exempt":
        return f"{who} exempts {_who(e['exempt'])}"
    if t in EVENT_VERBS:
        return f"{who} {EVENT_VERBS[t]}"
    if t == "place":
        card = f" {_card_text(e['card'])}" if "card" in e else " a card"
        return f"{who} puts{card} on its pile at {e['pile']}"
    if t == "take":
        card = f" ({_card_text(e['card'])})" if "card" in e else ""
        return f"{who} takes the top card of its pile at {e['pile']}{card}"
    if t == "discard":
        return f"{who} discards {', '.join(_card_text(c) for c in e['cards'])}"
    if t == "turn_ended_by":
        return f"{who} ends the turn of {_who(e['active'])} and draws 1"
    if t == "show":
        return f"{who} shows {e['count']} {e['kind']}"
    return None


def _board_text(e: dict[str, Any], who: str) -> str | None:
    """The text of an event of the islands (chips, seals, the Dalang, piles, scoring) or the game's end, said of the
    seat `who`; None for another event."""
    t = e["type"]
    if t == "chip":
        return f"the {e['chip']} chip on {e['island']} goes to {_who(e['seat'])}"
    if t == "seal":
        return f"{who} takes the seal of {e['island']}"
    if t == "block":
        return f"{who} blocks the move to {e['target']}"
    if t == "dalang_move":
        return f"the Dalang moves from {e['from']} to {e['to']}"
    if t == "pile_down":
        return f"{who} lays {_count(e['count'])} down at {e['island']}"
    if t == "pick_up":
        return f"{who} picks up {_count(e['count'])} at {e['island']}"
    if t == "scoring":
        masks = ", ".join(f"{_who(m['seat'])} takes mask {m['value']}" for m in e["masks"])
        return f"scoring on {e['island']}: {masks} ({e['masks_left']} masks left)"
    if t == "game_over":
        return f"game over ({e['reason']}): scores {e['scores']}, ranks {e['ranks']}"
    return None
