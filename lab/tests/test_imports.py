"""Custom-table imports over real HTTP: CSV (the real German credit set), Parquet, JSON rows,
the modes, normalised column names, located errors and the one-call table summaries."""

from __future__ import annotations

import io
import json
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lakehouse_support import Client, require_modules, serve_in_thread

require_modules("pyiceberg", "duckdb", "starlette", "uvicorn", extra="lakehouse")

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from lab.lakehouse.app import create_app  # noqa: E402
from lab.lakehouse.catalog import open_catalog  # noqa: E402
from lab.lakehouse.imports import normalise_columns  # noqa: E402
from lab.lakehouse.query import DuckDbEngine  # noqa: E402
from lab.lakehouse.store import Lakehouse  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
GERMAN = REPO / "fixtures" / "ml" / "german_credit.csv"
GERMAN_COLUMNS = (
    "checking_status,duration,credit_history,purpose,credit_amount,savings,employment,installment_rate,"
    "personal_status,other_debtors,residence_since,property,age,other_installment_plans,housing,"
    "existing_credits,job,num_dependents,telephone,foreign_worker,class"
)


@pytest.fixture
def lakehouse(tmp_path: Path) -> Lakehouse:
    return Lakehouse(open_catalog(f"sqlite:///{tmp_path / 'catalog.db'}", str(tmp_path / "warehouse")))


@pytest.fixture
def base(lakehouse: Lakehouse, tmp_path: Path) -> Iterator[str]:
    app = create_app(
        lakehouse, DuckDbEngine(lakehouse, max_rows=50), warehouse=(tmp_path / "warehouse").as_uri()
    )
    with serve_in_thread(app) as url:
        yield url


@pytest.fixture
def ns(base: str) -> str:
    name = f"svc_tenant_{uuid.uuid4().hex[:8]}"
    assert Client(base).post("/namespaces", {"namespace": name})[0] == 201
    return name


def upload(base: str, path: str, data: bytes) -> tuple[int, Any]:
    req = urllib.request.Request(
        base + path, data=data, method="POST", headers={"content-type": "application/octet-stream"}
    )
    try:
        with urllib.request.urlopen(req, timeout=120) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_normalised_column_names() -> None:
    assert normalise_columns(["emp.var.rate", "Passenger Id", "Age", "age", "2nd", "", "a--b", "AGE"]) == [
        "emp_var_rate",
        "passenger_id",
        "age",
        "age_2",
        "c_2nd",
        "c",
        "a_b",
        "age_3",
    ]


def test_headerless_csv_with_names_and_summary(base: str, ns: str) -> None:
    status, body = upload(
        base, f"/imports/{ns}/german_credit?header=false&columns={GERMAN_COLUMNS}", GERMAN.read_bytes()
    )
    assert status == 200, body
    assert body["row_count"] == 1000
    assert body["mode"] == "create"
    names = [c["name"] for c in body["columns"]]
    assert names == GERMAN_COLUMNS.split(",")
    types = {c["name"]: c["type"] for c in body["columns"]}
    assert types["duration"] == "long" and types["checking_status"] == "string"

    status, listing = Client(base).get(f"/namespaces/{ns}/summaries")
    assert status == 200
    [t] = listing["tables"]
    assert t["name"] == "german_credit" and t["row_count"] == 1000 and t["source"] == "custom"
    assert [c["name"] for c in t["columns"]] == names

    # create again: 409; replace: same count, new snapshot; append: doubled.
    assert upload(base, f"/imports/{ns}/german_credit?header=false", GERMAN.read_bytes())[0] == 409
    status, body = upload(
        base,
        f"/imports/{ns}/german_credit?header=false&mode=replace&columns={GERMAN_COLUMNS}",
        GERMAN.read_bytes(),
    )
    assert status == 200 and body["row_count"] == 1000
    status, body = upload(
        base,
        f"/imports/{ns}/german_credit?header=false&mode=append&columns={GERMAN_COLUMNS}",
        GERMAN.read_bytes(),
    )
    assert status == 200 and body["row_count"] == 2000


def test_replace_changes_the_schema_in_one_commit(base: str, ns: str, lakehouse: Lakehouse) -> None:
    assert upload(base, f"/imports/{ns}/t", b"a,b\n1,x\n2,y\n")[0] == 200
    # One catalog commit: the metadata pointer moves once (an overwrite is delete + append snapshots).
    before = len(lakehouse.load(ns, "t").metadata.metadata_log)
    status, body = upload(base, f"/imports/{ns}/t?mode=replace", b"b,Emp.Var.Rate\n1.5,z\n")
    assert status == 200, body
    assert body["columns"] == [
        {"name": "b", "type": "double", "nullable": True},
        {"name": "emp_var_rate", "type": "string", "nullable": True},
    ]
    assert body["row_count"] == 1
    table = lakehouse.load(ns, "t")
    assert len(table.metadata.metadata_log) == before + 1
    assert table.scan().to_arrow().to_pylist() == [{"b": 1.5, "emp_var_rate": "z"}]


def test_semicolon_delimiter_and_null_markers(base: str, ns: str) -> None:
    status, body = upload(base, f"/imports/{ns}/semi?delimiter=%3B&null_values=%3F", b"x;y\n1;?\n2;3\n")
    assert status == 200, body
    assert {c["name"]: c["type"] for c in body["columns"]} == {"x": "long", "y": "long"}


def test_wrong_field_count_names_the_line(base: str, ns: str) -> None:
    data = b"a,b,c\n1,2,3\n4,5,6\n7,8\n9,10,11\n"
    status, body = upload(base, f"/imports/{ns}/bad", data)
    assert status == 422
    assert body["loc"] == ["body", "file", "row", 4]
    assert body["input"] == "7,8"
    assert "2 fields" in body["detail"]
    assert Client(base).get(f"/namespaces/{ns}/summaries")[1]["tables"] == []


def test_parquet_and_not_parquet(base: str, ns: str) -> None:
    buf = io.BytesIO()
    pq.write_table(
        pa.table(
            {
                "Ticker": ["AAPL", "MSFT"],
                "px": pa.array([1.5, 2.5], pa.float32()),
                "n": pa.array([1, 2], pa.int8()),
            }
        ),
        buf,
    )
    status, body = upload(base, f"/imports/{ns}/px?format=parquet", buf.getvalue())
    assert status == 200, body
    assert body["columns"] == [
        {"name": "ticker", "type": "string", "nullable": True},
        {"name": "px", "type": "float", "nullable": True},
        {"name": "n", "type": "int", "nullable": True},
    ]
    status, body = upload(base, f"/imports/{ns}/nope?format=parquet", b"a,b\n1,2\n")
    assert status == 422 and body["loc"] == ["body", "file"]

    nested = io.BytesIO()
    pq.write_table(pa.table({"l": [[1, 2], [3]]}), nested)
    status, body = upload(base, f"/imports/{ns}/nested?format=parquet", nested.getvalue())
    assert status == 422 and body["loc"] == ["body", "file", "column", "l"]


def test_json_rows(base: str, ns: str) -> None:
    c = Client(base)
    status, body = c.post(f"/imports/{ns}/people/rows", {"rows": [{"Name": "a", "age": 3}, {"Name": "b"}]})
    assert status == 200, body
    assert body["columns"] == [
        {"name": "name", "type": "string", "nullable": True},
        {"name": "age", "type": "long", "nullable": True},
    ]
    assert body["row_count"] == 2
    status, body = c.post(
        f"/imports/{ns}/people/rows", {"mode": "append", "rows": [{"name": "c", "city": "x"}]}
    )
    assert status == 200 and body["row_count"] == 3
    assert [col["name"] for col in body["columns"]] == ["name", "age", "city"]
    status, body = c.post(f"/imports/{ns}/mixed/rows", {"rows": [{"a": 1}, {"a": "x"}]})
    assert status == 422 and body["loc"] == ["body", "rows", "column", "a"]
    status, body = c.post(f"/imports/{ns}/people/rows", {"mode": "merge", "rows": [{"a": 1}]})
    assert status == 422 and body["loc"] == ["body", "mode"]


def test_unknown_namespace_is_404(base: str) -> None:
    assert upload(base, "/imports/svc_tenant_missing/t", b"a\n1\n")[0] == 404
