"""What an author is shown of a path: the one function every refusal, build log and replay page goes through."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bots.shown import shown_to_author


@pytest.mark.parametrize("said, shown", [
    ("/srv/uploads/upload-ab/bot.py", "bot.py"),
    ("in /srv/uploads/upload-ab, exit 1", "in ., exit 1"),
    ("see /srv/uploads/upload-ab-build.log", "see upload-ab-build.log"),
    ('File "/srv/uploads/upload-ab/lib/x.py", line 3', 'File "lib/x.py", line 3'),
])
def test_a_refusal_names_the_upload_s_files_from_its_folder_and_no_path_above_it(said: str, shown: str) -> None:
    assert shown_to_author(said, Path("/srv/uploads/upload-ab")) == shown


def test_an_upload_s_folder_named_from_the_working_directory_leaves_no_part_of_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A server started with a relative --results: the folder's name is also the tail of its absolute name.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results" / "uploads" / "upload-ab").mkdir(parents=True)
    said = (f"$ make   (in {tmp_path}/results/uploads/upload-ab)\n"
            f'File "{tmp_path}/results/uploads/upload-ab/bot.py", line 3\n'
            f"its output: {tmp_path}/results/uploads/upload-ab-build.log; results/uploads/upload-ab/x")
    assert shown_to_author(said, Path("results/uploads/upload-ab")) == (
        '$ make   (in .)\nFile "bot.py", line 3\nits output: upload-ab-build.log; x')
