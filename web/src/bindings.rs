//! The functions the page's Web Worker calls (`wasm-bindgen`). Each takes
//! and returns strings: the options and the answer are JSON (see the
//! crate's documentation), so the worker passes them on unchanged.

use std::cell::RefCell;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

thread_local! {
    /// The worker's progress function (wasm32 without threads: one thread).
    static PROGRESS: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
}

/// Sets the function long checks call with their progress
/// (`{evaluations, executions, found}`); `undefined` unsets it.
#[wasm_bindgen(js_name = setProgress)]
pub fn set_progress(f: Option<js_sys::Function>) {
    PROGRESS.with(|p| *p.borrow_mut() = f);
}

fn report_progress(p: vkmm::Progress) {
    PROGRESS.with(|f| {
        if let Some(f) = f.borrow().as_ref() {
            let o = js_sys::Object::new();
            let set = |k: &str, v: f64| {
                let _ = js_sys::Reflect::set(&o, &k.into(), &v.into());
            };
            set("evaluations", p.evaluations as f64);
            set("executions", p.executions as f64);
            if let Some(n) = p.found {
                set("found", n as f64);
            }
            let _ = f.call1(&JsValue::NULL, &o);
        }
    });
}

fn options(json: &str) -> Result<crate::Options, String> {
    crate::Options::from_json(json)
        .map_err(|e| serde_json::json!({"ok": false, "error": {"message": e}}).to_string())
}

/// [`crate::check`]: `name` (its extension picks the dialect), the test's
/// text, the options as JSON; the answer as JSON.
#[wasm_bindgen]
pub fn check(name: &str, text: &str, options_json: &str) -> String {
    match options(options_json) {
        Ok(o) => crate::check(name, text, &o, Some(Arc::new(report_progress))).to_string(),
        Err(e) => e,
    }
}

/// [`crate::explain`]: `outcome` in the litmus condition syntax, or empty
/// for the test's own condition.
#[wasm_bindgen]
pub fn explain(name: &str, text: &str, options_json: &str, outcome: &str) -> String {
    let outcome = Some(outcome.trim()).filter(|o| !o.is_empty());
    match options(options_json) {
        Ok(o) => crate::explain(name, text, &o, outcome).to_string(),
        Err(e) => e,
    }
}

/// [`crate::diff`]: the request ([`crate::DiffRequest`]) and the options
/// (the timeout and execution limit apply) as JSON; the answer as JSON.
#[wasm_bindgen]
pub fn diff(request_json: &str, options_json: &str) -> String {
    let request = match serde_json::from_str::<crate::DiffRequest>(request_json) {
        Ok(r) => r,
        Err(e) => {
            return serde_json::json!({"ok": false, "error": {"message": format!("compare: {e}")}})
                .to_string();
        }
    };
    match options(options_json) {
        Ok(o) => crate::diff(&request, &o).to_string(),
        Err(e) => e,
    }
}

/// [`crate::models`] as JSON.
#[wasm_bindgen]
pub fn models() -> String {
    crate::models().to_string()
}

/// The vkmm version the module was built from.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
