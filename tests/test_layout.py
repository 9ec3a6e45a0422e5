"""Guard: test module basenames must be unique (pytest's default import mode needs it)."""

from collections import Counter
from pathlib import Path


def test_test_module_basenames_are_unique():
    names = Counter(p.name for p in Path(__file__).parent.rglob("test_*.py"))
    assert [n for n, c in names.items() if c > 1] == []
