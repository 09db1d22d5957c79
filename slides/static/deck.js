/* Start the deck and wire the sentence and head switchers.
 *
 * Every state of a switchable slide is a panel written by the build, with its numbers
 * already formatted. A switcher only records the chosen sentence and head on the slide
 * and shows the matching panel: nothing here computes or formats a number.
 */
(function () {
  "use strict";

  function show(slide) {
    slide.querySelectorAll(".panel").forEach(function (panel) {
      var sentence = panel.dataset.sentence === slide.dataset.sentence;
      var head = panel.dataset.head === undefined || panel.dataset.head === slide.dataset.head;
      panel.hidden = !(sentence && head);
    });
    slide.querySelectorAll(".switcher button").forEach(function (button) {
      var chosen = slide.dataset[button.dataset.axis] === button.dataset.value;
      button.setAttribute("aria-pressed", chosen ? "true" : "false");
    });
  }

  document.querySelectorAll("section.switchable").forEach(function (slide) {
    slide.querySelectorAll(".switcher button").forEach(function (button) {
      button.addEventListener("click", function () {
        slide.dataset[button.dataset.axis] = button.dataset.value;
        show(slide);
        Reveal.layout();
      });
    });
  });

  Reveal.initialize({
    hash: true,
    width: 1280,
    height: 720,
    margin: 0,
    center: false,
    transition: "fade",
    transitionSpeed: "fast",
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
