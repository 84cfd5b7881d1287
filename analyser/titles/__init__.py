"""The titles, one package per title: ``rules`` (no pandas, no matplotlib), ``figures``, ``render``
and ``data/``; the package's ``TITLE`` is the title object.  A title may import the engine (the
contract, :mod:`analyser.engine.core`), io (saved states) and stats (the plots API and the
streamed sums its figures use); the machinery finds titles by entry point and imports none."""
