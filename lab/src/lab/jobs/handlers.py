"""The lab's job handlers, by job name, shared by both consumers.

A handler takes a :class:`JobContext` and returns a JSON-serialisable result. It runs
synchronously (the Redis consumer moves it to a thread so BullMQ's lock renewal keeps
running). Payloads are validated here, at the edge, and a bad payload raises
``ValueError``, which fails the attempt like any other error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

JsonValue = None | bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"]


class JobContext(Protocol):
    """What a handler sees of a job; mirrors the service's JobContext."""

    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def data(self) -> JsonValue: ...

    @property
    def attempt(self) -> int: ...

    def progress(self, value: JsonValue) -> None: ...


Handler = Callable[[JobContext], JsonValue]


def echo(ctx: JobContext) -> JsonValue:
    """Returns the job's data unchanged (used to check the plumbing end to end)."""
    return ctx.data


def sum_values(ctx: JobContext) -> JsonValue:
    """Returns the sum of ``data["values"]``, a list of numbers."""
    data = ctx.data
    values = data.get("values") if isinstance(data, dict) else None
    if not isinstance(values, list) or not all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in values
    ):
        raise ValueError("sum: data.values must be a list of numbers")
    ctx.progress(50)
    return sum(values)


def models_train(ctx: JobContext) -> JsonValue:
    """Trains a Foundry model competition (lab.models.run); imported lazily, so a worker
    installed without the ``ml`` extra still starts and serves the other jobs."""
    from lab.models.run import train_handler

    try:
        return train_handler(ctx)
    except ValueError as e:
        # Bad input (the table changed since the service's check, say) fails the run for good:
        # a completed job with a failed result, so the queue does not try it a second time.
        return {"status": "failed", "reason": str(e)}


def models_tune(ctx: JobContext) -> JsonValue:
    """Runs a Foundry tuning experiment (lab.models.tune_job: Optuna, 12 trials 2 at a time);
    imported lazily like ``models.train``."""
    from lab.models.tune_job import tune_handler

    return tune_handler(ctx)


HANDLERS: Mapping[str, Handler] = {
    "echo": echo,
    "sum": sum_values,
    "models.train": models_train,
    "models.tune": models_tune,
}


def handler_for(name: str, handlers: Mapping[str, Handler] = HANDLERS) -> Handler:
    try:
        return handlers[name]
    except KeyError:
        raise LookupError(f"no handler for job name {name!r}") from None
