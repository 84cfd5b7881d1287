"""The records analyser writes and reads back (a run's ``config.json``, an experiment's record and
its cells), as pydantic models: what each field a reader uses accepts.

A record read back may have been edited by hand or come from someone else, so it is checked
before any field is used: :func:`check_record` validates it against a model and turns the first
error into one line naming the file, the field, its value and what the field accepts (an
:class:`~analyser.engine.core.InputError`: exit 2, no traceback).  The models check only the
fields readers use; any other field is kept as it is (``extra="allow"``).  Types are strict: a
whole number is a JSON integer, not ``true`` or ``"4"``.
"""

from __future__ import annotations

import json
import typing
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from analyser.engine.core import InputError
from analyser.engine.params import MAX_GAME_TIMEOUT


class Record(BaseModel):
    """A record's fields that readers use: strict types, other fields kept as they are."""

    model_config = ConfigDict(extra="allow", strict=True)


#: What a seed field accepts.
SEED = "a whole number from 0 to 2**64 - 1 (the seed)"
#: The statuses a run writes in its config.json (a failed report adds "; report failed").
STATUS = "running, complete, interrupted or failed, or one of them followed by '; report failed'"
STATUS_PATTERN = r"^((running|complete|interrupted|failed|pending)(; report failed)?|report failed)$"


def _whole(description: str = "a whole number >= 0", **bounds):
    return Field(None, ge=bounds.pop("ge", 0), description=description, **bounds)


class StopRecord(Record):
    """The ``--until-ci`` record of a run played in rounds (``config.json`` ``stopping``)."""

    until_ci: float | None = Field(None, description="a number (the --until-ci width)")
    reason: str = Field(description="text (why the rounds stopped)")
    rounds: int | None = Field(None, description="a whole number")
    games: int | None = Field(None, description="a whole number")
    widest_interval: float | None = Field(None, description="a number")
    history: list | None = Field(None, description="a list")
    max_games: int | None = Field(None, description="a whole number")
    decided: bool | None = Field(None, description="true or false")


class RunFields(Record):
    """The fields of a run record (a run's ``config.json``, or a cell's entry in an experiment's
    record) that readers use; any may be absent from a cell's entry."""

    run_id: str | None = Field(None, min_length=1, max_length=200, description="text (the run's id)")
    players: int | None = _whole("a whole number of seats from 1 to 1,000", ge=1, le=1000)
    seed: int | None = _whole(SEED, lt=2**64)
    games_requested: int | None = _whole()
    games_completed: int | None = _whole()
    first_game: int | None = _whole()
    strategies: list[str] | None = Field(None, description="a list of strategy specs")
    status: str | None = Field(None, description="text")
    games_done: list[Annotated[list[int], Field(min_length=2, max_length=2)]] | None = Field(
        None, description="a list of [first, last] game ranges")


#: The most games one run plays (the bound ``simulate --games`` and a resumed record are held to).
MAX_RUN_GAMES = 10_000_000


class RunRecord(RunFields):
    """A run's ``config.json`` beside its results, as a report reads it and as a resume reads it:
    the settings the run is played with are held to the bounds a run accepts, so a hand-edited
    record is one line naming the same field for both."""

    game: str = Field(description="a title id")
    #: absent only from a record of an older version (refused by its reader); never null
    run_id: str = Field(None, min_length=1, max_length=200, description="text (the run's id)")
    seed: int = Field(ge=0, lt=2**64, description=SEED)
    games_requested: int | None = _whole(f"a whole number of games from 1 to {MAX_RUN_GAMES:,}", ge=1,
                                         le=MAX_RUN_GAMES)
    status: str | None = Field(None, pattern=STATUS_PATTERN, description=STATUS)
    title_source: str | None = Field(None, description="text (the title's file)")
    rules: dict | None = Field(None, description="an object (rule option: value)")
    rule_overrides: dict | None = Field(None, description="an object (rule option: a text or a number)")
    batch_size: int | None = _whole("a positive whole number (games per batch)", ge=1)
    jobs_requested: int | None = _whole("a whole number of workers >= 0 (0: all cores)")
    game_timeout: float | None = Field(None, ge=0, le=MAX_GAME_TIMEOUT, allow_inf_nan=False,
                                       description=f"seconds from 0 (no limit) to {MAX_GAME_TIMEOUT:,.0f}")
    backend: Literal["loky", "dask", "threading"] | None = Field(None, description="loky or dask")
    engine_requested: Literal["auto", "python", "compiled"] | None = Field(
        None, description="auto, python or compiled")

    @field_validator("rule_overrides")
    @classmethod
    def _scalar_options(cls, value: dict | None) -> dict | None:
        if value is not None and not all(isinstance(v, (str, int, float)) and not isinstance(v, bool)
                                         for v in value.values()):
            raise ValueError("a rule option's value is not a text or a number")
        return value
    versions: dict | None = Field(None, description="an object (package: version)")
    stopping: StopRecord | None = Field(None, description="an object (the --until-ci record)")

    def disagreeing_field(self) -> tuple[str, str] | None:
        """A field whose value the other fields rule out, as ``(its name, what it accepts)``, or
        None: ``games_requested`` below the games already played (``games_completed``)."""
        played = self.games_completed or 0
        if self.games_requested is not None and self.games_requested < played:
            return "games_requested", (f"a whole number of games from {played:,} (the games already played) "
                                       f"to {MAX_RUN_GAMES:,}")
        return None


def cells_complete(config: dict) -> int:
    """How many cells of an experiment's record (``config["cells"]``) are complete."""
    return sum(1 for c in config.get("cells") or [] if isinstance(c, dict) and c.get("status") == "complete")


class CellRecord(RunFields):
    """A cell's entry in an experiment's record."""

    name: str = Field(description="text (the cell's name)")
    folder: str = Field(description="text (the cell's folder)")


class ExperimentInfo(Record):
    """An experiment record's ``experiment`` object."""

    layout: int = Field(ge=0, description="a whole number (the layout)")
    run: dict = Field(description="an object (the experiment's run spec)")
    options: dict = Field(description="an object (the experiment's own options)")


class ExperimentRecord(Record):
    """An experiment's ``config.json``: its kind, options and cells."""

    kind: str = Field(description="text (the kind of experiment)")
    experiment: ExperimentInfo = Field(description="an object")
    cells: list[dict] = Field(description="a list of cell records (each a CellRecord)")


def _model_in(annotation) -> type[BaseModel] | None:
    """The pydantic model an annotation holds (``M``, ``M | None``, ``list[M]``), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _field(model: type[BaseModel] | None, loc: tuple):
    """The pydantic field a validation error's ``loc`` points at (list positions skipped)."""
    field = None
    for part in loc:
        if isinstance(part, int):
            continue
        if model is None or part not in model.model_fields:
            break
        field = model.model_fields[part]
        model = _model_in(field.annotation)
    return field


def _shown(value: Any) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def field_path(loc: tuple) -> str:
    """A validation error's ``loc`` as a path: ``cells[2].name``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + str(part)
    return out


def check_record(model: type[BaseModel], data: Any, where: str, fix: str = "restore the file, or start the run again"):
    """``data`` validated as ``model`` (returned); InputError, one line naming ``where`` (the file),
    the field, its value and what the field accepts, followed by ``fix``, at the first error."""
    if not isinstance(data, dict):
        raise InputError(f"{where} holds a JSON {type(data).__name__}, not an object; {fix}")
    try:
        record = model.model_validate(data)
    except ValidationError as e:
        err = e.errors(include_url=False)[0]
        loc = tuple(x for x in err["loc"] if not (isinstance(x, str) and x.startswith(("function-", "list["))))
        field = _field(model, loc)
        accepted = field.description if field is not None and field.description else err["msg"].lower()
        name = field_path(loc) or "the record"
        if err["type"] == "missing":
            raise InputError(f"{where}: the field {name!r} is missing; it takes {accepted}; {fix}") from None
        value = err.get("input")
        top = data
        for part in loc:  # the value of the field itself, not of the piece of it pydantic names
            try:
                top = top[part]
            except (KeyError, IndexError, TypeError):
                break
        else:
            value = top
        raise InputError(_refusal(where, name, value, accepted, fix)) from None
    bad = record.disagreeing_field() if hasattr(record, "disagreeing_field") else None
    if bad is not None:
        raise InputError(_refusal(where, bad[0], data.get(bad[0]), bad[1], fix))
    return record


def _refusal(where: str, name: str, value: Any, accepted: str, fix: str) -> str:
    return f"{where}: the field {name!r} is {_shown(value)}, which analyser never writes; it takes {accepted}; {fix}"
