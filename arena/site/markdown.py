"""Markdown as safe HTML for the pages: a game's bot-author reference (its rules) and a competition's description,
rendered by CommonMark with tables and without raw HTML, so that an organiser's text cannot inject a script."""

from __future__ import annotations

import functools
from importlib import resources

from markdown_it import MarkdownIt

from arena.games import package

_MARKDOWN = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")


def html(text: str) -> str:
    """text (Markdown) as HTML; raw HTML in it is shown as text and links other than http(s), mailto and
    relative ones are dropped."""
    return _MARKDOWN.render(text)


@functools.cache
def rules_html(game: str) -> str:
    """The bot author's reference of a registered game (its README: the numbered rules as implemented, the views,
    the decisions and their options) as HTML."""
    text = (resources.files("arena.games") / package(game) / "README.md").read_text(encoding="utf-8")
    return html(text)
