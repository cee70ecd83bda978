"""Dragonstones Online server: a thin FastAPI shell around the pure `engine` package.

Routes and sockets call the game service (`app.service`), which is the one writer per game; the
service calls the engine, which alone decides every rule.
"""
