"""Dragonstones Online server: a thin FastAPI shell around the pure `engine` package.

Packages by domain, each importing only the ones below it (the layers in pyproject.toml, checked
by `lint-imports`): `app.edge` (routes and sockets) → `app.lobby` (tables, seats, the queue) →
`app.table` (a table's room, the one writer per game, and its collaborators) → `app.store` (the
database, read models, the bus between processes) → `app.core` (errors, messages, settings). On
top: `app.main` (the application), `app.cli` and `app.simulate`. The room calls the engine, which
alone decides every rule and what each viewer may know. docs/architecture.md follows a move through
the modules.
"""
