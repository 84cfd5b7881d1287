"""Package discovery only; everything else is in pyproject.toml (whose package-data ships each title
package's rules.md and data/ files with the packages found here)."""

from setuptools import find_packages, setup

setup(packages=find_packages(include=["analyser", "analyser.*"]) + ["analyser._builtin_strategies"])
