// The playground's Web Worker: it owns the vkmm WebAssembly module and runs
// the engine off the page's thread, so the page stays responsive, shows
// progress, and cancels a run by terminating the worker.
//
// web/build.sh prepends the wasm-bindgen glue (`--target no-modules`,
// which defines `wasm_bindgen`) to this file and hands the page the whole
// as text (worker-source.js): the page starts the worker from a Blob, which
// also works when the page is opened from disk.
//
// Messages in:  {type: "init", wasm: ArrayBuffer}
//               {type: "check", id, name, text, options}
//               {type: "explain", id, name, text, options, outcome}
//               {type: "diff", id, request, options}
// Messages out: {type: "ready", models, version}
//               {type: "progress", id, evaluations, executions, found}
//               {type: "answer", id, request, answer, ms}
//               {type: "failed", id, message}   (the module trapped)
/* global wasm_bindgen */
"use strict";

let current = null;

self.onmessage = async (event) => {
  const msg = event.data;
  try {
    if (msg.type === "init") {
      await wasm_bindgen({ module_or_path: msg.wasm });
      wasm_bindgen.setProgress((p) => {
        self.postMessage({ type: "progress", id: current, ...p });
      });
      self.postMessage({
        type: "ready",
        models: JSON.parse(wasm_bindgen.models()),
        version: wasm_bindgen.version(),
      });
      return;
    }
    current = msg.id;
    const options = JSON.stringify(msg.options || {});
    const start = performance.now();
    let answer;
    if (msg.type === "check") {
      answer = wasm_bindgen.check(msg.name, msg.text, options);
    } else if (msg.type === "explain") {
      answer = wasm_bindgen.explain(msg.name, msg.text, options, msg.outcome || "");
    } else if (msg.type === "diff") {
      answer = wasm_bindgen.diff(JSON.stringify(msg.request || {}), options);
    } else {
      throw new Error(`unknown request ${msg.type}`);
    }
    self.postMessage({
      type: "answer",
      id: msg.id,
      request: msg.type,
      answer: JSON.parse(answer),
      ms: performance.now() - start,
    });
  } catch (e) {
    self.postMessage({ type: "failed", id: msg.id, message: String((e && e.stack) || e) });
  }
};
