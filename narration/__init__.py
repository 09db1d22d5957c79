"""Narration: voices that speak the captions, and the sound track they make.

Below the scenes and the render driver, beside the worksheet: it computes nothing of the
lesson. :mod:`narration.text` reads a caption's symbols out, :mod:`narration.voices`
speaks sentences offline into a cache, :mod:`narration.track` lays them on a clip's
sound track at one loudness.
"""
