"""Test-double and hostile bots, started by the tests as real bot processes; not part of the installed package."""
