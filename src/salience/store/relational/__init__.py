"""The relational core both SQL backends share: the dialect's atoms (`dialect.py`), one column
spec (`columns.py`), the shared statements (`statements.py`) and the store logic written once
over a few named hooks (see docs/architecture.md, "Issue 16 — relational core")."""
