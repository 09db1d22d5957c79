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
  var HALL_MIN = 20;  // the least table size a hall reads; pictures shrink to keep it
  var phone = window.matchMedia("(max-width: 640px)").matches;
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
    var box = slide.getBoundingClientRect(), style = getComputedStyle(slide);
    var bottom = box.top + slide.clientHeight - parseFloat(style.paddingBottom);
    for (var k = 0; k < slide.children.length; k++) {
      var block = slide.children[k];
      if (!block.matches("aside.notes") && block.getBoundingClientRect().bottom > bottom + 1) {
        return false;
      }
    }
    var right = box.left + slide.clientWidth - parseFloat(style.paddingRight);
    var wide = slide.querySelectorAll("table, pre, p, ol, ul, .column, .formula, .flow");
    for (var m = 0; m < wide.length; m++) {
      if (!wide[m].closest("aside.notes, [hidden]")
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

  /* The largest whole-pixel size in [FIT_MIN, FIT_MAX] at which the slide still fits. */
  function fit(slide) {
    if (!slide || phone) return;
    var fitted = slide.querySelectorAll("table.grid-table, pre.code");
    function size(px) {
      fitted.forEach(function (element) { element.style.fontSize = px + "px"; });
    }
    function largest(low) {
      var high = FIT_MAX;
      size(high);
      if (fits(slide)) return high;
      while (high - low > 1) {
        var middle = Math.floor((low + high) / 2);
        size(middle);
        if (fits(slide)) low = middle; else high = middle;
      }
      size(low);
      return low;
    }
    var pictures = Array.prototype.filter.call(slide.querySelectorAll("figure.picture"),
      function (figure) { return figure.checkVisibility(); });
    function shrink(share) {
      pictures.forEach(function (figure) {
        var column = figure.parentElement.matches(".column") ? figure.parentElement : null;
        figure.style.width = share === 1 ? "" : Math.round(figure.dataset.width * share) + "px";
        figure.style.marginInline = share === 1 ? "" : "auto";
        if (column) column.style.flex = share === 1 ? "" :
          "0 1 " + Math.round(column.dataset.width * share) + "px";
      });
    }
    shrink(1);  // from the pictures' own size, whatever an earlier fit left
    pictures.forEach(function (figure) {
      figure.dataset.width = figure.getBoundingClientRect().width;
      if (figure.parentElement.matches(".column")) {
        figure.parentElement.dataset.width = figure.parentElement.getBoundingClientRect().width;
      }
    });
    if (!fitted.length) {  // no tables: a picture that overflows the slide gives way
      for (var part = 1; part > 0.2 && !fits(slide); part -= 0.15) shrink(part);
      return;
    }
    if (largest(FIT_MIN) >= HALL_MIN && fits(slide) || !pictures.length) return;
    /* Tables under the hall's least size while a picture shares the slide: the picture
     * gives up room first (it scales; their type should not). */
    for (var share = 0.85; share > 0.2; share -= 0.15) {
      shrink(share);
      size(HALL_MIN);
      if (fits(slide)) { largest(HALL_MIN); return; }
    }
    largest(FIT_MIN);  // the pictures at their smallest, the tables as large as then fit
  }

  document.querySelectorAll("section.switchable").forEach(function (slide) {
    slide.querySelectorAll(".switcher button").forEach(function (button) {
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
    transition: "fade",
    transitionSpeed: "fast",
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
