/* The live slide: the trained models run in this browser, offline.
 *
 * When the slide is first shown, its scripts (data-scripts, written by slides/live.py)
 * are loaded through static/runtime.js, which the worksheet explorer shares: ONNX Runtime
 * Web with its glue and WebAssembly binary, then the tokenizers, the experiment's
 * tokenizer and the models' ONNX graphs. Nothing is fetched: no other host, no file URL
 * but those scripts. The runtime uses WebAssembly on one thread (no WebGPU).
 *
 * Each model continues the prompt greedily as the lesson's reference does: the window is
 * the last `context` tokens, left-padded with the end-of-text id; the attention models
 * also get the padding mask; the next token is the largest logit (the lowest id among
 * equals); at most `most` tokens, stopping at the end of a text.
 *
 * The page opens on the lesson's prompt already worked (bound figures of the values,
 * computed by worksheet/live.py by the same rules); a run replaces every figure with the
 * browser's own. Each is formatted by static/format.js in the style the page names for its
 * place (data-style-NAME: the style of the value it opens with), so the default prompt's
 * figures come out digit for digit as the page opened with them; tokens per second, which
 * only a run here can measure, to one decimal.
 *
 * `window.liveModels` lets a test or a benchmark read the models' outputs directly.
 */
(function () {
  "use strict";

  var root = document.querySelector(".reveal .live");
  if (!root) return;
  var slide = root.closest("section");
  var form = root.querySelector("form.live-prompt");
  var input = form.querySelector("input");
  var select = form.querySelector("select");
  var button = form.querySelector("button");
  var status = root.querySelector(".live-status");
  var facts = root.querySelector(".live-facts");
  var plot = root.querySelector(".live-plot");
  var bars = root.querySelector(".live-bars");
  var phone = document.documentElement.classList.contains("phone");

  var LEAST_COLUMN = 30;  // the narrowest column of bars, in CSS pixels (as live.css)
  var SPEED = "fixed1";   // tokens per second: no value of the lecture's to take it from

  /* A figure as the lecture shows the value its place opens with. */
  function shownAs(place, value) {
    return LectureFormat.formatNumber(value, root.getAttribute("data-style-" + place));
  }

  var loading = null;   // the promise of the loaded models
  var live = null;      // {ort, tokenizer, data, sessions}
  var busy = false;

  /* Say where the slide is (loading, ready, running, done, failed…), in words and in
   * `data-state`. */
  function say(name) {
    status.textContent = root.getAttribute("data-say-" + name) || "";
    root.dataset.state = name;
  }

  /* The runtime, the tokenizer and one session per model, each run once to warm up. */
  async function start(ort) {
    var data = window.LIVE_MODELS;
    var made = { ort: ort, data: data, sessions: {}, models: {},
                 tokenizer: new window.LiveTokenizers.Tokenizer(window.LIVE_TOKENIZER, {}) };
    for (var i = 0; i < data.models.length; i++) {
      var model = data.models[i];
      made.models[model.id] = model;
      made.sessions[model.id] = await ort.InferenceSession.create(
        LectureRuntime.bytes(model.graph), { executionProviders: ["wasm"] });
    }
    live = made;
    for (var id in made.sessions) await predict(id, [data.end]);
    return made;
  }

  function load() {
    if (loading) return loading;
    say("loading");
    var scripts = root.dataset.scripts.split(" ");
    loading = LectureRuntime.runtime(scripts).then(start).then(function (made) {
      offer(made.data.prompts);
      if (!input.value) input.value = lessonPrompt(made.data.prompts);
      button.disabled = !input.value.trim();
      say("ready");
      return made;
    }, function (error) {
      console.error("live slide:", error);
      say("failed");
      throw error;
    });
    return loading;
  }

  function lessonPrompt(prompts) {
    var lesson = prompts.filter(function (p) { return p.kind === "lesson"; })[0];
    return lesson ? lesson.text : "";
  }

  /* The experiment's example prompts, each in its group of the menu. */
  function offer(prompts) {
    select.querySelectorAll("optgroup").forEach(function (group) {
      group.textContent = "";
      prompts.forEach(function (prompt) {
        if (prompt.kind !== group.dataset.kind) return;
        var option = document.createElement("option");
        option.value = option.textContent = prompt.text;
        group.appendChild(option);
      });
      group.hidden = !group.children.length;
    });
  }

  // ------------------------------------------------------------------ the models

  /* The last `context` tokens, left-padded with the end-of-text id, and which are pads. */
  function windowOf(tokens) {
    var context = live.data.context, kept = tokens.slice(-context);
    var pads = context - kept.length, ids = [], padding = [];
    for (var i = 0; i < context; i++) {
      ids.push(i < pads ? live.data.end : kept[i - pads]);
      padding.push(i < pads ? 1 : 0);
    }
    return { ids: ids, padding: padding };
  }

  /* One model's logits for the next token after `tokens`, and (attention models) each
   * head's weights at the last position, [heads × context]. */
  async function predict(id, tokens) {
    var ort = live.ort, context = live.data.context, seen = windowOf(tokens);
    var feeds = { ids: new ort.Tensor("int64", BigInt64Array.from(seen.ids, BigInt),
                                      [1, context]) };
    if (live.models[id].heads) {
      feeds.padding = new ort.Tensor("bool", Uint8Array.from(seen.padding), [1, context]);
    }
    var out = await live.sessions[id].run(feeds);
    return { logits: out.logits.data, weights: out.weights ? out.weights.data : null };
  }

  /* The largest logit's id; the lowest id among equals. */
  function argmax(values) {
    var best = 0;
    for (var i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
    return best;
  }

  /* Greedy continuation: the tokens made, the predictions run and their seconds, and the
   * first prediction's attention weights (the prompt's last position). */
  async function generate(id, prompt) {
    var tokens = prompt.slice(), made = [], runs = 0, seconds = 0, weights = null;
    for (var step = 0; step < live.data.most; step++) {
      var started = performance.now();
      var out = await predict(id, tokens);
      var token = argmax(out.logits);
      seconds += (performance.now() - started) / 1000;
      runs += 1;
      if (step === 0) weights = out.weights;
      if (token === live.data.end) break;
      made.push(token);
      tokens.push(token);
    }
    return { made: made, runs: runs, seconds: seconds, weights: weights };
  }

  function encode(text) {
    return live.tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  /* How the vocabulary covers a prompt: its tokens, its characters per token, and how
   * many of its words (runs of letters, with the space before them, as the byte-level
   * tokenizer splits a text) are a single token. */
  function coverage(text) {
    var tokens = encode(text), words = 0, single = 0, found;
    var pattern = /\p{L}+/gu;
    while ((found = pattern.exec(text)) !== null) {
      var spaced = found.index > 0 && text[found.index - 1] === " ";
      words += 1;
      if (encode((spaced ? " " : "") + found[0]).length === 1) single += 1;
    }
    return { tokens: tokens.length, characters: Array.from(text).length, words: words,
             single: single };
  }

  /* A continuation as the deck shows one: on one line, control characters and broken
   * bytes as a dot, cut at a space after `shown` characters (as the results slides). */
  function shown(text) {
    var data = live.data;
    var line = Array.from(text.replace(/\s+/gu, " ").trim(), function (c) {
      return c === "\ufffd" || /\p{C}/u.test(c) ? data.unprintable : c;
    });
    if (line.length <= data.shown) return line.join("");
    var cut = line.slice(0, data.shown);
    if (cut.slice(Math.floor(data.shown / 2)).indexOf(" ") >= 0) {
      cut = cut.slice(0, cut.lastIndexOf(" "));
    }
    return cut.join("").trimEnd() + "…";
  }

  // ------------------------------------------------------------------ showing it

  function figure(where, name, text) {
    var element = where.querySelector('[data-live="' + name + '"]');
    if (element) element.textContent = text;
  }

  /* A token's label under its bars, as worksheet/live.py's token_label makes it. */
  function tokenLabel(id) {
    var data = live.data, text = shown(live.tokenizer.decode([id])).trim();
    if (!text) return data.blank;
    var characters = Array.from(text);
    return characters.length > data.label
      ? characters.slice(0, data.label - 1).join("") + "…" : text;
  }

  function element(tag, classes, style, text) {
    var made = document.createElement(tag);
    if (classes) made.className = classes;
    for (var name in style) made.style.setProperty(name, style[name]);
    if (text !== undefined) made.textContent = text;
    return made;
  }

  /* One row of bars per head, one column per token of the window (pads left out), all on
   * one scale: the tallest weight fills a row (live.css lays them out, as the page opens
   * with them). When the columns do not fit, the earliest tokens share the first, their
   * weights summed. */
  function drawWeights(prompt, weights, heads) {
    var context = live.data.context, kept = prompt.slice(-context);
    var pads = context - kept.length;
    var width = plot.clientWidth;
    if (phone) width = Math.max(width, kept.length * LEAST_COLUMN);  // the plot scrolls
    var most = Math.max(2, Math.floor(width / LEAST_COLUMN));
    var columns = [];
    var merged = kept.length > most ? kept.length - most + 1 : 0;
    if (merged) columns.push({ label: "…", from: 0, to: merged });
    for (var i = merged; i < kept.length; i++) {
      columns.push({ label: tokenLabel(kept[i]), from: i, to: i + 1 });
    }
    var summed = [];  // [head][column]: each column's weight, pads left out
    for (var h = 0; h < heads; h++) {
      summed.push(columns.map(function (c) {
        var weight = 0;
        for (var j = c.from; j < c.to; j++) weight += weights[h * context + pads + j];
        return weight;
      }));
    }
    var tallest = Math.max.apply(null, summed.map(function (row) {
      return Math.max.apply(null, row);
    }));
    figure(root, "tallest", shownAs("tallest", tallest));
    bars.textContent = "";
    bars.style.setProperty("--heads", heads);
    bars.style.setProperty("--columns", Math.max(columns.length, 1));
    summed.forEach(function (row, h) {
      bars.appendChild(element("span", "live-axis", { "grid-row": h + 1 }));
      columns.forEach(function (c, k) {
        var bar = element("span", "live-bar", {
          "grid-row": h + 1, "grid-column": k + 1,
          "--share": tallest > 0 ? row[k] / tallest : 0 });
        bar.dataset.head = h + 1;
        bar.dataset.weight = row[k];
        bar.title = c.label + ": " + shownAs("weight", row[k]);
        bars.appendChild(bar);
      });
    });
    columns.forEach(function (c, k) {
      var label = element("span", "live-token", { "grid-row": heads + 1, "grid-column": k + 1 });
      label.appendChild(element("span", "", {}, c.label));
      bars.appendChild(label);
    });
  }

  async function run(text) {
    if (busy) return;
    busy = true;
    button.disabled = true;
    try {
      await load();
      say("running");
      var prompt = encode(text), cover = coverage(text);
      figure(root, "tokens", shownAs("tokens", cover.tokens));
      figure(root, "characters", shownAs("characters",
                                         cover.characters / Math.max(cover.tokens, 1)));
      figure(root, "single", shownAs("single", cover.single));
      figure(root, "words", shownAs("words", cover.words));
      facts.hidden = false;
      root.querySelectorAll("tr[data-model]").forEach(function (row) {
        figure(row, "continuation", "");
        figure(row, "speed", "");
      });
      var rows = root.querySelectorAll("tr[data-model]");
      for (var i = 0; i < rows.length; i++) {
        var id = rows[i].dataset.model;
        if (!live.sessions[id]) continue;
        var result = await generate(id, prompt);
        figure(rows[i], "continuation", shown(live.tokenizer.decode(result.made)));
        figure(rows[i], "speed", LectureFormat.formatNumber(result.runs / result.seconds,
                                                            SPEED));
        if (id === root.dataset.attention && result.weights) {
          drawWeights(prompt, result.weights, live.models[id].heads);
        }
      }
      say(prompt.length > live.data.context ? "truncated" : "done");
    } finally {
      busy = false;
      button.disabled = !input.value.trim();
    }
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (!input.value.trim()) { say("empty"); return; }
    run(input.value).catch(function () {});
  });
  input.addEventListener("input", function () {
    button.disabled = !live || busy || !input.value.trim();
  });
  select.addEventListener("change", function () {
    if (!select.value) return;
    input.value = select.value;
    select.value = "";
    select.blur();
    run(input.value).catch(function () {});
  });

  function arrive(event) {
    if (event.currentSlide === slide && !document.documentElement.classList.contains("reveal-print")) {
      load().catch(function () {});
    }
  }
  Reveal.on("ready", arrive);
  Reveal.on("slidechanged", arrive);
  if (Reveal.isReady()) arrive({ currentSlide: Reveal.getCurrentSlide() });

  /* For tests and benchmarks: the models' outputs for a text, read directly. */
  window.liveModels = {
    ready: function () { return load().then(function () { return true; }); },
    encode: function (text) { return load().then(function () { return encode(text); }); },
    coverage: function (text) { return load().then(function () { return coverage(text); }); },
    logits: function (id, text) {
      return load().then(function () { return predict(id, encode(text)); }).then(function (out) {
        return { logits: Array.from(out.logits),
                 weights: out.weights ? Array.from(out.weights) : null };
      });
    },
    continuation: function (id, text) {
      return load().then(function () { return generate(id, encode(text)); }).then(function (r) {
        return { ids: r.made, runs: r.runs, seconds: r.seconds };
      });
    },
    run: function (text) { input.value = text; return run(text); }
  };
})();
