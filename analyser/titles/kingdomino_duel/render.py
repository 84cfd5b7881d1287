"""Text drawing of a Kingdomino Duel state for ``analyser play``."""


def describe_state(game, state) -> str:
    return repr(state)
