"""Design B's agent records (§3, §11) and the decisions about them.

- `records` — Procedure, ImprovementSignal, ExecutionTrace, EvolutionRun, InstallAuditEntry
  and their enums; input validation;
- `rules` — pure decisions: running averages, the best procedure version, when a signal is
  actionable, the evolution gate, retention cut-offs;
- `procedures` (`mind.procedures`, `mind.evolution`), `signals` (`mind.signals`), `traces`
  (`mind.traces`, `mind.installs`, retention) — the SDK over the store;
- `awareness` — the self-awareness lines these records feed into `context()` (§9.1).

Storage: `salience.store.agent` (protocol), `salience.store.agent_core` (the methods, written
once), each backend's `agent.py` hooks and `sql.py` statements.
"""
