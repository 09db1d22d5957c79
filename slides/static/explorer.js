/* The explorer: the worksheet's own model in this browser, on a sentence the student makes.
 *
 * The sentence is a row of menus, one per word, over the worksheet's vocabulary: a word
 * can be changed, one added at the end (up to the context), the last removed, or the
 * sentence started again from one of the worksheet's. For its last word the slide shows
 * each head's query, key and value, its weights over the sentence (a number and a bar in
 * the head's colour), its message, the update ΔE and the most likely next word with its
 * probability. The page opens on the first sentence's figures, written into it when the
 * deck was built (blocks/explorer.html.j2): this script turns its words into menus, keeps
 * those figures while the model loads and then writes its own, the same, over them. The worksheet's model runs
 * as an ONNX graph in float64 (worksheet/explorer.py) on ONNX Runtime Web, loaded through
 * static/runtime.js the first time the slide is shown; every figure is formatted by
 * static/format.js in the style the lecture gives the same quantity (data-style-*), so the
 * worksheet's own sentences show exactly the figures of the other slides.
 *
 * `window.worksheetExplorer` lets a test set a sentence and read what the slide shows.
 */
(function () {
  "use strict";

  var root = document.querySelector(".reveal .explorer");
  if (!root) return;
  var slide = root.closest("section");
  var format = window.LectureFormat;
  var grid = root.querySelector(".explorer-weights");
  var addMenu = root.querySelector(".explorer-add select");
  var removeButton = root.querySelector(".explorer-remove");
  var starts = Array.prototype.slice.call(root.querySelectorAll(".explorer-start button"));
  var status = root.querySelector(".explorer-status");
  var labels = grid.querySelectorAll(".explorer-head");
  var heads = labels.length;
  var context = Number(root.dataset.context);
  var phone = document.documentElement.classList.contains("phone");
  var LARGEST = 24, SMALLEST = 20;  // the sentence's type size at 1280×720, in CSS pixels
  var vocab = Array.prototype.filter.call(addMenu.options, function (option) {
    return option.value !== "";
  }).map(function (option) { return option.textContent; });

  // the sentence the page opens on: the start shown pressed, else the first
  var ids = idsOf(starts.filter(function (button) {
    return button.getAttribute("aria-pressed") === "true";
  })[0] || starts[0]);
  var session = null;   // the promise of {ort, session}
  var loaded = false;   // whether the model has finished loading
  var queue = Promise.resolve();
  var asked = 0;        // how many sentences were asked for: only the latest is shown
  var current = Promise.resolve();  // until the latest sentence's figures are shown

  function idsOf(button) { return button.dataset.ids.split(" ").map(Number); }

  function style(name) { return root.getAttribute("data-style-" + name); }

  function say(name) {
    status.textContent = root.getAttribute("data-say-" + name) || "";
    root.dataset.state = name;
  }

  function element(tag, classes, text) {
    var made = document.createElement(tag);
    if (classes) made.className = classes;
    if (text !== undefined) made.textContent = text;
    return made;
  }

  function place(cell, row, column) {
    cell.style.gridRow = String(row);
    cell.style.gridColumn = String(column);
  }

  // ------------------------------------------------------------------ the sentence

  /* The menu of the sentence's word j: the whole vocabulary, the word chosen. */
  function menu(j) {
    var made = element("select");
    made.setAttribute("aria-label", root.dataset.wordLabel);
    vocab.forEach(function (text, k) {
      var option = element("option", "", text);
      option.value = String(k);
      made.appendChild(option);
    });
    made.value = String(ids[j]);
    made.addEventListener("change", function () {
      ids[j] = Number(made.value);
      show();
    });
    return made;
  }

  /* The controls as the sentence allows them: add while there is room, remove while a
   * word is left, the start button of the sentence shown pressed. */
  function controls() {
    addMenu.disabled = ids.length >= context;
    removeButton.disabled = ids.length <= 1;
    starts.forEach(function (button) {
      button.setAttribute("aria-pressed", String(idsOf(button).join(" ") === ids.join(" ")));
    });
  }

  /* The page's first sentence, with its figures from the deck: each word becomes its menu,
   * the figures stay. */
  function dress() {
    grid.querySelectorAll(".explorer-word").forEach(function (word, j) {
      word.textContent = "";
      word.appendChild(menu(j));
    });
    controls();
    fit();
  }

  /* One menu per word, the last word outlined as the receiver; under each word, one cell
   * per head for its weight. The figures are emptied until the model has run. */
  function lay() {
    grid.querySelectorAll(".explorer-word, .explorer-weight").forEach(function (cell) {
      cell.remove();
    });
    place(grid.querySelector(".explorer-corner"), 1, 1);
    labels.forEach(function (label, h) { place(label, h + 2, 1); });
    ids.forEach(function (id, j) {
      var word = element("div", "explorer-word" + (j === ids.length - 1 ? " receiver" : ""));
      word.appendChild(menu(j));
      place(word, 1, j + 2);
      grid.appendChild(word);
      for (var h = 0; h < heads; h++) {
        var cell = element("div", "explorer-weight");
        cell.dataset.head = String(h + 1);
        var figure = element("span", "live-figure");
        figure.dataset.quantity = "h" + (h + 1) + ".weights[" + j + "]";
        cell.appendChild(figure);
        cell.appendChild(element("span", "explorer-bar"));
        place(cell, h + 2, j + 2);
        grid.appendChild(cell);
      }
    });
    root.querySelectorAll('.explorer-vectors [data-live], [data-live="delta"], '
                          + '[data-live="word"], [data-live="probability"]')
      .forEach(function (slot) { slot.textContent = ""; });
    controls();
    fit();
  }

  /* A sentence of many long words: its type steps down from LARGEST until it fits the
   * slide's width, to SMALLEST; if it still does not fit, it scrolls sideways (as on a
   * phone, where the slide is the screen and the sentence always may scroll). */
  function fit() {
    grid.style.fontSize = "";
    grid.classList.remove("scrolls");
    if (phone || !grid.clientWidth) return;
    for (var px = LARGEST; grid.scrollWidth > grid.clientWidth + 1 && px > SMALLEST; px--) {
      grid.style.fontSize = (px - 1) + "px";
    }
    if (grid.scrollWidth > grid.clientWidth + 1) grid.classList.add("scrolls");
  }

  // ------------------------------------------------------------------ the model

  /* The model, loaded once; quietly, as the first sentence's figures need none of it. */
  function load() {
    if (session) return session;
    session = LectureRuntime.runtime(root.dataset.scripts.split(" ")).then(function (ort) {
      var graph = LectureRuntime.bytes(window.EXPLORER_MODEL.graph);
      return ort.InferenceSession.create(graph, { executionProviders: ["wasm"],
                                                  graphOptimizationLevel: "disabled" })
        .then(function (made) { loaded = true; return { ort: ort, session: made }; });
    });
    session.catch(function (error) {
      console.error("explorer:", error);
      say("failed");
    });
    return session;
  }

  /* The model's outputs for a sentence of ids, one run at a time; ``quiet`` says nothing
   * while the model loads (the figures shown already hold). */
  function run(sentence, quiet) {
    if (!loaded && !quiet) say("loading");
    var done = queue.then(load).then(function (model) {
      var feeds = { ids: new model.ort.Tensor("int64", BigInt64Array.from(sentence, BigInt),
                                              [1, sentence.length]) };
      return model.session.run(feeds);
    });
    queue = done.catch(function () {});
    return done;
  }

  // ------------------------------------------------------------------ the figures

  function number(value, name, quantity) {
    var span = element("span", "num", format.formatNumber(value, style(name)));
    span.dataset.quantity = quantity;
    return span;
  }

  /* A row vector as the lecture writes one, [a, b], each entry its own figure. */
  function vector(slot, values, name, quantity) {
    slot.textContent = "";
    slot.appendChild(document.createTextNode("["));
    for (var c = 0; c < values.length; c++) {
      if (c) slot.appendChild(document.createTextNode(", "));
      slot.appendChild(number(values[c], name, quantity + "[" + c + "]"));
    }
    slot.appendChild(document.createTextNode("]"));
  }

  function rows(tensor, h) {
    var width = tensor.dims[tensor.dims.length - 1];
    return Array.prototype.slice.call(tensor.data, h * width, (h + 1) * width);
  }

  function fill(out, sentence) {
    var length = sentence.length;
    for (var h = 0; h < heads; h++) {
      var head = String(h + 1), weights = rows(out.weights, h);
      ["q", "k", "v"].forEach(function (name) {
        vector(root.querySelector('.explorer-vectors [data-live="' + name + '"][data-head="'
                                  + head + '"]'), rows(out[name], h), name,
               "h" + head + "." + name);
      });
      vector(root.querySelector('.explorer-vectors [data-live="message"][data-head="' + head
                                + '"]'), rows(out.messages, h), "message", "h" + head + ".message");
      for (var j = 0; j < length; j++) {
        var figure = grid.querySelector('[data-quantity="h' + head + ".weights[" + j + ']"]');
        figure.textContent = format.formatNumber(weights[j], style("weights"));
        figure.parentElement.style.setProperty("--weight", String(weights[j]));
      }
    }
    vector(root.querySelector('[data-live="delta"]'), Array.from(out.delta.data), "delta",
           "delta");
    var predicted = Number(out.prediction.data[0]);
    var word = root.querySelector('[data-live="word"]');
    word.textContent = vocab[predicted];
    word.dataset.quantity = "prediction";
    var probability = root.querySelector('[data-live="probability"]');
    probability.textContent = "";
    probability.appendChild(number(out.probs.data[predicted], "probability", "probability"));
    say(length >= context ? "full" : "ready");
    fit();
  }

  /* The page's first sentence computed here too, its figures written over the deck's own
   * (the same) once the model has run, with nothing emptied meanwhile. */
  function refresh() {
    var mine = ++asked, sentence = ids.slice();
    current = run(sentence, true).then(function (out) {
      if (mine === asked) fill(out, sentence);
    }, function () {});
    return current;
  }

  /* Lay out the current sentence and show its figures once the model has run; resolves
   * when they are shown (or a later sentence replaced this one). */
  function show() {
    var mine = ++asked, sentence = ids.slice();
    lay();
    current = run(sentence).then(function (out) {
      if (mine === asked) fill(out, sentence);
    }, function () {});
    return current;
  }

  addMenu.addEventListener("change", function () {
    if (addMenu.value === "" || ids.length >= context) return;
    ids.push(Number(addMenu.value));
    addMenu.value = "";
    show();
  });
  removeButton.addEventListener("click", function () {
    if (ids.length <= 1) return;
    ids.pop();
    show();
  });
  starts.forEach(function (button) {
    button.addEventListener("click", function () {
      ids = idsOf(button);
      show();
    });
  });

  // the page holds the first sentence's figures: keep them; without them, lay it out and
  // compute it when the slide is first shown
  var built = grid.querySelector(".explorer-word") !== null;
  if (built) dress(); else lay();
  var started = false;
  function arrive(event) {
    if (event.currentSlide === slide && !started
        && !document.documentElement.classList.contains("reveal-print")) {
      started = true;
      if (built) refresh(); else show();
    }
  }
  Reveal.on("ready", arrive);
  Reveal.on("slidechanged", arrive);
  if (Reveal.isReady()) arrive({ currentSlide: Reveal.getCurrentSlide() });

  /* For tests: show a sentence of ids, and read every figure shown, by quantity. */
  function figures() {
    var found = {};
    root.querySelectorAll("[data-quantity]").forEach(function (figure) {
      found[figure.dataset.quantity] = figure.textContent;
    });
    return found;
  }
  window.worksheetExplorer = {
    ready: function () { return load().then(function () { return true; }); },
    show: function (sentence) {
      ids = sentence.slice();
      started = true;
      return show().then(figures);
    },
    shown: function () { return current.then(figures); },
    figures: figures
  };
})();
