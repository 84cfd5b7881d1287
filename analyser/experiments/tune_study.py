"""The tune's Optuna study on disk, through Optuna's public API only, and its parameter importances.

A trial is written to the study once, finished (one ``Study.add_trial``: a kill leaves it whole
or absent).  The trials of the batch in play, asked but not yet told, are kept in the study's user
attribute :data:`ASKED`, rewritten whole at each ask.  :func:`ask` asks a seeded sampler in a
scratch study holding the study's trials and the asked ones (what ``study.ask`` would give);
:func:`trials` lists both, in trial order; :func:`tell` writes them in trial order.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from analyser.engine.core import InputError

#: The study's user attribute holding the asked trials of the batch in play.
ASKED = "asked"
#: The study's user attribute naming the format of the study on disk (trials written finished).
FORMAT = "format"
#: The format this version writes.
STUDY_FORMAT = 2

import numpy as np


def load(folder, pruner=None):
    """The study of the tune in ``folder`` (``tune.db``, study ``tune``); InputError (one line) when
    it was written in an older format, which is not read."""
    import optuna
    study = optuna.load_study(study_name="tune", storage=f"sqlite:///{(Path(folder) / 'tune.db').resolve()}",
                              pruner=pruner)
    if study.user_attrs.get(FORMAT) != STUDY_FORMAT:
        raise InputError(f"{str(folder)!r} holds a tune written by an older version of analyser, which this one "
                         "does not read; run the tune again with a new --out")
    return study


def _running(record: dict):
    """The asked trial ``record`` (of :data:`ASKED`) as an Optuna ``FrozenTrial`` in state running."""
    import optuna
    from optuna.distributions import json_to_distribution
    t = optuna.trial.create_trial(state=optuna.trial.TrialState.RUNNING, params=record["params"],
                                  distributions={k: json_to_distribution(v) for k, v in record["distributions"].items()},
                                  system_attrs=record["system_attrs"])
    t.number = record["number"]
    return t


def asked(study) -> list:
    """The trials asked and not yet told, in trial order (``FrozenTrial``, state running)."""
    told = len(study.get_trials(deepcopy=False))
    return [_running(r) for r in study.user_attrs.get(ASKED, []) if r["number"] >= told]


def trials(study) -> list:
    """Every trial of the study in trial order: the told, then the asked (running)."""
    return list(study.get_trials(deepcopy=False)) + asked(study)


def scratch(study, before: list, sampler=None, pruner=None):
    """A study in memory with ``study``'s directions holding the trials ``before``."""
    import optuna
    out = optuna.create_study(directions=study.directions, sampler=sampler, pruner=pruner)
    out.add_trials(before)
    return out


def ask(study, dists: dict, sampler) -> int:
    """Ask the next trial of ``sampler`` (the parameters ``study.ask(dists)`` would give) and keep
    it in :data:`ASKED`, one write.  Returns its number."""
    from optuna.distributions import distribution_to_json
    before = trials(study)
    room = scratch(study, before, sampler=sampler)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        room.ask(dists)
    made = room.trials[-1]
    record = {"number": len(before), "params": made.params, "system_attrs": made.system_attrs,
              "distributions": {k: distribution_to_json(d) for k, d in made.distributions.items()}}
    told = len(study.get_trials(deepcopy=False))
    kept = [r for r in study.user_attrs.get(ASKED, []) if r["number"] >= told]
    study.set_user_attr(ASKED, kept + [record])
    return record["number"]


def tell(study, trial, state, values=None, user_attrs=None, intermediate=None, constraints=None) -> None:
    """Write the asked ``trial`` finished in ``state`` (an Optuna ``TrialState``): one
    ``add_trial``.  A pruned trial's value is its last intermediate value, as ``study.tell`` gives."""
    import optuna
    from optuna.trial import TrialState
    assert trial.number == len(study.get_trials(deepcopy=False)), "trials are told in trial order"
    intermediate = dict(intermediate or {})
    if state == TrialState.PRUNED and intermediate and values is None:
        values = [intermediate[max(intermediate)]]
    study.add_trial(optuna.trial.create_trial(
        state=state, values=values, params=trial.params, distributions=trial.distributions,
        user_attrs=user_attrs, system_attrs=trial.system_attrs, intermediate_values=intermediate,
        constraints=constraints))


def should_prune(study, before: list, trial, intermediate: dict) -> bool:
    """Whether ``study``'s pruner stops ``trial`` with these intermediate values, against the
    trials ``before`` (those of earlier batches): ``Trial.should_prune`` on a scratch study."""
    import optuna
    running = optuna.trial.create_trial(state=optuna.trial.TrialState.RUNNING, params=trial.params,
                                        distributions=trial.distributions, intermediate_values=intermediate)
    return bool(study.pruner.prune(scratch(study, before), running))


def importances(study, names: list[str], searched: bool, minimum: int) -> tuple[dict, str]:
    """Per objective, Optuna's parameter importances (PED-ANOVA, which needs no extra library)
    over the distinct finished trials with every target defined (a repeated point counts once),
    and the reason when some or all are left out: fewer than ``minimum`` such trials, or
    an objective that takes one value in all of them ("" when none is left out).  ``names`` are the
    study's metric names; ``searched``, whether the space has a dimension."""
    import optuna
    from optuna.trial import TrialState
    done = [t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE
            and "same_as" not in t.user_attrs and not t.user_attrs.get("undefined")]
    if not searched:
        return {}, ""
    if len(done) < minimum:
        return {}, (f"parameter importances are left out: {len(done)} distinct finished trial"
                    f"{'' if len(done) == 1 else 's'} with every target defined, below the "
                    f"{minimum} they need")
    out, constant = {}, []
    sub = scratch(study, done)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, name in enumerate(names):
            vals = np.array([t.values[i] for t in done], dtype=float)
            if np.ptp(vals) == 0:
                constant.append(f"{name} is {vals[0]:g} in every one of them")
                continue
            try:
                ev = optuna.importance.PedAnovaImportanceEvaluator()
                target = (lambda t, i=i: t.values[i]) if len(names) > 1 else None
                out[name] = dict(optuna.importance.get_param_importances(sub, evaluator=ev, target=target))
            except (RuntimeError, ValueError, ZeroDivisionError):
                continue
    note = ""
    if constant:
        note = ("parameter importances are left out for an objective that does not vary over the "
                f"{len(done)} distinct finished trials ({'; '.join(constant)}): no parameter moves it")
    return out, note
