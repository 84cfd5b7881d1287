"""The engine: the title contract and playing games (the modules: docs/architecture.md).  The
lowest layer: it may import no other package of analyser (titles are found by entry point, a
string, never imported here).  :class:`~analyser.engine.core.InputError` is the one-line, exit-2
error.
"""
