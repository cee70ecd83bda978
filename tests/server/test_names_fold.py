"""Names that drew nothing, were far too wide, read as a bot's, or looked like a
seated player's were still accepted. Each is refused for its own reason, by the server and by the
schema's pattern, while ordinary names in many scripts still sit down; SQLite and Postgres."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx
import pytest

from app.core import names
from tests.server.harness import Database, ServerProcess, add_bots, create_table, join

ServerFactory = Callable[..., ServerProcess]

# Refused with 422 invalid_name, each with (a word of) its reason.
DRAW_NOTHING = ["\U0001d159", "\ufffc", " \U0001d159\ufffc "]
TOO_WIDE = ["\ufdfd" * 64, "Ann\ufdfd", "\U0001242b", "Ann\u2e3b"]
BOT_LIKE = ["\u0412\u043e\u0442 2", "Bot-2", "Bot_2", "Robot 2", "b o t 2", "B.O.T. #2", "R0b0t 7"]
REASONS = {"blank": DRAW_NOTHING, "wider": TOO_WIDE, "bots": BOT_LIKE}
# Beside a seated "Host": the same name on screen, refused with 409 name_taken.
LIKE_HOST = [
    "Hos\u0442",  # a Cyrillic te
    "Hos\u1d1b",  # a small capital T
    "\u029cost",  # a small capital H
    "H\u01ebst",  # o with an ogonek
    "Host\u0301\u0302",  # combining marks
    "Ho\u0308st",
    "H ost",
    "host.",
    "H-o-s-t",
    "\u041dOST",  # a Cyrillic capital en
]
# Ordinary names in many scripts, and names that merely hold "bot".
ORDINARY = [
    "H\u00e9l\u00e8ne",
    "Fran\u00e7ois",
    "Zo\u00eb",
    "Ay\u015fe",
    "Nguy\u1ec5n V\u0103n An",
    "\u0414\u043c\u0438\u0442\u0440\u0438\u0439",
    "\u0412\u043e\u0442",  # Cyrillic "here", with no number: not a bot's name
    "\u039d\u03af\u03ba\u03bf\u03c2",
    "\u674e\u96f7",
    "\u3055\u304f\u3089",
    "\uae40\ubbfc\uc900",
    "\u0645\u062d\u0645\u062f",
    "\u05e9\u05e8\u05d4",
    "\u0905\u0930\u094d\u091c\u0941\u0928",
    "\u0e2a\u0e21\u0e0a\u0e32\u0e22",
    "\u10dc\u10d8\u10dc\u10dd",
    "\u0531\u0580\u0561\u0574",
    "\u12a0\u1260\u1260",
    "\U0001f409 Drake",
    "Ann \u2764\ufe0f",
    "Botany 3",
    "Abbot",
    "Robotics",
    "Bot fan",
    "...",
    "O'Brien",
]


def test_the_reason_of_each_refusal() -> None:
    for reason, refused in REASONS.items():
        for name in refused:
            with pytest.raises(ValueError, match=reason):
                names.normalise(name)
    for name in LIKE_HOST:
        assert names.same(names.normalise(name), "Host"), name
    for name in ORDINARY:
        assert names.normalise(name), name
    # Each ordinary name is its own: no two of them are taken for each other.
    kept = [names.normalise(n) for n in ORDINARY]
    assert not [(a, b) for i, a in enumerate(kept) for b in kept[i + 1 :] if names.same(a, b)]


async def test_the_names_at_a_table(database: Database, server_factory: ServerFactory) -> None:
    server = server_factory(database)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        schema = (await http.get("/openapi.json")).json()["components"]["schemas"]
        pattern = re.compile(schema["JoinTable"]["properties"]["name"]["pattern"])
        table_id = await create_table(http, 6)
        host = await join(http, table_id, "Host")
        await add_bots(http, host, 1)  # "Bot 2"
        for reason, refused in REASONS.items():
            for name in refused:
                for path in (f"/api/tables/{table_id}/join", "/api/quickplay", "/api/queue"):
                    r = await http.post(path, json={"name": name})
                    assert r.status_code == 422, (path, name, r.text)
                    detail = r.json()["detail"]
                    assert detail["code"] == "invalid_name", (path, name, r.text)
                    assert reason in detail["message"], (name, detail)
                assert pattern.search(name) is None, name  # the schema says so too
        for name in LIKE_HOST:
            r = await http.post(f"/api/tables/{table_id}/join", json={"name": name})
            assert (r.status_code, r.json()["detail"]["code"]) == (409, "name_taken"), (
                name,
                r.text,
            )
            assert pattern.search(name) is not None, name  # a fine name, elsewhere
        table = (await http.get(f"/api/tables/{table_id}")).json()
        assert [p["name"] for p in table["players"]] == ["Host", "Bot 2"]
        # Ordinary names sit down, six at a table, as typed; the schema accepts them too.
        for start in range(0, len(ORDINARY), 6):
            group = ORDINARY[start : start + 6]
            fresh = await create_table(http, 6)
            for name in group:
                assert pattern.search(name) is not None, name
                await join(http, fresh, name)
            table = (await http.get(f"/api/tables/{fresh}")).json()
            assert [p["name"] for p in table["players"]] == [names.normalise(n) for n in group]
