"""`SalienceMemoryTool`: a backend for Claude's `memory` tool (`memory_20250818`) on a mind.

    import anthropic
    from salience import Mind
    from salience.integrations.claude_memory import SalienceMemoryTool

    tool = SalienceMemoryTool(Mind.open("assistant"))
    runner = anthropic.Anthropic().beta.messages.tool_runner(
        model=..., max_tokens=1024, tools=[tool], messages=[...])

Claude works with files under `/memories`; here each file is one memory of the mind:

- its text is the memory's content (embedded and full-text indexed, so `mind.search` and the
  prompt context find what Claude wrote); its path is in the metadata and a tag;
- every edit (`create`, `str_replace`, `insert`) writes a new version that supersedes the
  previous one: `tool.versions(path)` (and `mind.history`) list them, oldest first;
- `delete` removes the file (or directory) with all its versions; `rename` moves them;
- directories are implied by the paths (an empty directory does not exist).

Paths must be `/memories` or below it; `..`, backslashes, NUL and other control characters are
refused (`ToolError`), so no command reaches outside `/memories`. Output and error texts are
those of the SDK's local-filesystem memory tool.

Requires the `anthropic` extra (`pip install 'salience[anthropic]'`).
"""

from __future__ import annotations

import hashlib
import json
import posixpath
from collections.abc import Sequence
from typing import Any

from ..errors import MissingExtra
from ..mind import Mind
from ..models import (
    Memory,
    MemoryFilter,
    Source,
    content_hash,
    new_id,
    validate_memory,
)

try:
    from anthropic.lib.tools import BetaAbstractMemoryTool
    from anthropic.lib.tools._beta_functions import ToolError
    from anthropic.types.beta import (
        BetaMemoryTool20250818CreateCommand,
        BetaMemoryTool20250818DeleteCommand,
        BetaMemoryTool20250818InsertCommand,
        BetaMemoryTool20250818RenameCommand,
        BetaMemoryTool20250818StrReplaceCommand,
        BetaMemoryTool20250818ViewCommand,
    )
except ImportError as e:  # pragma: no cover - depends on the installed extras
    raise MissingExtra("anthropic", "anthropic") from e

ROOT = "/memories"
TAG = "claude-memory"
META = "claude_memory"
EMPTY = "(empty file)"  # a memory needs text; an empty file is stored as this, flagged
LINE_WIDTH = 6
_PAGE = 1000


def clean_path(path: str) -> str:
    """The normalised path under `/memories`, or `ToolError` (pure): no `..` escape, no
    backslash, NUL or control characters, nothing outside `/memories`."""
    if not isinstance(path, str) or not path.startswith(ROOT):
        raise ToolError(f"Path must start with /memories, got: {path}")
    if any(ch == "\\" or ord(ch) < 32 or ord(ch) == 127 for ch in path):
        raise ToolError(f"Path {path!r} contains characters that are not allowed")
    norm = posixpath.normpath(path)
    if norm != ROOT and not norm.startswith(ROOT + "/"):
        raise ToolError(f"Path {path} would escape /memories directory")
    return norm


def size_text(n: int) -> str:
    """A byte count the way the SDK's file tool prints it (`0B`, `512B`, `1.5K`)."""
    if n == 0:
        return "0B"
    units, i = ["B", "K", "M", "G"], min((n.bit_length() - 1) // 10, 3)
    size = n / 1024**i
    return f"{int(size)}{units[i]}" if size == int(size) else f"{size:.1f}{units[i]}"


def numbered(lines: Sequence[str], start: int = 1) -> str:
    return "\n".join(f"{str(i + start).rjust(LINE_WIDTH)}\t{line}" for i, line in enumerate(lines))


def _path_tag(path: str) -> str:
    return "cm:" + hashlib.sha256(path.encode()).hexdigest()[:40]


class SalienceMemoryTool(BetaAbstractMemoryTool):
    """Claude's memory tool with its files kept in `mind` (see the module docstring)."""

    def __init__(self, mind: Mind, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.mind = mind

    # -- files ------------------------------------------------------------------------------
    def _files(self) -> dict[str, Memory]:
        """Current version of every file, by path."""
        out: list[Memory] = []
        while True:
            page = self.mind.list(MemoryFilter(tags=[TAG]), limit=_PAGE, offset=len(out))
            out.extend(page)
            if len(page) < _PAGE:
                return {m.metadata[META]["path"]: m for m in out if META in m.metadata}

    def _versions(self, path: str) -> list[Memory]:
        flt = MemoryFilter(tags=[_path_tag(path)], include_superseded=True)
        rows = self.mind.list(flt, limit=1_000_000, order="created_asc")
        return sorted(rows, key=lambda m: m.id)

    @staticmethod
    def _text(m: Memory) -> str:
        return "" if m.metadata[META].get("empty") else m.content

    def _write(self, path: str, text: str, previous: Memory | None) -> Memory:
        """A new version of `path` (superseding `previous`)."""
        now = self.mind.clock.now()
        meta = {"path": path, **({"empty": True} if not text.strip() else {})}
        m = Memory(
            content=text if text.strip() else EMPTY, id=new_id(), tags=[TAG, _path_tag(path)],
            metadata={META: meta}, source=Source.AGENT_INFERRED, pinned=True,
            created_at=now, updated_at=now,
        )
        validate_memory(m, max_bytes=self.mind.config.max_content_bytes)
        m.content_hash = content_hash(json.dumps([path, m.id, m.content]))
        self.mind.store.insert([m], self.mind._embed_passages([m.content]))
        if previous is not None:
            self.mind.update(previous.id, superseded_by=m.id)
        return m

    def _file(self, path: str, shown: str) -> Memory:
        files = self._files()
        if path not in files:
            if any(p.startswith(path + "/") for p in files):
                raise ToolError(f"The path {shown} is not a file.")
            raise ToolError(f"The path {shown} does not exist. Please provide a valid path.")
        return files[path]

    # -- commands ---------------------------------------------------------------------------
    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        path = clean_path(command.path)
        files = self._files()
        if path in files:
            lines = self._text(files[path]).split("\n")
            start = 1
            if command.view_range and len(command.view_range) == 2:
                lo = max(1, command.view_range[0]) - 1
                hi = len(lines) if command.view_range[1] == -1 else command.view_range[1]
                lines, start = lines[lo:hi], lo + 1
            return f"Here's the content of {command.path} with line numbers:\n" + numbered(
                lines, start
            )
        under = {p: m for p, m in files.items() if p.startswith(path.rstrip("/") + "/")}
        if not under and path != ROOT:
            raise ToolError(f"The path {command.path} does not exist. Please provide a valid path.")
        entries: dict[str, int] = {}
        base = path.rstrip("/")
        for p, m in under.items():
            parts = p[len(base) + 1 :].split("/")
            if any(part.startswith(".") for part in parts):
                continue
            for depth in range(1, min(len(parts), 2) + 1):
                rel = "/".join(parts[:depth])
                is_dir = depth < len(parts)
                key = rel + "/" if is_dir else rel
                entries[key] = entries.get(key, 0) + len(self._text(m).encode())
        total = sum(len(self._text(m).encode()) for m in under.values())
        lines = [f"{size_text(total)}\t{command.path}"] + [
            f"{size_text(n)}\t{base}/{rel}" for rel, n in sorted(entries.items())
        ]
        return (
            f"Here're the files and directories up to 2 levels deep in {command.path}, "
            "excluding hidden items:\n" + "\n".join(lines)
        )

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        path = clean_path(command.path)
        if path == ROOT:
            raise ToolError("Cannot create a file at /memories itself")
        files = self._files()
        if path in files:
            raise ToolError(f"File {command.path} already exists")
        if any(p.startswith(path + "/") for p in files):
            raise ToolError(f"The path {command.path} is a directory")
        self._write(path, command.file_text, None)
        return f"File created successfully at: {command.path}"

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        path = clean_path(command.path)
        m = self._file(path, command.path)
        text = self._text(m)
        count = text.count(command.old_str) if command.old_str else 0
        if count == 0:
            raise ToolError(
                f"No replacement was performed, old_str `{command.old_str}` did not appear "
                f"verbatim in {command.path}."
            )
        if count > 1:
            lines, at = [], text.find(command.old_str)
            while at != -1:
                lines.append(text[:at].count("\n") + 1)
                at = text.find(command.old_str, at + 1)
            raise ToolError(
                f"No replacement was performed. Multiple occurrences of old_str "
                f"`{command.old_str}` in lines: {', '.join(map(str, lines))}. Please ensure it "
                "is unique"
            )
        changed = text[: text.find(command.old_str)].count("\n")
        new = text.replace(command.old_str, command.new_str)
        self._write(path, new, m)
        new_lines = new.split("\n")
        lo, hi = max(0, changed - 2), min(len(new_lines), changed + 3)
        return (
            "The memory file has been edited. Here is the snippet showing the change (with "
            "line numbers):\n" + numbered(new_lines[lo:hi], lo + 1)
        )

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        path = clean_path(command.path)
        m = self._file(path, command.path)
        text = self._text(m)
        lines = text.split("\n") if text else []
        if command.insert_line < 0 or command.insert_line > len(lines):
            raise ToolError(
                f"Invalid `insert_line` parameter: {command.insert_line}. It should be within "
                f"the range [0, {len(lines)}]."
            )
        lines.insert(command.insert_line, command.insert_text.rstrip("\n"))
        new = "\n".join(lines)
        self._write(path, new if new.endswith("\n") else new + "\n", m)
        return f"The file {command.path} has been edited."

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        path = clean_path(command.path)
        if path == ROOT:
            raise ToolError("Cannot delete the /memories directory itself")
        files = self._files()
        targets = [p for p in files if p == path or p.startswith(path + "/")]
        if not targets:
            raise ToolError(f"The path {command.path} does not exist")
        ids = [v.id for p in targets for v in self._versions(p)]
        self.mind.store.delete(ids)
        return f"Successfully deleted {command.path}"

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        old, new = clean_path(command.old_path), clean_path(command.new_path)
        if old == ROOT:
            raise ToolError("Cannot rename the /memories directory itself")
        if new == ROOT or new.startswith(old + "/"):
            raise ToolError(f"Cannot move {command.old_path} into itself")
        files = self._files()
        if new in files or any(p.startswith(new + "/") for p in files):
            raise ToolError(f"The destination {command.new_path} already exists")
        moving = [p for p in files if p == old or p.startswith(old + "/")]
        if not moving:
            raise ToolError(f"The path {command.old_path} does not exist")
        changed = []
        for p in moving:
            dest = new + p[len(old) :]
            for v in self._versions(p):
                meta = {**v.metadata, META: {**v.metadata[META], "path": dest}}
                changed.append(v.copy(metadata=meta, tags=[TAG, _path_tag(dest)]))
        self.mind.store.update(changed)
        return f"Successfully renamed {command.old_path} to {command.new_path}"

    def clear_all_memory(self) -> str:
        ids = [v.id for p in self._files() for v in self._versions(p)]
        if ids:
            self.mind.store.delete(ids)
        return "All memory cleared"

    # -- beyond the tool ----------------------------------------------------------------------
    def versions(self, path: str) -> list[str]:
        """Every version of the file at `path`, oldest first (its text)."""
        return [self._text(m) for m in self._versions(clean_path(path))]

    def search(self, query: str, *, limit: int = 5) -> list[tuple[str, str]]:
        """(path, text) of the files the mind's hybrid search ranks first for `query`."""
        hits = self.mind.search(query, limit=limit, flt=MemoryFilter(tags=[TAG]))
        return [(h.memory.metadata[META]["path"], self._text(h.memory)) for h in hits
                if META in h.memory.metadata]


__all__ = ["SalienceMemoryTool", "clean_path"]
