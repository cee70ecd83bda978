"""Player names: one normal form, when two names are the same, and the names reserved for bots.

A name is shown to everyone at the table, so it is normalised before it is stored: NFKC (a
full-width ANN is "ANN"), characters that draw nothing removed (default-ignorable ones: variation
selectors, grapheme joiners, Hangul fillers; and the blank Braille pattern, the object replacement
character, the musical null notehead), spaces trimmed and collapsed, at most `MAX_MARKS` combining
marks on one character (no towers of diacritics); control and format characters refuse the name,
and so do characters far wider than a letter (the Arabic word ligatures such as U+FDFD, the
cuneiform signs, the two- and three-em dashes) and a name left blank.

Two names are the same when they look alike: their folds are equal (`fold`: the UTS #39 skeleton
from the Unicode confusables data, `confusable_homoglyphs`, taken with case folded, combining
marks, spaces and punctuation left out): "ANN" is "ann", "B\u03bfb" with a Greek omicron is "Bob",
"H ost", "host.", "Ho\u0308st" and "Hos\u0442" (a Cyrillic te, a small capital T) are "Host".
Names that read as the bots' ("Bot 3", "B-o-t 3", "Robot 3", with look-alike letters or digits)
are reserved for bots.
"""

from __future__ import annotations

import contextlib
import functools
import string
import unicodedata

import regex
from confusable_homoglyphs.confusables import confusables_data

MAX_MARKS = 2
# Control, format (invisible), surrogate, private-use and unassigned characters.
HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
# Default-ignorable code points (Unicode's own list, through `regex`): drawn as nothing. Those that
# are not in HIDDEN (variation selectors, U+034F, U+17B4, the Hangul fillers...) are removed, and
# so are the symbols fonts draw as nothing though Unicode has no property saying so: the Braille
# blank (U+2800, a glyph that shows as a space), the object replacement character (U+FFFC) and
# the musical null notehead (U+1D159).
IGNORABLE = regex.compile(r"[\p{Default_Ignorable_Code_Point}\u2800\ufffc\U0001d159]+")
# Characters drawn far wider than a letter, which refuse a name (64 of U+FDFD fill a screen): the
# Arabic word ligatures without a decomposition (symbols of Arabic Presentation Forms-A; those
# with one become their words under NFKC and count as such), the cuneiform signs, the two- and
# three-em dashes.
WIDE = regex.compile(
    r"[[\p{Block=Arabic_Presentation_Forms_A}&&\p{So}]\p{Script=Cuneiform}\u2e3a\u2e3b]",
    regex.V1,
)
# Left out of a fold besides combining marks: what does not tell two names apart on screen.
_UNSEEN_CATEGORIES = ("Zs", "Zl", "Zp", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sk")
# The bots' names ("Bot 3", "Robot 3"), matched on a name's folds (case, width, spaces,
# punctuation, marks and look-alikes left out): on a fold 0 and 1 read as o and l (so "Bot lol",
# which looks like "Bot 101", is the bots').
BOT_NAME = regex.compile(r"(?:ro)?bot[\dol]+")
# The Latin small capitals ("\u029c", "\u1d1b"), which look like the capital letter and which the
# confusables data links only to their Cyrillic and Greek look-alikes ("\u043d", "\u0442"): each is
# that letter in a fold, taken from its Unicode name.
_SMALL_CAPITAL = "LATIN LETTER SMALL CAPITAL "  # and a letter A-Z


@functools.cache
def schema_pattern() -> str:
    """The name rule for the OpenAPI schema, as far as a regular expression can say it: every
    character one the server keeps (no control, format, private-use, unassigned, surrogate or
    very wide character), not blank once the invisible ones are left out, not starting with a
    combining mark, not a bot's name nor a look-alike of one. Built from this Python's Unicode
    data and the same confusables data as the server's check: whatever it accepts, the server
    accepts (it refuses a little more: a name mixing two ways of reading as a bot's)."""
    allowed: list[int] = []
    blank: list[int] = []
    marks: list[int] = []
    unseen: list[int] = []  # left out of a fold: marks, spaces, punctuation, blanks
    looks: dict[str, list[int]] = {"r": [], "b": [], "o": [], "t": [], "d": []}
    table = _prototypes()
    for cp in range(0x110000):
        ch = chr(cp)
        category = unicodedata.category(ch)
        if category in HIDDEN or cp < 0x20 or 0x7F <= cp <= 0x9F or WIDE.match(ch):
            continue
        # Left out too: a character whose NFKC form is longer (U+FDFA is 18 characters, U+00B8
        # a space and a combining cedilla), so that 64 characters the schema accepts are never
        # more than 64 for the server.
        compatible = unicodedata.normalize("NFKC", ch)
        if len(compatible) != 1 or unicodedata.category(compatible) in HIDDEN:
            continue
        allowed.append(cp)
        # What the server sees of it: its NFKC form, invisible characters and spaces gone.
        seen = IGNORABLE.sub("", compatible).strip()
        if not seen:
            blank.append(cp)
        elif _is_mark(seen[0]):
            marks.append(cp)
        # What the bots' names are matched on: its folds, with and without look-alikes (worked
        # out only where they may differ from the character itself: a second saved).
        changes = ch in table or unicodedata.normalize("NFKD", ch) != ch or ch.casefold() != ch
        if _is_mark(ch) or category in _UNSEEN_CATEGORIES or IGNORABLE.match(ch):
            forms = {""}
        elif changes or ch.isdecimal() or cp < 0x80:
            forms = {_bare(ch), fold(ch)}
        else:
            forms = {ch}
        if forms == {""}:
            unseen.append(cp)
        for letter in ("r", "b", "o", "t"):
            if letter in forms:
                looks[letter].append(cp)
        if any(len(f) == 1 and (f.isdecimal() or f in "ol") for f in forms):
            looks["d"].append(cp)
    space, mark, skip = _class(blank), _class(marks), _class(unseen)
    r, b, o, t, d = (_class(looks[k]) for k in ("r", "b", "o", "t", "d"))
    bot = (
        rf"[{skip}]*(?:[{r}][{skip}]*[{o}][{skip}]*)?[{b}][{skip}]*[{o}][{skip}]*[{t}][{skip}]*"
        rf"(?:[{d}][{skip}]*)+$"
    )
    # No control characters (said first and plainly, though the last class excludes them too).
    return rf"^(?!.*[\u0000-\u001f\u007f-\u009f])(?![{space}]*$)(?![{space}]*[{mark}])(?!{bot})[{_class(allowed)}]+$"


def _class(points: list[int]) -> str:
    """A regular-expression character class's inside, as ranges of code points."""
    ranges: list[tuple[int, int]] = []
    for cp in sorted(set(points)):
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1] = (ranges[-1][0], cp)
        else:
            ranges.append((cp, cp))

    def esc(cp: int) -> str:
        return f"\\u{cp:04x}" if cp <= 0xFFFF else f"\\U{cp:08x}"

    return "".join(esc(a) if a == b else f"{esc(a)}-{esc(b)}" for a, b in ranges)


def _is_mark(ch: str) -> bool:
    return unicodedata.combining(ch) > 0 or unicodedata.category(ch) in ("Mn", "Me")


def normalise(value: str, max_length: int = 64) -> str:
    """The stored form of a name; ValueError (with a reason a person can read) if unusable."""
    text = unicodedata.normalize("NFKC", value)
    # Before the spaces are collapsed: str.split() counts some control characters (\x1c-\x1f)
    # as spaces, and they must be refused, not turned into spaces.
    if any(unicodedata.category(ch) in HIDDEN for ch in text):
        raise ValueError("the name holds control or invisible characters")
    if WIDE.search(text):
        raise ValueError("the name holds a character far wider than a letter")
    text = " ".join(IGNORABLE.sub("", text).split())
    if not text:
        raise ValueError("the name is blank")
    if any(not ch.isprintable() for ch in text):
        raise ValueError("the name holds control or invisible characters")
    out: list[str] = []
    marks = 0
    # Counted on the decomposed form: "é" is e + one mark, whichever way it was typed.
    for ch in unicodedata.normalize("NFD", text):
        if _is_mark(ch):
            if not out:
                raise ValueError("the name starts with a combining mark")
            marks += 1
            if marks > MAX_MARKS:
                continue  # cap: the extra marks are dropped
        else:
            marks = 0
        out.append(ch)
    name = unicodedata.normalize("NFC", "".join(out))
    if len(name) > max_length:
        raise ValueError(f"a name holds {max_length} characters at most")
    if is_bot_name(name):
        raise ValueError("names like 'Bot 3' are the bots'")
    return name


# Chat keeps the emoji presentation selectors (U+FE0E, U+FE0F) and drops every other
# default-ignorable character: zero-width spaces and joiners, tags, fillers.
CHAT_IGNORABLE = regex.compile(r"[[\p{Default_Ignorable_Code_Point}]--[\ufe0e\ufe0f]]+", regex.V1)
# What a chat line may not start or end with: spaces and the symbols drawn as nothing (Braille art
# keeps its blank pattern inside a line; a line of nothing but blanks is no line).
_CHAT_BLANK = (
    "".join(c for c in map(chr, range(0x110000)) if c.isspace()) + "\u2800\ufffc\U0001d159"
)


def tidy_chat(text: str) -> str:
    """A chat line as names are treated: invisible characters removed, at most `MAX_MARKS`
    combining marks on one character (the extra ones, and marks on nothing, are dropped), and no
    blank at either end (a line that shows nothing is empty)."""
    out: list[str] = []
    marks = 0
    for ch in unicodedata.normalize("NFD", CHAT_IGNORABLE.sub("", text)):
        if _is_mark(ch):
            marks += 1
            if not out or marks > MAX_MARKS:
                continue
        else:
            marks = 0
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out)).strip(_CHAT_BLANK)


def key(name: str) -> str:
    """Case, width and compatibility forms do not count: "ANN" is "ann"."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def prepare() -> None:
    """Build the look-alike table now, at start-up (about 10 ms of CPU): built at the first name
    a request brings, it would hold up the event loop, and every socket of the process with it."""
    _prototypes()


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each character of the confusables data to one representative of the characters it can
    be confused with (an ASCII letter or digit when there is one): the skeleton's alphabet. A
    Latin small capital counts as a look-alike of its letter."""
    parent: dict[str, str] = {}

    def find(c: str) -> str:
        while parent.get(c, c) != c:
            c = parent[c]
        return c

    def join(a: str, b: str) -> None:
        a, b = find(a), find(b)
        if a != b:
            parent[max(a, b)] = min(a, b)

    for char, homoglyphs in confusables_data.items():
        if len(char) != 1:
            continue
        for glyph in homoglyphs:
            # The data marks right-to-left glyphs with U+200E; one-character glyphs only.
            other = glyph["c"].strip("\u200e")
            if len(other) == 1:
                join(char, other)
    for letter in string.ascii_uppercase:
        # Looked up by name (names are unique): the same 25 characters as a scan of every code
        # point's name, which cost half a second of CPU at every start.
        with contextlib.suppress(KeyError):
            join(unicodedata.lookup(_SMALL_CAPITAL + letter), letter.lower())
    groups: dict[str, list[str]] = {}
    for c in list(parent) + list(parent.values()):
        groups.setdefault(find(c), []).append(c)

    # An ASCII letter first (the Cyrillic O is an O, not a zero), then an ASCII digit.
    def preference(c: str) -> tuple[bool, bool, bool, int]:
        return (not (c.isascii() and c.isalnum()), not c.isalpha(), not c.islower(), ord(c))

    out: dict[str, str] = {}
    for members in groups.values():
        best = min(members, key=preference)
        for c in members:
            out[c] = best
    return out


def _seen(name: str) -> str:
    """The characters of a name that tell it apart on screen, decomposed: its NFKC form without
    invisible characters, combining marks, spaces or punctuation."""
    text = IGNORABLE.sub("", unicodedata.normalize("NFKC", name))
    return "".join(
        c
        for c in unicodedata.normalize("NFD", text)
        if not _is_mark(c) and unicodedata.category(c) not in _UNSEEN_CATEGORIES
    )


def _bare(name: str) -> str:
    """A name without case, marks, spaces or punctuation ("B-o-t 3" is "bot3")."""
    return _seen(_seen(name).casefold())


def fold(name: str) -> str:
    """What a name looks like, to compare names (the UTS #39 skeleton, with case folded and
    marks, spaces and punctuation left out): look-alikes mapped to one character before case
    is folded (a Greek capital beta is a B, so a b) and after (a Cyrillic capital en folds to
    its small letter, a small capital H, so an h)."""
    table = _prototypes()
    shaped = "".join(table.get(c, c) for c in _seen(name))
    return "".join(table.get(c, c) for c in _seen(shaped.casefold()))


def same(a: str, b: str) -> bool:
    """Two names that cannot both sit at a table: equal but for case or width, or look-alikes
    (a name of punctuation alone folds to nothing: compared on its key only)."""
    if key(a) == key(b):
        return True
    folded = fold(a)
    return bool(folded) and folded == fold(b)


def is_bot_name(name: str) -> bool:
    return any(BOT_NAME.fullmatch(form) for form in (_bare(name), fold(name)))
