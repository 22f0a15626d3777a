"""The game pages' progress while a site is published: a bar on a terminal, a few plain lines elsewhere."""

from __future__ import annotations

import io

from arena.cli.page_progress import PageProgress, page_summary


def test_plain_lines_come_at_the_start_now_and_then_and_at_the_end() -> None:
    out = io.StringIO()
    progress = PageProgress(out, tty=False)
    for done in range(101):
        progress(done, 100)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("game pages: 0/100 (0%)") and lines[-1].startswith("game pages: 100/100 (100%)")
    assert len(lines) == 2  # a fast run: nothing in between


def test_a_terminal_gets_one_bar_redrawn_in_place() -> None:
    out = io.StringIO()
    progress = PageProgress(out, tty=True)
    for done in range(5):
        progress(done, 4)
    text = out.getvalue()
    assert text.count("\r\x1b[2K") == 5 and text.count("\n") == 1 and text.endswith("\n")
    assert "[" + "#" * 30 + "]" in text


def test_the_summary_gives_the_rate_and_the_time_left() -> None:
    assert page_summary(50, 200, 10.0) == ("game pages: 50/200 (25%), 5.0 pages/s, elapsed 0:00:10, ETA 0:00:30")
    assert page_summary(0, 200, 0.0).endswith("ETA ?")
    PageProgress(io.StringIO(), tty=True)(0, 0)  # nothing to make: nothing shown
