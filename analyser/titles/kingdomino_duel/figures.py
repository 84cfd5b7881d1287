"""Report figures of Kingdomino Duel (pandas and matplotlib imported lazily)."""


def figure_tables(game, results, extras):
    return []


def plots(game, results, extras, outdir):
    return []
