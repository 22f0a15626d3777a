"""The smallest possible bot: one function that always plays the default option (index 0)."""

from __future__ import annotations

from typing import Any

from protocol import run_bot


def decide(view: dict[str, Any], options: list[dict[str, Any]], decision: dict[str, Any]) -> int:
    """Always the default."""
    return 0


if __name__ == "__main__":
    run_bot(decide, name="default", version="1.0")
