"""The bot-process tests share the match tests' helpers."""

from tests.match.conftest import spawned  # noqa: F401 - the fixture, for the sandbox tests
