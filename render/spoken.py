"""Read spoken numbers back into display text: the check's own parser.

It shares nothing with the speaker in :mod:`worksheet.formatting` but the display
format it must arrive at: whole numbers are parsed with ``text2num``, not spelled with
``num2words``, so a number the speaker got wrong does not read back as the one shown.
"""

from __future__ import annotations

from text_to_num import text2num

from worksheet.formatting import MINUS, Style

__all__ = ["read_spoken"]

_DIGITS = {word: str(digit) for digit, word in enumerate(
    ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"))}
_POWER = " times ten to the "


def _whole(words: str) -> int:
    words = words.replace(",", " ").replace("-", " ")
    words = " ".join(words.split())
    if words == "zero":
        return 0
    return int(text2num(words, "en"))


def _signed(words: str) -> tuple[str, str]:
    if words.startswith("minus "):
        return MINUS, words.removeprefix("minus ")
    return "", words


def _real(words: str) -> str:
    sign, words = _signed(words)
    mantissa, _, power = words.partition(_POWER)
    whole, _, decimals = mantissa.partition(" point ")
    text = sign + str(_whole(whole))
    if decimals:
        text += "." + "".join(_DIGITS[word] for word in decimals.split())
    if power:
        power_sign, power = _signed(power)
        text += "e" + (power_sign or "+") + f"{_whole(power):02d}"
    return text


def read_spoken(words: str, style: Style) -> str | None:
    """The display text that ``words`` speak in the given style, or ``None`` when they
    speak no number of that style.

    Examples
    --------
    >>> read_spoken("minus zero point zero one eight", Style.FIXED3)
    '−0.018'
    >>> read_spoken("ten by four", Style.SHAPE)
    '[10, 4]'
    """
    try:
        if style is Style.SHAPE:
            return "[" + ", ".join(str(_whole(part)) for part in words.split(" by ")) + "]"
        if style is Style.BELOW:
            if not words.startswith("less than "):
                return None
            return "< " + _real(words.removeprefix("less than "))
        if style is Style.TEXT:
            return words
        if style in (Style.COUNT, Style.INDEX, Style.WHOLE):
            sign, words = _signed(words)
            number = _whole(words)
            return sign + (str(number) if style is Style.INDEX else f"{number:,}")
        return _real(words)
    except (KeyError, ValueError):
        return None
