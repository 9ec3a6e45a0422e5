"""Emails from an mbox file (streamed line by line, parsed with stdlib `email`), as items of the email path.

Each message becomes one item: Subject/From/To/Date header lines, then the text body. The body
is the first text/plain part; an HTML-only message is converted to text crudely (tags dropped,
entities unescaped); undeclared or unknown charsets are decoded as UTF-8 with replacement;
attachments are never read into memory as text: each is noted as "[attachment skipped: …]".
Bodies over the size limit are truncated with a note. The item key is the Message-ID (or, when
absent, a hash of the headers and body), so re-importing a file is incremental.
"""

from __future__ import annotations

import codecs
import email.header
import email.utils
import hashlib
import html
import re
from collections.abc import Iterator
from datetime import datetime
from email.message import Message
from pathlib import Path
from typing import IO

from ..clock import ensure_utc
from ..errors import InvalidInput
from .items import IngestItem
from .source import SourceRecord

_TAG_RE = re.compile(r"<[^>]+>")
_DROP_RE = re.compile(r"<(script|style|head)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_BLOCK_RE = re.compile(r"<\s*(br|/p|/div|/li|/tr|/h[1-6])\b[^>]*>", re.IGNORECASE)
_BLANKS_RE = re.compile(r"\n\s*\n\s*\n+")


def html_to_text(markup: str) -> str:
    """Crude HTML → text: drop script/style/head, break lines at block ends, strip tags,
    unescape entities, squeeze blank lines."""
    text = _DROP_RE.sub(" ", markup)
    text = _BLOCK_RE.sub("\n", text)
    text = html.unescape(_TAG_RE.sub(" ", text))
    lines = [" ".join(line.split()) for line in text.splitlines()]
    return _BLANKS_RE.sub("\n\n", "\n".join(lines)).strip()


def decode_header(value: object) -> str:
    """A header as readable text (RFC 2047 words decoded; undecodable bytes replaced)."""
    if value is None:
        return ""
    raw = str(value)
    try:
        parts = email.header.decode_header(raw)
    except Exception:  # malformed encoded words: keep the raw header
        return " ".join(raw.split())
    out = []
    for chunk, charset in parts:
        if isinstance(chunk, bytes):
            out.append(_decode(chunk, charset))
        else:
            out.append(chunk)
    return " ".join("".join(out).split())


def _decode(data: bytes, charset: str | None) -> str:
    name = (charset or "utf-8").strip().strip('"').lower()
    try:
        codecs.lookup(name)
    except LookupError:
        name = "utf-8"
    try:
        return data.decode(name, errors="replace")
    except Exception:  # codecs that fail on their own input (rare)
        return data.decode("utf-8", errors="replace")


def message_body(msg: Message, *, max_bytes: int) -> tuple[str, list[str]]:
    """(text body, notes) of a message: first text/plain, else HTML as text; attachments
    skipped with a note; a body over `max_bytes` truncated with a note."""
    notes: list[str] = []
    plain: str | None = None
    markup: str | None = None
    for part in msg.walk() if msg.is_multipart() else [msg]:
        if part.is_multipart():
            continue
        ctype = (part.get_content_type() or "text/plain").lower()
        disposition = (part.get("Content-Disposition") or "").lower()
        filename = part.get_filename()
        if "attachment" in disposition or filename or not ctype.startswith("text/"):
            skipped = part.get(SKIPPED_HEADER)
            size = (int(skipped) if skipped and str(skipped).isdigit()
                    else len(part.get_payload(decode=False) or ""))
            name = decode_header(filename) if filename else "unnamed"
            notes.append(f"[attachment skipped: {name} ({ctype}, ~{_approx(size * 3 // 4)})]")
            continue
        try:
            payload = part.get_payload(decode=True)
        except Exception:
            payload = None
        if not isinstance(payload, bytes):
            payload = str(part.get_payload() or "").encode("utf-8", errors="replace")
        text = _decode(payload, part.get_content_charset())
        if ctype == "text/html":
            markup = markup if markup is not None else text
        elif plain is None:
            plain = text
    body = plain if plain is not None and plain.strip() else html_to_text(markup or "")
    body = body.replace("\x00", "").strip()
    size = len(body.encode("utf-8"))
    if size > max_bytes:
        body = body.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore").rstrip()
        notes.append(f"[body truncated: {_approx(size)} over the {_approx(max_bytes)} limit]")
    return body, notes


def _approx(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


def message_date(msg: Message) -> datetime | None:
    raw = msg.get("Date")
    if not raw:
        return None
    try:
        dt = email.utils.parsedate_to_datetime(str(raw))
    except (TypeError, ValueError, IndexError):
        return None
    return ensure_utc(dt) if dt is not None else None


def message_record(msg: Message, *, source: str, max_bytes: int) -> SourceRecord:
    """One email as a harvest record (key = Message-ID, else a content hash)."""
    subject = decode_header(msg.get("Subject"))
    sender = decode_header(msg.get("From"))
    to = decode_header(msg.get("To"))
    when = message_date(msg)
    body, notes = message_body(msg, max_bytes=max_bytes)
    lines = [f"Subject: {subject or '(no subject)'}"]
    if sender:
        lines.append(f"From: {sender}")
    if to:
        lines.append(f"To: {to}")
    if when is not None:
        lines.append(f"Date: {when.isoformat()}")
    text = "\n".join(lines) + "\n\n" + (body or "(empty body)")
    if notes:
        text += "\n\n" + "\n".join(notes)
    msg_id = decode_header(msg.get("Message-ID")).strip("<> ")
    key = msg_id or "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    item = IngestItem(
        path="email", text=text, occurred_at=when, tags=["email"], imported=True,
        metadata={k: v for k, v in (("message_id", msg_id), ("subject", subject),
                                     ("from", sender), ("to", to)) if v},
    )
    return SourceRecord(key=key, item=item, notes=notes)


def read_mbox(path: Path, *, source: str, max_body_bytes: int = 64_000) -> Iterator[SourceRecord]:
    """Records of every message in the mbox at `path` (a message that cannot be parsed
    becomes a record with an error note and no item).

    The file is streamed: lines are read one at a time (each at most `_MAX_LINE` bytes) and
    the body of an attachment part is skipped as it is read, only its size kept, so a 150 MB
    attachment never sits in memory. Raises `InvalidInput` if `path` is not a readable file.
    """
    if not path.is_file():
        raise InvalidInput(f"{path} is not a file")
    try:
        f = path.open("rb")
    except OSError as e:
        raise InvalidInput(f"cannot read mbox {path}: {e}") from None
    with f:
        for n, raw in enumerate(_stream_messages(f)):
            try:
                msg = email.message_from_bytes(raw)
                yield message_record(msg, source=source, max_bytes=max_body_bytes)
            except Exception as e:  # one broken message never stops the import
                yield SourceRecord(key=f"broken:{n}", item=None,
                                   notes=[f"message {n}: {type(e).__name__}: {e}"])


_MAX_LINE = 1 << 20  # longer "lines" are read in pieces
_KEPT_BODY = 4 << 20  # bytes of text parts kept per message (the body limit cuts further)
SKIPPED_HEADER = "X-Salience-Skipped-Bytes"
_BOUNDARY_RE = re.compile(rb'boundary\s*=\s*(?:"([^"]+)"|([^\s;]+))', re.IGNORECASE)


def _stream_messages(f: IO[bytes]) -> Iterator[bytes]:
    """The messages of an mbox stream (split at `From ` lines), each with the bodies of its
    attachment parts replaced by nothing and their sizes in a `X-Salience-Skipped-Bytes`
    header of the part."""
    current: _Slimmer | None = None
    while line := f.readline(_MAX_LINE):
        if line.startswith(b"From ") and (current is None or current.at_line_start):
            if current is not None:
                yield current.finish()
            current = _Slimmer()
            continue
        if current is not None:
            current.feed(line)
    if current is not None:
        yield current.finish()


class _Slimmer:
    """Rebuilds one message line by line, dropping attachment bodies (MIME state machine)."""

    def __init__(self) -> None:
        self.out: list[bytes] = []
        self.kept = 0
        self.boundaries: list[bytes] = []
        self.in_headers = True  # the message's or a part's header block
        self.headers: list[bytes] = []
        self.skipping = False
        self.skipped = 0
        self.at_line_start = True

    def feed(self, line: bytes) -> None:
        self.at_line_start = line.endswith(b"\n")
        if self.in_headers:
            self.headers.append(line)
            if line.strip() == b"":
                self._end_headers()
            return
        stripped = line.rstrip(b"\r\n")
        for i in range(len(self.boundaries) - 1, -1, -1):
            b = self.boundaries[i]
            if stripped == b"--" + b:  # the next part of this multipart: its headers follow
                self._end_part()
                self._emit(line)
                self.in_headers, self.headers = True, []
                return
            if stripped == b"--" + b + b"--":  # this multipart ends: back to its parent's body
                self._end_part()
                self._emit(line)
                del self.boundaries[i:]
                return
        if self.skipping:
            self.skipped += len(line)
        elif self.kept < _KEPT_BODY:
            self._emit(line)

    def _end_headers(self) -> None:
        block = b"".join(self.headers).lower()
        self.in_headers = False
        m = _BOUNDARY_RE.search(block) if b"multipart/" in block else None
        if m is not None:
            self.boundaries.append(m.group(1) or m.group(2))
        ctype = re.search(rb"content-type:\s*([^;\s]+)", block)
        kind = ctype.group(1) if ctype else b"text/plain"
        self.skipping = m is None and (
            b"attachment" in block or b"filename" in block
            or not (kind.startswith(b"text/") or kind.startswith(b"multipart/")
                    or kind.startswith(b"message/"))
        )
        self.skipped = 0
        self.part_headers = list(self.headers)
        if not self.skipping:
            self.out.extend(self.headers)

    def _end_part(self) -> None:
        if self.skipping:
            self.out.extend(self.part_headers[:-1])
            self.out.append(f"{SKIPPED_HEADER}: {self.skipped}\r\n\r\n".encode())
            self.skipping = False
        if self.in_headers and self.headers:  # a part that ended inside its headers
            self.out.extend(self.headers)
            self.headers = []

    def _emit(self, line: bytes) -> None:
        self.out.append(line)
        self.kept += len(line)

    def finish(self) -> bytes:
        self._end_part()
        if self.in_headers:
            self.out.extend(self.headers)
        return b"".join(self.out)


def count_mbox(path: Path) -> int | None:
    """Number of messages (for a progress bar): `From ` lines, read in bounded pieces; None
    if the file cannot be read."""
    n, at_start = 0, True
    try:
        with path.open("rb") as f:
            while line := f.readline(_MAX_LINE):
                n += at_start and line.startswith(b"From ")
                at_start = line.endswith(b"\n")
    except OSError:
        return None
    return n
