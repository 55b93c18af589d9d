"""Helpers for the lakehouse suites: a real gateway on a free port and a tiny JSON client.

The gateway runs under uvicorn in a thread (in-process, so a test can patch the catalog)
or as the real ``python -m lab.lakehouse.gateway`` subprocess the service spawns.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

LAB_ROOT = Path(__file__).resolve().parents[1]


def require_modules(*names: str, extra: str) -> None:
    """Skips the module when an extra is not installed; fails instead under CI."""
    missing = [n for n in names if importlib.util.find_spec(n) is None]
    if not missing:
        return
    why = f"{', '.join(missing)} not installed (pip install -e '.[{extra}]' or scripts/setup.sh --lab ...)"
    if os.environ.get("CI"):
        pytest.fail(f"{why}: the {extra} suites must run under CI", pytrace=False)
    pytest.skip(why, allow_module_level=True)


class Client:
    """JSON over HTTP with the stdlib; returns (status, body) and never raises on 4xx/5xx."""

    def __init__(self, base: str, token: str | None = None) -> None:
        self.base = base
        self.token = token

    def call(
        self, method: str, path: str, body: object = None, *, token: str | None = None
    ) -> tuple[int, Any]:
        headers = {"accept": "application/json"}
        sent_token = token if token is not None else self.token
        if sent_token is not None:
            headers["x-lab-token"] = sent_token
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["content-type"] = "application/json"
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=120) as res:
                raw = res.read()
                status = res.status
        except urllib.error.HTTPError as e:
            raw = e.read()
            status = e.code
        return status, (json.loads(raw) if raw else None)

    def get(self, path: str, **kw: Any) -> tuple[int, Any]:
        return self.call("GET", path, **kw)

    def post(self, path: str, body: object, **kw: Any) -> tuple[int, Any]:
        return self.call("POST", path, body, **kw)

    def delete(self, path: str, **kw: Any) -> tuple[int, Any]:
        return self.call("DELETE", path, **kw)


@contextmanager
def serve_in_thread(app: Any) -> Iterator[str]:
    """Serves an ASGI app on 127.0.0.1:<free port> in a thread; yields the base URL."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, access_log=False, lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("in-process gateway did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


@contextmanager
def gateway_process(
    tmp: Path, *extra_args: str, env: dict[str, str] | None = None, start_timeout: float = 90
) -> Iterator[str]:
    """The real command line, started the way the service starts it; yields the base URL."""
    args = [
        sys.executable,
        "-m",
        "lab.lakehouse.gateway",
        "--port",
        "0",
        "--warehouse",
        str(tmp / "warehouse"),
        "--catalog-uri",
        f"sqlite:///{tmp / 'catalog.db'}",
        *extra_args,
    ]
    err_path = tmp / "gateway.stderr"
    err_file = err_path.open("w")  # a file, not a pipe: a chatty JVM must never block on it
    proc = subprocess.Popen(
        args,
        cwd=LAB_ROOT,
        stdout=subprocess.PIPE,
        stderr=err_file,
        text=True,
        env={**os.environ, **(env or {})},
    )
    try:
        assert proc.stdout is not None
        port: int | None = None
        lines: list[str] = []
        timer = threading.Timer(start_timeout, proc.kill)
        timer.start()
        try:
            for line in proc.stdout:  # the start line, or EOF when the gateway dies or is killed
                lines.append(line)
                try:
                    msg = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if isinstance(msg, dict) and msg.get("msg") == "lakehouse gateway listening":
                    port = int(msg["port"])
                    break
        finally:
            timer.cancel()
        if port is None:
            proc.wait(timeout=30)
            err = err_path.read_text()
            raise RuntimeError(f"gateway did not start (stdout {lines!r}); stderr:\n{err[-4000:]}")
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
        err_file.close()
