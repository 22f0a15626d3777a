"""A heuristic strategy for bali-2001, working only from what the arena sends (view, options, decision).

Masks are handed out only when the active player moves the Dalang to an island where it has a
chip, so the strategy is built around chips and Dalang cards:

* On its turn it first contests (priest or prince) for a chip on the current island when that
  completes a seal (both chips in its village: 3 points) or gains a first chip there; it shows
  every card it can, since shown cards come back to the hand.
* Then it plays a Dalang card to the island where it scores best: both chips or a lone chip
  there gives it the lowest mask; a chip shared with another seat hands that seat a mask too,
  so such a target counts for less.
* With nothing to score it plays a scholar to take cards back from its piles, else ends the turn.
* Off turn it blocks a Dalang move that would score for someone else (unless it gets a mask from
  it itself), outbids every contest with all it holds, defends against warriors, and declines to
  spend cards on ending other seats' turns.
* When it lays its hand down as a pile it puts Dalang cards and priests/princes at the bottom,
  because a scoring pick-up keeps only the bottom 4 cards of a pile; fleeing, it keeps the same.
"""

from __future__ import annotations

from typing import Any, Callable

View = dict[str, Any]
Option = dict[str, Any]

# How much each card kind is worth holding on to (higher: keep it, lay it at the bottom of a pile).
KEEP_VALUE = {"dalang": 5, "priest": 3, "prince": 3, "warrior": 2, "scholar": 1, "artist": 0}


def decide(view: View, options: list[Option], decision: dict[str, Any]) -> int:
    """The index of the option this strategy prefers."""
    choose = _BY_KIND.get(decision["kind"])
    return choose(view, options, decision) if choose else 0


# --- helpers -----------------------------------------------------------------------------------------------------
def _hand_count(view: View, kind: str) -> int:
    return sum(1 for card in view["hand"] if card["kind"] == kind)


def _chips(view: View, island: str) -> tuple[int | None, int | None]:
    chips = view["chips"][island]
    return chips["prince"], chips["priest"]


def _score_value(view: View, island: str, seat: int) -> float:
    """What moving the Dalang to island is worth to seat as the active player (0: no scoring)."""
    prince, priest = _chips(view, island)
    if seat not in (prince, priest):
        return 0.0
    other = priest if prince == seat else prince
    masks = view["masks_left"]
    if other is None or other == seat or len(masks) < 2:
        return 10.0 + masks[0]
    return 5.0 + masks[1] - masks[0]  # the other chip's holder takes the lowest mask first


def _best(options: list[Option], value: Callable[[Option], float]) -> int:
    return max(range(len(options)), key=lambda i: (value(options[i]), -i))


def _find(options: list[Option], **fields: Any) -> int | None:
    return next((i for i, o in enumerate(options) if all(o.get(k) == v for k, v in fields.items())), None)


# --- the active player's turn ------------------------------------------------------------------------------------
def _turn(view: View, options: list[Option], decision: dict[str, Any]) -> int:
    me = view["seat"]
    contest = _contest_choice(view, options, me)
    if contest is not None:
        return contest
    dalang = [(i, _score_value(view, o["target"], me)) for i, o in enumerate(options)
              if o.get("card") == "dalang" and o["action"] == "play"]
    scoring = [(i, v) for i, v in dalang if v > 0]
    if scoring:
        return max(scoring, key=lambda iv: iv[1])[0]
    scholar = _find(options, action="play", card="scholar")
    own_piles = sum(len(p) for island, p in view["piles"].items() if island != view["dalang"])
    if scholar is not None and own_piles:
        return scholar
    return 0  # end the turn


def _contest_choice(view: View, options: list[Option], me: int) -> int | None:
    prince, priest = _chips(view, view["dalang"])
    for kind, holder, partner in (("priest", priest, prince), ("prince", prince, priest)):
        index = _find(options, action="play", card=kind)
        if index is None or holder == me:
            continue
        completes_seal = partner == me
        first_chip = me not in (prince, priest)
        if (completes_seal and _hand_count(view, kind) >= 2) or (first_chip and _hand_count(view, kind) >= 2):
            return index
    return None


def _exempt(view: View, options: list[Option], decision: dict[str, Any]) -> int:
    # Spare the seat that threatens least: the lowest score.
    return _best(options, lambda o: -view["scores"][o["seat"]])


def _scholar(view: View, options: list[Option], decision: dict[str, Any]) -> int:
    takes = [i for i, o in enumerate(options) if o["action"] == "take"]
    if not takes:
        return 0
    piles = view["piles"]

    def top_value(o: Option) -> float:
        top = piles[o["pile"]][-1] if piles[o["pile"]] else None
        return 2.5 if top is None else KEEP_VALUE[top["kind"]]  # an unknown card is worth an average one

    return max(takes, key=lambda i: top_value(options[i]))


def _artist(view: View, options: list[Option], decision: dict[str, Any]) -> int:
    # Trade the least useful cards for fresh ones.
    discards = [i for i, o in enumerate(options) if o["action"] == "discard" and KEEP_VALUE[o["card"]] <= 1]
    return discards[0] if discards else 0


# --- everyone else's decisions -----------------------------------------------------------------------------------
def _challenge(view: View, options: list[Option], decision: dict[str, Any]) -> int:
    defend = _find(options, action="defend")
    return defend if defend is not None else 0


def _keep_order(view: View, options: list[Option], decision: dict[str, Any]) -> int:
    """Arranging or fleeing: the most valuable card first (it ends up at the bottom, or on a pile at all)."""
    def value(o: Option) -> float:
        pile = o.get("pile")
        smaller_pile = -len(view["piles"][pile]) / 100 if pile else 0.0
        return KEEP_VALUE[o["card"]] + smaller_pile
    return _best(options, value)


def _contest(view: View, options: list[Option], decision: dict[str, Any]) -> int:
    # Shown cards go back to the hand, so showing everything costs nothing.
    return _best(options, lambda o: o.get("count", -1))


def _block(view: View, options: list[Option], decision: dict[str, Any]) -> int:
    active, me = decision["active"], view["seat"]
    target = decision["target"]
    if _score_value(view, target, active) <= 0 or me in _chips(view, target):
        return 0
    blocks = [i for i, o in enumerate(options) if o["action"] == "block"]
    return blocks[0] if blocks else 0


_BY_KIND: dict[str, Callable[[View, list[Option], dict[str, Any]], int]] = {
    "turn": _turn,
    "warrior_exempt": _exempt,
    "warrior_challenge": _challenge,
    "flee_place": _keep_order,
    "scholar": _scholar,
    "artist": _artist,
    "arrange_pile": _keep_order,
    "contest_open": _contest,
    "contest_respond": _contest,
    "dalang_block": _block,
}
