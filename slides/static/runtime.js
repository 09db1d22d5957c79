/* ONNX Runtime Web in the page, offline: shared by every slide that runs a model.
 *
 * A page opened from disk may load classic scripts but may neither fetch a file nor
 * import a module from one. So the runtime comes as classic scripts (written by
 * slides/live.py): ONNX Runtime Web (the global `ort`), its Emscripten glue as a string
 * (`LIVE_GLUE`), which the runtime imports from a blob: URL, and its WebAssembly binary
 * in base64 (`LIVE_WASM`), handed to the runtime as bytes. Nothing is fetched. The
 * runtime uses WebAssembly on one thread (no WebGPU, no SharedArrayBuffer).
 *
 * `LectureRuntime.scripts(list)` loads scripts one after the other, each once however
 * many slides ask for it; `LectureRuntime.runtime(list)` loads them and returns `ort`,
 * set up once for the page; `LectureRuntime.bytes(base64)` decodes a base64 string.
 */
(function () {
  "use strict";

  var loading = {};      // src → the promise of its script
  var configured = false;

  function script(src) {
    if (!loading[src]) {
      loading[src] = new Promise(function (resolve, reject) {
        var element = document.createElement("script");
        element.src = src;
        element.onload = resolve;
        element.onerror = function () {
          delete loading[src];
          reject(new Error("cannot load " + src));
        };
        document.head.appendChild(element);
      });
    }
    return loading[src];
  }

  function scripts(list) {
    return list.reduce(function (done, src) {
      return done.then(function () { return script(src); });
    }, Promise.resolve());
  }

  function bytes(base64) {
    if (Uint8Array.fromBase64) return Uint8Array.fromBase64(base64);
    var text = atob(base64), made = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) made[i] = text.charCodeAt(i);
    return made;
  }

  /* `ort`, once the scripts in `list` (the runtime's first) are loaded and it is set up. */
  function runtime(list) {
    return scripts(list).then(function () {
      var ort = window.ort;
      if (!configured) {
        ort.env.wasm.numThreads = 1;
        ort.env.wasm.proxy = false;
        ort.env.wasm.wasmBinary = bytes(window.LIVE_WASM);
        ort.env.wasm.wasmPaths = {
          mjs: URL.createObjectURL(new Blob([window.LIVE_GLUE], { type: "text/javascript" }))
        };
        configured = true;
      }
      return ort;
    });
  }

  window.LectureRuntime = { script: script, scripts: scripts, bytes: bytes, runtime: runtime };
})();
