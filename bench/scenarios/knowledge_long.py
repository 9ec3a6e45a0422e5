"""Knowledge updates said inside long messages (issue 14): the `knowledge` suite's loop and
scoring over `_knowledge_long`'s cases, where the newer statement is one sentence of a message
over 1,200 bytes (stored as several chunks) among other news, a pasted email, a list or code.

    python -m bench.scenarios.knowledge_long -v
"""

from __future__ import annotations

from typing import Any

from rich.console import Console

from . import knowledge
from ._common import SuiteResult
from ._knowledge_long import LONG_COMPATIBLE, LONG_UPDATES

NAME = "knowledge-long"


def run(*, console: Console | None = None, **kw: Any) -> SuiteResult:
    """Run the long-message knowledge cases (same options as `knowledge.run`)."""
    return knowledge.run(console=console, cases=(LONG_UPDATES, LONG_COMPATIBLE),
                         name=NAME, **kw)


if __name__ == "__main__":
    from ._common import main_guard

    main_guard(NAME, run)
