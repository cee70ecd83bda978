"""How every refusal, ours or the framework's, is answered over HTTP: the same JSON body
`{"detail": {"code", "message"}}`, the status of its code (app.core.errors), 503 `unavailable`
when the database is away, and an `Allow` header that names every method of a path."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from app.core.errors import UNAVAILABLE_MESSAGE, Code, ServiceError, StoreError

log = logging.getLogger("dragonstones.errors")

# The code of an HTTP error raised by the framework itself (unknown route, wrong method).
_FRAMEWORK_CODES = {404: Code.NOT_FOUND, 405: Code.METHOD_NOT_ALLOWED, 401: Code.UNAUTHORIZED}


def _short(exc: BaseException) -> str:
    """One line about a failure, for the log (no traceback: an outage is not a bug)."""
    return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]


def error_body(code: str, message: str) -> dict[str, dict[str, str]]:
    return {"detail": {"code": str(code), "message": message}}


def install(app: FastAPI) -> None:
    """Answer every refusal, ours or the framework's, with the same JSON body."""

    @app.exception_handler(ServiceError)
    async def _service_error(_request: Request, exc: ServiceError) -> JSONResponse:
        return JSONResponse(error_body(exc.code, exc.message), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        # A name the server refuses (app.core.names) has its own code; anything else does not fit.
        code = (
            Code.INVALID_NAME
            if any(err["type"] == "invalid_name" for err in exc.errors())
            else Code.INVALID_REQUEST
        )
        return JSONResponse(error_body(code, problems), status_code=422)

    @app.exception_handler(StoreError)
    async def _outage(_request: Request, exc: StoreError) -> JSONResponse:
        log.warning("database unavailable: %s", _short(exc))
        return JSONResponse(
            error_body(Code.UNAVAILABLE, UNAVAILABLE_MESSAGE),
            status_code=503,
            headers={"Retry-After": "2"},
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail: object = exc.detail
        if not isinstance(detail, dict):
            code = _FRAMEWORK_CODES.get(exc.status_code, Code.HTTP_ERROR)
            detail = {"code": str(code), "message": str(exc.detail)}
        headers = exc.headers
        if exc.status_code == 405:
            headers = {**(headers or {}), "Allow": ", ".join(allowed_methods(app, request))}
        return JSONResponse({"detail": detail}, status_code=exc.status_code, headers=headers)


def allowed_methods(app: FastAPI, request: Request) -> list[str]:
    """Every method some route serves at this path (the framework names only the first
    route's: `OPTIONS /api/tables` would say POST and forget GET)."""
    return [
        method
        for method in ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")
        if any(
            route.matches({**request.scope, "method": method})[0] == Match.FULL
            for route in app.router.routes
        )
    ]
