"""Agent records in a mind export (`salience.transfer`): one JSONL line per record, kinds
`procedure`, `signal`, `trace`, `evolution_run`, `install_audit`, each restored as it was
(counts, surfaced flags, verdicts and ids kept) and at most once — a record whose id the
target mind already holds is skipped, so a restore can be run again."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..errors import ConflictError
from ..models.agent import (
    EvolutionRun,
    ExecutionTrace,
    ImprovementSignal,
    InstallAuditEntry,
    Procedure,
)

if TYPE_CHECKING:
    from ..store.base import Store

ALL = 1_000_000_000  # "every row" for the store's list limits
KINDS: dict[str, type] = {
    "procedure": Procedure,
    "signal": ImprovementSignal,
    "trace": ExecutionTrace,
    "evolution_run": EvolutionRun,
    "install_audit": InstallAuditEntry,
}


def iter_agent_records(store: Store) -> Iterator[tuple[str, Any]]:
    """(kind, record) for every agent record: procedures by name and version (a version's
    parent comes first), then signals, traces, evolution runs and audit rows oldest first."""
    for p in store.list_procedures(limit=ALL):
        yield "procedure", p
    for s in store.list_signals(limit=ALL):
        yield "signal", s
    for t in reversed(store.list_traces(limit=ALL)):
        yield "trace", t
    for e in reversed(store.list_evolution_runs(limit=ALL)):
        yield "evolution_run", e
    for a in reversed(store.install_audit(limit=ALL)):
        yield "install_audit", a


def restore_agent_record(store: Store, kind: str, record: Any) -> bool:
    """Insert `record` (of `KINDS[kind]`) as it was; False when the mind already holds its id
    (or, for a procedure, its name and version). Other conflicts raise `ConflictError`."""
    insert: dict[str, Callable[[Any], None]] = {
        "procedure": store.insert_procedure,
        "signal": store.restore_signal,
        "trace": store.insert_trace,
        "evolution_run": store.insert_evolution_run,
        "install_audit": store.append_install_audit,
    }
    try:
        insert[kind](record)
    except ConflictError:
        return False
    return True
