"""The title object: the rules' Game bound to this title's figures and text drawing."""

from analyser.titles.dao import figures, render
from analyser.titles.dao.rules import Dao as _Rules


class Dao(_Rules):
    figure_tables = figures.figure_tables
    plots = figures.plots
    describe_state = render.describe_state


TITLE = Dao()
