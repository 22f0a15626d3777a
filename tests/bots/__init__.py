"""Test-double bots, started by the tests as real bot processes."""
