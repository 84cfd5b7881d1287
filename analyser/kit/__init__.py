"""The title author's kit: ``analyser new`` (:mod:`~analyser.kit.skeleton`, from the templates in
``templates/new_title/``) and ``analyser check`` (:mod:`~analyser.kit.check`, the conformance
kit, which compares views as plain data with :mod:`~analyser.kit.views`).  May import :mod:`analyser.engine` and :mod:`analyser.io`.
"""
