"""Manim scenes for every part of the lesson, one module per topic, and their kit.

Importing this package does not import Manim; the running order is :mod:`outline`,
shared with the slides and the render command.
"""
