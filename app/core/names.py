"""Player names: one normal form, when two names are the same, and the names reserved for bots.

A name is shown to everyone at the table, so it is normalised before it is stored: NFKC (a
full-width ANN is "ANN"), invisible characters that change nothing on screen removed (variation
selectors, grapheme joiners, Hangul fillers, the blank Braille pattern), spaces trimmed and
collapsed, at most `MAX_MARKS` combining marks on one character (no towers of diacritics); control
and format characters refuse the name, and so does a name left blank.

Two names are the same when their casefolded forms are equal ("ANN" and "ann") or when they look
alike: their UTS #39 skeletons, from the Unicode confusables data (`confusable_homoglyphs`), are
equal ("B\u03bfb", with a Greek omicron, is "Bob"). Names shaped like the bots' ("Bot 3") are reserved
for bots, whatever their case, width, digits or look-alike letters.
"""

from __future__ import annotations

import functools
import unicodedata

import regex
from confusable_homoglyphs.confusables import confusables_data

MAX_MARKS = 2
# Control, format (invisible), surrogate, private-use and unassigned characters.
HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
# Default-ignorable code points (Unicode's own list, through `regex`): drawn as nothing. Those that
# are not in HIDDEN (variation selectors, U+034F, U+17B4, the Hangul fillers...) are removed, and
# so is the Braille blank (U+2800), a visible glyph that shows as a space.
IGNORABLE = regex.compile(r"[\p{Default_Ignorable_Code_Point}\u2800]+")
# The bots' names ("Bot 3"), compared on the keys below: any case, width, spacing or digits. On
# a skeleton, 0 and 1 read as o and l (so "Bot lol", which looks like "Bot 101", is the bots').
BOT_NAME = regex.compile(r"bot\s*\d+")
BOT_SKELETON = regex.compile(r"bot\s*[\dol]+")


@functools.cache
def schema_pattern() -> str:
    """The name rule for the OpenAPI schema, as far as a regular expression can say it: every
    character one the server keeps (no control, format, private-use, unassigned or surrogate
    character), not blank once the invisible ones are left out, not starting with a combining
    mark, not a bot's name nor a look-alike of one. Built from this Python's Unicode data and
    the same confusables data as the server's check."""
    allowed: list[int] = []
    blank: list[int] = []
    marks: list[int] = []
    candidates = set(_prototypes())  # characters that may look like b, o, t or a digit
    for cp in range(0x110000):
        ch = chr(cp)
        category = unicodedata.category(ch)
        if category in HIDDEN or cp < 0x20 or 0x7F <= cp <= 0x9F:
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
        elif unicodedata.category(seen[0]) in ("Mn", "Me") or unicodedata.combining(seen[0]):
            marks.append(cp)
        if cp < 0x80 or unicodedata.decomposition(ch):
            candidates.add(ch)
    looks: dict[str, list[int]] = {"b": [], "o": [], "t": [], "d": []}
    kept = set(allowed)
    for ch in sorted(candidates):
        if len(ch) != 1 or ord(ch) not in kept:
            continue
        shape = skeleton(ch)
        if shape in ("b", "o", "t"):
            looks[shape].append(ord(ch))
        if shape in ("o", "l") or (len(shape) == 1 and shape.isdecimal()):
            looks["d"].append(ord(ch))
    space, mark = _class(blank), _class(marks)
    bot = (
        rf"[{space}]*[{_class(looks['b'])}][{space}]*[{_class(looks['o'])}][{space}]*"
        rf"[{_class(looks['t'])}][{space}]*(?:[\d{_class(looks['d'])}][{space}]*)+$"
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


def normalise(value: str, max_length: int = 64) -> str:
    """The stored form of a name; ValueError (with a reason a person can read) if unusable."""
    text = unicodedata.normalize("NFKC", value)
    # Before the spaces are collapsed: str.split() counts some control characters (\x1c-\x1f)
    # as spaces, and they must be refused, not turned into spaces.
    if any(unicodedata.category(ch) in HIDDEN for ch in text):
        raise ValueError("the name holds control or invisible characters")
    text = " ".join(IGNORABLE.sub("", text).split())
    if not text:
        raise ValueError("the name is blank")
    if any(not ch.isprintable() for ch in text):
        raise ValueError("the name holds control or invisible characters")
    out: list[str] = []
    marks = 0
    # Counted on the decomposed form: "é" is e + one mark, whichever way it was typed.
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me"):
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


def tidy_chat(text: str) -> str:
    """A chat line as names are treated: invisible characters removed, at most `MAX_MARKS`
    combining marks on one character (the extra ones, and marks on nothing, are dropped)."""
    out: list[str] = []
    marks = 0
    for ch in unicodedata.normalize("NFD", CHAT_IGNORABLE.sub("", text)):
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me"):
            marks += 1
            if not out or marks > MAX_MARKS:
                continue
        else:
            marks = 0
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


def key(name: str) -> str:
    """Case, width and compatibility forms do not count: "ANN" is "ann"."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each character of the confusables data to one representative of the characters it can
    be confused with (an ASCII letter or digit when there is one): the skeleton's alphabet."""
    parent: dict[str, str] = {}

    def find(c: str) -> str:
        while parent.get(c, c) != c:
            c = parent[c]
        return c

    for char, homoglyphs in confusables_data.items():
        if len(char) != 1:
            continue
        for glyph in homoglyphs:
            # The data marks right-to-left glyphs with U+200E; one-character glyphs only.
            other = glyph["c"].strip("\u200e")
            if len(other) == 1:
                a, b = find(char), find(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
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


def skeleton(name: str) -> str:
    """What a name looks like (UTS #39): look-alike characters mapped to one, then casefolded."""
    table = _prototypes()
    text = IGNORABLE.sub("", unicodedata.normalize("NFKC", name))
    mapped = "".join(table.get(c, c) for c in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped.casefold())


def same(a: str, b: str) -> bool:
    """Two names that cannot both sit at a table: equal but for case or width, or look-alikes."""
    return key(a) == key(b) or skeleton(a) == skeleton(b)


def is_bot_name(name: str) -> bool:
    return (
        BOT_NAME.fullmatch(" ".join(key(name).split())) is not None
        or BOT_SKELETON.fullmatch(" ".join(skeleton(name).split())) is not None
    )
