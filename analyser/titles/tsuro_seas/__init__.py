"""The title object: the rules' Game bound to this title's figures and text drawing."""

from analyser.titles.tsuro_seas import figures, render
from analyser.titles.tsuro_seas.rules import TsuroSeas as _Rules


class TsuroSeas(_Rules):
    figure_tables = figures.figure_tables
    plots = figures.plots
    describe_state = render.describe_state


TITLE = TsuroSeas()
