"""Starts MLServer on a model repository: ``python -m lab.serving.serve --repository DIR``.

Run from lab/.venv-serve (docs/foundry-serving.md). Writes the repository's ``settings.json``
(127.0.0.1 only: only the service talks to it; no metrics server; models answered in MLServer's
own process, as this machine has few cores), prints one JSON line ``{"port": N}`` and replaces
itself with ``mlserver start``. Every ``<name>/model-settings.json`` under the repository loads
at start, so deployed models come back after a restart.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_settings(http_port: int, grpc_port: int) -> dict:
    return {
        "host": "127.0.0.1",
        "http_port": http_port,
        "grpc_port": grpc_port,
        "metrics_endpoint": None,
        "parallel_workers": 0,
        "load_models_at_startup": True,
        "debug": False,
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--repository", required=True, help="the model repository folder")
    p.add_argument("--port", type=int, default=0, help="HTTP port (0: a free one)")
    p.add_argument("--grpc-port", type=int, default=0, help="gRPC port (0: a free one)")
    args = p.parse_args(argv)
    repo = Path(args.repository).resolve()
    repo.mkdir(parents=True, exist_ok=True)
    port = args.port or free_port()
    grpc = args.grpc_port or free_port()
    (repo / "settings.json").write_text(json.dumps(server_settings(port, grpc), indent=2))
    print(json.dumps({"port": port, "grpc_port": grpc}), flush=True)
    mlserver = Path(sys.executable).with_name("mlserver")
    os.execv(str(mlserver), [str(mlserver), "start", str(repo)])


if __name__ == "__main__":
    main()
