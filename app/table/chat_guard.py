"""Who speaks in a table's chat, and how much: the limits that survive reconnection and the labels
the server gives spectators. One per process (the hub's), used by every feed (app.table.feed).

- **Limits.** `CHAT_LINES_PER_WINDOW` lines per `CHAT_WINDOW_SECONDS` for each seat at a table
  (all of its sockets together) and, for spectators, for each client address at a table: a new
  socket, a new tab or a new viewer key does not give a fresh allowance. Kept by table and seat or
  address in this process (the least recently heard forgotten beyond `MAX_SPEAKERS`).
- **Labels.** A spectator's name ("Spectator 3f2a") is chosen by the server at random, unique at
  the table: never the label of another spectator here, nor one that has spoken at the table. The
  server hands the spectator a key that carries the label and its signature (`SECRET_KEY`), so
  that the same browser keeps its label when it comes back; a key the server did not sign is
  ignored, so no client can pick, or search offline for, another spectator's label.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections import OrderedDict

from app.core.config import Settings
from app.table.connections import RateLimiter

_TAG = re.compile(r"[0-9a-f]{4}")
_SIGNATURE_CHARS = 20  # hex digits of the HMAC kept in a viewer key (80 bits)
LABEL = "Spectator {tag}"
# Speakers whose allowance is kept (the least recently heard forgotten first: a full allowance).
MAX_SPEAKERS = 100_000


class ChatGuard:
    def __init__(self, settings: Settings) -> None:
        window = max(settings.chat_window_seconds, 0.001)
        self.rate = settings.chat_lines_per_window / window
        self.burst = settings.chat_lines_per_window
        self.speakers: OrderedDict[str, RateLimiter] = OrderedDict()
        # Several processes must share it for a spectator to keep a label across them.
        self.secret = (settings.secret_key or secrets.token_hex(32)).encode()

    def allow(self, table_id: str, seat: int | None, address: str) -> bool:
        """True if this speaker may post a line now (and it is counted)."""
        who = f"{table_id}\x00" + (f"seat:{seat}" if seat is not None else f"address:{address}")
        limiter = self.speakers.pop(who, None) or RateLimiter(self.rate, self.burst)
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

    @staticmethod
    def new_tag(taken: set[str]) -> str:
        """A random tag whose label is not in `taken` (65,536 tags: a few tries suffice)."""
        tag = secrets.token_hex(2)
        for _ in range(1000):
            if LABEL.format(tag=tag) not in taken:
                break
            tag = secrets.token_hex(2)
        return tag
