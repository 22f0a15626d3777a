"""Parameter types and option parsing shared by the commands."""

from __future__ import annotations

import json
from typing import Any

import click

from arena.games import Game, available, get_game


class GameType(click.ParamType):
    """A registered game name, converted to its game object."""

    name = "game"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Game:
        if not isinstance(value, str):
            return value
        try:
            return get_game(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
        from click.shell_completion import CompletionItem
        return [CompletionItem(name) for name in available() if name.startswith(incomplete)]


GAME = GameType()


def parse_game_options(pairs: tuple[str, ...], variants: tuple[str, ...]) -> dict[str, Any] | None:
    """Game options from KEY=VALUE pairs (VALUE as JSON, else as text) and variant names (set to true)."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint="'--option'")
        try:
            options[key] = json.loads(raw)
        except json.JSONDecodeError:
            options[key] = raw
    for variant in variants:
        options[variant] = True
    return options or None
