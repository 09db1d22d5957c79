"""Choose each table's density from its content, so any worksheet shape fits a slide.

A table's footprint is counted in cells: one per number (a cell listing a vector takes
one per entry), one for the row label, three for a weight bar. Tables side by side share
the slide's width, so their footprints add up. The density names a font size in
``static/deck.css``.
"""

from __future__ import annotations

from dataclasses import replace

from slides.context import Block, Columns, Num, Switch, Table

__all__ = ["DENSITIES", "across", "fit"]

DENSITIES = ("large", "roomy", "snug", "tight", "tiny")
_MOST_ROWS = (5, 8, 12, 16)
_MOST_CELLS = (8, 10, 14, 19)
_BAR_CELLS = 3


def _level(count: int, limits: tuple[int, ...]) -> int:
    return next((level for level, most in enumerate(limits) if count <= most), len(limits))


def _footprint(table: Table) -> tuple[int, int]:
    """Rows and cells across of a table."""
    per_cell = _BAR_CELLS if table.style == "bars" else 1
    across = max((1 + sum(max(per_cell, sum(isinstance(i, Num) for i in cell.runs))
                          for cell in row.cells) for row in table.rows), default=1)
    across = max(across, 1 + sum(table.spans) if table.spans else 1 + len(table.columns))
    return len(table.rows) + table.header, across


def across(table: Table) -> int:
    """How many cells wide a table is, counted as :func:`fit` counts them."""
    return _footprint(table)[1]


def _density(rows: int, cells: int) -> str:
    return DENSITIES[max(_level(rows, _MOST_ROWS), _level(cells, _MOST_CELLS))]


def fit(blocks: tuple[Block, ...]) -> tuple[Block, ...]:
    """``blocks`` with every table's density chosen from its footprint."""
    return tuple(_fit(block) for block in blocks)


def _fit(block: Block) -> Block:
    if isinstance(block, Table):
        return replace(block, size=_density(*_footprint(block)))
    if isinstance(block, Switch):
        return replace(block, panels=tuple(replace(p, blocks=fit(p.blocks))
                                           for p in block.panels))
    if isinstance(block, Columns):
        tables = [b for column in block.columns for b in column if isinstance(b, Table)]
        if not tables:
            return replace(block, columns=tuple(fit(column) for column in block.columns))
        footprints = [_footprint(t) for t in tables]
        density = _density(max(rows for rows, _ in footprints),
                           sum(cells for _, cells in footprints))
        return replace(block, columns=tuple(
            tuple(replace(b, size=density) if isinstance(b, Table) else _fit(b)
                  for b in column) for column in block.columns))
    return block
