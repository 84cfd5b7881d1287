"""Package discovery only; everything else is in pyproject.toml."""

from setuptools import find_packages, setup

setup(packages=find_packages(include=["analyser", "analyser.*"]) + ["analyser._builtin_strategies"])
