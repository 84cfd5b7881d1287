"""The titles, one package per title: ``rules`` (no pandas, no matplotlib), ``figures``, ``render``
and ``data/``; the package's ``TITLE`` is the title object."""
