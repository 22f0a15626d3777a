"""A submission folder's walk (arena/bots/folders.py) while a build still writes in it."""

from __future__ import annotations

from pathlib import Path

from arena.bots.folders import walk


def test_an_entry_gone_between_the_listing_and_its_look_is_passed_over(tmp_path: Path) -> None:
    """A compiler's temporary file that is removed while the folder is walked is no refusal and no traceback."""
    for name in ("a", "b", "c"):
        (tmp_path / name).write_text(name)
    (tmp_path / "d").mkdir()

    def remove_the_rest(relative: str, is_dir: bool) -> bool:
        if relative == "a":  # b and c were listed with a, and go before they are looked at
            (tmp_path / "b").unlink()
            (tmp_path / "d").rmdir()
        return False

    assert [e.relative for e in walk(tmp_path, remove_the_rest)] == ["a", "c"]
