"""The embedded lakehouse gateway end to end over real HTTP: PyIceberg SQL catalog on a
temp SQLite file and warehouse, DuckDB for /sql (docs/lakehouse-gateway.md)."""

from __future__ import annotations

import base64
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from lakehouse_support import Client, gateway_process, require_modules, serve_in_thread

require_modules("pyiceberg", "duckdb", "starlette", "uvicorn", extra="lakehouse")

from pyiceberg.catalog.sql import SqlCatalog  # noqa: E402

from lab.lakehouse.app import create_app  # noqa: E402
from lab.lakehouse.catalog import open_catalog  # noqa: E402
from lab.lakehouse.query import DuckDbEngine  # noqa: E402
from lab.lakehouse.store import Lakehouse  # noqa: E402

ORDERS = [
    {"name": "id", "type": "long", "nullable": False},
    {"name": "customer", "type": "string"},
    {"name": "amount", "type": "decimal(10,2)"},
]


@pytest.fixture
def lakehouse(tmp_path: Path) -> Lakehouse:
    return Lakehouse(open_catalog(f"sqlite:///{tmp_path / 'catalog.db'}", str(tmp_path / "warehouse")))


@pytest.fixture
def client(lakehouse: Lakehouse, tmp_path: Path) -> Iterator[Client]:
    app = create_app(
        lakehouse, DuckDbEngine(lakehouse, max_rows=50), warehouse=(tmp_path / "warehouse").as_uri()
    )
    with serve_in_thread(app) as url:
        yield Client(url)


@pytest.fixture
def ns(client: Client) -> str:
    name = f"svc_tenant_{uuid.uuid4().hex[:8]}"
    assert client.post("/namespaces", {"namespace": name})[0] == 201
    return name


def write(client: Client, ns: str, table: str, mode: str, rows: list[list[object]], **extra: object) -> dict:
    status, body = client.post(
        f"/tables/{ns}/{table}/write", {"mode": mode, "columns": ORDERS, "rows": rows, **extra}
    )
    assert status == 200, body
    return body


def rows_of(client: Client, ns: str, table: str) -> list[list[object]]:
    status, body = client.get(f"/tables/{ns}/{table}/preview?limit=1000")
    assert status == 200, body
    return sorted(body["rows"])


def test_health_reports_catalog_engine_and_warehouse(client: Client, tmp_path: Path) -> None:
    status, body = client.get("/health")
    assert status == 200
    assert body == {
        "status": "ok",
        "catalog": "sql",
        "engine": "duckdb",
        "warehouse": (tmp_path / "warehouse").as_uri(),
    }


def test_namespaces_are_idempotent_and_drop_takes_tables(client: Client) -> None:
    name = f"svc_tenant_{uuid.uuid4().hex[:8]}"
    assert client.post("/namespaces", {"namespace": name}) == (201, {"namespace": name, "created": True})
    assert client.post("/namespaces", {"namespace": name}) == (200, {"namespace": name, "created": False})
    assert name in client.get("/namespaces")[1]["namespaces"]
    status, body = client.get(f"/namespaces/{name}")
    assert status == 200 and body["namespace"] == name and isinstance(body["properties"], dict)
    assert client.get(f"/namespaces/{name}/tables") == (200, {"tables": []})

    write(client, name, "orders", "append", [[1, "a", "1.00"]])
    assert client.get(f"/namespaces/{name}/tables") == (200, {"tables": ["orders"]})
    assert client.delete(f"/namespaces/{name}")[0] == 204
    assert client.delete(f"/namespaces/{name}")[0] == 204  # already gone is fine
    assert client.get(f"/namespaces/{name}")[0] == 404
    assert client.get(f"/namespaces/{name}/tables")[0] == 404
    assert client.get(f"/tables/{name}/orders/snapshot")[0] == 404
    assert name not in client.get("/namespaces")[1]["namespaces"]
    # Recreated namespaces start empty.
    assert client.post("/namespaces", {"namespace": name})[0] == 201
    assert client.get(f"/namespaces/{name}/tables") == (200, {"tables": []})


def test_names_are_checked(client: Client) -> None:
    for bad in ["Upper", "1abc", "has-dash", "a" * 129, ""]:
        assert client.post("/namespaces", {"namespace": bad})[0] == 400, bad
    assert client.get("/namespaces/Bad-Name")[0] == 400
    assert client.get("/tables/ok/Bad-Table/schema")[0] == 400
    status, body = client.post("/namespaces", ["not", "an", "object"])
    assert status == 400 and "detail" in body
    assert client.get("/no/such/route")[0] == 404


def test_overwrite_append_and_upsert_semantics(client: Client, ns: str) -> None:
    first = write(client, ns, "orders", "overwrite", [[1, "a", "1.00"], [2, "b", "2.00"]])
    assert first["rows_written"] == 2 and isinstance(first["snapshot_id"], int)
    assert rows_of(client, ns, "orders") == [[1, "a", "1.00"], [2, "b", "2.00"]]

    write(client, ns, "orders", "append", [[3, "c", "3.00"]])
    assert rows_of(client, ns, "orders") == [[1, "a", "1.00"], [2, "b", "2.00"], [3, "c", "3.00"]]

    # Upsert replaces rows with equal keys and keeps the others.
    body = write(client, ns, "orders", "upsert", [[2, "b2", "20.00"], [4, "d", "4.00"]], key_columns=["id"])
    assert body["rows_written"] == 2
    assert rows_of(client, ns, "orders") == [
        [1, "a", "1.00"],
        [2, "b2", "20.00"],
        [3, "c", "3.00"],
        [4, "d", "4.00"],
    ]

    # Overwrite replaces everything.
    write(client, ns, "orders", "overwrite", [[9, "z", "9.99"]])
    assert rows_of(client, ns, "orders") == [[9, "z", "9.99"]]


def test_upsert_creates_the_table_and_refuses_duplicate_keys(client: Client, ns: str) -> None:
    write(client, ns, "fresh", "upsert", [[1, "a", "1.00"]], key_columns=["id"])
    assert rows_of(client, ns, "fresh") == [[1, "a", "1.00"]]
    status, body = client.post(
        f"/tables/{ns}/fresh/write",
        {"mode": "upsert", "key_columns": ["id"], "columns": ORDERS, "rows": [[5, "x", "1"], [5, "y", "2"]]},
    )
    assert status == 400 and "Duplicate" in body["detail"]
    status, _ = client.post(f"/tables/{ns}/fresh/write", {"mode": "upsert", "columns": ORDERS, "rows": []})
    assert status == 400
    assert rows_of(client, ns, "fresh") == [[1, "a", "1.00"]]


def test_each_write_is_one_snapshot_and_properties_round_trip(
    client: Client, ns: str, lakehouse: Lakehouse
) -> None:
    assert client.get(f"/tables/{ns}/orders/snapshot")[0] == 404
    first = write(
        client, ns, "orders", "overwrite", [[1, "a", "1.00"]], snapshot_properties={"cairn.watermark": "100"}
    )
    status, snap = client.get(f"/tables/{ns}/orders/snapshot")
    assert status == 200
    assert snap["snapshot_id"] == first["snapshot_id"]
    assert snap["properties"]["cairn.watermark"] == "100"
    assert snap["properties"]["operation"] == "append"

    history = len(lakehouse.load(ns, "orders").metadata.snapshots)
    second = write(
        client,
        ns,
        "orders",
        "upsert",
        [[1, "a2", "1.00"]],
        key_columns=["id"],
        snapshot_properties={"cairn.watermark": "200"},
    )
    snap = client.get(f"/tables/{ns}/orders/snapshot")[1]
    assert snap == {"snapshot_id": second["snapshot_id"], "properties": snap["properties"]}
    assert snap["properties"]["cairn.watermark"] == "200"
    # Only the catalog's metadata pointer decides what readers see: one commit, one metadata file.
    metadata_files = list(
        (Path(lakehouse.load(ns, "orders").location().removeprefix("file://")) / "metadata").glob(
            "*.metadata.json"
        )
    )
    assert len(lakehouse.load(ns, "orders").metadata.snapshots) > history
    assert len(metadata_files) == 2  # created-with-first-write, then the upsert


def test_schema_and_preview_round_trip_every_type(client: Client, ns: str) -> None:
    columns = [
        {"name": "id", "type": "int", "nullable": False},
        {"name": "flag", "type": "boolean"},
        {"name": "big", "type": "long"},
        {"name": "ratio", "type": "float"},
        {"name": "score", "type": "double"},
        {"name": "price", "type": "decimal(12, 4)"},
        {"name": "day", "type": "date"},
        {"name": "seen", "type": "timestamp"},
        {"name": "at", "type": "timestamptz"},
        {"name": "label", "type": "string"},
        {"name": "blob", "type": "binary"},
    ]
    blob = base64.b64encode(b"\x00\x01cairn").decode()
    rows = [
        [
            1,
            True,
            "9007199254740993",
            0.5,
            1.25,
            "12.3400",
            "2024-02-29",
            "2024-01-01T10:00:00",
            "2024-01-01T10:00:00+02:00",
            "x",
            blob,
        ],
        [2, None, None, None, None, None, None, None, None, None, None],
    ]
    status, body = client.post(
        f"/tables/{ns}/typed/write", {"mode": "append", "columns": columns, "rows": rows}
    )
    assert status == 200, body

    status, schema = client.get(f"/tables/{ns}/typed/schema")
    assert status == 200
    assert [c["type"] for c in schema["columns"]] == [
        "int",
        "boolean",
        "long",
        "float",
        "double",
        "decimal(12,4)",
        "date",
        "timestamp",
        "timestamptz",
        "string",
        "binary",
    ]
    assert schema["columns"][0]["nullable"] is False and schema["columns"][1]["nullable"] is True

    status, preview = client.get(f"/tables/{ns}/typed/preview?limit=10")
    assert status == 200 and preview["columns"] == schema["columns"]
    got = {r[0]: r for r in preview["rows"]}
    assert got[1] == [
        1,
        True,
        9007199254740993,
        0.5,
        1.25,
        "12.3400",
        "2024-02-29",
        "2024-01-01T10:00:00",
        "2024-01-01T08:00:00+00:00",
        "x",
        blob,
    ]
    assert got[2] == [2] + [None] * 10

    assert client.get(f"/tables/{ns}/typed/preview?limit=1")[1]["rows"].__len__() == 1
    for bad in ["0", "1001", "x", "-1"]:
        assert client.get(f"/tables/{ns}/typed/preview?limit={bad}")[0] == 400, bad
    assert client.get(f"/tables/{ns}/missing/preview")[0] == 404
    assert client.get(f"/tables/{ns}/missing/schema")[0] == 404


def test_bad_writes_are_refused_with_reasons(client: Client, ns: str) -> None:
    def post(body: dict) -> tuple[int, dict]:
        return client.post(f"/tables/{ns}/orders/write", body)

    base = {"mode": "append", "columns": ORDERS}
    cases = [
        ({**base, "mode": "merge", "rows": []}, "mode"),
        ({**base, "columns": [{"name": "id", "type": "uuid"}], "rows": []}, "unsupported column type"),
        ({**base, "rows": [[1, "a"]]}, "row 0"),
        ({**base, "rows": [[None, "a", "1"]]}, "required"),
        ({**base, "rows": [["x", "a", "1"]]}, "integer"),
        ({**base, "rows": [[1, "a", "1.234"]]}, "decimal(10,2)"),
        ({**base, "rows": [[1, 5, "1"]]}, "string"),
        ({**base, "rows": [], "snapshot_properties": {"k": 1}}, "snapshot_properties"),
        ({**base, "columns": [*ORDERS, {"name": "ID", "type": "long"}], "rows": []}, "unique"),
    ]
    for body, why in cases:
        status, answer = post(body)
        assert status == 400 and why in answer["detail"], (body, answer)
    assert client.get(f"/tables/{ns}/orders/schema")[0] == 404  # nothing was created

    assert client.post("/tables/no_such_ns/orders/write", {**base, "rows": []})[0] == 404


def test_schema_evolves_by_adding_columns_and_refuses_type_conflicts(client: Client, ns: str) -> None:
    write(client, ns, "orders", "append", [[1, "a", "1.00"]])
    wider = [*ORDERS, {"name": "region", "type": "string"}]
    status, body = client.post(
        f"/tables/{ns}/orders/write", {"mode": "append", "columns": wider, "rows": [[2, "b", "2.00", "eu"]]}
    )
    assert status == 200, body
    assert rows_of(client, ns, "orders") == [[1, "a", "1.00", None], [2, "b", "2.00", "eu"]]

    clash = [{"name": "id", "type": "string"}]
    status, body = client.post(
        f"/tables/{ns}/orders/write", {"mode": "append", "columns": clash, "rows": [["x"]]}
    )
    assert status == 409 and "id" in body["detail"]


def test_sql_reads_the_namespace_and_refuses_anything_else(client: Client, ns: str) -> None:
    write(client, ns, "orders", "overwrite", [[1, "a", "1.50"], [2, "b", "2.50"], [3, "a", "3.00"]])
    status, body = client.post(
        "/sql",
        {
            "namespace": ns,
            "sql": "SELECT customer, sum(amount) AS total FROM orders GROUP BY customer ORDER BY customer",
        },
    )
    assert status == 200, body
    assert [c["name"] for c in body["columns"]] == ["customer", "total"]
    assert body["columns"][0]["type"] == "string"
    assert body["rows"] == [["a", "4.50"], ["b", "2.50"]]

    for statement in [
        "DROP TABLE orders",
        "INSERT INTO orders VALUES (4, 'd', 4)",
        "WITH x AS (SELECT 1) INSERT INTO orders SELECT 5, 'e', 5",
        "SELECT 1; DROP TABLE orders",
        "COPY orders TO '/tmp/out.csv'",
        "ATTACH '/tmp/x.db'",
        "SET enable_external_access = true",
    ]:
        status, answer = client.post("/sql", {"namespace": ns, "sql": statement})
        assert status == 400, (statement, answer)
    # SELECTs cannot reach files or other namespaces either.
    status, answer = client.post("/sql", {"namespace": ns, "sql": "SELECT * FROM read_csv('/etc/passwd')"})
    assert status == 400
    other = f"svc_tenant_{uuid.uuid4().hex[:8]}"
    client.post("/namespaces", {"namespace": other})
    write(client, other, "secrets", "append", [[1, "s", "0"]])
    assert client.post("/sql", {"namespace": ns, "sql": "SELECT * FROM secrets"})[0] == 400
    assert client.post("/sql", {"namespace": ns, "sql": f"SELECT * FROM {other}.secrets"})[0] == 400
    assert client.post("/sql", {"namespace": "no_such_ns", "sql": "SELECT 1"})[0] == 404
    assert len(rows_of(client, ns, "orders")) == 3

    # Results are bounded (this app allows 50 rows).
    status, answer = client.post("/sql", {"namespace": ns, "sql": "SELECT * FROM range(51)"})
    assert status == 400 and "LIMIT" in answer["detail"]


def test_smoke_writes_reads_back_and_leaves_nothing(client: Client, ns: str) -> None:
    assert client.post("/smoke", {"namespace": ns}) == (200, {"ok": True})
    assert client.get(f"/namespaces/{ns}/tables") == (200, {"tables": []})
    assert client.post("/smoke", {"namespace": "no_such_ns"})[0] == 404


def test_a_failed_commit_leaves_the_previous_snapshot(
    client: Client, ns: str, lakehouse: Lakehouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = write(client, ns, "orders", "overwrite", [[1, "a", "1.00"]], snapshot_properties={"wm": "1"})
    table = lakehouse.load(ns, "orders")
    data_dir = Path(table.location().removeprefix("file://")) / "data"
    files_before = set(data_dir.rglob("*.parquet"))
    reached: list[int] = []

    def fail_commit(self: SqlCatalog, *args: object, **kwargs: object) -> None:
        # The transaction has written its data files by now; only the pointer move is left.
        reached.append(len(set(data_dir.rglob("*.parquet")) - files_before))
        raise OSError("disk vanished mid-commit")

    monkeypatch.setattr(SqlCatalog, "commit_table", fail_commit)
    for mode in ["overwrite", "append", "upsert"]:
        status, body = client.post(
            f"/tables/{ns}/orders/write",
            {
                "mode": mode,
                "key_columns": ["id"],
                "columns": ORDERS,
                "rows": [[1, "x", "9.00"], [2, "y", "9.00"]],
            },
        )
        assert status == 500 and "disk vanished" in body["detail"], (mode, body)
    assert reached and all(n > 0 for n in reached), reached
    monkeypatch.undo()

    status, snap = client.get(f"/tables/{ns}/orders/snapshot")
    assert snap["snapshot_id"] == before["snapshot_id"] and snap["properties"]["wm"] == "1"
    assert rows_of(client, ns, "orders") == [[1, "a", "1.00"]]
    # And the table still takes writes.
    write(client, ns, "orders", "append", [[2, "b", "2.00"]])
    assert rows_of(client, ns, "orders") == [[1, "a", "1.00"], [2, "b", "2.00"]]


def test_token_is_enforced(lakehouse: Lakehouse, tmp_path: Path) -> None:
    app = create_app(lakehouse, DuckDbEngine(lakehouse), warehouse=tmp_path.as_uri(), token="s3cret")
    with serve_in_thread(app) as url:
        c = Client(url)
        assert c.get("/health")[0] == 401
        assert c.get("/health", token="wrong")[0] == 401
        status, body = c.post("/namespaces", {"namespace": "svc_x"}, token="")
        assert status == 401 and "X-Lab-Token" in body["detail"]
        assert c.get("/health", token="s3cret")[0] == 200
        assert c.post("/namespaces", {"namespace": "svc_x"}, token="s3cret")[0] == 201


def test_command_line_prints_its_port_and_takes_the_token_from_the_environment(tmp_path: Path) -> None:
    with gateway_process(tmp_path, env={"CAIRN_LAB_TOKEN": "from-env"}) as url:
        c = Client(url)
        assert c.get("/health")[0] == 401
        status, body = c.get("/health", token="from-env")
        assert status == 200 and body["engine"] == "duckdb"
        assert c.post("/namespaces", {"namespace": "svc_cli"}, token="from-env")[0] == 201
    assert (tmp_path / "catalog.db").is_file()
