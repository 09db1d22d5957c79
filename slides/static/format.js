/* The lecture's display format (worksheet/formatting.py) for numbers a page computes.
 *
 * A slide that computes in the browser shows its figures exactly as the lecture shows the
 * same quantities: `formatNumber(value, style)` gives, for every style, the text Python's
 * `format_number` gives. Python rounds the exact binary value of a float, halves to even
 * (`f"{x:.3f}"`, `f"{x:.3e}"`, `round(x)`); so does this, from the float's exact decimal
 * expansion in BigInt arithmetic, never through `toFixed` or `toPrecision`. Negatives get
 * a true minus sign (U+2212), a negative zero is shown as zero, counts get thousands
 * separators.
 *
 * A classic script: in a page it sets `window.LectureFormat`; under node,
 * `require("format.js")` returns the same object.
 */
(function (root, make) {
  "use strict";
  if (typeof module === "object" && module.exports) module.exports = make();
  else root.LectureFormat = make();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var MINUS = "\u2212";
  var LARGE_DECIMALS = 1000000000n;  // LARGE (1e6) in thousandths: scientific from here
  var NOISE = 1e-12;
  var STYLES = ["fixed3", "param", "count", "index", "shape", "below", "fixed1", "whole",
                "text"];

  function fail(message) { throw new Error(message); }

  /* The exact value of a finite double: {negative, digits, scale} with
   * |value| = digits / 10^scale (digits a BigInt). */
  function exact(value) {
    var view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, value);
    var high = view.getUint32(0), low = view.getUint32(4);
    var negative = high >>> 31 === 1;
    var biased = (high >>> 20) & 0x7ff;
    var mantissa = (BigInt(high & 0xfffff) << 32n) | BigInt(low);
    var power = -1074;  // subnormal
    if (biased !== 0) {
      mantissa |= 1n << 52n;
      power = biased - 1075;
    }
    if (power >= 0) return { negative: negative, digits: mantissa << BigInt(power), scale: 0 };
    // m·2^p = m·5^(−p) / 10^(−p)
    return { negative: negative, digits: mantissa * 5n ** BigInt(-power), scale: -power };
  }

  /* digits / 10^drop rounded to a whole number, halves to even. */
  function roundDown(digits, drop) {
    if (drop <= 0) return digits * 10n ** BigInt(-drop);
    var divisor = 10n ** BigInt(drop);
    var whole = digits / divisor, rest = digits % divisor;
    if (2n * rest > divisor || (2n * rest === divisor && whole % 2n === 1n)) whole += 1n;
    return whole;
  }

  /* Python's f"{value:.{decimals}f}": {negative, scaled, text} where scaled is
   * |value|·10^decimals rounded and text carries a "-" for any negative value. */
  function fixed(value, decimals) {
    var e = exact(value);
    var scaled = roundDown(e.digits, e.scale - decimals);
    var digits = scaled.toString().padStart(decimals + 1, "0");
    var text = decimals
      ? digits.slice(0, digits.length - decimals) + "." + digits.slice(digits.length - decimals)
      : digits;
    return { negative: e.negative, scaled: scaled, text: (e.negative ? "-" : "") + text };
  }

  /* Python's f"{value:.3e}" for a value that is not zero. */
  function scientific(value) {
    var e = exact(value);
    var count = e.digits.toString().length;
    var exponent = count - 1 - e.scale;
    var kept = roundDown(e.digits, count - 4);
    if (kept === 10000n) { kept = 1000n; exponent += 1; }
    var mantissa = kept.toString();
    var power = String(Math.abs(exponent)).padStart(2, "0");
    return (e.negative ? "-" : "") + mantissa[0] + "." + mantissa.slice(1) + "e"
      + (exponent < 0 ? "-" : "+") + power;
  }

  /* _fixed: never "-0.000". */
  function unsignedZero(rounded) {
    return rounded.scaled === 0n ? rounded.text.replace(/^-/, "") : rounded.text;
  }

  function trimmed(text) {
    var at = text.indexOf("e");
    var mantissa = at < 0 ? text : text.slice(0, at), rest = at < 0 ? "" : text.slice(at);
    if (mantissa.indexOf(".") >= 0) mantissa = mantissa.replace(/0+$/, "").replace(/\.$/, "");
    return (mantissa || "0") + rest;
  }

  function signed(text) { return text.replace(/-/g, MINUS); }

  function grouped(whole) {
    var text = whole.toString(), negative = text[0] === "-";
    var digits = negative ? text.slice(1) : text;
    var out = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return (negative ? "-" : "") + out;
  }

  function whole(value) {
    if (!Number.isInteger(value)) fail("expected a whole number, got " + value);
    return BigInt(value);
  }

  /* Display text of one number in the given style (a Style's value: "fixed3"…). */
  function formatNumber(value, style) {
    if (STYLES.indexOf(style) < 0) fail("unknown style " + style);
    if (style === "shape") fail("a shape is formatted as a whole list, not number by number");
    if (style === "text") {
      if (typeof value !== "string") fail("a text value must be a string, got " + value);
      return value;
    }
    if (typeof value !== "number" || !isFinite(value)) fail("cannot display " + value);
    if (style === "fixed3" || style === "param") {
      var rounded = fixed(value, 3), text = unsignedZero(rounded);
      if (rounded.scaled >= LARGE_DECIMALS) text = scientific(value);
      return signed(style === "param" ? trimmed(text) : text);
    }
    if (style === "fixed1") {
      var tenths = fixed(value, 1);
      if (tenths.scaled >= 10000000n) fail(value + " is too large for one decimal");
      return signed(unsignedZero(tenths));
    }
    if (style === "whole") {
      var units = fixed(value, 0);
      return signed(units.scaled === 0n ? "0" : grouped(units.negative ? -units.scaled
                                                                        : units.scaled));
    }
    if (style === "count") return signed(grouped(whole(value)));
    if (style === "index") return signed(whole(value).toString());
    if (Math.abs(value) >= NOISE) {
      fail(value + " is not below 1e-12; it is no rounding noise");
    }
    return signed("< 1e-12");
  }

  /* Display text of a number or of nested lists of numbers (same nesting); a shape is a
   * list of sizes and becomes one string, "[10, 4]". */
  function formatValue(value, style) {
    if (style === "shape") {
      return "[" + value.map(function (size) { return whole(size).toString(); }).join(", ")
        + "]";
    }
    if (Array.isArray(value)) return value.map(function (item) { return formatValue(item, style); });
    return formatNumber(value, style);
  }

  return { MINUS: MINUS, STYLES: STYLES, formatNumber: formatNumber, formatValue: formatValue };
});
