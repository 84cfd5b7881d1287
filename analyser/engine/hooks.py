"""The component hooks of :class:`analyser.engine.core.Game` (component impact, :mod:`analyser.stats.components`),
in their own class so the core stays short: a title overrides them to record the components each
seat acquired, held or played, and to describe them."""

from __future__ import annotations

from typing import Any, ClassVar, Sequence


class ComponentHooks:
    """Mixed into :class:`analyser.engine.core.Game`; see each hook."""

    #: What the component impact section should warn a reader of this title about, in a sentence
    #: or two (how holding a component is tied to winning whatever the component is, e.g. a seat
    #: that lasts longer places more tiles); shown under the section's first paragraph.  Empty:
    #: nothing to warn of.
    component_note: ClassVar[str] = ""


    def components(self, state) -> Sequence[Sequence[Any]]:
        """The components each seat acquired, held or played in the finished game ``state``: per
        seat (a list of ``n_players`` entries), a sequence with one entry per copy - the
        component's id, a ``str`` or a hashable whose ``str()`` is the id (e.g. a card named
        tuple).  Where a component comes from a data file, its id is the id in that file.

        The game loop calls it once per finished game and writes the :data:`COMPONENTS` table
        (one row per game, seat and component, with the number of copies); a title that defines
        it lists :data:`COMPONENTS` in ``extra_tables``.  Keep it cheap: it runs once per game,
        so return lists the state already keeps (or keeps incrementally) rather than building
        them.  The base class records none (raises NotImplementedError)."""
        raise NotImplementedError

    @property
    def records_components(self) -> bool:
        """True when the title defines :meth:`components`."""
        return type(self).components is not ComponentHooks.components

    def component_catalog(self, params: Any) -> dict[str, dict]:
        """Every component ``components`` may record under ``params``, in a fixed order: id ->
        ``{"what": what it is, in a few words; "option": the rule option naming the data file
        it comes from (or ""); "file": that file's path (or ""); "line": its line in the file
        (or None); "fix": a rule override ``option=value`` that tests a change of it, when no
        file line is the place (or ""); optionally "peers": the peer group it is compared with
        (the components the rules treat alike, e.g. "Commoners of cost 1 geld"), "cost" (a
        number) and "cost_unit" (e.g. "geld") for the effect per unit of cost}``.  Components in
        the catalog that no seat held are listed in the report as such.  The default: none (ids
        only)."""
        return {}

    def component_collapse(self, ids: Sequence[str]) -> dict[str, str]:
        """Components identical by the rules, merged before they are estimated: ``{recorded id:
        the id of the one row they share}`` for those of ``ids`` (the recorded ids of a chunk)
        that merge; the copies of merged ids add up per game and seat.  The catalog describes
        the merged ids, and its entries say which merge was made and why (``"collapsed"``).  The
        default: none merged."""
        return {}

    def component_acts(self, title_sums: dict, catalog: dict):
        """The components measured where they act, when holding one over a game biases the
        holder (e.g. a ship afloat longer places more tiles of every kind): a frame of
        :func:`analyser.stats.component_acts.rate_estimate` built from the title's figure sums
        (``figure_sums``), which the report then ranks, lists and confirms instead of the
        per-seat-game estimate; None (the default) keeps the per-seat-game estimate."""
        return None

    def component_tables(self, ids: Sequence[str]) -> list[tuple[str, list[str]]]:
        """Special cases of the component table the report shows on their own: ``[(caption,
        [component ids in row order])]``, chosen among ``ids`` (the components of a run).  The
        default: none."""
        return []

    def component_replacement(self, params: Any, cid: str) -> tuple[str, str, str] | None:
        """The intervention that tests component ``cid`` (``analyser simulate
        --confirm-components``, :mod:`analyser.experiments.confirm`): the component replaced by the
        typical member of its peer group (the components the rules treat alike: same kind and
        cost), as ``(rule option, the data file's new text, what changed in a few words)``; the
        new text is written into the run folder and the same games are played on it.  None when
        the title offers no such replacement (then the catalog's ``fix`` rule override, if any,
        is the intervention).  The default: None."""
        return None

