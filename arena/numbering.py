"""How the arena tells apart two things given the same name: the second is NAME-2, the third NAME-3, and so on."""

from __future__ import annotations

from typing import Container


def free_name(base: str, taken: Container[str]) -> str:
    """`base` if it is not taken, else the first of base-2, base-3... that is not."""
    name, number = base, 1
    while name in taken:
        number += 1
        name = f"{base}-{number}"
    return name
