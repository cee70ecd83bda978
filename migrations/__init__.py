"""Alembic migrations for the server database (same migrations for Postgres and SQLite)."""
