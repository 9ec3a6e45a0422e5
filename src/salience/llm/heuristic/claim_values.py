"""Values of claims: numbers written in words, money, times and dates, slot names, tool kinds.

Pure and deterministic: every function maps a phrase to a comparable normal form (or None when
the phrase is not such a value), so "1,200 euros" and "€1200", "Tuesdays" and "tuesday",
"10am" and "10:00" compare equal.
"""

from __future__ import annotations

import re

from .lexicon import MONTHS, WEEKDAYS

NUMBER_WORDS: dict[str, int] = {
    "zero": 0, "no": 0, "none": 0, "a": 1, "an": 1, "one": 1, "single": 1, "two": 2,
    "couple": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "dozen": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90, "hundred": 100,
}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000}
_CARDINAL = (r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
             r"fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|"
             r"sixty|seventy|eighty|ninety)")
#: a number written in words that the patterns do not read as one: a compound ("twenty-five",
#: "sixteen hundred", "twenty two thousand", "a hundred and fifty") or 13-99 alone ("forty").
#: One to twelve alone stay words: "the blue one", and the count patterns read them.
_SPELLED_RE = re.compile(
    rf"\b(?:(?:a|{_CARDINAL})[- ](?=hundred|thousand|million)|{_CARDINAL}(?:[- ](?:and[- ])?"
    rf"(?={_CARDINAL}|hundred|thousand|million))?)(?:(?:{_CARDINAL}|hundred|thousand|million)"
    rf"(?:[- ](?:and[- ])?(?={_CARDINAL}|hundred|thousand|million))?)*\b",
    re.IGNORECASE,
)


def _spelled_value(phrase: str) -> int | None:
    """The value of a number written in words ("twenty two thousand" → 22000), or None when
    it is one to twelve alone."""
    words = [w for w in re.split(r"[- ]+", phrase.lower()) if w and w != "and"]
    if len(words) == 1 and NUMBER_WORDS.get(words[0], 99) <= 12:
        return None
    total = current = 0
    for w in words:
        if w in _SCALES:
            if _SCALES[w] == 100:
                current = (current or 1) * 100
            else:
                total += (current or 1) * _SCALES[w]
                current = 0
        else:
            current += NUMBER_WORDS[w]
    return total + current


#: a frequency in words: "twice a week", "once a month" ("once I get home" is none)
_TIMES_RE = re.compile(r"\b(once|twice|thrice)(?=\s+(?:a|an|per|every|each)\b)", re.IGNORECASE)
_TIMES = {"once": "1 time", "twice": "2 times", "thrice": "3 times"}


def digits_for_words(text: str) -> str:
    """`text` with the numbers written in words that `_SPELLED_RE` finds as digits
    ("the rent is now sixteen hundred" → "the rent is now 1600"), and a frequency in words
    as a count of times ("twice a week" → "2 times a week")."""
    def sub(m: re.Match[str]) -> str:
        value = _spelled_value(m.group(0))
        return m.group(0) if value is None else str(value)

    text = _TIMES_RE.sub(lambda m: _TIMES[m.group(1).lower()], text)
    return _SPELLED_RE.sub(sub, text)


ORDINALS: dict[str, int] = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5,
    "6th": 6, "7th": 7, "8th": 8, "9th": 9, "10th": 10,
}
#: a count in words or digits ("two", "2", "twenty-five")
COUNT = (
    r"(?:\d{1,3}|(?:twenty|thirty|forty|fifty)(?:[- ](?:one|two|three|four|five|six|seven|"
    r"eight|nine))?|zero|no|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"a couple of|a dozen|a|an)"
)
ORDINAL = r"(?:second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|[2-9](?:nd|rd|th))"

_CURRENCY = {
    "$": "usd", "usd": "usd", "dollar": "usd", "dollars": "usd", "bucks": "usd",
    "€": "eur", "eur": "eur", "euro": "eur", "euros": "eur",
    "£": "gbp", "gbp": "gbp", "pound": "gbp", "pounds": "gbp", "quid": "gbp",
    "chf": "chf", "francs": "chf", "sek": "sek", "nok": "nok", "dkk": "dkk", "kr": "kr",
    "yen": "jpy", "jpy": "jpy", "¥": "jpy",
    "kroner": "nok", "krone": "nok", "kronor": "sek", "crowns": "czk", "rupees": "inr",
    "yuan": "cny", "pesos": "mxn", "lira": "try", "zloty": "pln", "forint": "huf",
    "rand": "zar", "reais": "brl", "cents": "cent", "pence": "pence", "grand": "grand",
}
_CURRENCY_WORDS = frozenset(_CURRENCY)
_CUR = r"(?:\$|€|£|¥|usd|eur|euros?|dollars?|bucks|gbp|pounds?|quid|chf|francs|sek|nok|dkk|kr|yen|jpy)"
_AMOUNT = r"\d[\d,.]*(?:\s?(?:k|m|grand|thousand|million)\b)?"
MONEY_RE = re.compile(
    rf"(?P<pre>{_CUR})\s?(?P<a1>{_AMOUNT})|(?P<a2>{_AMOUNT})\s?(?P<post>{_CUR})(?![a-z])",
    re.IGNORECASE,
)
BARE_AMOUNT_RE = re.compile(r"^\s*(?P<a>\d[\d,.]*\s?(?:k|m|grand|thousand|million)?)\s*$", re.I)
PERCENT_RE = re.compile(r"(?P<n>\d+(?:[.,]\d+)?)\s?(?:%|per ?cent)", re.IGNORECASE)
EMAIL_RE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
PHONE_RE = re.compile(r"\+?\d[\d ()./-]{5,}\d")

_TIME_RE = re.compile(
    r"\b(?P<h>\d{1,2})(?:[:.](?P<m>\d{2}))?\s?(?P<ap>am|pm|a\.m\.|p\.m\.|h)?(?![\w:])", re.I
)
_DAY_PARTS = frozenset({"morning", "afternoon", "evening", "night", "weekend", "lunchtime",
                        "noon", "midnight", "weekday"})
_WHEN_WORDS = frozenset({"first", "second", "third", "fourth", "last", "next", "every", "other",
                         "week", "month", "year", "term", "quarter", "spring", "summer",
                         "autumn", "fall", "winter", "end", "early", "mid", "late", "today",
                         "tomorrow", "tonight"})
_WEEKDAY_FULL = {
    "mon": "monday", "tue": "tuesday", "tues": "tuesday", "wed": "wednesday", "thu": "thursday",
    "thur": "thursday", "thurs": "thursday", "fri": "friday", "sat": "saturday",
    "sun": "sunday",
}
_MONTH_FULL = {
    "jan": "january", "feb": "february", "mar": "march", "apr": "april", "jun": "june",
    "jul": "july", "aug": "august", "sep": "september", "sept": "september", "oct": "october",
    "nov": "november", "dec": "december",
}

#: attribute words that name the same slot ("my mobile" and "my phone number")
SLOT_SYNONYMS: dict[str, str] = {
    "phone": "phone", "phone number": "phone", "mobile": "phone", "mobile number": "phone",
    "cell": "phone", "cell number": "phone", "cellphone number": "phone", "number": "phone",
    "telephone number": "phone", "new number": "phone", "whatsapp": "phone",
    "email": "email", "email address": "email", "e-mail": "email", "e-mail address": "email",
    "mail": "email", "address": "address", "home address": "address",
    "boss": "manager", "manager": "manager", "line manager": "manager",
    "supervisor": "manager", "team lead": "manager", "lead": "manager",
    "direct manager": "manager", "team leader": "manager",
    "partner": "partner", "wife": "partner", "husband": "partner", "girlfriend": "partner",
    "boyfriend": "partner", "spouse": "partner", "fiance": "partner", "fiancee": "partner",
    "fiancé": "partner", "fiancée": "partner",
    "salary": "salary", "pay": "salary", "income": "salary", "wage": "salary",
    "job": "job", "role": "job", "position": "job", "title": "job", "job title": "job",
    "occupation": "job", "profession": "job",
    "employer": "employer", "company": "employer",
    "gp": "doctor", "doctor": "doctor", "family doctor": "doctor",
    "internet provider": "internet provider", "broadband provider": "internet provider",
    "internet": "internet provider", "isp": "internet provider",
    "wi-fi password": "wifi password", "wifi password": "wifi password",
    "mortgage rate": "mortgage rate", "interest rate": "mortgage rate",
}
#: roles one has one of at a time: "my new boss is Nadia" replaces "my boss is Greg"
EXCLUSIVE_ROLES = frozenset({
    "manager", "partner", "doctor", "dentist", "therapist", "landlord", "mentor", "coach",
    "trainer", "tutor", "advisor", "adviser", "accountant", "lawyer", "vet", "gp",
})

#: things one uses one of at a time, by kind: "I switched to Neovim" replaces "I use vim"
TOOL_KINDS: dict[str, str] = {
    **dict.fromkeys(("vim", "neovim", "emacs", "vs code", "vscode", "visual studio code",
                     "sublime", "sublime text", "intellij", "pycharm", "webstorm", "atom",
                     "nano", "notepad++", "cursor", "zed", "xcode"), "editor"),
    **dict.fromkeys(("iphone", "android", "pixel", "samsung", "galaxy", "oneplus",
                     "blackberry", "nokia", "xiaomi", "fairphone"), "phone"),
    **dict.fromkeys(("chrome", "firefox", "safari", "edge", "brave", "opera", "vivaldi",
                     "arc"), "browser"),
    **dict.fromkeys(("evernote", "obsidian", "notion", "onenote", "bear", "apple notes",
                     "google keep", "roam", "logseq"), "notes"),
    **dict.fromkeys(("slack", "teams", "microsoft teams", "discord", "mattermost",
                     "google chat", "zulip"), "chat"),
    **dict.fromkeys(("jira", "linear", "asana", "trello", "clickup", "monday.com",
                     "basecamp", "youtrack", "github issues"), "tracker"),
    **dict.fromkeys(("spotify", "apple music", "tidal", "deezer", "youtube music",
                     "amazon music", "soundcloud"), "music"),
    **dict.fromkeys(("excel", "google sheets", "numbers", "ynab", "mint", "quicken"),
                    "spreadsheet"),
    **dict.fromkeys(("windows", "macos", "mac", "macbook", "linux", "ubuntu", "chromebook",
                     "thinkpad"), "computer"),
    **dict.fromkeys(("gmail", "outlook", "thunderbird", "proton mail", "protonmail",
                     "apple mail", "fastmail"), "mail"),
    **dict.fromkeys(("1password", "bitwarden", "lastpass", "dashlane", "keepass", "keepassxc",
                     "proton pass"), "passwords"),
    **dict.fromkeys(("dropbox", "google drive", "onedrive", "icloud", "icloud drive",
                     "pcloud"), "storage"),
    **dict.fromkeys(("zoom", "google meet", "webex", "skype", "facetime"), "video calls"),
    **dict.fromkeys(("todoist", "ticktick", "things 3", "omnifocus", "any.do",
                     "microsoft to do", "remember the milk"), "todo"),
    **dict.fromkeys(("google calendar", "fantastical", "outlook calendar", "apple calendar",
                     "calendly"), "calendar"),
    **dict.fromkeys(("figma", "adobe xd", "canva", "photoshop", "lightroom", "gimp",
                     "affinity photo"), "design"),
    **dict.fromkeys(("quickbooks", "xero", "freeagent", "freshbooks"),
                    "accounting"),
    **dict.fromkeys(("turbotax", "freetaxusa", "taxact", "h&r block", "taxslayer"), "taxes"),
    **dict.fromkeys(("nordvpn", "expressvpn", "mullvad", "protonvpn", "surfshark"), "vpn"),
    **dict.fromkeys(("github", "gitlab", "bitbucket"), "code hosting"),
    **dict.fromkeys(("jenkins", "github actions", "circleci", "gitlab ci",
                     "buildkite"), "ci"),
    **dict.fromkeys(("aws", "gcp", "google cloud", "azure", "heroku", "vercel", "netlify",
                     "digitalocean", "fly.io", "hetzner"), "hosting"),
    **dict.fromkeys(("salesforce", "hubspot", "pipedrive", "zoho"), "crm"),
    **dict.fromkeys(("mailchimp", "substack", "convertkit", "beehiiv"), "newsletter"),
    **dict.fromkeys(("duolingo", "babbel", "memrise", "busuu"), "language app"),
    **dict.fromkeys(("strava", "garmin connect", "fitbit", "peloton", "myfitnesspal"),
                    "fitness app"),
    **dict.fromkeys(("confluence", "google docs", "microsoft word",
                     "dropbox paper"), "docs"),
}
#: kinds used one at a time (a second one replaces the first without "switched")
EXCLUSIVE_TOOL_KINDS = frozenset({"editor", "phone", "browser", "notes", "music", "computer",
                                  "passwords", "todo", "taxes", "vpn", "accounting"})
_ALIASES = {
    "vscode": "vs code", "visual studio code": "vs code", "microsoft teams": "teams",
    "ms teams": "teams", "postgresql": "postgres", "macbook": "mac", "macos": "mac",
    "protonmail": "proton mail", "favorite": "favourite", "color": "colour",
}


def count_value(word: str) -> int | None:
    """A count written in digits or words ("3", "three", "twenty-five", "a") → int."""
    w = word.lower().strip().replace("-", " ")
    if w.isdigit():
        return int(w)
    w = w.removeprefix("a ").removesuffix(" of").strip() if w.startswith("a ") else w
    parts = w.split()
    if not parts or any(p not in NUMBER_WORDS for p in parts):
        return None
    return sum(NUMBER_WORDS[p] for p in parts)


def ordinal_value(word: str) -> int | None:
    """An ordinal ("third", "3rd") → int."""
    return ORDINALS.get(word.lower().strip())


def _amount(raw: str) -> float | None:
    s = raw.lower().strip().replace(" ", "")
    mult = 1.0
    for suffix, m in (("thousand", 1e3), ("million", 1e6), ("grand", 1e3), ("k", 1e3),
                      ("m", 1e6)):
        if s.endswith(suffix):
            s, mult = s[: -len(suffix)], m
            break
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", s):
        s = s.replace(",", "")
    elif re.fullmatch(r"\d{1,3}(?:\.\d{3})+(?:,\d+)?", s):
        s = s.replace(".", "").replace(",", ".")
    else:
        s = s.replace(",", ".")
    try:
        return float(s.rstrip(".")) * mult
    except ValueError:
        return None


def _fmt_number(x: float) -> str:
    return str(int(x)) if x == int(x) else f"{x:g}"


def money_value(text: str) -> str | None:
    """The first amount of money in `text` as "<amount> <currency>" ("€1,200" → "1200 eur")."""
    m = MONEY_RE.search(text)
    if m is None:
        return None
    amount = _amount(m.group("a1") or m.group("a2") or "")
    cur = _CURRENCY.get((m.group("pre") or m.group("post") or "").lower())
    if amount is None or cur is None:
        return None
    return f"{_fmt_number(amount)} {cur}"


def bare_amount(text: str) -> str | None:
    """A number alone ("5,000", "52k") → its normal form, else None."""
    m = BARE_AMOUNT_RE.match(text)
    if m is None:
        return None
    amount = _amount(m.group("a"))
    return _fmt_number(amount) if amount is not None else None


_LEADING_AMOUNT = re.compile(
    r"^\s*(?:about\s+|around\s+|roughly\s+|only\s+|just\s+|now\s+)*"
    r"(?P<a>\d[\d,.]*(?:\s?(?:k|m|grand|thousand|million))?)(?![\w:/-])", re.I
)


def leading_amount(text: str) -> str | None:
    """The number a phrase starts with ("3,500 after finance pushed back" → "3500")."""
    m = _LEADING_AMOUNT.match(text)
    if m is None:
        return None
    amount = _amount(m.group("a"))
    return _fmt_number(amount) if amount is not None else None


def _clock(h: str, m: str | None, ap: str | None) -> str | None:
    hour, minute = int(h), int(m or 0)
    ap = (ap or "").lower().replace(".", "")
    if ap == "pm" and hour < 12:
        hour += 12
    if ap == "am" and hour == 12:
        hour = 0
    if hour > 23 or minute > 59:
        return None
    return f"{hour}:{minute:02d}"


def time_value(text: str) -> str | None:
    """A time expression ("Tuesdays at 6pm", "12 March", "the last Friday of the month",
    "9:30") as its comparable tokens ("tuesday 18:00"), else None.

    Weekdays and months are spelled out and singular; clock times are 24-hour; day numbers
    are kept beside a month; words like "first", "last", "every", "morning" are kept."""
    low = text.lower().replace("’", "'")
    out: list[str] = []
    has_anchor = False
    toks = re.findall(r"[a-z]+|\d{1,2}[:.]\d{2}\s?(?:am|pm)?|\d+(?:st|nd|rd|th)?\s?(?:am|pm|h)?",
                      low)
    for i, tok in enumerate(toks):
        tok = tok.strip()
        word = tok.rstrip("s") if tok.endswith("days") or tok in {"mornings", "evenings",
                                                                  "nights", "afternoons",
                                                                  "weekends"} else tok
        if word in WEEKDAYS or word in _WEEKDAY_FULL:
            out.append(_WEEKDAY_FULL.get(word, word))
            has_anchor = True
        elif tok in MONTHS or tok in _MONTH_FULL:
            out.append(_MONTH_FULL.get(tok, tok))
            has_anchor = True
        elif word in _DAY_PARTS:
            out.append(word)
            has_anchor = True
        elif tok in _WHEN_WORDS:
            out.append(tok)
        elif tok[:1].isdigit():
            m = _TIME_RE.fullmatch(tok.replace(" ", ""))
            nxt = toks[i + 1] if i + 1 < len(toks) else ""
            prev = toks[i - 1] if i else ""
            if m and (m.group("m") or m.group("ap")):
                c = _clock(m.group("h"), m.group("m"), m.group("ap"))
                if c:
                    out.append(c)
                    has_anchor = True
            elif re.fullmatch(r"\d{1,2}(?:st|nd|rd|th)?", tok) and (
                nxt in MONTHS or nxt in _MONTH_FULL or prev in MONTHS or prev in _MONTH_FULL
                or tok[-2:] in {"st", "nd", "rd", "th"}
            ):
                out.append(str(int(re.sub(r"\D", "", tok))))
            elif re.fullmatch(r"\d{1,2}", tok) and prev in {"at", "by", "around", "from"}:
                c = _clock(tok, None, None)
                if c:
                    out.append(c)
                    has_anchor = True
            elif re.fullmatch(r"(?:19|20)\d{2}", tok):
                out.append(tok)
                has_anchor = True
    if not has_anchor:
        return None
    return " ".join(dict.fromkeys(out))


#: units a number is measured in ("84 kg", "30mg", "55k", "12%"), by their normal form
_UNITS = {
    "kg": "kg", "kgs": "kg", "kilo": "kg", "kilos": "kg", "lb": "lb", "lbs": "lb",
    "pound": "lb", "stone": "stone", "g": "g", "grams": "g", "mg": "mg",
    "mcg": "mcg", "ml": "ml", "l": "l", "litres": "l", "liters": "l", "km": "km", "k": "k",
    "m": "m", "mi": "mi", "miles": "mi", "cm": "cm", "mm": "mm", "ft": "ft", "feet": "ft",
    "%": "%", "percent": "%", "hours": "h", "hour": "h", "hrs": "h", "hr": "h", "h": "h",
    "minutes": "min", "mins": "min", "min": "min", "days": "day", "weeks": "week",
    "months": "month", "years": "year", "bpm": "bpm", "mph": "mph", "kph": "kph", "gb": "gb",
    "tb": "tb", "mbps": "mbps", "grand": "k", "thousand": "k", "million": "million",
}
#: what follows a number that makes it no measure: a clock time, an ordinal, a decade
_NOT_UNITS = frozenset({"am", "pm", "st", "nd", "rd", "th", "s"})
#: a count of two to twelve in words ("three kids"): `digits_for_words` leaves these as words
_SMALL_COUNT_RE = re.compile(
    r"\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+(?P<w1>[a-z]+)"
    r"(?:\s+(?P<w2>[a-z]+))?", re.IGNORECASE)
#: a number, what stands before it (a currency sign) and the two words after it
_MEASURE_RE = re.compile(
    r"(?<![\w.,:/-])(?P<pre>[$€£¥])?\s?(?P<n>\d[\d,.]*)(?P<unit>%|[a-z]+\b)?"
    r"(?:\s+(?P<w1>[a-z%]+))?(?:\s+(?P<w2>[a-z]+))?",
    re.IGNORECASE,
)
#: words between a number and the noun it counts ("11 senior engineers")
_COUNT_SKIP = frozenset({"new", "more", "full", "part", "senior", "junior", "other", "extra",
                         "of", "fewer", "less", "whole", "little", "big", "small"})


def measures(text: str, *, stopwords: frozenset[str] = frozenset()) -> frozenset[str]:
    """What the numbers of `text` measure, without their values: "unit:kg" ("down to 84 kg"),
    "money:gbp" ("£1,200"), "count:engineers" ("we're 11 engineers"), "clock" ("10pm to
    6am"), "percent" is a unit too. Two statements that measure the same thing with different
    numbers ("I weigh 92 kg" / "down to 84 kg after the summer") are about one quantity
    whatever other words they use; a year ("since 2019") or a date's day number measures
    nothing. Numbers written in words count (`digits_for_words`). `stopwords` are words that
    are no counted noun ("6 of them")."""
    low = digits_for_words(text).lower().replace("’", "'")
    out: set[str] = set()
    if any(":" in tok for tok in (time_value(low) or "").split()):
        out.add("clock")
    for m in MONEY_RE.finditer(low):
        cur = (m.group("pre") or m.group("post") or "").lower()
        out.add(f"money:{_CURRENCY.get(cur, cur)}")
    for m in _SMALL_COUNT_RE.finditer(low):
        noun = m.group("w2") if m.group("w1") in _COUNT_SKIP else m.group("w1")
        out |= _counted(noun, stopwords)
    for m in _MEASURE_RE.finditer(low):
        n, unit = m.group("n").rstrip(".,"), (m.group("unit") or "").lower()
        if m.group("pre") or (re.fullmatch(r"(?:19|20)\d\d", n) and not unit):
            continue  # money (above), a year
        if unit in _NOT_UNITS:
            continue  # a clock time (above), an ordinal, "1990s"
        w1, w2 = (m.group("w1") or "").lower(), (m.group("w2") or "").lower()
        if not unit and w1 in _UNITS:
            unit, w1 = w1, w2
        if unit in _UNITS:
            out.add(f"unit:{_UNITS[unit]}")
            continue
        if unit:
            continue  # "3rd", "4x4", a code
        out |= _counted(w2 if w1 in _COUNT_SKIP else w1, stopwords)
    return frozenset(out)


def _counted(noun: str | None, stopwords: frozenset[str]) -> set[str]:
    """{"count:<noun>"} for a noun a number counts ("engineers" → "count:engineer"), else {}."""
    if (not noun or not noun.isalpha() or len(noun) <= 2 or noun in stopwords
            or noun in MONTHS or noun in _MONTH_FULL or noun in _CURRENCY_WORDS):
        return set()
    return {f"count:{noun[:-1] if len(noun) > 4 and noun.endswith('s') else noun}"}


def is_time(text: str) -> bool:
    """Whether `text` starts like a time expression (a weekday, a month, a clock time, …)."""
    first = re.match(r"\s*(?:on|at|in|by|every|each|for|until|till|to)?\s*(?:the\s+)?(\S+)",
                     text.lower())
    if first is None:
        return False
    w = first.group(1).strip(",.")
    w1 = w.rstrip("s")
    return bool(
        w in WEEKDAYS or w1 in WEEKDAYS or w in _WEEKDAY_FULL or w in MONTHS
        or w1 in _DAY_PARTS or w in _WHEN_WORDS
        or re.match(r"\d{1,2}(?:[:.]\d{2})?(?:am|pm|h)?$|\d{1,2}(?:st|nd|rd|th)$", w)
        or (re.match(r"\d{1,2}$", w) and re.search(rf"\b{re.escape(w)}\s+(?:{'|'.join(MONTHS)})\b",
                                                  text.lower()) is not None)
    ) and time_value(text) is not None


def phone_value(text: str) -> str | None:
    """Digits of a phone number in `text` (at least 6), else None."""
    m = PHONE_RE.search(text)
    if m is None:
        return None
    digits = re.sub(r"\D", "", m.group(0))
    return digits if len(digits) >= 6 else None


def email_value(text: str) -> str | None:
    """The first email address in `text`, lower-cased."""
    m = EMAIL_RE.search(text)
    return m.group(0).lower().rstrip(".") if m else None


def alias(value: str) -> str:
    """One spelling per name ("VSCode" → "vs code", "PostgreSQL" → "postgres")."""
    v = " ".join(value.lower().split())
    return _ALIASES.get(v, v)


def tool_kind(value: str) -> str | None:
    """The kind of tool `value` names ("vs code" → "editor"), else None."""
    v = alias(value)
    if v in TOOL_KINDS:
        return TOOL_KINDS[v]
    first = v.split(" ", 1)[0]
    return TOOL_KINDS.get(first)


def slot_name(words: str) -> str:
    """The slot an attribute phrase names ("mobile number" → "phone"), or the phrase itself."""
    w = " ".join(words.lower().replace("’", "'").split())
    w = " ".join(_ALIASES.get(x, x) for x in w.split())
    return SLOT_SYNONYMS.get(w, w)
