"""``python -m shengji.cli``: the ``shengji`` command."""

from shengji.cli import main

main()
