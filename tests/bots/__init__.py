"""Test doubles: bots that misbehave or attack on purpose (never installed)."""
