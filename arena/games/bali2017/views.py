"""What each seat may know (README.md, rules §18), the pending decision, and readable event text."""

from __future__ import annotations

from typing import Any

from arena.games.bali2017.cards import (
    HAND_SIZE,
    KIND_NAMES,
    NUM_ORACLES,
    OFFERING_NAMES,
    OFFERING_TYPE,
    SEAT_COLOURS,
    Kind,
)
from arena.games.bali2017.state import Phase, State
from arena.games.base import seat_label, seat_or_none

_DISPLAY_KINDS = tuple(range(int(Kind.ORACLE)))  # every kind that can lie in a display

def _by_type(counts: list[int]) -> dict[str, int]:
    return dict(zip(OFFERING_NAMES, counts))


def _display(s: State, seat: int) -> dict[str, int]:
    return {KIND_NAMES[kind]: s.display_counts[seat][kind] for kind in _DISPLAY_KINDS}


def public_dict(s: State) -> dict[str, Any]:
    """What every seat's view shows alike, beside the game and the number of players: what is public."""
    n = s.num_players
    return {
        "variants": {"oracle": s.opts.oracle, "demon": s.opts.demon},
        "turn": s.turn,
        "active": s.active,
        "hand_sizes": [len(h) for h in s.hands],
        "displays": [_display(s, x) for x in range(n)],
        "stones": list(s.stones),
        "points": list(s.points),
        "offering_counts": [len(o) for o in s.offerings],
        "rows": [[KIND_NAMES[s.kinds[c]] for c in row] for row in s.rows],
        "demon": seat_or_none(s.demon),
        "deck": len(s.deck),
        "oracles_in_deck": (NUM_ORACLES - sum(1 for c in s.box if s.kinds[c] == Kind.ORACLE)) if s.opts.oracle else 0,
        "supply": _by_type([len(cards) for cards in s.supply]),
        "altar_top_face_up": s.altar_up[-1] if s.altar else None,
        "decision": decision_dict(s),
    }


def private_dict(s: State, seat: int) -> dict[str, Any]:
    """The part of a seat's view that only it has: its hand and offerings, what it knows of the altar and others."""
    known = s.altar_known[seat]
    return {
        "seat": seat,
        "hand": sorted((KIND_NAMES[s.kinds[c]] for c in s.hands[seat]), key=KIND_NAMES.index),
        "offerings": _by_type(s.offering_counts(seat)),
        "offerings_known": [_by_type(s.offering_counts(x) if x == seat else s.offer_known[seat][x])
                            for x in range(s.num_players)],
        "altar": [OFFERING_NAMES[OFFERING_TYPE[c]] if k else None for c, k in zip(s.altar, known)],
    }


def referee_dict(s: State) -> dict[str, Any]:
    """The altar's every card, face down or not (no seat's view holds all of it), and which lie face up."""
    return {"altar": [OFFERING_NAMES[OFFERING_TYPE[c]] for c in s.altar], "altar_face_up": list(s.altar_up)}


def decision_dict(s: State) -> dict[str, Any]:
    """The pending decision: its kind, the seat that decides, and the context it needs."""
    p = s.pending
    d: dict[str, Any] = {"kind": p.phase.wire, "seat": seat_or_none(p.seat), "active": s.active}
    if p.phase == Phase.MORE_FARMERS:
        d["card"] = KIND_NAMES[p.kind]
        d["played"] = p.count
    elif p.phase == Phase.TAKE:
        d["to_take"] = HAND_SIZE - len(s.hands[s.active])
    elif p.phase == Phase.ORACLE:
        d["looked"] = p.look
    elif p.phase == Phase.SHRINE_REWARD:
        d["bonus"] = p.seat == p.bonus
    elif p.phase == Phase.SUBSTITUTE:
        d["sold_out"] = OFFERING_NAMES[p.kind]
        d["bonus"] = p.is_bonus
    return d


def _who(seat: Any) -> str:
    return seat_label(seat, SEAT_COLOURS)


def _names(items: list[str]) -> str:
    return ", ".join(items) if items else "nothing"


def _card(name: str) -> str:
    return name.replace("_", " ")


def _a(name: str) -> str:
    text = _card(name)
    return ("an " if text[0] in "aeiou" else "a ") + text


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _stones(cost: int) -> str:
    return f" for {_plural(cost, 'stone')}" if cost else ""


def _scoring_text(e: dict[str, Any]) -> str:
    text = f"scoring {_a(e['card'])} (bottom of row {e['row']}): {_card(e['card'])}s per seat {e['counts']}"
    for token in ("stones", "points"):
        if token in e:
            text += f", {token} gained {e[token]}"
    if e["bonus"] is not None:
        text += f"; sole majority: {_who(e['bonus'])}"
    return text


def _game_over_text(e: dict[str, Any]) -> str:
    altar = ", ".join(f"{t} {e['altar'][t]} (worth {e['values'][t]})" for t in OFFERING_NAMES)
    return f"game over ({e['reason']}): altar {altar}; scores {e['scores']}, ranks {e['ranks']}"


def _offer_text(e: dict[str, Any], who: str) -> str:
    if e.get("from_supply"):
        return f"{who} puts {_a(e['offering'])} offering from the supply face up on the altar"
    if not e["face_up"]:
        hidden = f" ({e['offering']})" if "offering" in e else ""
        return f"{who} puts an offering face down on the altar{hidden}"
    return f"{who} puts {_a(e['offering'])} offering face up on the altar"


def _oracle_text(e: dict[str, Any], who: str) -> str:
    if e["type"] == "oracle_look" and not e["count"]:
        return f"{who} consults the oracle, but the altar is empty"
    if e["type"] == "oracle_look":
        cards = f": {_names(e['cards'])} (top first)" if "cards" in e else ""
        return f"{who} consults the oracle and looks at the top {_plural(e['count'], 'altar card')}{cards}"
    picked = f" {e['offering']} (depth {e['depth']})" if "offering" in e else " one"
    return f"{who} keeps{picked} and puts {e['returned']} back"


def format_event(e: dict[str, Any]) -> str:
    """One event as a line of text for logs and replays."""
    t = e["type"]
    who = _who(e.get("seat"))
    if t == "setup":
        demon = "" if e["demon"] is None else f", demon on row {e['demon']}"
        oracle = f", {e['altar']} cards face down on the altar" if e["oracle"] else ""
        rows = "; ".join(f"row {i}: {_names([_card(c) for c in row])}" for i, row in enumerate(e["rows"]))
        return f"setup: {e['players']} players, stones {e['stones']}, deck {e['deck']}{oracle}{demon}; {rows}"
    if t == "deal":
        cards = f": {_names([_card(c) for c in e['cards']])}" if "cards" in e else ""
        return f"{who} takes {e['count']} start farmers into its hand{cards}"
    if t == "turn":
        return f"--- turn {e['turn']}: {who} is active"
    if t == "skip_buy":
        return f"{who} buys nothing"
    if t == "buy":
        return f"{who} buys {_a(e['offering'])} offering{_stones(e['cost']) or ' for free'}"
    if t == "play":
        return f"{who} plays {_a(e['card'])}{_stones(e['cost'])}"
    if t == "return":
        return f"{who} cannot play and returns {_a(e['card'])} to the box"
    if t == "demon":
        return f"the demon moves from row {e['from']} to row {e['to']}"
    if t == "no_offering":
        source = "the supply" if e.get("from_supply") else "its display"
        return f"{who} has nothing to offer from {source}"
    if t == "offer":
        return _offer_text(e, who)
    if t == "take":
        return f"{who} takes {_a(e['card'])} from row {e['row']}"
    if t == "new_row":
        oracles = f" ({_plural(e['oracles'], 'oracle card')} removed)" if e["oracles"] else ""
        return (f"new row {e['row']}: {_names([_card(c) for c in e['cards']])}{oracles}; "
                f"{_plural(e['deck'], 'card')} left in the deck")
    if t in ("oracle_look", "oracle_pick"):
        return _oracle_text(e, who)
    if t == "scoring":
        return _scoring_text(e)
    if t == "shrine_reward":
        return f"{who} takes {e['amount']} {e['reward']} for its shrines"
    if t == "reward":
        kind = "bonus " if e["bonus"] else ""
        sub = " (substitute: sold out)" if e["substitute"] else ""
        return f"{who} gains {_a(kind + e['offering'])} offering{sub}"
    if t == "no_reward":
        return f"{who} gains nothing: the supply is empty"
    if t == "game_over":
        return _game_over_text(e)
    return str(e)
