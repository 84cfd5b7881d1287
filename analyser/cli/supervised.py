"""The commands that play games or write folders run supervised: :func:`command` makes a click
command whose body runs with SIGTERM and Ctrl-C handled (:func:`analyser.run.stops.handled`) and
releases every lock it took.  It imports the worker layer (pandas, pyarrow), so only the modules
of those commands import it: ``analyser --help`` and ``analyser list`` never load it."""

from __future__ import annotations

import click

from analyser.cli.common import say_note
from analyser.engine import registry
from analyser.run import stops, store


class SupervisedCommand(click.Command):
    """A click command run under the stop signals, releasing the locks it took."""

    def invoke(self, ctx):
        # a plugin title that a built-in shadows is said once, when its id is used
        registry.set_notice(say_note)
        outer = store.held_locks()  # (held by a caller of this in-process command: not this command's)
        try:
            with stops.handled():
                return super().invoke(ctx)
        finally:
            store.release_held_locks(keep=outer)


def command(*args, **kwargs):
    """``click.command`` making a :class:`SupervisedCommand`."""
    return click.command(*args, cls=SupervisedCommand, **kwargs)
