"""Names are normalised (NFKC, spaces, combining marks), compared without case or
width, and the bots' names are reserved; on SQLite and Postgres."""

from __future__ import annotations

import re
import subprocess
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from app.core import names
from tests.server.harness import Database, ServerProcess, add_bots, create_table, join

ServerFactory = Callable[..., ServerProcess]

BOT_LIKE = ["Bot 3", "bot 3", "BOT 2", "Bot3", "  bot   12 ", "ＢＯＴ　３", "Bot ３"]
INVISIBLE = [
    "Ann\u200b",
    "\u202eAnn",
    "A\u200dnn",
    "\u2060",
    "Ann\x00",
    "Ann\x1b[31m",
    "\u0301Ann",
    "L\x1fE",
    "A\tB",
    "A\nB",
    "\x85Ann",
    "Ann\ue000",
]


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
        assert shown == [
            "Ann",
            "Bot 2",
            unicodedata.normalize("NFC", "Zoe\u0308\u0308"),
            "<script>alert(1)</script>",
        ], shown
        # The name is kept as text: showing it as text is the client's job (tests/browser).
        assert all(
            sum(unicodedata.combining(c) > 0 for c in unicodedata.normalize("NFD", n)) <= 2
            for n in shown
        )


# -- blank-looking and look-alike names, and the schema that states the rule ----------

BLANK_LOOKING = ["\u3164", "\u115f", "\u1160", "\uffa0", "\u2800", " \u3164 \u2800 ", "\ufe0f"]
# Each shows exactly as "Host" on screen.
HOST_LOOKALIKES = [
    "Host" + c for c in ("\ufe0f", "\ufe00", "\U000e0100", "\u034f", "\u17b4", "\u3164", "\u2800")
]
BOT_LOOKALIKES = ["B\u03bft 2", "\u0412ot 2", "Bot \u0662", "\u0412\u041e\u0422 3"]
# Names the OpenAPI schema's pattern accepted but the server refused (schemathesis found them).
SCHEMA_FINDS = [("quickplay", "\ud812\udf31"), ("join", "\u0116\udbaf\udf0c;A")]


def test_blank_looking_and_look_alike_names() -> None:
    for name in BLANK_LOOKING + BOT_LOOKALIKES:
        with pytest.raises(ValueError):
            names.normalise(name)
    for name in HOST_LOOKALIKES:
        assert names.normalise(name) == "Host"
    # Look-alikes from other scripts are the same name; different letters are not.
    assert names.same("H\u043est", "Host") and names.same("\u041d\u043e\u0455t", "host")
    assert names.same("B\u03bfb", "Bob") and names.same("IAN", "ian")
    # Marks fold too ("Zoë" beside "Zoe" reads as the same name); letters do not.
    assert names.same("Zo\u00eb", "Zoe") and not names.same("Zoe", "Zoa")
    assert not names.same("Ann", "Anne")
    assert names.normalise("Botany 3") == "Botany 3" and names.normalise("Ann \u2764\ufe0f")


def _surrogates(text: str) -> str:
    """A JSON escape such as "\\ud812\\udf31" as the server decodes it."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16")


async def test_blank_and_look_alike_names_are_refused_at_a_table(
    database: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(database)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 6)
        host = await join(http, table_id, "Host")
        await add_bots(http, host, 1)  # "Bot 2"
        for name in BLANK_LOOKING + BOT_LOOKALIKES:
            for path in (f"/api/tables/{table_id}/join", "/api/quickplay", "/api/queue"):
                r = await http.post(path, json={"name": name})
                assert r.status_code == 422, (path, name, r.text)
                assert r.json()["detail"]["code"] == "invalid_name", (path, name, r.text)
        for name in [*HOST_LOOKALIKES, "H\u043est", "\u041do\u0455t", "HOST"]:
            r = await http.post(f"/api/tables/{table_id}/join", json={"name": name})
            assert (r.status_code, r.json()["detail"]["code"]) == (409, "name_taken"), (
                name,
                r.text,
            )
        table = (await http.get(f"/api/tables/{table_id}")).json()
        assert [p["name"] for p in table["players"]] == ["Host", "Bot 2"]
        # The two names schemathesis found: refused by the server, and by the schema too.
        schema = (await http.get("/openapi.json")).json()["components"]["schemas"]
        pattern = re.compile(schema["JoinTable"]["properties"]["name"]["pattern"])
        assert schema["QuickPlay"]["properties"]["name"]["pattern"] == pattern.pattern
        for route, raw in SCHEMA_FINDS:
            name = _surrogates(raw)
            path = "/api/quickplay" if route == "quickplay" else f"/api/tables/{table_id}/join"
            r = await http.post(path, json={"name": name})
            assert (r.status_code, r.json()["detail"]["code"]) == (422, "invalid_name"), r.text
            assert pattern.search(name) is None, raw
        # Whatever the schema accepts among these, the server accepts (and the other way round).
        for name in [
            "Ann",
            "Zo\u00eb",
            "\u674e\u96f7",
            "Ann \u2764\ufe0f",
            "\u00a0Ann",
            *BLANK_LOOKING,
            *BOT_LOOKALIKES[:1],
            "Bot 3",
            "\u0301Ann",
            "A\u200bB",
            "\U000e0041",
        ]:
            fresh = await create_table(http, 3)
            r = await http.post(f"/api/tables/{fresh}/join", json={"name": name})
            schema_says = pattern.search(name) is not None
            if schema_says:
                assert r.status_code == 200, (name, r.text)
            if r.status_code == 200:
                assert schema_says, name


@pytest.mark.timeout(300)
def test_schemathesis_finds_no_name_the_schema_accepts_and_the_server_refuses(
    sqlite_db: Database, server_factory: ServerFactory, tmp_path: Path
) -> None:
    """Seeded fuzzing of the join body (a name and nothing else) with any Unicode text: every
    name that fits the schema's pattern is accepted (2xx, or a refusal that is not about it:
    404 for the made-up table id)."""
    schemathesis = Path(sys.executable).with_name("schemathesis")
    server = server_factory(sqlite_db)
    run = subprocess.run(
        [
            str(schemathesis), "run", f"{server.http}/openapi.json",
            "--include-path-regex", "/join$",
            "--checks", "not_a_server_error,positive_data_acceptance",
            "--mode", "positive", "--phases", "fuzzing",
            "--generation-codec", "utf-8", "--max-examples", "60", "--seed", "20",
            "--generation-database", "none", "--no-color", "--workers", "1",
        ],
        capture_output=True, text=True, timeout=240, cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "Test cases:" in run.stdout, run.stdout[-2000:]
