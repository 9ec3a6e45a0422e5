"""Scenario suites: the live agent loop (remember_turn → heartbeat → prefetch/search/context)
on a frozen clock with a real embedder, one module per suite, each printing its score.

    python -m bench.scenarios                       # every suite, e5
    python -m bench.scenarios --embedder minilm --quick
    python -m bench.scenarios.ranking --presets formula,rrf-balanced

A suite is a module of this package (not starting with "_") that defines
`run(*, console=None, embedder="e5", size="full", preset=None, verbose=False) -> SuiteResult`
(keyword arguments it does not take are not passed to it). `SUITES` maps each suite's name to
its `run` (the modules are imported when `SUITES` is first read): retention, ranking and admission first, any
other module after them in name order — adding a suite is adding a module.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from rich.console import Console

from ._common import SuiteResult, out, summary_table

__all__ = ["SUITES", "SuiteResult", "run_all", "run_suite"]

_FIRST = ("retention", "ranking", "admission")


class _Suites(Mapping[str, Callable[..., SuiteResult]]):
    """name -> `run` of every suite module; the modules are imported on first use, so
    `python -m bench.scenarios.<name>` does not import its own module twice."""

    def __init__(self) -> None:
        self._found: dict[str, Callable[..., SuiteResult]] | None = None

    def _load(self) -> dict[str, Callable[..., SuiteResult]]:
        if self._found is None:
            names = [m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")]
            ordered = [n for n in _FIRST if n in names] + sorted(
                n for n in names if n not in _FIRST
            )
            found: dict[str, Callable[..., SuiteResult]] = {}
            for name in ordered:
                run = getattr(importlib.import_module(f"{__name__}.{name}"), "run", None)
                if callable(run):
                    found[name] = run
            self._found = found
        return self._found

    def __getitem__(self, name: str) -> Callable[..., SuiteResult]:
        return self._load()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())

    def __repr__(self) -> str:
        return f"SUITES({', '.join(self)})"


#: name -> run function of every suite module (see the module docstring)
SUITES: Mapping[str, Callable[..., SuiteResult]] = _Suites()


def run_suite(name: str, **kw: Any) -> SuiteResult:
    """Run suite `name` with the keyword arguments its `run` accepts."""
    run = SUITES[name]
    params = inspect.signature(run).parameters
    takes_all = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    return run(**{k: v for k, v in kw.items() if takes_all or k in params})


def run_all(
    console: Console | None = None,
    embedder: str = "e5",
    *,
    size: str = "full",
    presets: Sequence[str] | None = None,
    suites: Sequence[str] | None = None,
    verbose: bool = False,
) -> dict[str, SuiteResult]:
    """Run every suite (or `suites`) and print each score and a summary table.

    With `presets`, the suites run once per preset and results are keyed "name/preset";
    otherwise by name, with the config's default preset. `console=None` prints to a default
    console (pass `Console(quiet=True)` for silence).
    """
    con = out(console)
    results: dict[str, SuiteResult] = {}
    for name in suites or list(SUITES):
        for preset in presets or [None]:
            key = name if preset is None else f"{name}/{preset}"
            results[key] = run_suite(name, console=con, embedder=embedder, size=size,
                                     preset=preset, verbose=verbose)
    con.print(summary_table(list(results.values())))
    return results
