"""The commands, one module per family; each module's commands are plain click commands that
:mod:`shengji.cli` adds to its group."""
