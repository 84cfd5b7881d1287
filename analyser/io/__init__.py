"""Files across the boundary: what a user hands over, read safely, and CSV files written to be
opened in a spreadsheet.  May import :mod:`analyser.engine` only.

* :mod:`~analyser.io.files`: reading a user's files (component files, saved states) with bounds;
* :mod:`~analyser.io.states`: saved states (``analyser play --state``): read, validate, build;
* :mod:`~analyser.io.csvsafe`: CSV cells neutralised for spreadsheets, read back as written;
* :mod:`~analyser.io.records`: the records analyser writes and reads back (a run's
  ``config.json``, an experiment's record and its cells) as pydantic models, a bad field one line;
* :mod:`~analyser.io.validate`: results tables and their ``config.json`` validated as untrusted
  input (column types, every cell, the table as a whole).
"""
