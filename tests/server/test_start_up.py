"""What the server makes ready before it serves: work that, left to the first request needing
it, would hold up the event loop and every socket of the process with it."""

from __future__ import annotations

import gc
from pathlib import Path

from app.core import names
from app.core.config import Settings
from app.main import create_app


async def test_the_look_alike_table_is_built_before_the_first_name(tmp_path: Path) -> None:
    names._prototypes.cache_clear()
    app = create_app(Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}"))
    try:
        async with app.router.lifespan_context(app):
            assert names._prototypes.cache_info().currsize == 1
    finally:
        gc.unfreeze()  # the lifespan froze this test process's objects
