"""Apply Alembic migrations programmatically (server start, `dragonstones db ...`)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

import app as _app_pkg
from app.core.config import Settings, get_settings
from app.core.resources import migrations_dir


def alembic_config(settings: Settings | None = None) -> Config:
    """An Alembic config found relative to the installed packages, not the working directory."""
    settings = settings or get_settings()
    ini = Path(_app_pkg.__file__).resolve().parent / "alembic.ini"
    cfg = Config(str(ini))
    cfg.set_main_option("script_location", str(migrations_dir()))
    cfg.attributes["database_url"] = settings.resolved_database_url()
    cfg.attributes["skip_logging_config"] = True
    return cfg


def upgrade(revision: str = "head", settings: Settings | None = None) -> None:
    """Bring the database to `revision`. Blocking: call it from a thread inside an event loop."""
    command.upgrade(alembic_config(settings), revision)


def downgrade(revision: str = "base", settings: Settings | None = None) -> None:
    command.downgrade(alembic_config(settings), revision)


def current(settings: Settings | None = None) -> None:
    command.current(alembic_config(settings))
