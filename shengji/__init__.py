"""The ``shengji`` command line over gamelog, replay and analyze (see :mod:`shengji.cli`)."""
