/* The live side of `lecture serve`, added to the deck's page only when it is served that
 * way (the deck on disk never holds it).
 *
 * It listens to the server's events. When the deck on disk is no longer the one this page
 * shows, it reloads the page on the same slide: the address keeps the slide and fragment
 * (Reveal's hash), and the sentence and head chosen in each stack, the overview and the
 * time in a clip that is the same rendering are kept across the reload. A clip that is
 * playing is not cut off: the page reloads when it stops. A save that cannot be used
 * shows its one-line error in a banner over the last good deck, and the clips being
 * redone are listed, each marked on its own slide. Nothing here computes a number.
 */
(function () {
  "use strict";

  if (window.top !== window) return;  // the speaker view's previews: S opens them anew

  var shown = (window.LECTURE_SERVE || {}).deck || null;
  var KEY = "lecture-serve:" + location.pathname;
  var STATES = {
    rendering: "rendering",
    queued: "waiting to render",
    failed: "failed",
    "out of date": "out of date (not re-rendered by this serve)"
  };

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  var banner = element("div", "lecture-serve-banner");
  banner.setAttribute("role", "alert");
  banner.hidden = true;
  var panel = element("details", "lecture-serve-panel");  // a line, opened for the list
  panel.setAttribute("aria-live", "polite");
  panel.hidden = true;
  document.body.appendChild(banner);
  document.body.appendChild(panel);

  /* ------------------------------------------------------------ keeping the place */

  function save() {
    var kept = { choices: {}, overview: false, paused: false, clip: null };
    document.querySelectorAll(".reveal .slides section.stack[id]").forEach(function (stack) {
      var choice = {};
      ["sentence", "head"].forEach(function (axis) {
        if (stack.dataset[axis] !== undefined) choice[axis] = stack.dataset[axis];
      });
      kept.choices[stack.id] = choice;
    });
    if (window.Reveal && Reveal.isReady()) {
      kept.overview = Reveal.isOverview();
      kept.paused = Reveal.isPaused();
      var video = Reveal.getCurrentSlide().querySelector("video");
      if (video) kept.clip = { digest: video.dataset.sha256, time: video.currentTime };
    }
    sessionStorage.setItem(KEY, JSON.stringify(kept));
  }

  function restore() {
    var text = sessionStorage.getItem(KEY);
    if (!text || !window.Reveal) return;
    sessionStorage.removeItem(KEY);
    var kept = JSON.parse(text);
    Object.keys(kept.choices).forEach(function (id) {
      var stack = document.getElementById(id);
      if (!stack) return;
      Object.keys(kept.choices[id]).forEach(function (axis) {
        stack.dataset[axis] = kept.choices[id][axis];
      });
    });
    function settle() {
      var slide = Reveal.getCurrentSlide(), stack = slide && slide.parentElement;
      if (slide && stack && slide.classList.contains("switchable")) {
        ["sentence", "head"].forEach(function (axis) {
          var value = stack.dataset[axis];
          if (value === undefined) return;
          var button = slide.querySelector('.switcher button[data-axis="' + axis
            + '"][data-value="' + CSS.escape(value) + '"]');
          if (button) button.click();  // shows the panel, as a click of the author's would
        });
      }
      if (kept.overview) Reveal.toggleOverview(true);
      if (kept.paused) Reveal.togglePause(true);
      var video = slide && slide.querySelector("video");
      // The same rendering, and played into: go on from there (at 0 the poster stays).
      if (video && kept.clip && kept.clip.time > 0 && video.dataset.sha256 === kept.clip.digest) {
        var seek = function () { video.currentTime = kept.clip.time; };
        if (video.readyState >= 1) seek(); else video.addEventListener("loadedmetadata", seek, { once: true });
      }
    }
    if (Reveal.isReady()) settle(); else Reveal.on("ready", settle);
  }

  var reloading = false;

  function playing() {
    return Array.prototype.some.call(document.querySelectorAll("video"), function (video) {
      return !video.paused && !video.ended;
    });
  }

  function reload() {
    if (reloading) return;
    if (playing()) {  // let the clip finish; reload when it stops
      note("The deck changed: the page reloads when the clip stops.");
      document.querySelectorAll("video").forEach(function (video) {
        video.addEventListener("pause", reload, { once: true });
        video.addEventListener("ended", reload, { once: true });
      });
      return;
    }
    reloading = true;
    // Only while the server answers: a page reloaded as it restarts would be left on the
    // browser's error page, out of reach. Without an answer, the next state tries again.
    fetch("/__lecture__/state", { cache: "no-store" }).then(function (answer) {
      if (!answer.ok) throw new Error(answer.statusText);
      save();
      location.reload();
    }).catch(function () { reloading = false; });
  }

  /* ------------------------------------------------------------ telling */

  var latest = { clips: [] }, waitingNote = "";

  function note(text) {
    waitingNote = text;
    draw(latest);
  }

  function elapsed(started) {
    var seconds = Math.max(0, Math.round(Date.now() / 1000 - started));
    var minutes = Math.floor(seconds / 60), rest = seconds % 60;
    return minutes + ":" + (rest < 10 ? "0" : "") + rest;
  }

  function count(n, one, many) { return n + " " + (n === 1 ? one : many); }

  /* One line for the clips: how many render, wait, failed or are out of date. */
  function summary(clips) {
    var by = {};
    clips.forEach(function (clip) { by[clip.state] = (by[clip.state] || 0) + 1; });
    var parts = [];
    if (by.rendering) parts.push(by.rendering + " rendering");
    if (by.queued) parts.push(by.queued + " waiting");
    if (by.failed) parts.push(by.failed + " failed");
    if (by["out of date"]) parts.push(by["out of date"] + " out of date");
    if (parts.length === 1 && !by.rendering && !by.queued) {  // "4 clips out of date"
      return count(clips.length, "clip", "clips") + " " + parts[0].replace(/^\d+ /, "");
    }
    var lead = by.rendering || by.queued ? count(clips.length, "clip", "clips") + " being redone: "
      : count(clips.length, "clip", "clips") + ": ";
    return lead + parts.join(", ");
  }

  function draw(state) {
    banner.hidden = !state.error;
    banner.textContent = !state.error ? "" : state.error + (shown
      ? " — the deck below is the last good one."
      : " — the deck is built from the first save that can be used.");
    var open = panel.open;
    panel.textContent = "";
    var clips = state.clips || [];
    var line = element("summary");
    if (waitingNote) line.appendChild(element("span", "lecture-serve-note", waitingNote));
    if (clips.length) line.appendChild(element("span", "lecture-serve-title", summary(clips)));
    panel.appendChild(line);
    if (clips.length) {
      var list = element("ul");
      clips.forEach(function (clip) {
        var item = element("li");
        item.dataset.scene = clip.scene;
        item.dataset.state = clip.state;
        item.appendChild(element("span", "lecture-serve-clip", clip.title));
        var how = STATES[clip.state] || clip.state;
        if (clip.state === "rendering" && clip.started) how += ", " + elapsed(clip.started);
        if (clip.state === "failed" && clip.error) how += ": " + clip.error;
        item.appendChild(element("span", "lecture-serve-state", " " + how));
        list.appendChild(item);
      });
      panel.appendChild(list);
    }
    panel.open = open && clips.length > 0;
    panel.hidden = !waitingNote && !clips.length;
    mark(clips);
  }

  /* Mark each clip slide whose scene is being redone, on the clip itself. */
  function mark(clips) {
    var byStem = {};
    clips.forEach(function (clip) { byStem[clip.stem] = clip; });
    document.querySelectorAll(".reveal video").forEach(function (video) {
      var stem = (video.getAttribute("src") || "").split("/").pop().replace(/\.mp4$/, "");
      var label = video.parentElement.querySelector(".lecture-serve-redoing");
      var clip = byStem[stem];
      if (!clip) {
        if (label) label.remove();
        return;
      }
      if (!label) {  // over the clip's top edge, so the slide's layout stays as built
        label = element("p", "lecture-serve-redoing");
        video.insertAdjacentElement("afterend", label);
      }
      label.style.top = video.offsetTop + "px";
      label.style.left = video.offsetLeft + "px";
      label.style.width = video.offsetWidth + "px";
      label.dataset.state = clip.state;
      label.textContent = (clip.state === "rendering" || clip.state === "queued"
        ? "Being redone: " : "Out of date: ")
        + "this clip still shows the numbers of an earlier worksheet.";
    });
  }

  setInterval(function () { if (!panel.hidden) draw(latest); }, 1000);

  /* ------------------------------------------------------------ listening */

  restore();
  var source = new EventSource("/__lecture__/events");
  source.addEventListener("state", function (event) {
    var state = JSON.parse(event.data);
    if (waitingNote.indexOf("Not connected") === 0) waitingNote = "";
    if (state.deck && state.deck !== shown) {
      reload();
      return;
    }
    latest = state;
    draw(state);
  });
  source.addEventListener("error", function () {
    if (!reloading) note("Not connected to lecture serve: the deck stays as it is.");
  });
})();
