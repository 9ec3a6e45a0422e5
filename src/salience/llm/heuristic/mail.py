"""Email and calendar text: headers, bodies without quotes and signatures, ICS events, and
the cues that tell newsletters, one-time codes and receipts from personal mail."""

from __future__ import annotations

import re

_HEADER_RE = re.compile(r"^(subject|from|to|cc|date|sent|reply-to)\s*:\s*(.*)$", re.IGNORECASE)
ICS_RE = re.compile(r"BEGIN:VEVENT|DTSTART", re.IGNORECASE)
_ICS_FIELD_RE = re.compile(r"^(SUMMARY|DTSTART[^:]*|LOCATION|DESCRIPTION):(.*)$", re.MULTILINE)
_QUOTED_REPLY_RE = re.compile(r"^\s*>|^On .{5,80} wrote:\s*$", re.MULTILINE)
_SIGNATURE_RE = re.compile(
    r"^(?:--\s*|best(?: regards)?|kind regards|regards|cheers|thanks|sent from)", re.IGNORECASE
)


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


EMAIL_PROMO_RE = _rx(
    r"\bnewsletter\b|\bview (?:this email )?in (?:your )?browser\b|\b\d{1,2}% off\b|\bsale\b|"
    r"\blimited[- ]time\b|\bpromo(?:tion|tional)?(?: code)?\b|\bspecial offer\b|\bdeals?\b|"
    r"\bdiscount\b|\bshop now\b|\bweekly digest\b|\bfree shipping\b"
)
EMAIL_AUTOMATED_RE = _rx(
    r"\bunsubscribe\b|\bno-?reply@|\bdo not reply\b|\bmanage (?:your )?(?:email )?preferences\b|"
    r"\bautomated (?:message|email)\b"
)
EMAIL_CODE_RE = _rx(
    r"\bverification code\b|\bone-time (?:password|code|passcode)\b|\bsecurity code\b|"
    r"\blogin code\b|\b2fa\b|\bconfirm your (?:email|sign[- ]?in)\b"
)
EMAIL_TRANSACTIONAL_RE = _rx(
    r"\border (?:#|number|confirmation)|\byour order\b|\breceipt\b|"
    r"\bhas shipped\b|\bout for delivery\b|\btracking number\b|"
    r"\bpayment received\b"
)


def parse_email(text: str) -> tuple[dict[str, str], str]:
    """Split an email-like text into (headers, body); headers are lower-cased names."""
    headers: dict[str, str] = {}
    lines = text.replace("\r\n", "\n").split("\n")
    i = 0
    while i < len(lines):
        m = _HEADER_RE.match(lines[i].strip())
        if not m:
            break
        headers.setdefault(m.group(1).lower(), m.group(2).strip())
        i += 1
    if not headers:
        return {}, text
    body_lines: list[str] = []
    for line in lines[i:]:
        if _QUOTED_REPLY_RE.match(line):
            break
        if body_lines and _SIGNATURE_RE.match(line.strip()) and len(line.strip()) < 30:
            break
        body_lines.append(line)
    return headers, "\n".join(body_lines).strip()


def parse_ics(text: str) -> str:
    """A readable one-liner from iCalendar text (summary, start, location, description)."""
    fields = {k.split(";")[0].upper(): v.strip() for k, v in _ICS_FIELD_RE.findall(text)}
    parts = [fields.get("SUMMARY", "")]
    if fields.get("DTSTART"):
        parts.append(f"at {ics_time(fields['DTSTART'])}")
    if fields.get("LOCATION"):
        parts.append(f"in {fields['LOCATION']}")
    line = " ".join(p for p in parts if p)
    if fields.get("DESCRIPTION"):
        line += f". {fields['DESCRIPTION']}"
    return line or text


def ics_time(value: str) -> str:
    m = re.match(r"^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})\d{2}(Z?))?$", value.strip())
    if not m:
        return value
    y, mo, d, hh, mm, z = m.groups()
    out = f"{y}-{mo}-{d}"
    if hh:
        out += f" {hh}:{mm}" + (" UTC" if z else "")
    return out
