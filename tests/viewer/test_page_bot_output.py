"""What a page holds of the bots' own text: the referee's page every decision's log and every fault's detail and
stderr, a seat's page only its own, a public page (bot_output=False) none."""

from __future__ import annotations

import dataclasses
import json

from arena.errors import FaultKind
from arena.match.record import FaultRecord, GameRecord, Phase
from arena.viewer import render_replay
from tests.viewer.conftest import engine_record, page_data

SAID = "thinking about my cards"
DETAIL = "sent SECRET-DETAIL"
TAIL = "SECRET-TAIL"


def _chatty_record() -> GameRecord:
    """A bali-2017 game whose seat 0 wrote a line at each decision and had a fault at game_over (which changes
    nothing in the play)."""
    record = engine_record("bali-2017", 2, 3)
    decisions = tuple(dataclasses.replace(d, log=f"{SAID} {k}\n", log_dropped=k % 3) if d.seat == 0 else d
                      for k, d in enumerate(record.decisions))
    fault = FaultRecord(0, 0, 0, "random-0", None, Phase.GAME_OVER, FaultKind.MALFORMED, DETAIL, TAIL)
    return dataclasses.replace(record, decisions=decisions, faults=(fault,))


def test_the_referee_page_holds_every_log_and_fault_text() -> None:
    record = _chatty_record()
    data = page_data(render_replay(record))
    logged = {int(k): v for k, v in data["logs"].items()}
    assert logged == {k: [d.log, d.log_dropped] for k, d in enumerate(record.decisions) if d.seat == 0}
    assert data["faults"][0]["detail"] == DETAIL and data["faults"][0]["stderr"] == TAIL


def test_a_seat_page_holds_only_its_own_bots_log() -> None:
    record = _chatty_record()
    own = page_data(render_replay(record, 0))
    assert [d.get("log") for d in own["decisions"] if d["seat"] == 0] == \
        [d.log for d in record.decisions if d.seat == 0]
    other = render_replay(record, 1)
    assert SAID not in other and DETAIL not in other and TAIL not in other


def test_a_public_page_holds_no_text_a_bot_wrote() -> None:
    record = _chatty_record()
    for seat in (None, 0, 1):
        page = render_replay(record, seat, bot_output=False)
        assert SAID not in page and DETAIL not in page and TAIL not in page
        data = page_data(page)
        assert data["faults"][0]["kind"] == "malformed"  # the fault itself is shown
        assert data.get("logs", {}) == {} and all("log" not in d for d in data["decisions"])
        assert json.dumps(data["seats"]) == json.dumps(page_data(render_replay(record, seat))["seats"])


def test_markup_in_a_log_stays_text_in_the_page() -> None:
    record = engine_record("bali-2017", 2, 3)
    hostile = '</script><script>alert(1)</script><img src=x onerror="alert(2)">\x1b[2J'
    first = dataclasses.replace(record.decisions[0], log=hostile)
    page = render_replay(dataclasses.replace(record, decisions=(first, *record.decisions[1:])))
    assert "<script>alert" not in page and "<img" not in page
    assert page_data(page)["logs"]["0"] == [hostile, 0]
