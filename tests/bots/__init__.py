"""Hostile and test-double bots, started by the tests as real processes."""
