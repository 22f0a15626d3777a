"""The address a competition is reached at, as the organiser gives it for the links sent to competitors."""

from __future__ import annotations

from urllib.parse import urlsplit

from arena.errors import ConfigError

SCHEMES = ("http", "https")


def check_url(url: str) -> str:
    """url, if a browser can open a competition's pages there (http or https, with a host): ConfigError naming what is
    wrong (a link made from it would lead nowhere)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - read for its check of the port
    except ValueError as exc:
        raise ConfigError(f"--url {url[:80]!r} is not a web address ({exc}): give one such as "
                          "https://arena.example.org") from None
    if parts.scheme not in SCHEMES or not parts.hostname:
        raise ConfigError(f"--url {url[:80]!r} is not an http:// or https:// address with a host: give one such as "
                          "https://arena.example.org")
    if parts.query or parts.fragment:
        raise ConfigError(f"--url {url[:80]!r} holds a query or a fragment: give the competition's address alone")
    return url
