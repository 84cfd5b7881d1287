"""Built-in Dragon Lairds strategies (rules page ``analyser/titles/dragon_lairds/rules.md``).  Each sees a
:class:`~analyser.titles.dragon_lairds.rules.DragonView`.

The three engine strategies share one skeleton and differ in how they value a card:

* ``income`` - income per cost: (geld + 4 x royals income) / cost.
* ``royals-rush`` - royals: royals income over the rounds left plus Finale Royals, per cost.
* ``colour-set`` - income per cost plus the colour-set bonus a card adds (+2 for a colour new
  among your cards of its type), and no fear of the off-colour surcharge.

Skeleton, each action turn: use a ready ability (High Wizard: when 2 geld are spare; High
Executioner: on the costliest top card it does not buy), challenge for the cup when its bid
would beat the holder's likely bid, else buy (or play from hand) the best-valued affordable card
above a floor, else take an unaffordable best card into an empty hand when next round's income
pays for it, else pass.  No strategy cycles or buys Havocs except ``random``.

Cup policy (every strategy, parameter ``cup``): in the opening auction and in challenges bid
``floor(cup x pot)`` geld (at most all geld); in the final auction, where geld is worth nothing
any more, bid all geld (``cup=0``: never bid).  At the round's end keep the cup (half the pot as
royals) unless geld has run below 3, then cash it.
"""

from __future__ import annotations

from analyser.engine.core import Strategy
from analyser.titles.dragon_lairds.rules import (BUY, TAKE, CASH, CHALLENGE, HAVOC, KEEP, PASS, SALE_SPACE,
                                                 Act, income_of)

GAME = "dragon-lairds"
#: Rough exchange rate of the approximate deck: a Laird buys 1 royal of income for about 4 geld.
GELD_PER_ROYAL = 4.0


class Random(Strategy):
    """Any legal action, uniformly at random (cycling and Havocs included)."""

    name = "random"
    reuse = True  # reset (or nothing) restores every game: one instance per batch
    game = GAME

    def choose(self, view, legal, rng):
        return legal[int(rng.random() * len(legal))]


class _Engine(Strategy):
    """Shared skeleton (see the module docstring); subclasses define :meth:`value`."""

    game = GAME
    uses_rng = False
    #: Least value per cost worth buying.
    floor = 0.2
    param_bounds = {"cup": (0, 10)}

    def __init__(self, cup: float = 0.5):
        if not 0 <= cup <= 10:
            raise ValueError("cup is a fraction of the pot from 0 to 10")
        self.cup = cup

    def reset(self, seat, params, n_players):
        super().reset(seat, params, n_players)
        self.challenged = -1

    # -- valuation --------------------------------------------------------------------------
    def rounds_left(self, view) -> float:
        p = view.params
        n = view.n_players
        by_deck = view.deck_size / (3 + 2 * n)
        by_royals = (p.end_royals - max(view.royals)) / 6
        return max(1.0, min(10.0, by_deck, by_royals))

    def value(self, view, card, left: float) -> float:
        """Worth of owning ``card`` (a :class:`Card`), in geld-like units per tax."""
        raise NotImplementedError

    # -- decisions --------------------------------------------------------------------------
    def choose(self, view, legal, rng):
        phase = view.phase
        if phase == "actions":
            return self.act(view, legal)
        if phase == "auction":
            return legal[min(len(legal) - 1, self.bid(view))]
        if phase == "cup":
            return CASH if view.geld[self.seat] < 3 else KEEP
        cards = view.cards
        left = 10.0
        ranked = sorted(legal, key=lambda a: self.value(view, cards[view.index[a.arg]], left))
        return ranked[-1] if phase == "free" else ranked[0]

    def bid(self, view) -> int:
        me = self.seat
        if self.cup <= 0:
            return 0
        if view.auction == "final":
            return view.geld[me]
        return min(view.geld[me], int(self.cup * view.pot))

    def act(self, view, legal):
        me = self.seat
        cards = view.cards
        geld = view.geld[me]
        colour = view.colour[me]
        left = self.rounds_left(view)
        play = view.play[me]
        # abilities first (free value)
        executioner = None
        for c in play:
            ab = cards[c].ability
            if ab is not None and c not in view.used:
                kind = ab[0]
                if kind == "transmute":
                    if geld >= ab[1] + 2:
                        return Act("use", cards[c].id)
                elif kind == "execute":
                    executioner = cards[c].id
                else:
                    return Act("use", cards[c].id)
        # the best affordable buy (or play from hand); costs as in the rules (view.cost)
        p = view.params
        sur = p.off_colour_surcharge
        up = p.fire_sale_rounding == "up"
        value = self.value
        best, best_v = None, self.floor
        spaces = view.spaces
        for i, stack in enumerate(spaces):
            if not stack:
                continue
            card = cards[stack[-1]]
            if card.type == HAVOC:
                continue
            cost = card.cost if card.colour == colour else card.cost + sur
            if i == SALE_SPACE:
                cost = (cost + 1) // 2 if up else cost // 2
            if cost > geld:
                continue
            v = value(view, card, left) / (cost if cost > 1 else 1)
            if v > best_v:
                best, best_v = i, v
        best = BUY[best] if best is not None else None
        for c in view.hand:
            card = cards[c]
            if card.type == HAVOC:
                continue
            cost = view.cost(c, -1)
            if cost <= geld:
                v = value(view, card, left) / max(1, cost) + 0.5  # a card in hand costs royals at the end
                if v > best_v:
                    best, best_v = Act("play", card.id), v
        # the cup
        holder = view.cup_holder
        if self.cup > 0 and holder >= 0 and holder != me and self.challenged != view.round:
            bid = int(self.cup * view.pot)
            mine = min(geld, bid) + 2 * view.knights(me)
            theirs = min(view.geld[holder], bid) + 1 + 2 * view.knights(holder)
            if mine > theirs:
                self.challenged = view.round
                return CHALLENGE
        if best is not None:
            return best
        # executioner: deny the costliest top card
        targets = [i for i, stack in enumerate(spaces) if stack]
        if executioner is not None and targets:
            return Act("use", executioner, max(targets, key=lambda i: cards[spaces[i][-1]].cost))
        # reserve an unaffordable card for next round
        if not view.hand and len(view.hand) < p.hand_limit:
            income = sum(income_of(cards[c], colour)[0] for c in play)
            pick, pick_v = None, self.floor * 1.5
            for i, stack in enumerate(spaces):
                if stack and i != SALE_SPACE and cards[stack[-1]].type != HAVOC:
                    c = stack[-1]
                    cost = view.cost(c, -1)
                    if geld < cost <= geld + income:
                        v = value(view, cards[c], left) / max(1, cost)
                        if v > pick_v:
                            pick, pick_v = TAKE[i], v
            if pick is not None:
                return pick
        return PASS


class Income(_Engine):
    """Buy the card with the most income per cost: (geld + 4 x royals income) / cost (its
    colour-matched income when it matches your colour).

    cup: fraction of the pot to bid for the Saurean Cup (0 = never bid).
    """

    name = "income"
    reuse = True  # reset (or nothing) restores every game: one instance per batch

    def value(self, view, card, left):
        g, r = income_of(card, view.colour[self.seat])
        return g + GELD_PER_ROYAL * r


class RoyalsRush(_Engine):
    """Buy royals: royals income over the rounds left plus Finale Royals (geld income counts a
    quarter), per cost; Lairds first.

    cup: fraction of the pot to bid for the Saurean Cup (0 = never bid).
    """

    name = "royals-rush"
    reuse = True  # reset (or nothing) restores every game: one instance per batch
    floor = 0.25

    def value(self, view, card, left):
        g, r = income_of(card, view.colour[self.seat])
        return GELD_PER_ROYAL * (r * left + card.finale) / 2 + g * max(0.0, left - 2) / 4


class ColourSet(_Engine):
    """Chase the colour-set bonus: income per cost plus 8 for a card whose colour is new among your
    cards of its type (+2 royals at the end, up to 5 colours per type).

    cup: fraction of the pot to bid for the Saurean Cup (0 = never bid).
    """

    name = "colour-set"
    reuse = True  # reset (or nothing) restores every game: one instance per batch

    def value(self, view, card, left):
        g, r = income_of(card, view.colour[self.seat])
        cards = view.cards
        new = all(cards[c].colour != card.colour or cards[c].type != card.type for c in view.play[self.seat])
        return g + GELD_PER_ROYAL * r + (2 * GELD_PER_ROYAL if new else 0.0)


STRATEGIES = [Random, Income, RoyalsRush, ColourSet]
DEFAULT_LINEUP = ["income", "royals-rush", "colour-set", "random"]
