"""One error type for the lakehouse, with a string code, and one table from code to HTTP status.

Inner code raises ``LakehouseError(code, detail)``; the gateway turns it into
``{detail}`` with the status below (docs/lakehouse-gateway.md), so no layer under the
HTTP edge needs to know about status numbers.
"""

from __future__ import annotations

from typing import Literal

ErrorCode = Literal[
    "bad_request", "unauthorized", "not_found", "conflict", "unprocessable", "internal", "unavailable"
]

HTTP_STATUS: dict[ErrorCode, int] = {
    "bad_request": 400,
    "unauthorized": 401,
    "not_found": 404,
    "conflict": 409,
    "unprocessable": 422,
    "internal": 500,
    "unavailable": 503,
}


class LakehouseError(Exception):
    """A failure the caller can act on; ``detail`` is safe to show (no secrets, no paths)."""

    def __init__(self, code: ErrorCode, detail: str) -> None:
        super().__init__(detail)
        self.code: ErrorCode = code
        self.detail = detail

    @property
    def status(self) -> int:
        return HTTP_STATUS[self.code]
