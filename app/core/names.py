"""Player names: one normal form, one comparison key, and the names reserved for bots.

A name is shown to everyone at the table, so it is normalised before it is stored: NFKC (a
a full-width ANN is "ANN"), spaces trimmed and collapsed, at most `MAX_MARKS` combining marks on
one character (no towers of diacritics), no control or format characters. Two names are the same
when their casefolded forms are equal ("ANN" and "ann"); names shaped like the bots' ("Bot 3") are
reserved for bots, whatever their case or width.
"""

from __future__ import annotations

import re
import unicodedata

MAX_MARKS = 2
# Control, format (invisible), surrogate, private-use and unassigned characters.
HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
# The bots' names ("Bot 3"), compared on the key below: any case, width or spacing.
BOT_NAME = re.compile(r"bot\s*[0-9]+")
# For the OpenAPI schema (a regex without Unicode classes): not blank, not a bot's name, no
# control characters. The server's rule (normalise) is stricter beyond ASCII: invisible (format)
# characters are refused and extra combining marks cut, which this dialect cannot express.
PRINTABLE_PATTERN = (
    r"^(?!\s*[Bb][Oo][Tt]\s*[0-9]+\s*$)(?!\s*$)[^\u0000-\u001f\u007f-\u009f]+$"
)


def normalise(value: str, max_length: int = 64) -> str:
    """The stored form of a name; ValueError (with a reason a person can read) if unusable."""
    text = unicodedata.normalize("NFKC", value)
    # Before the spaces are collapsed: str.split() counts some control characters (\x1c-\x1f)
    # as spaces, and they must be refused, not turned into spaces.
    if any(unicodedata.category(ch) in HIDDEN for ch in text):
        raise ValueError("the name holds control or invisible characters")
    text = " ".join(text.split())
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


def key(name: str) -> str:
    """What two names must differ in: case, width and compatibility forms do not count."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def is_bot_name(name: str) -> bool:
    return BOT_NAME.fullmatch(" ".join(key(name).split())) is not None
