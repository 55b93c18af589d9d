"""JSON-lines logging to stderr, shared by the lab's command lines.

stdout stays free for machine-read lines (the gateway's start line); every log record
is one JSON object with its ``extra`` fields, as the service's structured logger writes.
"""

from __future__ import annotations

import json
import logging
import sys

_STD_ATTRS = set(logging.makeLogRecord({}).__dict__) | {"message", "color_message"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out = {"level": record.levelname.lower(), "logger": record.name, "msg": record.getMessage()}
        out.update({k: v for k, v in record.__dict__.items() if k not in _STD_ATTRS})
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


def setup_logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    logging.basicConfig(level=level.upper(), handlers=[handler])
