"""Issue 17 items 4b and 7 (files): malformed exports are one typed error (SDK) and a clean
message (CLI, no traceback); a chat transcript with one hostile line imports its good lines;
progress counts never read a non-regular file or a whole line into memory."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from salience.config import Config
from salience.errors import InvalidInput
from salience.ingest.service import count_items
from salience.mind import Mind

HEADER = {"kind": "header", "format": "salience-export", "version": 1, "mind": "x",
          "backend": "sqlite", "schema_version": 1, "exported_at": "2026-01-01T00:00:00+00:00",
          "embedding": None}


def _lines(*objs: object) -> str:
    return "".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objs)


def _mem(**over: object) -> dict:
    rec = {"content": "fine", "id": "a" * 32}
    rec.update(over)
    return {"kind": "memory", "record": rec}


MALFORMED: dict[str, str] = {
    "version-not-int": _lines({**HEADER, "version": "x"}),
    "not-a-record": _lines(HEADER, []),
    "no-record": _lines(HEADER, {"kind": "memory"}),
    "content-int": _lines(HEADER, _mem(content=5)),
    "no-content": _lines(HEADER, {"kind": "memory", "record": {"id": "b" * 32}}),
    "bad-b64": _lines({**HEADER, "embedding": {"model": "hash-384", "dim": 384}},
                      {**_mem(), "embedding": "!!!not base64"}),
    "dim-not-int": _lines({**HEADER, "embedding": {"model": "m", "dim": "abc"}}),
    "embedding-no-model": _lines({**HEADER, "embedding": {"dim": 3}}),
    "entity-unknown-field": _lines(HEADER, {"kind": "entity", "record": {"zzz": 1}}),
    "relation-bad-date": _lines(HEADER, {"kind": "relation", "record": {
        "id": "c" * 32, "source_id": "x", "target_id": "y", "relation_type": "knows",
        "valid_from": "not a date"}}),
    "queue-no-payload": _lines(HEADER, {"kind": "queue", "record": {"kind": "turn"}}),
    "session-int-date": _lines(HEADER, {"kind": "session", "record": {
        "id": "s1", "started_at": 123}}),
    "deep-line": _lines(HEADER, "[" * 100_000 + "]" * 100_000),
    "awareness-list": _lines(HEADER, {"kind": "awareness", "record": [1, 2]}),
}


@pytest.fixture
def mind(tmp_path: Path):
    with Mind.open("dest", config=Config(home=tmp_path / "home", embedder="hash")) as m:
        m.add("already here")
        yield m


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_exports_are_invalid_input(mind: Mind, case: str) -> None:
    with pytest.raises(InvalidInput):
        mind.restore(io.StringIO(MALFORMED[case]))
    assert [m.content for m in mind.list()] == ["already here"]


def test_cli_restore_prints_no_traceback(tmp_path: Path) -> None:
    env = {**os.environ, "SALIENCE_HOME": str(tmp_path / "home"), "SALIENCE_EMBEDDER": "hash"}
    for case in ("bad-b64", "deep-line"):
        path = tmp_path / f"{case}.jsonl"
        path.write_text(MALFORMED[case])
        r = subprocess.run(
            [sys.executable, "-m", "salience.interfaces.cli", "restore", str(path)],
            capture_output=True, text=True, env=env, timeout=120,
        )
        assert r.returncode != 0, case
        assert "Traceback" not in r.stderr + r.stdout, (case, r.stderr[-2000:])
        assert "error" in r.stderr.lower(), (case, r.stderr)


def test_chat_import_survives_a_hostile_line(mind: Mind, tmp_path: Path) -> None:
    good = {"messages": [{"role": "user", "content": "I moved to Lisbon last spring."},
                         {"role": "assistant", "content": "Lisbon is lovely."}]}
    good2 = {"messages": [{"role": "user", "content": "My sister Ana is a nurse."},
                          {"role": "assistant", "content": "Nursing is demanding."}]}
    deep_json = "[" * 50_000 + "]" * 50_000
    medium = json.dumps({"messages": [{"role": "user", "content": [[[[[[["x"]]]]]]] * 1}]})
    medium = medium.replace('"x"', "[" * 500 + '"x"' + "]" * 500)
    path = tmp_path / "chat.jsonl"
    path.write_text("\n".join([json.dumps(good), deep_json, medium, json.dumps(good2)]) + "\n")
    report = mind.import_chat(path)
    texts = " ".join(m.content for m in mind.list(limit=50))
    assert "Lisbon" in texts and "Ana" in texts, (report, texts)
    assert any("line 2" in n for n in report.notes), report.notes
    assert any("line 3" in n for n in report.notes), report.notes


_COUNT_CHILD = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))  # old code: MemoryError, not OOM
resource.setrlimit(resource.RLIMIT_CPU, (60, 60))
from salience.ingest.service import count_items
print([count_items(k, p) for k in ("mbox", "ics") for p in ("/dev/zero", "/proc/self")])
"""


def test_counts_never_read_non_files() -> None:
    r = subprocess.run([sys.executable, "-c", _COUNT_CHILD], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-1000:]
    assert r.stdout.strip() == "[None, None, None, None]"


def test_ics_count_reads_in_bounded_blocks(tmp_path: Path) -> None:
    p = tmp_path / "one-line.ics"
    with p.open("wb") as f:  # 24 MB without a newline, markers straddling block edges
        for _ in range(2):
            f.write(b"x" * ((1 << 20) - 5) + b"BEGIN:VEVENT" + b"y" * (11 << 20))
    assert count_items("ics", p) == 2


_MBOX_CHILD = """
import resource, sys
from pathlib import Path
from salience.config import Config
from salience.mind import Mind
mind = Mind.open("m", config=Config(home=Path(sys.argv[2]), embedder="hash"))
mind.add("warm up the store and the embedder")
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
report = mind.import_mbox(Path(sys.argv[1]))
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
texts = [m.content for m in mind.list(limit=10)]
print((peak - base) // 1024, sum("attachment skipped: big.bin" in t for t in texts),
      sum("the quarterly numbers" in t for t in texts))
"""


def test_mbox_attachments_are_streamed_not_held(tmp_path: Path) -> None:
    import base64

    path = tmp_path / "big.mbox"
    blob = base64.encodebytes(os.urandom(30 * 1024 * 1024))  # a 30 MB attachment, 76-char lines
    with path.open("wb") as f:
        f.write(b"From a@x Thu Jan  1 00:00:00 2026\nFrom: Ana <a@x>\nTo: b@x\n"
                b"Subject: numbers\nMessage-ID: <m1@x>\nMIME-Version: 1.0\n"
                b'Content-Type: multipart/mixed; boundary="BOUND"\n\n'
                b"--BOUND\nContent-Type: text/plain\n\nHere are the quarterly numbers.\n"
                b"--BOUND\nContent-Type: application/octet-stream\n"
                b'Content-Disposition: attachment; filename="big.bin"\n'
                b"Content-Transfer-Encoding: base64\n\n")
        f.write(blob)
        f.write(b"--BOUND--\n\nFrom c@x Thu Jan  1 00:00:00 2026\nFrom: c@x\nSubject: hi\n"
                b"Message-ID: <m2@x>\n\nA second, plain message.\n")
    r = subprocess.run([sys.executable, "-c", _MBOX_CHILD, str(path), str(tmp_path / "home")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    grown_mb, noted, text = (int(x) for x in r.stdout.split())
    assert noted == 1 and text == 1, r.stdout
    assert grown_mb < 60, f"peak RSS grew {grown_mb} MB importing a 40 MB mbox"
