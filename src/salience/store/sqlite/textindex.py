"""Full text at index speed for large SQLite minds: a tantivy index beside the database (issue 21).

The exact scorer (`store/bm25.py` over `memory_terms`) reads every posting of the query's
terms that MaxScore cannot skip; at 100k memories that is most of a search's time. tantivy
(BM25 with block-max WAND, in Rust) returns its top `pool` rows without scoring every match.
Its scorer fixes k1 1.2 / b 0.75 and keeps its own statistics, so its rows are only
*candidates*: the store re-scores them, together with every row of the query's rare terms
and every row changed since the index was last committed, with the mind's own BM25 (k1/b of
the search, IDF and lengths from `memory_terms`) and returns the best of those. A row can be
missed only if it matches none of the rare terms and tantivy ranks it below `pool`
(bench/store_speed.py reports the agreement with the exact scorer).

The SQLite file stays the source of truth. Coherence follows the HNSW graph's rules:

- `text_changes` (seq, pk) is a log written by triggers on `memory_lengths`: every write of a
  memory's postings and every delete leaves its pk.
- The index lives in `<mind>.db.fts/index-<uuid>/` (a rebuild writes a new one, so an index
  another process reads is never removed under it) with `<mind>.db.fts/manifest.json` naming
  it, the mind (`mind_uid`), the log
  position it reflects (`seq`), a token the database also records (`meta.fts_index_token`: an
  older copy of the file never trusts a newer index), and each file's size and SHA-256.
- Writes only append to the log. A search reads the log past the index's position: those pks
  are "dirty" and join the candidates (their tantivy documents, if any, are stale but every
  candidate is scored from SQLite). Once `commit_every` pks are dirty (or on close) the
  process applies them — a document rebuilt from the committed rows, one tantivy commit —
  then writes the manifest. A crash before the tantivy commit leaves the pks in the log; a
  crash between the commit and the manifest replays them (re-indexing a pk is idempotent).
- An index that is missing, of another mind or token, behind a trimmed log, or whose files do
  not match their checksums is rebuilt from the database.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import shutil
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .. import bm25
from . import readonly, sql
from .filters import chunks, marks
from .fulltext import FTS_TOKEN_KEY, TEXT_INDEX_VERSION, Postings
from .hnsw import file_digest

log = logging.getLogger(__name__)

TextIndexMode = Literal["auto", "exact", "tantivy"]
FORMAT = 1
TOKENS_VERSION = f"{TEXT_INDEX_VERSION}/x2-pad"  # how postings_tokens shapes a row
TOKEN_KEY = FTS_TOKEN_KEY  # the index this database last committed a manifest for
LOG_TRIMMED_KEY = "text_log_trimmed"  # the text log holds no entries at or below this seq
LOG_KEEP = 20_000  # log entries kept behind the index when trimming
LOG_TRIM_AT = 100_000  # trim once the log reaches this far behind the index
FULL_READ_DF = 100  # a query term in at most this many rows is read in full (all its rows)
_BUILD_BATCH = 5_000
STALE_S = 3600.0  # index builds no manifest names, older than this: leftovers of a crash


@dataclass(frozen=True)
class TextIndexParams:
    """`mode`: exact (postings only), tantivy (always), auto (tantivy from `min_rows`);
    `pool`: tantivy rows re-scored per search (at least 2 x its limit); `commit_every`: dirty pks that trigger an
    index commit; `max_dirty`: past this many dirty pks (the index could not be written)
    searches use the exact scorer."""

    mode: TextIndexMode = "auto"
    min_rows: int = 50_000
    pool: int = 100
    commit_every: int = 256
    max_dirty: int = 50_000


def _named(parent: Path) -> str | None:
    """The index subdirectory the manifest in `parent` names."""
    try:
        return str(json.loads((parent / "manifest.json").read_text())["dir"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


class IndexBusy(Exception):
    """Another process holds the index's writer: this one leaves its changes in the log."""


def sidecar_dir(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".fts")


def available() -> bool:
    """Whether tantivy can be imported (an optional dependency: `salience[fts]`)."""
    try:
        import tantivy  # noqa: F401
    except ImportError:
        return False
    return True


def _tantivy() -> Any:
    import tantivy

    return tantivy


FILLER = "~"  # a token no query has: stands for stop words and the length padding
TANTIVY_B = 0.75  # tantivy's fixed BM25 b (and k1 1.2)
SHAPED_B = bm25.DEFAULT_B  # the b the documents are shaped for (and k1 0.9: 1.2 / 2 = 0.6)
# padding per doc, in average lengths (x2: every word is fed twice): 1.75 for b 0.4
PAD = 2 * (TANTIVY_B * (1 - SHAPED_B) / SHAPED_B - (1 - TANTIVY_B))
#: the searches' BM25 parameters the index serves (measured at 100k, docs/benchmarks.md: k1/b
#: 0.9/0.4 and 0.6/0.3 agree with the exact top-50 on 99.98 %; 1.2/0.75 on 86 %, 1.5/0.9 on
#: 68 %): farther from the shape, the exact scorer runs
K1_RANGE = (0.5, 1.3)
B_RANGE = (SHAPED_B - 0.15, SHAPED_B + 0.15)


def serves(k1: float, b: float) -> bool:
    """Whether the index's candidates are good for a search with these BM25 parameters."""
    return K1_RANGE[0] <= k1 <= K1_RANGE[1] and B_RANGE[0] <= b <= B_RANGE[1]


def postings_tokens(postings: Iterable[tuple[str, float]], length: float, avg_length: float) -> str:
    """The whitespace-separated tokens tantivy indexes for one memory, from its postings rows
    (term, weighted tf) and length as the store wrote them (the text is not tokenized again),
    shaped so that tantivy's BM25 (k1 1.2, b 0.75, fixed) ranks close to the mind's default
    (k1 0.9, b 0.4):

    - each term 2·tf times (a weighted tf is a sum of 1.0s and 0.5s: twice per content word,
      once per summary/entity word), so tantivy's tf is exactly 2x the weighted one
      (effective k1 1.2 / 2 = 0.6);
    - every word counts 2 tokens (a filler stands for stop words and the second half of a
      summary/entity word), plus `PAD` average lengths of filler in every row: with
      fed length 2·len + p and p = 2·avg·(b'(1 − b)/b − (1 − b')) = 1.75·avg, tantivy's
      1 − b' + b'·len'/avg' equals 1 − b + b·len/avg for b' 0.75, b 0.4 (while the
      mind's average length stays near the one the index was built with)."""
    toks: list[str] = []
    for term, tf in postings:
        toks.extend([term] * round(2 * tf))
    fill = max(0, round(2 * length) - len(toks)) + round(PAD * avg_length)
    return " ".join([*toks, *([FILLER] * fill)])


def tantivy_idf(docs: int, hits: int) -> float:
    """tantivy's IDF: ln(1 + (N − n + 0.5) / (n + 0.5))."""
    return math.log(1.0 + (max(docs, hits) - hits + 0.5) / (hits + 0.5))


class TantivyText:
    """One tantivy index in a directory: pk (u64, indexed, fast) and the terms (whitespace)."""

    def __init__(self, directory: Path, index: Any) -> None:
        self.directory = directory
        self._index = index
        self._schema = index.schema
        self._searcher = index.searcher()
        self._writer: Any = None

    def close(self) -> None:
        """Release the writer (and its lock); merges still running are abandoned."""
        self._writer = None

    @classmethod
    def create(cls, parent: Path) -> TantivyText:
        """A new, empty index in its own subdirectory of `parent` (an index another process
        still reads is never touched; unnamed builds older than `STALE_S` are removed)."""
        tv = _tantivy()
        parent.mkdir(parents=True, exist_ok=True)
        now = time.time()
        for old in parent.glob("index-*"):
            with contextlib.suppress(OSError):
                if now - old.stat().st_mtime > STALE_S and old.name != _named(parent):
                    shutil.rmtree(old)
        directory = parent / f"index-{uuid.uuid4().hex}"
        directory.mkdir()
        sb = tv.SchemaBuilder()
        sb.add_unsigned_field("pk", indexed=True, fast=True)
        sb.add_text_field("t", tokenizer_name="whitespace", index_option="freq")
        return cls(directory, tv.Index(sb.build(), path=str(directory)))

    @classmethod
    def open(cls, directory: Path) -> TantivyText:
        return cls(directory, _tantivy().Index.open(str(directory)))

    def num_docs(self) -> int:
        return int(self._searcher.num_docs)

    def top(self, weights: dict[str, float], n: int) -> list[int]:
        """The pks of tantivy's `n` best rows for any of the terms, each term's tantivy IDF
        replaced by its weight (the mind's IDF) through a boost."""
        tv = _tantivy()
        if not weights or n <= 0:
            return []
        searcher = self._searcher  # one searcher throughout (a commit may swap it)
        docs = int(searcher.num_docs)
        clauses = []
        for t, w in weights.items():
            boost = w / tantivy_idf(docs, int(searcher.doc_freq("t", t)))
            clauses.append(
                (
                    tv.Occur.Should,
                    tv.Query.boost_query(tv.Query.term_query(self._schema, "t", t), boost),
                )
            )
        q = tv.Query.boolean_query(clauses)
        hits = searcher.search(q, n, count=False).hits
        if not hits:
            return []
        return [int(p) for p in searcher.fast_field_values("pk", [a for _, a in hits])]

    def writer(self) -> Any:
        """This process's writer, kept open (merges run in its background threads); raises
        `IndexBusy` while another process holds the directory's writer lock."""
        if self._writer is None:
            try:
                self._writer = self._index.writer(heap_size=50_000_000, num_threads=1)
            except ValueError as e:  # tantivy's LockBusy
                raise IndexBusy(str(e)) from e
        return self._writer

    def apply(self, docs: Iterable[tuple[int, str | None]], *, drop: Sequence[int] = ()) -> int:
        """Delete the documents of `drop`, then add `docs` (pk, tokens; None: nothing to add),
        in one commit; the documents added. (tantivy applies a delete to the documents added
        before it, so every delete goes first.)"""
        tv = _tantivy()
        writer = self.writer()
        done = 0
        try:
            pks = list(drop)
            for i in range(0, len(pks), 1024):
                part = pks[i : i + 1024]
                writer.delete_documents_by_query(tv.Query.term_set_query(self._schema, "pk", part))
            for pk, text in docs:
                if text is not None:
                    doc = tv.Document()
                    doc.add_unsigned("pk", pk)
                    doc.add_text("t", text)
                    writer.add_document(doc)
                    done += 1
            writer.commit()
        except BaseException:
            with contextlib.suppress(Exception):
                writer.rollback()
            raise
        self._index.reload()
        self._searcher = self._index.searcher()
        return done

    # -- manifest ---------------------------------------------------------------------------
    def files(self) -> list[str]:
        """The index's own files (segments, meta.json): what the manifest checksums."""
        return sorted(
            p.name for p in self.directory.iterdir() if p.is_file() and not p.name.startswith(".")
        )

    def save_manifest(self, manifest: dict[str, Any], known: dict[str, list[Any]]) -> dict:
        """Write the manifest atomically; `known` holds digests of files already hashed
        (segment files never change once written). The manifest written."""
        files: dict[str, list[Any]] = {}
        for name in self.files():
            path = self.directory / name
            size = path.stat().st_size
            old = known.get(name)
            if old is not None and old[0] == size and name != "meta.json":
                files[name] = old
            else:
                files[name] = [size, file_digest(path)]
        body = {**manifest, "format": FORMAT, "dir": self.directory.name, "files": files}
        parent = self.directory.parent
        tmp = parent / f".manifest-{manifest['token']}.tmp"
        tmp.write_text(json.dumps(body))
        os.replace(tmp, parent / "manifest.json")
        return body

    @classmethod
    def load(cls, parent: Path) -> tuple[TantivyText, dict] | None:
        """The index the manifest in `parent` names, and the manifest; None when absent,
        partial or altered (a file whose size or SHA-256 differs)."""
        try:
            body = json.loads((parent / "manifest.json").read_text())
            if body.get("format") != FORMAT:
                return None
            directory = parent / str(body["dir"])
            for name, (size, digest) in body["files"].items():
                path = directory / name
                if path.stat().st_size != size or file_digest(path) != digest:
                    return None
            loaded = cls.open(directory)
        except (OSError, ValueError, KeyError, TypeError) as e:
            log.info("text index in %s is not usable: %s", parent, e)
            return None
        return loaded, body


class PoolSource:
    """`bm25.Source` restricted to candidate rows: a rare term's postings are read in full,
    a frequent one's only for the pool (and for whatever rows the scorer asks about)."""

    def __init__(self, src: Postings, pool: Sequence[int]) -> None:
        self._src = src
        self._pool = list(dict.fromkeys(pool))
        self._df: dict[str, int] = {}

    def stats(self, terms: Sequence[str]) -> bm25.Stats:
        st = self._src.stats(terms)
        self._df.update(st.df)
        return st

    def postings(self, term: str) -> Iterable[tuple[int, float, float]]:
        if self._df.get(term, 0) <= FULL_READ_DF:
            return self._src.postings(term)
        return self._src.postings_for(term, self._pool)

    def postings_for(self, term: str, pks: Sequence[int]) -> Iterable[tuple[int, float, float]]:
        return self._src.postings_for(term, pks)


class _Cancelled(Exception):
    """The index is closing: a background job stops before it publishes anything."""


class TextIndex:
    """The tantivy index of one store and its position in the text log (callers hold the
    store's lock).

    Building (or loading) the index and committing the dirty rows run in one background
    thread at a time, on its own connection (its own read snapshot), so no search waits for
    them: while the index is missing or being (re)built searches use the exact scorer, and
    while a commit runs the rows it applies stay dirty (candidates) until the commit is done.
    `hold` (tests) pauses a job before it publishes; `close` cancels and joins it."""

    def __init__(self, db_path: Path, params: TextIndexParams) -> None:
        self.params = params
        self._db_path = db_path
        self._dir = sidecar_dir(db_path)
        self._tv: TantivyText | None = None
        self._seq = 0  # log position the committed index reflects
        self._read = 0  # log position read into `dirty`
        self._dirty: dict[int, int] = {}  # pk -> the last log seq that changed it
        self._files: dict[str, list[Any]] = {}
        self._avg = 1.0  # the mind's average length when the index was built (its padding)
        self._broken = False  # tantivy failed here: this handle searches exactly
        self._pending: tuple[str, int] | None = None  # (token, seq) saved, not yet in the db
        self._available: bool | None = None  # tantivy importable (checked on first use)
        self._mu = threading.Lock()  # the state above, between searches and the job
        self._job: threading.Thread | None = None
        self._stop = threading.Event()
        self._retry_at = 0  # dirty pks before the next commit after IndexBusy
        self.hold: threading.Event | None = None  # tests: a job waits for it to publish
        self.paused = threading.Event()  # tests: set while a job waits for `hold`

    @property
    def dirty(self) -> int:
        return len(self._dirty)

    def wanted(self, rows: int) -> bool:
        if self._broken or self.params.mode == "exact" or self._stop.is_set():
            return False
        if self._available is None:
            self._available = available()
            if not self._available:
                log.warning("tantivy is not installed: full text is scored exactly")
        if not self._available:
            return False
        return self.params.mode == "tantivy" or rows >= self.params.min_rows

    # -- sync -------------------------------------------------------------------------------
    def synced(self, db: sqlite3.Connection) -> TantivyText | None:
        """The index with `dirty` brought up to the committed log; None when it cannot be
        used yet (missing or being built in the background: searches go exact). Starts the
        background build, or a commit once `commit_every` pks are dirty."""
        try:
            with _read_tx(db):
                tv = self._tv
                if tv is not None and self._read < _trimmed(db):
                    with self._mu:  # the log moved past what this handle read: reopen
                        self._tv = tv = None
                if tv is None:
                    self._start(self._open_job)
                    return None
                with self._mu:
                    self._read_log(db)
                    due = len(self._dirty) >= max(self.params.commit_every, self._retry_at)
                    pks, upto = sorted(self._dirty), self._read
                if due:
                    self._start(lambda: self._commit_job(tv, pks, upto))
        except (OSError, ValueError, RuntimeError, sqlite3.Error) as e:
            self._fail(e)
            return None
        if len(self._dirty) > self.params.max_dirty:
            return None
        return tv

    def candidates(
        self, tv: TantivyText, weights: dict[str, float], limit: int
    ) -> tuple[list[int], bool]:
        """(tantivy's best `max(pool, 2·limit)` rows ∪ dirty pks, whether tantivy's pool was
        full: rows may lie beyond it)."""
        n = max(self.params.pool, 2 * limit)
        top = tv.top(weights, n)
        with self._mu:
            dirty = list(self._dirty)
        return [*top, *dirty], len(top) >= n

    def wait(self) -> None:
        """Until the background job (if any) is done."""
        job = self._job
        if job is not None:
            job.join()

    def _read_log(self, db: sqlite3.Connection) -> None:
        for seq, pk in db.execute(sql.TEXT_LOG_AFTER, (self._read,)):
            self._dirty[int(pk)] = int(seq)
            self._read = int(seq)

    def _fail(self, e: BaseException) -> None:
        log.warning("text index of %s failed (%s): searching exactly", self._dir, e)
        self._broken, self._tv = True, None

    def _start(self, job: Callable[[], None]) -> None:
        """Run `job` in the background unless one is running (or the index is closing)."""
        if self._stop.is_set() or (self._job is not None and self._job.is_alive()):
            return

        def run() -> None:
            try:
                job()
            except _Cancelled:
                pass
            except (OSError, ValueError, RuntimeError, sqlite3.Error) as e:
                self._fail(e)

        self._job = threading.Thread(target=run, name=f"salience-textindex:{self._dir.name}")
        self._job.start()

    def _pause(self) -> None:
        """Stop here if closing; wait for `hold` when a test set one."""
        hold = self.hold
        if hold is not None:
            self.paused.set()
            while not hold.wait(0.02):
                if self._stop.is_set():
                    break
            self.paused.clear()
        if self._stop.is_set():
            raise _Cancelled

    def _connect(self) -> sqlite3.Connection:
        """The background job's own connection (its own read snapshot)."""
        db = sqlite3.connect(str(self._db_path), isolation_level=None, check_same_thread=False)
        try:
            db.execute(sql.BUSY_TIMEOUT.format(ms=10_000))
            db.execute(sql.TEXT_LOG_LAST).fetchone()
        except sqlite3.OperationalError as e:
            db.close()
            if not readonly.is_read_only_error(e):
                raise
            return readonly.connect_read_only(self._db_path)
        return db

    def _open_job(self) -> None:
        """Load the saved index if it matches the database, else rebuild it (in one read
        snapshot of the job's connection: the log position and the rows agree), then publish
        it to the searches."""
        db = self._connect()
        try:
            with _read_tx(db):
                self._open(db)
        finally:
            db.close()

    def _open(self, db: sqlite3.Connection) -> None:
        last = _log_last(db)
        trimmed = _trimmed(db)
        loaded = TantivyText.load(self._dir) if self._dir.exists() else None
        if loaded is not None:
            tv, manifest = loaded
            seq = int(manifest.get("seq", -1))
            if (
                manifest.get("tokens") == TOKENS_VERSION
                and manifest.get("mind_uid") == _meta(db, "mind_uid")
                and manifest.get("token") == _meta(db, TOKEN_KEY)
                and trimmed <= seq <= last
            ):
                self._pause()
                avg = float(manifest.get("avg_length", 1.0))
                self._publish(tv, seq, dict(manifest["files"]), avg)
                return
            log.info("saved text index of %s does not match the database: rebuilding", self._dir)
        self._rebuild(db, last)

    def _publish(self, tv: TantivyText, seq: int, files: dict[str, list[Any]], avg: float) -> None:
        with self._mu:
            self._tv, self._seq, self._read = tv, seq, seq
            self._dirty.clear()
            self._files, self._avg = files, avg
            self._retry_at = 0

    def _rebuild(self, db: sqlite3.Connection, last: int) -> None:
        tv = TantivyText.create(self._dir)
        try:
            n, total = db.execute(sql.TEXT_TOTALS).fetchone()
            avg = float(total) / int(n) if n else 1.0
            tv.apply(self._unless_closing(_all_docs(db, avg)))
            self._pause()
            files = self._save(db, tv, last, avg, {})
        except BaseException:
            tv.close()
            shutil.rmtree(tv.directory, ignore_errors=True)  # no manifest names it yet
            raise
        self._publish(tv, last, files, avg)

    def _unless_closing(self, docs: Iterable[tuple[int, str | None]]) -> Iterator[Any]:
        """`docs`, stopped (`_Cancelled`) once the index is closing."""
        for i, d in enumerate(docs):
            if i % 256 == 0 and self._stop.is_set():
                raise _Cancelled
            yield d

    def _commit_job(self, tv: TantivyText, pks: list[int], upto: int) -> None:
        db = self._connect()
        try:
            with _read_tx(db):
                self._commit(db, tv, pks, upto, pause=True)
        finally:
            db.close()

    def _commit(
        self, db: sqlite3.Connection, tv: TantivyText, pks: list[int], upto: int, *, pause: bool
    ) -> None:
        """Apply these dirty pks (their rows in `db`'s snapshot, at or past `upto`) in one
        tantivy commit; only then do they leave `dirty` (a pk changed again after `upto`
        stays) and the manifest names the new position."""
        try:
            tv.apply(_docs(db, pks, self._avg), drop=pks)
        except IndexBusy:  # another process holds the writer: its changes stay candidates
            with self._mu:
                self._retry_at = len(self._dirty) + self.params.commit_every
            return
        if pause:
            self._pause()
        with self._mu:
            if self._tv is not tv:
                return  # reopened meanwhile
            for pk in pks:
                if self._dirty.get(pk, upto + 1) <= upto:
                    del self._dirty[pk]
            self._seq = max(self._seq, upto)
            seq, files, avg = self._seq, self._files, self._avg
        saved = self._save(db, tv, seq, avg, files)
        with self._mu:
            self._files = saved

    def _save(
        self, db: sqlite3.Connection, tv: TantivyText, seq: int, avg: float, known: dict
    ) -> dict[str, list[Any]]:
        """Write the manifest (its files' digests returned), then leave its token for the
        store to record in the database (and trim the log). A database that cannot be
        written (read-only mind) keeps the old token: the next process rebuilds rather than
        trusting an index it cannot vouch for."""
        token = uuid.uuid4().hex
        manifest = {
            "mind_uid": _meta(db, "mind_uid"),
            "seq": seq,
            "token": token,
            "avg_length": avg,
            "tokens": TOKENS_VERSION,
        }
        body = tv.save_manifest(manifest, known)
        with self._mu:
            self._pending = (token, seq)
        return dict(body["files"])

    def record_token(self, db: sqlite3.Connection) -> None:
        """Inside a write transaction after a manifest was saved: name the saved index in the
        database and trim the text log far behind it."""
        with self._mu:
            pending, self._pending = self._pending, None
        if pending is None:
            return
        token, seq = pending
        db.execute(sql.SET_META, (TOKEN_KEY, token))
        if seq - _log_first(db) > LOG_TRIM_AT:
            db.execute(sql.TEXT_LOG_TRIM, (seq - LOG_KEEP,))
            db.execute(sql.SET_META, (LOG_TRIMMED_KEY, str(seq - LOG_KEEP)))

    @property
    def pending_token(self) -> bool:
        return self._pending is not None

    def forget_token(self) -> None:
        with self._mu:
            self._pending = None

    def close(self, db: sqlite3.Connection) -> None:
        """On close: cancel a build (or an unfinished commit) and join its thread, then commit
        what is dirty so the next process starts from a current index."""
        self._stop.set()
        self.wait()
        tv = self._tv
        if tv is None or self._broken:
            return
        try:
            with _read_tx(db):
                self._read_log(db)
                if self._dirty:
                    self._commit(db, tv, sorted(self._dirty), self._read, pause=False)
        except (OSError, ValueError, RuntimeError, sqlite3.Error) as e:
            log.warning("cannot save the text index of %s: %s", self._dir, e)
        tv.close()
        self._tv = None


# -- helpers ------------------------------------------------------------------------------------
@contextlib.contextmanager
def _read_tx(db: sqlite3.Connection) -> Iterator[None]:
    """One read snapshot (unless the caller already holds a transaction)."""
    own = not db.in_transaction
    if own:
        db.execute(sql.BEGIN_READ)
    try:
        yield
    finally:
        if own:
            db.execute(sql.COMMIT)


def _meta(db: sqlite3.Connection, key: str) -> str | None:
    row = db.execute(sql.GET_META, (key,)).fetchone()
    return None if row is None else str(row[0])


def _trimmed(db: sqlite3.Connection) -> int:
    return int(_meta(db, LOG_TRIMMED_KEY) or 0)


def _log_last(db: sqlite3.Connection) -> int:
    return int(db.execute(sql.TEXT_LOG_LAST).fetchone()[0])


def _log_first(db: sqlite3.Connection) -> int:
    return int(db.execute(sql.TEXT_LOG_FIRST).fetchone()[0])


def _all_docs(db: sqlite3.Connection, avg: float) -> Iterator[tuple[int, str | None]]:
    """(pk, tokens) of every memory, from its postings, in pk order."""
    last = 0
    while True:
        lengths = db.execute(sql.LENGTHS_AFTER, (last, _BUILD_BATCH)).fetchall()
        if not lengths:
            return
        lo, hi = int(lengths[0][0]), int(lengths[-1][0])
        terms: dict[int, list[tuple[str, float]]] = {}
        for pk, term, tf in db.execute(sql.TERMS_BETWEEN, (lo, hi)):
            terms.setdefault(int(pk), []).append((term, tf))
        for pk, length in lengths:
            yield int(pk), postings_tokens(terms.get(int(pk), ()), length, avg)
        last = hi


def _docs(db: sqlite3.Connection, pks: list[int], avg: float) -> Iterator[tuple[int, str | None]]:
    """(pk, tokens) of these pks as committed, from their postings; None for a pk that no
    longer exists."""
    for part in chunks(pks):
        lengths = dict(db.execute(sql.LENGTHS_OF_PKS.format(marks=marks(part)), part))
        terms: dict[int, list[tuple[str, float]]] = {}
        for pk, term, tf in db.execute(sql.TERMS_OF_PKS.format(marks=marks(part)), part):
            terms.setdefault(int(pk), []).append((term, tf))
        for pk in part:
            length = lengths.get(pk)
            yield pk, None if length is None else postings_tokens(terms.get(pk, ()), length, avg)
