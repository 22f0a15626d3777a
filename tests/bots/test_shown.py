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


def test_a_replay_s_data_loses_the_paths_in_every_string_it_holds() -> None:
    data = {"stderr": ["Traceback:", 'File "/srv/uploads/upload-ab/bot.py", line 3'], "seat": 0,
            "faults": [{"detail": "in /srv/uploads/upload-ab"}]}
    assert shown_to_author(data, "/srv/uploads/upload-ab") == {
        "stderr": ["Traceback:", 'File "bot.py", line 3'], "seat": 0, "faults": [{"detail": "in ."}]}


def test_a_time_limit_is_the_competition_s_and_no_option_to_raise() -> None:
    said = "took 1.2 s of its 1 s limit (raise it with --timeout); 30 s (raise it with --game-clock)"
    assert shown_to_author(said) == ("took 1.2 s of its 1 s limit (set by the competition: make the bot answer "
                                     "sooner); 30 s (set by the competition: make the bot answer sooner)")


def test_a_folder_s_name_inside_a_longer_name_is_no_match() -> None:
    # A folder beside it whose name begins with the folder's is named from their parent, as a file beside it is.
    assert shown_to_author("/srv/up/ab2/x and /srv/up/ab/x", "/srv/up/ab") == "ab2/x and x"
