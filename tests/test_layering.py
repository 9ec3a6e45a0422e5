"""Guard: the import layering of `src/salience` (issue 16).

Every import counts, including those under `if TYPE_CHECKING:` and inside functions: a type
edge is still an edge a maintainer has to follow. The rules:

- `salience.models` (the records the store reads and writes) imports only the leaf modules
  `errors`, `checks`, `clock` and itself;
- the store imports only `models`, the leaf modules, `config` and itself;
- `interfaces` reach the library through the facade (`salience`, `mind`, `aio`, ...) and the
  modules listed in `_INTERFACE_ALLOWED`, never a store backend or the machinery behind
  the facade;
- no import cycle, between top-level packages or between modules.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from functools import cache
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
LEAVES = {"salience.errors", "salience.checks", "salience.clock"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in (SRC / "salience").rglob("*.py")}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The salience modules `name` imports (a `from pkg import sub` of a submodule counts as
    importing `pkg.sub`; a name defined in a package counts as importing the package)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("salience"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("salience"):
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                out.add(sub if sub in known else target)
    out.discard(name)
    return out


@cache
def _graph() -> dict[str, set[str]]:
    mods = _modules()
    known = set(mods)
    return {name: _imports(name, path, known) for name, path in mods.items()}


def _top(name: str) -> str:
    parts = name.split(".")
    return ".".join(parts[:2])


def _in(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_models_import_only_leaves():
    bad = {
        (m, i)
        for m, deps in _graph().items()
        if _in(m, "salience.models")
        for i in deps
        if not (_in(i, "salience.models") or i in LEAVES)
    }
    assert sorted(bad) == []


def test_store_imports_only_models():
    allowed = LEAVES | {"salience.config"}
    bad = {
        (m, i)
        for m, deps in _graph().items()
        if _in(m, "salience.store")
        for i in deps
        if not (_in(i, "salience.store", "salience.models") or i in allowed)
    }
    assert sorted(bad) == []


#: What `interfaces/` may import: the facade (`Mind`, `AsyncMind`, config, errors, records,
#: the minds catalog, the server database, the heartbeat loop, export/restore) and the public sub-APIs the facade
#: hands out (graph, agent records, embedders, importers). Never a store backend, the
#: relational core, a model client or the recall/ingest machinery behind the facade.
_INTERFACE_ALLOWED = (
    "salience", "salience.mind", "salience.aio", "salience.config", "salience.errors",
    "salience.clock", "salience.transfer", "salience.demo", "salience.store",
    "salience.store.catalog", "salience.store.server", "salience.maintenance.heartbeat",
    "salience.ingest.service",
    "salience.ingest.sniff", "salience.search.feedback",
)
_INTERFACE_ALLOWED_PACKAGES = (
    "salience.interfaces", "salience.models", "salience.embed", "salience.compat",
    "salience.graph", "salience.agent",
)


def test_interfaces_import_only_the_facade():
    bad = {
        (m, i)
        for m, deps in _graph().items()
        if _in(m, "salience.interfaces")
        for i in deps
        if i not in _INTERFACE_ALLOWED and not _in(i, *_INTERFACE_ALLOWED_PACKAGES)
    }
    assert sorted(bad) == []


def test_no_import_cycle_between_packages():
    top: dict[str, set[str]] = defaultdict(set)
    for m, deps in _graph().items():
        for i in deps:
            if _top(i) != _top(m) and _top(i) != "salience":
                top[_top(m)].add(_top(i))
    assert _cycles(top) == []


def test_no_import_cycle_between_modules():
    graph = dict(_graph())
    # a package's __init__ re-exporting its submodules is not a cycle of the code
    for m, deps in graph.items():
        graph[m] = {i for i in deps if not (i != "salience" and _in(m, i))}
    graph.pop("salience", None)
    assert _cycles(graph) == []
