"""Dragonstones Online server: a thin FastAPI shell around the pure `engine` package.

Routes (app.api) and sockets (app.ws) call the lobby (app.lobby), the read models (app.queries) or
a table's room (app.game.room), which is the one writer per game; the room calls the engine, which
alone decides every rule and what each viewer may know. docs/architecture.md follows a move through
the modules.
"""
