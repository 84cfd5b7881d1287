"""``python -m analyser`` - the same as the ``analyser`` command."""

from analyser.cli import main

if __name__ == "__main__":
    main()
