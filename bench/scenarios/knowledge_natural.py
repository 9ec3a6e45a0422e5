"""Knowledge updates in the phrasing people type (issue 14): the `knowledge` suite's loop and
scoring over the harder cases of `_knowledge_natural` (lower case, no change word, the update
in passing inside a longer message or split over two turns, other people's facts; the second
set, session 6: no topic word shared with the older statement, or no change word at all).

    python -m bench.scenarios.knowledge_natural -v
"""

from __future__ import annotations

from typing import Any

from rich.console import Console

from . import knowledge
from ._common import SuiteResult
from ._knowledge_natural import (
    NATURAL_COMPATIBLE,
    NATURAL_COMPATIBLE_2,
    NATURAL_UPDATES,
    NATURAL_UPDATES_2,
)

NAME = "knowledge-natural"


def run(*, console: Console | None = None, **kw: Any) -> SuiteResult:
    """Run the natural-phrasing knowledge cases (same options as `knowledge.run`)."""
    return knowledge.run(console=console, cases=(NATURAL_UPDATES + NATURAL_UPDATES_2,
                                                 NATURAL_COMPATIBLE + NATURAL_COMPATIBLE_2),
                         name=NAME, **kw)


if __name__ == "__main__":
    from ._common import main_guard

    main_guard(NAME, run)
