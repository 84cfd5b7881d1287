"""The sentence templates (jinja2, ``*.j2``) that :func:`analyser.text.sentences` and
:func:`analyser.text.phrase` render from records: a data folder, imports nothing."""
