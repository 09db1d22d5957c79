"""The Reveal.js deck built from the worksheet values."""
