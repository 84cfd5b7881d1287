"""The search space of ``analyser tune`` (docs/commands/tune.md): the searched rule options and
strategy parameters as Optuna distributions, parsed from ``--rule KEY=a..b`` and ``-s NAME:key=a..b``
(the grid's syntax, :mod:`analyser.experiments.grid`), and every point of a space with no continuous
dimension."""

from __future__ import annotations

import itertools
import typing
from dataclasses import dataclass

from analyser.engine.core import InputError
from analyser.engine.registry import parse_spec, resolve_strategy, strategy_parameters, title_ref
from analyser.experiments import grid as gridmod
from analyser.experiments.grid import NUMBER


@dataclass
class Dim:
    """One searched parameter: its ``column`` (Optuna parameter name: ``bust_limit`` or
    ``threshold.limit``), ``slot`` (None for a rule option), option ``key``, ``kind`` (int,
    float, str, bool), ``values`` (text) and, when searched continuously, ``bounds``."""

    column: str
    slot: int | None
    key: str
    kind: str
    values: list[str]
    bounds: tuple[float, float] | None = None

    def distribution(self):
        import optuna.distributions as d
        if self.bounds is not None:
            return d.FloatDistribution(*self.bounds)
        if self.kind == "int":
            xs = [int(v) for v in self.values]
            steps = {b - a for a, b in zip(xs, xs[1:])}
            if xs == sorted(xs) and len(steps) <= 1:
                return d.IntDistribution(xs[0], xs[-1], step=steps.pop() if steps else 1)
        return d.CategoricalDistribution(list(self.values))

    def value(self, value):
        """A sampled value for a table: a number for a number option, else its text."""
        text = self.text(value)
        return int(text) if self.kind == "int" else float(text) if self.kind == "float" else text

    def text(self, value) -> str:
        """A sampled value as the option's text."""
        if self.kind == "int":
            return str(int(value))
        if self.kind == "float" and not isinstance(value, str):
            return repr(round(float(value), 12))
        return str(value)


@dataclass
class Space:
    """The parsed ``-s`` and ``--rule`` values: ``slots`` and ``rules`` as the sweep parses them,
    the searched ``dims``, and the ``focus`` slot."""

    slots: list[gridmod.SlotGrid]
    rules: list[tuple[str, list[str]]]
    dims: list[Dim]

    @property
    def focus(self) -> int:
        """The first slot with a searched parameter, else the first."""
        return next((i for i in range(len(self.slots)) if any(d.slot == i for d in self.dims)), 0)

    def lineup(self, params: dict) -> tuple[list[str], dict[str, str]]:
        """The strategy specs and rule overrides of a trial whose sampled values are ``params``
        (Optuna parameter name -> value)."""
        chosen = {d.column: d.text(params[d.column]) for d in self.dims}
        specs = [s.spec({key: chosen.get(gridmod.column_name(self.slots, i, key), values[0])
                         for key, values in s.params}) for i, s in enumerate(self.slots)]
        rules = {key: chosen.get(key, values[0]) for key, values in self.rules}
        return specs, rules


def _continuous(raw: str, kind: type) -> tuple[float, float] | None:
    a, sep, b = raw.strip().partition("..")
    if kind is float and sep and NUMBER.match(a.strip() or "x") and NUMBER.match(b.strip() or "x") and ":" not in b:
        lo, hi = float(a), float(b)
        return (lo, hi) if lo < hi else None
    return None


def parse_space(game, strategies: list[str], rules: list[str]) -> Space:
    """Parse the search space (InputError, one line, for an unknown option or parameter, an empty
    or backwards range, a range on an option that is not a number, a value not accepted, or
    nothing to search)."""
    ref = title_ref(game)
    slots = [gridmod.parse_strategy(s, ref) for s in strategies]
    rule_values = gridmod.parse_rules(rules, game.Params)
    hints = typing.get_type_hints(game.Params)
    raw_rules = {p.partition("=")[0].strip(): p.partition("=")[2] for p in rules}
    dims: list[Dim] = []
    for i, s in enumerate(slots):
        accepted = strategy_parameters(resolve_strategy(parse_spec(s.head), ref))
        raw = dict(gridmod.split_strategy(s.text)[1])
        for key, values in s.params:
            kind = accepted[key][0]
            bounds = _continuous(raw.get(key, ""), kind)
            if len(values) > 1 or bounds:
                dims.append(Dim(gridmod.column_name(slots, i, key), i, key, kind.__name__, values, bounds))
    for key, values in rule_values:
        kind = hints.get(key, str)
        bounds = _continuous(raw_rules.get(key, ""), kind)
        if len(values) > 1 or bounds:
            dims.append(Dim(key, None, key, kind.__name__, values, bounds))
    if not dims:
        raise InputError("nothing to search: give at least one --rule or -s parameter a range a..b or a list a,b,c")
    return Space(slots, rule_values, dims)


def grid_points(space: Space) -> list[dict] | None:
    """Every point of a search space with no continuous dimension, as Optuna parameters in a
    fixed order (the product of the dimensions' values as written), or None."""
    import optuna.distributions as od
    if any(d.bounds is not None for d in space.dims):
        return None
    axes = [[int(v) for v in d.values] if isinstance(d.distribution(), od.IntDistribution) else list(d.values)
            for d in space.dims]
    return [dict(zip([d.column for d in space.dims], combo)) for combo in itertools.product(*axes)]
