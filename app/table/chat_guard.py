"""Who speaks in a table's chat, and how much: the limits that survive reconnection and the labels
the server gives spectators. One per process (the hub's), used by every feed (app.table.chat).

- **Limits.** `CHAT_LINES_PER_WINDOW` lines per `CHAT_WINDOW_SECONDS` for each seat at a table
  (all of its sockets together) and, for spectators, for each client address at a table: a new
  socket, a new tab or a new viewer key does not give a fresh allowance. Kept by table and seat or
  address in this process (the least recently heard forgotten beyond `MAX_SPEAKERS`).
- **Labels.** A spectator's name ("Spectator 3f2a") is chosen by the server at random, unique at
  the table: never the label of another spectator here, nor one that has spoken at the table. The
  server hands the spectator a key that carries the label and its signature (`SECRET_KEY`), so
  that the same browser keeps its label when it comes back; a key the server did not sign is
  ignored, so no client can pick, or search offline for, another spectator's label. A key is
  ignored too while a spectator holding its label is connected from another address (a key
  copied elsewhere cannot speak beside its owner). One address is one spectator: without a key
  (or with one ignored) it gets the label this process last gave it at the table, so reconnecting
  without the key does not make a new spectator each time (kept by table and address, the least
  recently given forgotten beyond `MAX_SPEAKERS`).
- **Chosen names.** A spectator may ask for a name: checked as a player's name and refused if it
  looks like (app.core.names.same) a seated player's or another spectator's at the table, then
  shown as "Ann (spectator)". It is kept by table and tag in this process, so the signed key
  still decides who may speak under it.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections import OrderedDict

from app.core import names
from app.core.config import Settings
from app.wire.buckets import TokenBucket

_TAG = re.compile(r"[0-9a-f]{4}")
_SIGNATURE_CHARS = 20  # hex digits of the HMAC kept in a viewer key (80 bits)
LABEL = "Spectator {tag}"
# A spectator's chosen name keeps a mark: it never reads as a player's.
NAMED = "{name} (spectator)"
MAX_CHOSEN = 40  # characters of a chosen name
# Speakers whose allowance is kept (the least recently heard forgotten first: a full allowance).
MAX_SPEAKERS = 100_000


class ChatGuard:
    def __init__(self, settings: Settings) -> None:
        window = max(settings.chat_window_seconds, 0.001)
        self.rate = settings.chat_lines_per_window / window
        self.burst = settings.chat_lines_per_window
        self.speakers: OrderedDict[str, TokenBucket] = OrderedDict()
        self.given: OrderedDict[str, str] = OrderedDict()  # table and address -> tag
        self.names: OrderedDict[str, str] = OrderedDict()  # table and tag -> chosen name
        # Several processes must share it for a spectator to keep a label across them.
        self.secret = (settings.secret_key or secrets.token_hex(32)).encode()

    def allow(self, table_id: str, seat: int | None, address: str) -> bool:
        """True if this speaker may post a line now (and it is counted)."""
        who = f"{table_id}\x00" + (f"seat:{seat}" if seat is not None else f"address:{address}")
        limiter = self.speakers.pop(who, None) or TokenBucket(self.rate, self.burst)
        self.speakers[who] = limiter
        while len(self.speakers) > MAX_SPEAKERS:
            self.speakers.popitem(last=False)
        return limiter.allow()

    # -- spectators' labels ---------------------------------------------------------------------

    def _sign(self, table_id: str, tag: str) -> str:
        digest = hmac.new(self.secret, f"{table_id}:{tag}".encode(), hashlib.sha256).hexdigest()
        return digest[:_SIGNATURE_CHARS]

    def key_for(self, table_id: str, tag: str) -> str:
        """The viewer key handed to the spectator labelled `tag` at this table."""
        return tag + self._sign(table_id, tag)

    def tag_of(self, table_id: str, key: str | None) -> str | None:
        """The tag a viewer key carries, if the server signed it for this table."""
        if not key or len(key) != 4 + _SIGNATURE_CHARS:
            return None
        tag, signature = key[:4], key[4:]
        if not _TAG.fullmatch(tag) or not hmac.compare_digest(signature, self._sign(table_id, tag)):
            return None
        return tag

    def label_for(
        self, table_id: str, address: str, key: str | None, held: dict[str, str], taken: set[str]
    ) -> str:
        """The tag of a spectator arriving from `address` with `key`: the key's, the one given
        to this address at this table before, else a new one not in `taken`. `held`: the labels
        of the spectators connected here, each with its address; a tag held from another
        address is never given (a replayed key, a label since given to someone else)."""

        def free(tag: str | None) -> bool:
            return tag is not None and held.get(LABEL.format(tag=tag), address) == address

        who = f"{table_id}\x00{address}"
        tag = self.tag_of(table_id, key)
        if not free(tag):
            tag = self.given.get(who)
        if not free(tag):
            tag = self.new_tag(taken | set(held))
        assert tag is not None
        self.given.pop(who, None)
        self.given[who] = tag
        while len(self.given) > MAX_SPEAKERS:
            self.given.popitem(last=False)
        return tag

    def label(self, table_id: str, tag: str) -> str:
        """What the spectator with this tag is shown as: its chosen name, marked, or its tag."""
        name = self.names.get(f"{table_id}\x00{tag}")
        return NAMED.format(name=name) if name else LABEL.format(tag=tag)

    def choose(self, table_id: str, tag: str, name: str) -> None:
        """The spectator with this (signed) tag is called `name` at this table from now on."""
        who = f"{table_id}\x00{tag}"
        self.names.pop(who, None)
        self.names[who] = name
        while len(self.names) > MAX_SPEAKERS:
            self.names.popitem(last=False)

    @staticmethod
    def new_tag(taken: set[str]) -> str:
        """A random tag whose label is not in `taken` (65,536 tags: a few tries suffice)."""
        tag = secrets.token_hex(2)
        for _ in range(1000):
            if LABEL.format(tag=tag) not in taken:
                break
            tag = secrets.token_hex(2)
        return tag


class NameTaken(ValueError):
    """A chosen name that looks like someone's at the table."""


def spectator_name(asked: str, others: list[str], seated: bool = False) -> str:
    """The name a spectator asked for, as stored: a player's name's rules (ValueError), and
    not like any of `others` (the table's seats and other spectators' labels), itself or marked
    (NameTaken)."""
    if seated:
        raise ValueError("players are called by their seat's name")
    name = names.normalise(asked, MAX_CHOSEN)
    label = NAMED.format(name=name)
    if any(names.same(name, other) or names.same(label, other) for other in others):
        raise NameTaken("someone at this table has this name, or one that looks like it")
    return name
