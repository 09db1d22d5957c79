"""Manim scenes for every part of the lesson, and their running order.

Importing this package does not import Manim; :mod:`scenes.order` is the lecture's
running order, shared with the slides and the render command.
"""
