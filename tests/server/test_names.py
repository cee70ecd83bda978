"""Issue 11 §4: names are normalised (NFKC, spaces, combining marks), compared without case or
width, and the bots' names are reserved; on SQLite and Postgres."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

import httpx
import pytest

from app.core import names
from tests.server.harness import Database, ServerProcess, add_bots, create_table, join

ServerFactory = Callable[..., ServerProcess]

BOT_LIKE = ["Bot 3", "bot 3", "BOT 2", "Bot3", "  bot   12 ", "ＢＯＴ　３", "Bot ３"]
INVISIBLE = ["Ann\u200b", "\u202eAnn", "A\u200dnn", "\u2060", "Ann\x00", "Ann\x1b[31m", "\u0301Ann",
             "L\x1fE", "A\tB", "A\nB", "\x85Ann", "Ann\ue000"]


def test_the_normal_form() -> None:
    assert names.normalise("  Ａｎｎ   the\u3000Bold ") == "Ann the Bold"
    assert names.normalise("e" + "\u0301" * 63) == unicodedata.normalize("NFC", "e\u0301\u0301")
    assert names.normalise("\u00e9" + "\u0301" * 9) == unicodedata.normalize("NFC", "e\u0301\u0301")
    assert names.key("ＡＮＮ") == names.key("ann") == names.key("ANN")
    assert names.normalise("Botany 3") == "Botany 3"  # only the bots' own shape is reserved
    for name in BOT_LIKE:
        with pytest.raises(ValueError):
            names.normalise(name)
    for name in INVISIBLE:
        with pytest.raises(ValueError):
            names.normalise(name)


async def test_names_at_a_table(database: Database, server_factory: ServerFactory) -> None:
    server = server_factory(database)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 6)
        ann = await join(http, table_id, "Ann")
        await add_bots(http, ann, 1)  # "Bot 2"
        for name in BOT_LIKE:
            r = await http.post(f"/api/tables/{table_id}/join", json={"name": name})
            assert r.status_code == 422, (name, r.text)
            assert "bots" in r.json()["detail"]["message"]
            r = await http.post("/api/quickplay", json={"name": name})
            assert r.status_code == 422, (name, r.text)
        for name in INVISIBLE:
            r = await http.post(f"/api/tables/{table_id}/join", json={"name": name})
            assert r.status_code == 422, (name, r.text)
        for same in ["ＡＮＮ", "ann", " ANN ", "Ａnn"]:
            r = await http.post(f"/api/tables/{table_id}/join", json={"name": same})
            assert r.status_code == 409 and r.json()["detail"]["code"] == "name_taken", same
        await join(http, table_id, "  Zoë" + "\u0308" * 40 + "   ")
        await join(http, table_id, "<script>alert(1)</script>")
        table = (await http.get(f"/api/tables/{table_id}")).json()
        shown = [p["name"] for p in table["players"]]
        assert shown == ["Ann", "Bot 2", unicodedata.normalize("NFC", "Zoe\u0308\u0308"),
                         "<script>alert(1)</script>"], shown
        # The name is kept as text: showing it as text is the client's job (tests/browser).
        assert all(
            sum(unicodedata.combining(c) > 0 for c in unicodedata.normalize("NFD", n)) <= 2
            for n in shown
        )
