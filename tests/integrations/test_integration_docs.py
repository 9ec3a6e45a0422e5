"""docs/integrations/: a page per integration, each with its install, example, mapping, what
differs and how it is tested; the index's table links every page; examples named exist and
every example the suite runs has a page; relative links resolve."""

from __future__ import annotations

import re
from pathlib import Path

from test_integration_examples import CASES

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = sorted((DOCS / "integrations").glob("*.md"))
SECTIONS = ("## Install", "## Example", "## Mapping", "## What differs", "## Tested how")
LINK = re.compile(r"\]\(([^)#:]+\.md)(#[^)]*)?\)")


def test_every_page_has_the_sections_and_an_example_that_exists() -> None:
    assert len(PAGES) >= 9
    named: set[str] = set()
    for page in PAGES:
        text = page.read_text()
        assert [s for s in SECTIONS if s in text] == list(SECTIONS), page.name
        examples = set(re.findall(r"`examples/([a-z0-9_]+\.py)`", text))
        assert examples, f"{page.name} names no example"
        for ex in examples:
            assert (DOCS.parent / "examples" / ex).is_file(), (page.name, ex)
        named |= examples
    assert set(CASES) <= named  # every example the suite runs is documented


def test_the_index_links_every_page_and_links_resolve() -> None:
    index = (DOCS / "integrations.md").read_text()
    for page in PAGES:
        assert f"](integrations/{page.name})" in index, page.name
    for doc in [DOCS / "integrations.md", *PAGES]:
        for target, anchor in LINK.findall(doc.read_text()):
            path = (doc.parent / target).resolve()
            assert path.is_file(), (doc.name, target)
            if anchor:
                heads = {
                    re.sub(r"[^a-z0-9 -]", "", h.lower()).strip().replace(" ", "-")
                    for h in re.findall(r"^#+ (.+)$", path.read_text(), re.M)
                }
                assert anchor[1:] in heads, (doc.name, target, anchor)
