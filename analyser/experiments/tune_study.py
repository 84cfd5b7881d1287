"""The tune's Optuna study on disk: Optuna's grid sampler as the tune uses it, and asking a
trial in one write.

Optuna's own ``Study.ask`` writes a new trial and then each of its parameters, one transaction
each; a SIGKILL between them leaves a running trial without (all) its parameters.  :func:`ask_atomic`
asks the same trial of the same sampler in a scratch copy of the study in memory and writes it
whole; :func:`complete_ask` repairs a trial an older version's cut-short ask left.  And the
study's parameter importances (:func:`importances`).
"""

from __future__ import annotations

import warnings

import numpy as np


def _grid_sampler_class():
    import optuna

    class Grid(optuna.samplers.GridSampler):
        """Optuna's GridSampler without its stop at the last point: the tune asks and tells its
        trials itself, outside ``study.optimize``, and stops after the grid's last trial."""

        def after_trial(self, study, trial, state, values) -> None:
            return None

    return Grid


def grid_sampler(axes: dict, seed: int):
    return _grid_sampler_class()(axes, seed=seed)


def _asked(study, before: list, dists: dict, sampler):
    """The trial the sampler asks next in a study holding the trials ``before``, asked in a
    scratch study in memory (a copy of the study's attributes and trials), so the study on disk
    is not touched: an Optuna ``FrozenTrial`` (state running) with every parameter of ``dists``."""
    import optuna
    scratch = optuna.create_study(directions=study.directions, sampler=sampler,
                                  pruner=optuna.pruners.NopPruner())
    for k, v in study._storage.get_study_system_attrs(study._study_id).items():
        scratch._storage.set_study_system_attr(scratch._study_id, k, v)
    for k, v in study.user_attrs.items():
        scratch.set_user_attr(k, v)
    scratch.add_trials(before)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = scratch.ask(dists)
    return scratch._storage.get_trial(t._trial_id)


def ask_atomic(study, dists: dict, sampler) -> int:
    """Ask the next trial and write it to the study in one transaction, with its parameters and
    the sampler's attributes, so a kill leaves either no new trial or a whole one (Optuna's own
    ``ask`` writes the trial first and each parameter after it).  The parameters are those
    ``study.ask(dists)`` with ``sampler`` would give.  Returns the trial's number."""
    frozen = _asked(study, study.get_trials(deepcopy=False), dists, sampler)
    trial_id = study._storage.create_new_trial(study._study_id, template_trial=frozen)
    return study._storage.get_trial_number_from_id(trial_id)


def complete_ask(study, trial, dists: dict, sampler) -> None:
    """Give a running trial that a kill cut short inside Optuna's ``ask`` (a folder written before
    :func:`ask_atomic`) the parameters and sampler attributes it was being given: asked again of the
    same seeded sampler over the trials before it, so the resumed tune equals an uninterrupted one."""
    before = [t for t in study.get_trials(deepcopy=False) if t.number < trial.number]
    frozen = _asked(study, before, dists, sampler)
    storage = study._storage
    for name, value in frozen.params.items():
        if name not in trial.params:
            dist = frozen.distributions[name]
            storage.set_trial_param(trial._trial_id, name, dist.to_internal_repr(value), dist)
    for k, v in frozen.system_attrs.items():
        if k not in trial.system_attrs:
            storage.set_trial_system_attr(trial._trial_id, k, v)


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
    sub = optuna.create_study(directions=study.directions)
    sub.add_trials(done)
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
