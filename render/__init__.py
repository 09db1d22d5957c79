"""Orchestration: the ``lecture`` command, settings and output files."""
