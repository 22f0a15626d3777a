"""Compact differences between successive views, so that a page holds a long game's every frame cheaply.

A patch turns one JSON value into the next: `[value]` replaces it; `{"k": {key: patch}, "x": [keys]}` changes and
removes keys of a map; `{"l": n, "a": [items], "i": {index: patch}}` keeps the first n items of a list (all of them
if "l" is absent), patches items by index and appends items. `null` means "unchanged". viewer.js applies them.
"""

from __future__ import annotations

from typing import Any

Patch = Any


def diff(old: Any, new: Any) -> Patch:
    """The patch that turns old into new; None if they are equal."""
    if old == new and type(old) is type(new):
        return None
    if isinstance(old, dict) and isinstance(new, dict):
        return _diff_map(old, new)
    if isinstance(old, list) and isinstance(new, list):
        return _diff_list(old, new)
    return [new]


def _diff_map(old: dict[str, Any], new: dict[str, Any]) -> Patch:
    changed = {}
    for key, value in new.items():
        if key not in old:
            changed[key] = [value]
            continue
        before = old[key]
        if before == value and type(before) is type(value):  # most of a table stays put: no call for it
            continue
        sub = diff(before, value)
        if sub is not None:
            changed[key] = sub
    patch: dict[str, Any] = {"k": changed}
    removed = [key for key in old if key not in new]
    if removed:
        patch["x"] = removed
    return patch


def _diff_list(old: list[Any], new: list[Any]) -> Patch:
    if len(old) == len(new):
        changed = [i for i, (a, b) in enumerate(zip(old, new)) if a != b]
        if len(changed) * 2 > len(new):  # mostly new: the list itself is shorter than its patch
            return [new]
        return {"i": {str(i): diff(old[i], new[i]) for i in changed}}
    keep = 0
    while keep < min(len(old), len(new)) and old[keep] == new[keep]:
        keep += 1
    return {"l": keep, "a": new[keep:]} if keep else [new]


def apply(value: Any, patch: Patch) -> Any:
    """The value that patch makes of value (a new value; the old one is not changed)."""
    if patch is None:
        return value
    if isinstance(patch, list):
        return patch[0]
    if "k" in patch:
        result = {key: v for key, v in value.items() if key not in patch.get("x", ())}
        for key, sub in patch["k"].items():
            result[key] = apply(value.get(key), sub)
        return result
    items = list(value[:patch["l"]] if "l" in patch else value)
    for index, sub in patch.get("i", {}).items():
        items[int(index)] = apply(items[int(index)], sub)
    return items + list(patch.get("a", ()))
