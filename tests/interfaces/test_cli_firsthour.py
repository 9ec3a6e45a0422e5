"""A new user's first hour with the CLI (issue 19): install hints, typo minds, `minds`,
`--version`, usable ids, awareness remove/complete, loud failures on wrong input, progress.

Most commands run in-process through typer's runner (fast); what depends on the process —
missing extras, a malformed environment, no TTY — runs the real console entry point.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from salience import __version__
from salience.interfaces.cli import app


def cli(home: Path, *args: str, input: str | None = None, **env: str):
    """Run `salience ARGS` in-process with a fresh data directory and the hash embedder."""
    full = {"SALIENCE_HOME": str(home), "SALIENCE_EMBEDDER": "hash", **env}
    return CliRunner().invoke(app, list(args), env=full, input=input)


# A process in which the named top-level modules cannot be imported (as if the extra that
# brings them were not installed), then the real `salience` entry point.
_BLOCKED_MAIN = (
    "import sys\n"
    "for name in sys.argv[1].split(','):\n"
    "    if name: sys.modules[name] = None\n"
    "sys.argv = ['salience', *sys.argv[2:]]\n"
    "from salience.interfaces.cli import main\n"
    "main()\n"
)


def proc(home: Path, *args: str, blocked: str = "", **env: str) -> subprocess.CompletedProcess:
    """The real console entry point in a subprocess (stdout/stderr are pipes: no TTY)."""
    full = {**os.environ, "SALIENCE_HOME": str(home), "SALIENCE_EMBEDDER": "hash", **env}
    return subprocess.run(
        [sys.executable, "-c", _BLOCKED_MAIN, blocked, *args],
        capture_output=True, text=True, env=full, timeout=300,
    )


# -- install hints ---------------------------------------------------------------------------
ICS = (
    "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//t//t//EN\nBEGIN:VEVENT\nUID:1@t\n"
    "DTSTART:20260105T090000Z\nSUMMARY:Standup\nEND:VEVENT\nEND:VCALENDAR\n"
)


def test_missing_import_extra_prints_the_install_command(tmp_path: Path):
    ics = tmp_path / "cal.ics"
    ics.write_text(ICS)
    r = proc(tmp_path, "import", "ics", str(ics), blocked="icalendar")
    assert r.returncode == 2
    assert "pip install 'salience[import]'" in r.stderr, r.stderr


def test_serve_without_the_server_extra_names_it(tmp_path: Path):
    r = proc(tmp_path, "serve", "--insecure-local", blocked="uvicorn")
    assert r.returncode == 2
    assert "pip install 'salience[server]'" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_mcp_without_the_mcp_extra_names_it(tmp_path: Path):
    r = proc(tmp_path, "mcp", blocked="mcp")
    assert r.returncode == 2
    assert "pip install 'salience[mcp]'" in r.stderr, r.stderr


def test_unknown_backend_is_one_line_not_a_traceback(tmp_path: Path):
    r = proc(tmp_path, "stats", SALIENCE_BACKEND="mysql")
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and "pydantic" not in r.stderr
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1, r.stderr
    assert "SALIENCE_BACKEND" in lines[0] and "sqlite" in lines[0] and "postgres" in lines[0]


def test_version(tmp_path: Path):
    r = cli(tmp_path, "--version")
    assert r.exit_code == 0 and __version__ in r.stdout


# -- typos never create minds ------------------------------------------------------------------
READS = [
    ["stats"],
    ["search", "anything"],
    ["get", "0" * 32],
    ["list"],
    ["recall", "anything"],
    ["context", "anything"],
    ["catch-up"],
    ["about", "Maya"],
    ["identity"],
    ["awareness", "list"],
    ["export", "-"],
    ["maintain", "--dry-run"],
    ["queue"],
]


@pytest.mark.parametrize("args", READS, ids=lambda a: a[0] + ("-" + a[1] if a[0] == "awareness" else ""))
def test_read_commands_on_an_unknown_mind_fail_and_create_nothing(tmp_path: Path, args):
    assert cli(tmp_path, "add", "Maya lives in Lisbon", "--mind", "typo-mind").exit_code == 0
    r = cli(tmp_path, *args, "--mind", "typo_mind")
    assert r.exit_code == 2, r.output
    assert "no mind named 'typo_mind'" in r.stderr
    assert "typo-mind" in r.stderr  # the close name is suggested
    assert not (tmp_path / "minds" / "typo_mind.db").exists()


def test_recall_with_an_unknown_other_mind_fails(tmp_path: Path):
    assert cli(tmp_path, "add", "hello").exit_code == 0
    r = cli(tmp_path, "recall", "hello", "--also", "wrok")
    assert r.exit_code == 2 and "no mind named 'wrok'" in r.stderr
    assert not (tmp_path / "minds" / "wrok.db").exists()


def test_writes_still_create_minds(tmp_path: Path):
    assert cli(tmp_path, "add", "hello", "--mind", "fresh").exit_code == 0
    assert (tmp_path / "minds" / "fresh.db").exists()
    r = cli(tmp_path, "awareness", "add", "Ship it", "--mind", "fresh2")
    assert r.exit_code == 0, r.output


def test_minds_list_info_drop(tmp_path: Path):
    assert cli(tmp_path, "add", "one", "--mind", "alpha").exit_code == 0
    assert cli(tmp_path, "add", "two", "--mind", "beta").exit_code == 0
    r = cli(tmp_path, "minds", "list", "--json")
    assert r.exit_code == 0, r.output
    assert [m["name"] for m in json.loads(r.stdout)] == ["alpha", "beta"]
    r = cli(tmp_path, "minds", "list")
    assert "alpha" in r.stdout and "beta" in r.stdout
    r = cli(tmp_path, "minds", "info", "alpha", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["memories"] == 1
    r = cli(tmp_path, "minds", "info", "alfa")
    assert r.exit_code == 2 and "alpha" in r.stderr
    r = cli(tmp_path, "minds", "drop", "alpha")  # asks first; no answer means no
    assert r.exit_code != 0 and (tmp_path / "minds" / "alpha.db").exists()
    r = cli(tmp_path, "minds", "drop", "alpha", "--yes")
    assert r.exit_code == 0, r.output
    assert not (tmp_path / "minds" / "alpha.db").exists()
    assert not list((tmp_path / "minds").glob("alpha.db*"))
    assert [m["name"] for m in json.loads(cli(tmp_path, "minds", "list", "--json").stdout)] == [
        "beta"
    ]
    r = cli(tmp_path, "minds", "drop", "alpha", "--yes")
    assert r.exit_code == 2 and "no mind named 'alpha'" in r.stderr


# -- ids the CLI shows can be used ------------------------------------------------------------
def test_ids_shown_by_search_and_list_can_be_used(tmp_path: Path):
    mid = cli(tmp_path, "add", "Maya is allergic to penicillin", "--json").stdout
    mid = json.loads(mid)["id"]
    r = cli(tmp_path, "search", "penicillin")
    assert mid in r.stdout  # the full id, not a prefix that cannot be looked up
    assert mid in cli(tmp_path, "list").stdout
    r = cli(tmp_path, "get", mid[:14], "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["id"] == mid


def test_ambiguous_id_prefix_lists_the_matches(tmp_path: Path):
    ids = []
    for text in ("first memory", "second memory", "third memory"):
        ids.append(json.loads(cli(tmp_path, "add", text, "--json").stdout)["id"])
    common = ids[0]
    while not all(i.startswith(common) for i in ids):
        common = common[:-1]
    r = cli(tmp_path, "get", common)
    assert r.exit_code == 2
    assert "ambiguous" in r.stderr and all(i in r.stderr for i in ids)
    r = cli(tmp_path, "get", "zz")
    assert r.exit_code == 2 and "not found" in r.stderr
    r = cli(tmp_path, "delete", ids[2])
    assert r.exit_code == 0
    assert cli(tmp_path, "get", ids[2]).exit_code == 2


# -- awareness can shrink --------------------------------------------------------------------
def test_awareness_remove_and_complete(tmp_path: Path):
    ids = []
    for i in range(10):
        r = cli(tmp_path, "awareness", "add", f"task {i}", "--json")
        assert r.exit_code == 0, r.output
        ids.append(json.loads(r.stdout)["id"])
    r = cli(tmp_path, "awareness", "add", "one too many")
    assert r.exit_code == 2 and "10" in r.stderr
    listed = cli(tmp_path, "awareness", "list").stdout
    assert all(i in listed for i in ids)  # whole ids, usable below
    r = cli(tmp_path, "awareness", "complete", ids[0])
    assert r.exit_code == 0, r.output
    r = cli(tmp_path, "awareness", "remove", ids[1][:20])  # a unique prefix
    assert r.exit_code == 0, r.output
    r = cli(tmp_path, "awareness", "remove", ids[1])
    assert r.exit_code == 2 and "not found" in r.stderr
    left = [i["id"] for i in json.loads(cli(tmp_path, "awareness", "list", "--json").stdout)]
    assert len(left) == 8 and ids[0] not in left and ids[1] not in left
    assert cli(tmp_path, "awareness", "add", "one too many").exit_code == 0


# -- wrong inputs fail loudly ----------------------------------------------------------------
CHAT = json.dumps({"messages": [
    {"role": "user", "content": "My sister Eva is a nurse in Porto."},
    {"role": "assistant", "content": "Got it."},
]}) + "\n"


def _mbox(path: Path, messages: list[tuple[str, str]]) -> Path:
    with path.open("w") as f:
        for i, (subject, body) in enumerate(messages):
            f.write(
                f"From x@example.com Tue Feb  3 09:30:00 2026\nSubject: {subject}\n"
                f"From: Bob <bob@example.com>\nMessage-ID: <k{i}@example.com>\n\n{body}\n\n"
            )
    return path


@pytest.mark.parametrize(
    ("kind", "name", "looks"),
    [("mbox", "chat.jsonl", "chat"), ("chat", "mail.mbox", "mbox"), ("ics", "mail.mbox", "mbox"),
     ("mbox", "cal.ics", "ics")],
)
def test_import_of_the_wrong_format_fails_and_names_the_right_one(tmp_path: Path, kind, name, looks):
    files = {"chat.jsonl": CHAT, "cal.ics": ICS}
    path = tmp_path / name
    if name in files:
        path.write_text(files[name])
    else:
        _mbox(path, [("Dinner", "Dinner with Marco on Friday at 8pm.")])
    r = cli(tmp_path, "import", kind, str(path), "--mind", "me")
    assert r.exit_code == 2, r.output
    what = {"mbox": "an mbox", "ics": "a valid iCalendar", "chat": "a chat JSONL"}[kind]
    assert f"is not {what} file" in r.stderr, r.stderr
    assert f"salience import {looks}" in r.stderr  # the command that would work
    assert not (tmp_path / "minds" / "me.db").exists()


def test_empty_import_file_is_an_error(tmp_path: Path):
    empty = tmp_path / "empty.mbox"
    empty.write_text("")
    r = cli(tmp_path, "import", "mbox", str(empty))
    assert r.exit_code == 2 and "empty" in r.stderr


def test_items_skipped_by_triage_say_why(tmp_path: Path):
    box = _mbox(tmp_path / "m.mbox", [
        ("Flight TP123", "Your flight TP123 to Lisbon leaves on March 3 at 10:00."),
        ("Weekly deals", "Huge savings this week! Click here to unsubscribe. 50% off shoes."),
    ])
    r = cli(tmp_path, "import", "mbox", str(box), "--json")
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    assert rep["skipped"] == 1
    assert any("k1@example.com" in n and "not kept" in n for n in rep["notes"]), rep["notes"]


# -- progress without a TTY ------------------------------------------------------------------
def test_long_jobs_print_plain_progress_lines_without_a_tty(tmp_path: Path):
    box = _mbox(tmp_path / "m.mbox", [(f"Note {i}", f"Remember item number {i}.") for i in range(5)])
    env = {"SALIENCE_PROGRESS_INTERVAL_S": "0"}  # a line at every step (default: every 5 s)
    r = proc(tmp_path, "import", "mbox", str(box), **env)
    assert r.returncode == 0, r.stderr
    lines = [x for x in r.stderr.splitlines() if x.startswith("import mbox")]
    assert lines, r.stderr
    assert re.search(r"5/5 .*100%.*elapsed", lines[-1]), lines
    assert any(re.search(r"\b[1-4]/5\b", x) for x in lines), lines  # it advanced item by item
    r = proc(tmp_path, "export", str(tmp_path / "out.jsonl"), **env)
    assert r.returncode == 0, r.stderr
    lines = [x for x in r.stderr.splitlines() if x.startswith("export")]
    assert lines and re.search(r"(\d+)/\1 .*100%", lines[-1]), r.stderr  # a total, reached
    r = proc(tmp_path, "restore", str(tmp_path / "out.jsonl"), "--mind", "copy", **env)
    assert r.returncode == 0, r.stderr
    assert any(re.search(r"restore.* (\d+)/\1 ", x) for x in r.stderr.splitlines()), r.stderr
    r = proc(tmp_path, "reembed", "--embedder", "hash", "--to", "again", **env)
    assert r.returncode == 0, r.stderr
    lines = [x for x in r.stderr.splitlines() if x.startswith("re-embed")]
    assert lines and re.search(r"5/5 .*100%", lines[-1]), r.stderr


# -- output ----------------------------------------------------------------------------------
def test_embedders_says_which_provider_auto_picks(tmp_path: Path):
    r = cli(tmp_path, "embedders", "--json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    picks = [row["name"] for row in rows if row["auto_pick"]]
    assert len(picks) == 1
    first_available = next(
        (n for n in ("onnx", "e5", "minilm", "ollama", "openai")
         if any(row["name"] == n and row["available"] for row in rows)), "hash")
    assert picks == [first_available]
    r = cli(tmp_path, "embedders")
    assert f"`auto` picks {picks[0]}" in r.stdout


def test_search_explains_its_scores(tmp_path: Path):
    assert cli(tmp_path, "add", "Maya is allergic to penicillin").exit_code == 0
    r = cli(tmp_path, "search", "penicillin", "--mind", "default")
    assert "not a probability" in " ".join(r.stdout.split())


def test_demo_output_is_not_hard_wrapped_and_names_no_deleted_path(tmp_path: Path):
    r = cli(tmp_path, "demo")
    assert r.exit_code == 0, r.output
    assert "salience-demo-" not in r.output  # the temporary mind is gone when the demo ends
    assert "a temporary directory" in r.stderr
    summary = [x for x in r.stdout.splitlines() if "questions answered with the right memory" in x]
    assert summary and "in the top" in summary[0]  # one line, not cut at 80 columns
    assert any(len(x) > 100 for x in r.stdout.splitlines())


def test_heartbeat_details_are_whole(tmp_path: Path):
    assert cli(tmp_path, "add", "Maya lives in Lisbon").exit_code == 0
    r = cli(tmp_path, "heartbeat", COLUMNS="400")
    assert r.exit_code == 0, r.output
    # the maintenance step's detail has more than 100 characters of JSON: every key is shown
    for key in ("scanned: 1", "decayed: 1", "mean_usefulness_change: 0.0", "pruned: {}",
                "compacted: {}"):
        assert key in r.stdout, r.stdout


def test_serve_without_any_key_says_how_to_make_one(tmp_path: Path):
    import socket
    import time

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "SALIENCE_HOME": str(tmp_path), "SALIENCE_EMBEDDER": "hash"}
    p = subprocess.Popen(
        [sys.executable, "-m", "salience.interfaces.cli", "serve", "--port", str(port),
         "--log-level", "warning"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        for _ in range(600):  # startup wait (≤ 60 s), not a timed assertion
            if p.poll() is not None:
                break
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                time.sleep(0.1)
    finally:
        p.terminate()
        err = p.communicate(timeout=30)[1]
    assert "no API keys yet" in err and "salience keys create" in err, err


def test_progress_bar_on_a_terminal_shows_total_rate_and_eta(tmp_path: Path):
    import pty

    box = _mbox(tmp_path / "m.mbox", [(f"Note {i}", f"Remember item number {i}.") for i in range(3)])
    master, slave = pty.openpty()
    env = {**os.environ, "SALIENCE_HOME": str(tmp_path), "SALIENCE_EMBEDDER": "hash",
           "COLUMNS": "160", "TERM": "xterm"}
    p = subprocess.Popen(
        [sys.executable, "-m", "salience.interfaces.cli", "import", "mbox", str(box)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave, env=env,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    assert p.wait(timeout=300) == 0
    os.close(master)
    screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", b"".join(chunks).decode(errors="replace"))
    assert "import mbox" in screen and "3/3" in screen, screen
    assert "emails/s" in screen and "ETA" in screen and "elapsed" in screen, screen
