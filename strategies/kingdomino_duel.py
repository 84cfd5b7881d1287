"""Built-in Kingdomino Duel strategies."""
from analyser.core import Strategy


class Random(Strategy):
    """Any legal action, uniformly."""

    name = "random"
    game = "kingdomino-duel"

    def choose(self, view, legal, rng):
        return legal[int(rng.random() * len(legal))]


STRATEGIES = [Random]
