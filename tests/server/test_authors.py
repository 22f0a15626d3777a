"""`arena authors`: secrets shown once and stored only as slow hashes; a revoked author's secrets stop working."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.storage import Store


def _add(tmp_path: Path, *args: str) -> tuple[str, str]:
    r = CliRunner().invoke(main, ["authors", "add", *args, "--results", str(tmp_path)])
    assert r.exit_code == 0, r.output
    lines = r.output.strip().splitlines()
    return lines[-2].rsplit("/signin/", 1)[1], lines[-1]


def test_a_token_is_shown_once_stored_as_a_hash_and_works_until_revoked(tmp_path: Path) -> None:
    code, token = _add(tmp_path, "alice", "--url", "https://bali.example.org/")
    assert "." in token and " " not in token
    raw = (tmp_path / "arena.sqlite").read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("arena.sqlite-*"))
    assert token.split(".")[1].encode() not in raw and code.split(".")[1].encode() not in raw
    with Store(tmp_path / "arena.sqlite") as store:
        assert store.author_by_token(token)[0].name == "alice"
        assert store.author_by_token(token[:-1] + ("A" if token[-1] != "A" else "B")) is None
        assert store.author_by_token(code) is None  # the sign-in code is no token
        assert store.sign_in(code).name == "alice"
        assert store.sign_in(code) is None  # one use
    r = CliRunner().invoke(main, ["authors", "revoke", "alice", "--results", str(tmp_path)])
    assert r.exit_code == 0 and "revoked alice" in r.output
    with Store(tmp_path / "arena.sqlite") as store:
        assert store.author_by_token(token) is None
    listed = CliRunner().invoke(main, ["authors", "list", "--results", str(tmp_path)]).output
    assert "alice" in listed and "revoked" in listed


def test_a_taken_or_bad_author_name_is_one_line_and_exit_2(tmp_path: Path) -> None:
    _add(tmp_path, "alice")
    for name, said in (("alice", "the name 'alice' is taken"), ("Alice.", "looks like 'alice'"),
                       ("<b>", "must be 1-64 letters")):
        r = CliRunner().invoke(main, ["authors", "add", name, "--results", str(tmp_path)])
        assert r.exit_code == 2 and said in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(main, ["authors", "revoke", "nobody", "--results", str(tmp_path)])
    assert r.exit_code == 2 and "no author 'nobody'" in r.output


def _invite(tmp_path: Path, *args: str) -> str:
    r = CliRunner().invoke(main, ["authors", "invite", *args, "--results", str(tmp_path)])
    assert r.exit_code == 0, r.output
    lines = r.output.strip().splitlines()
    assert lines[-2].endswith("/join/" + lines[-1])
    return lines[-1]


def test_an_invite_code_is_stored_as_a_hash_signs_up_its_uses_and_can_be_revoked(tmp_path: Path) -> None:
    code = _invite(tmp_path, "--uses", "2", "--days", "1")
    raw = (tmp_path / "arena.sqlite").read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("arena.sqlite-*"))
    assert code.split(".")[1].encode() not in raw
    with Store(tmp_path / "arena.sqlite") as store:
        alice, token = store.redeem_invite(code, "alice")
        assert store.author_by_token(token)[0] == alice and not alice.organiser
        assert store.redeem_invite(code, "bob") is not None
        assert store.redeem_invite(code, "carol") is None  # used up
    other = _invite(tmp_path)
    listed = CliRunner().invoke(main, ["authors", "invites", "--results", str(tmp_path)]).output
    assert "2/2" in listed and "used up" in listed and "0/1" in listed and "usable" in listed
    r = CliRunner().invoke(main, ["authors", "uninvite", other.split(".")[0], "--results", str(tmp_path)])
    assert r.exit_code == 0 and "revoked invite" in r.output
    with Store(tmp_path / "arena.sqlite") as store:
        assert store.redeem_invite(other, "dave") is None
    r = CliRunner().invoke(main, ["authors", "uninvite", "99", "--results", str(tmp_path)])
    assert r.exit_code == 2 and "no invite 99" in r.output and "Traceback" not in r.output


def test_authors_in_a_folder_without_a_store_say_so_and_create_nothing(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    monkeypatch.chdir(tmp_path)
    for args in (["list"], ["invites"], ["link", "alice"], ["token", "alice"], ["revoke", "alice"],
                 ["restore", "alice"], ["uninvite", "1"]):
        r = runner.invoke(main, ["authors", *args])
        assert r.exit_code == 2, (args, r.output)
        assert "no results store at 'results/arena.sqlite'" in r.output and "folder arena serve runs in" in \
            r.output and "Traceback" not in r.output, r.output
        assert len(r.output.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_links_before_the_first_serve_point_at_the_competition_files_address(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    monkeypatch.chdir(tmp_path)
    Path("competition.toml").write_text('game = "bali-2001"\nresults = "season"\n[serve]\nport = 8123\n')
    added = runner.invoke(main, ["authors", "--config", "competition.toml", "add", "alice"])
    assert added.exit_code == 0, added.output
    assert "http://127.0.0.1:8123/signin/" in added.output
    invited = runner.invoke(main, ["authors", "--config", "competition.toml", "invite"])
    assert invited.exit_code == 0 and "http://127.0.0.1:8123/join/" in invited.output
    # The store is the one the file names, where arena serve --config will find it.
    assert (tmp_path / "season" / "arena.sqlite").is_file() and not (tmp_path / "results").exists()
    listed = runner.invoke(main, ["authors", "--config", "competition.toml", "list"])
    assert listed.exit_code == 0 and "alice" in listed.output
    # --url still wins, and a file without host or port leaves the default.
    assert "https://bali.example.org/signin/" in runner.invoke(main, [
        "authors", "--config", "competition.toml", "link", "alice", "--url", "https://bali.example.org"]).output
    Path("plain.toml").write_text('game = "bali-2001"\n')
    plain = runner.invoke(main, ["authors", "--config", "plain.toml", "add", "bob"])
    assert "http://127.0.0.1:8000/signin/" in plain.output and "no server has served this store yet" in plain.output
