"""Fixtures for the class-game pages: the scripted tables of tests/games (fixed draw order)."""

from tests.games.conftest import _fast_passwords, anna, bo, make_game  # noqa: F401
