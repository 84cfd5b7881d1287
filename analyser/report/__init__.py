"""The report: the page (:mod:`~analyser.report.page`: PNG plots and one self-contained
``index.html``), its core numbers from additive sums (:mod:`~analyser.report.summaries`), its seat
tables (:mod:`~analyser.report.seats`), its component section (:mod:`~analyser.report.components`),
its HTML tables (:mod:`~analyser.report.tables`) and its jinja2 templates (``templates/``).  May import every layer below it: engine, io, run,
results, stats and findings.
"""
