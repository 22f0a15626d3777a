"""What a bot writes stays off the published site unless the organiser asks: a bot that prints a secret to stderr
at every decision and makes an illegal move, through a real tournament; the organiser's own pages keep it."""

from __future__ import annotations

import secrets
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, arena

RANDOM = f"{sys.executable} -m sample_bots.random_bot"


def _files_holding(folder: Path, text: str) -> list[str]:
    """Every file under folder whose bytes hold text."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if p.is_file() and text.encode() in p.read_bytes())


@pytest.fixture(scope="module")
def leaky(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A tournament folder where one bot wrote a secret to stderr at every decision and faulted; the secret."""
    root = tmp_path_factory.mktemp("leak")
    secret = f"SECRET-{secrets.token_hex(8)}"
    chatty = f"{sys.executable} {ROOT / 'tests' / 'bot_programs' / 'chatty_bot.py'} {secret.encode().hex()}"
    done = arena("tournament", "bali-2017", f"leaker={chatty}", f"a={RANDOM}", f"b={RANDOM}", "--seats", "3",
                 "--rounds", "1", "--jobs", "1", "--name", "cup", cwd=root)
    assert done.returncode == 0, done.stderr
    return root, secret


@pytest.mark.slow
def test_the_published_site_holds_no_bot_output_by_default(leaky: tuple[Path, str]) -> None:
    root, secret = leaky
    shown = arena("show", "1", cwd=root)
    assert shown.returncode == 0 and secret in shown.stdout  # the organiser's view: the fault's stderr tail
    page = root / "organiser.html"
    assert arena("show", "1", "--html", str(page), cwd=root).returncode == 0
    assert secret in page.read_text()  # the organiser's page: each decision's log
    done = arena("publish", "-o", "site", cwd=root)
    assert done.returncode == 0, done.stderr
    assert (root / "site" / "cup" / "bots" / "leaker.html").is_file()
    assert list((root / "site" / "cup" / "games").glob("*.html"))
    assert _files_holding(root / "site", secret) == []
    assert "illegal" in (root / "site" / "cup" / "bots" / "leaker.html").read_text()  # the fault itself is listed


@pytest.mark.slow
def test_include_bot_output_publishes_it(leaky: tuple[Path, str]) -> None:
    root, secret = leaky
    done = arena("publish", "-o", "full", "--include-bot-output", cwd=root)
    assert done.returncode == 0, done.stderr
    holding = _files_holding(root / "full", secret)
    assert "cup/bots/leaker.html" in holding  # the fault's stderr tail
    assert any(name.startswith("cup/games/") for name in holding)  # the decisions' logs
