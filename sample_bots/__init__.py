"""Runnable bots: random, default, heuristic, a bot written without the SDK, and deliberately faulty ones.

Start any of them as `python sample_bots/NAME.py` or `python -m sample_bots.NAME`; the arena appends the endpoint.
"""
