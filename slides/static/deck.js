/* Start the deck, wire the sentence and head switchers, and size tables to the slide.
 *
 * Every state of a switchable slide is a panel written by the build, with its numbers
 * already formatted, and so is every heading that depends on the state (a `.variant`).
 * A switcher only records the chosen sentence and head and shows the matching panel and
 * heading; the choice is kept on the slide's stack, so the next slide of the stack opens
 * on it. Nothing here computes or formats a number: the only measuring is of lengths,
 * to give each slide's tables and code the largest type that still fits the slide.
 */
(function () {
  "use strict";

  var FIT_MIN = 12, FIT_MAX = 40;  // CSS pixels, the range tables and code are fitted in
  var HALL_MIN = 20;  // the least table size a hall reads
  var PICTURE_MIN = 16, PICTURE_SHARE = 0.8;  // a picture's labels: least size, share of the tables'
  var phone = window.matchMedia("(max-width: 640px)").matches;
  /* A viewer who asks for less motion gets none: no transitions, no auto-animate. */
  var still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  if (phone) document.documentElement.classList.add("phone");

  function matches(element, slide) {
    var sentence = element.dataset.sentence === undefined
      || element.dataset.sentence === slide.dataset.sentence;
    var head = element.dataset.head === undefined || element.dataset.head === slide.dataset.head;
    return sentence && head;
  }

  function show(slide) {
    slide.querySelectorAll(".panel, .variant").forEach(function (element) {
      element.hidden = !matches(element, slide);
    });
    slide.querySelectorAll(".switcher button").forEach(function (button) {
      var chosen = slide.dataset[button.dataset.axis] === button.dataset.value;
      button.setAttribute("aria-pressed", chosen ? "true" : "false");
    });
  }

  function stackOf(slide) {
    var parent = slide.parentElement;
    return parent && parent.classList.contains("stack") ? parent : null;
  }

  /* Open a switchable slide on the choice last made in its stack, where it offers it. */
  function carry(slide) {
    var stack = slide && stackOf(slide);
    if (!stack || !slide.classList.contains("switchable")) return;
    ["sentence", "head"].forEach(function (axis) {
      var value = stack.dataset[axis];
      if (value !== undefined && slide.querySelector(
          '.switcher button[data-axis="' + axis + '"][data-value="' + CSS.escape(value) + '"]')) {
        slide.dataset[axis] = value;
      }
    });
    show(slide);
  }

  /* Whether everything on the slide lies inside its padding box and inside its column
   * (the bottom padding keeps clear of the slide number and the arrows). */
  function fits(slide) {
    /* In print, a slide grows with its content: its page is the bound. */
    var page = slide.closest(".pdf-page"), style = getComputedStyle(slide);
    var box = (page || slide).getBoundingClientRect();
    var height = page ? page.clientHeight : slide.clientHeight;
    var width = page ? page.clientWidth : slide.clientWidth;
    var bottom = box.top + height - parseFloat(style.paddingBottom);
    for (var k = 0; k < slide.children.length; k++) {
      var block = slide.children[k];
      if (!block.matches("aside.notes") && block.getBoundingClientRect().bottom > bottom + 1) {
        return false;
      }
    }
    var right = box.left + width - parseFloat(style.paddingRight);
    var wide = slide.querySelectorAll("table, pre, p, ol, ul, .column, .formula, .flow, figure");
    for (var m = 0; m < wide.length; m++) {
      // (not "[hidden]": in print, Reveal.js marks every slide but the current one hidden)
      if (!wide[m].closest("aside.notes") && wide[m].checkVisibility()
          && wide[m].getBoundingClientRect().right > right + 1) return false;
    }
    var listings = slide.querySelectorAll("pre.code code");
    for (var n = 0; n < listings.length; n++) {
      if (listings[n].checkVisibility() && listings[n].scrollWidth > listings[n].clientWidth + 1) {
        return false;
      }
    }
    var columns = slide.querySelectorAll(".column");
    for (var i = 0; i < columns.length; i++) {
      var edge = columns[i].getBoundingClientRect().right;
      for (var j = 0; j < columns[i].children.length; j++) {
        var child = columns[i].children[j];
        if (child.checkVisibility() && child.getBoundingClientRect().right > edge + 1) return false;
      }
    }
    return true;
  }

  /* Size a slide's tables, listings and pictures to the slide. Tables and listings take
   * a whole-pixel type size in [FIT_MIN, FIT_MAX]; each picture is given the width at
   * which its smallest label (data-label, in its own units) is PICTURE_SHARE of that
   * size, never less than PICTURE_MIN and never wider than the picture allows. The
   * largest size at which the slide still fits wins. Only when the hall's sizes do not
   * fit together does either give way: the pictures first, as they scale and type should not. */
  function fit(slide) {
    if (!slide || phone) return;
    var fitted = slide.querySelectorAll("table.grid-table, pre.code");
    var pictures = Array.prototype.filter.call(slide.querySelectorAll("figure.picture"),
      function (figure) { return figure.checkVisibility() && parseFloat(figure.dataset.label); });
    function size(px) {
      fitted.forEach(function (element) { element.style.fontSize = px + "px"; });
    }
    function draw(label) {  // every picture at the width that shows its labels `label` px high
      pictures.forEach(function (figure) {
        var svg = figure.querySelector("svg.picture"), box = svg.viewBox.baseVal;
        var most = parseFloat(svg.style.maxWidth) || Infinity;
        var width = label === null ? null
          : Math.min(most, Math.ceil(label * box.width / parseFloat(figure.dataset.label)));
        var column = figure.parentElement.matches(".column") ? figure.parentElement : null;
        figure.style.width = width === null ? "" : width + "px";
        figure.style.marginInline = width === null ? "" : "auto";
        // the width decides the labels' size; the slide's bottom, not a CSS cap, the height
        svg.style.maxHeight = width === null ? "" : "none";
        if (column) column.style.flex = width === null ? "" : "0 0 " + width + "px";
      });
    }
    function largest(low, high, set) {  // the largest whole size in [low, high] that fits
      set(high);
      if (fits(slide)) return high;
      set(low);
      if (!fits(slide)) return null;
      while (high - low > 1) {
        var middle = Math.floor((low + high) / 2);
        set(middle);
        if (fits(slide)) low = middle; else high = middle;
      }
      set(low);
      return low;
    }
    draw(null);
    if (!fitted.length) {  // pictures alone: their own size, unless the slide overflows
      if (!pictures.length || fits(slide)) return;
      if (largest(PICTURE_MIN, FIT_MAX, draw) === null) largest(4, PICTURE_MIN, draw);
      return;
    }
    if (!pictures.length) { largest(FIT_MIN, FIT_MAX, size) || size(FIT_MIN); return; }
    var together = function (px) { size(px); draw(Math.max(PICTURE_MIN, px * PICTURE_SHARE)); };
    if (largest(HALL_MIN, FIT_MAX, together) !== null) return;
    size(HALL_MIN);  // the hall's sizes do not fit together: the pictures give way first,
    if (largest(4, PICTURE_MIN, draw) !== null) return;
    draw(4);  // then the tables
    largest(FIT_MIN, HALL_MIN, size) || size(FIT_MIN);
  }

  document.querySelectorAll("section.switchable").forEach(function (slide) {
    slide.querySelectorAll(".switcher button").forEach(function (button) {
      /* Space and Enter press a focused switcher button, as on any button; the deck,
       * which listens on the document, must not take them to change the slide too. */
      button.addEventListener("keydown", function (event) {
        if (event.key === " " || event.key === "Enter") event.stopPropagation();
      });
      button.addEventListener("click", function () {
        slide.dataset[button.dataset.axis] = button.dataset.value;
        var stack = stackOf(slide);
        if (stack) stack.dataset[button.dataset.axis] = button.dataset.value;
        show(slide);
        fit(slide);
        Reveal.layout();
      });
    });
  });

  Reveal.on("ready", function (event) {
    carry(event.currentSlide);
    fit(event.currentSlide);
    document.fonts.ready.then(function () { fit(Reveal.getCurrentSlide()); });
  });
  Reveal.on("slidechanged", function (event) {
    carry(event.currentSlide);
    fit(event.currentSlide);
  });
  Reveal.on("pdf-ready", function () {
    document.querySelectorAll(".reveal .slides section:not(.stack)").forEach(fit);
  });

  Reveal.initialize({
    hash: true,
    width: 1280,
    height: 720,
    margin: 0,
    center: false,
    transition: still ? "none" : "fade",
    backgroundTransition: still ? "none" : "fade",
    transitionSpeed: "fast",
    autoAnimate: !still,
    slideNumber: "c/t",
    showSlideNumber: "all",
    disableLayout: phone,
    scrollActivationWidth: phone ? null : 435,
    pdfSeparateFragments: false,
    pdfMaxPagesPerSlide: 1,
    plugins: [RevealMath.KaTeX, RevealNotes],
    katex: {
      local: "lib/katex",
      delimiters: [
        { left: "\\(", right: "\\)", display: false },
        { left: "\\[", right: "\\]", display: true }
      ],
      ignoredClasses: ["tok", "num", "code"]
    }
  });
})();
