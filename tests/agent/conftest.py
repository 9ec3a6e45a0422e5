"""A `Mind` on each backend (hash embedder, frozen clock): see tests/mind_fixtures.py."""

from mind_fixtures import T0, clock, mind  # noqa: F401
