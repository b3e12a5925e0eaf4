//! The memory bound (`--max-memory`): a global allocator that counts the
//! bytes the process holds, and the check the search makes against it.
//!
//! Written here because the bound must be checked by the search itself, at
//! the places where it grows (paths, candidates, final states), and stop it
//! with an undecided answer before the operating system or the allocator
//! aborts the process; an allocator that fails allocations (as
//! memory-limiting allocator crates do) would abort instead. The count is
//! of the whole process: in a `suite`, the checks running at that moment
//! share the bound.
//!
//! A program using vkmm as a library gets the bound by installing the
//! allocator:
//!
//! ```
//! #[global_allocator]
//! static ALLOCATOR: vkmm::memory::CountingAllocator = vkmm::memory::CountingAllocator;
//! ```
//!
//! Without it, [`in_use`] is `None` and the bound is not enforced.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};

/// The allocator the counting wraps: mimalloc where it builds (faster on
/// the engine's many small, short-lived bit matrices than the C library's
/// malloc), the system allocator on wasm32.
#[cfg(target_arch = "wasm32")]
use std::alloc::System as Inner;

/// mimalloc through its C API. Its blocks are aligned to 16 bytes when
/// at least 16 long (`MI_MAX_ALIGN_SIZE`), as the standard library's
/// `System` assumes of malloc: only a larger alignment takes the aligned
/// entry points (the `mimalloc` crate takes them for every block, which
/// cost 6% of barrier-flags-7's instructions).
#[cfg(not(target_arch = "wasm32"))]
struct Inner;

#[cfg(not(target_arch = "wasm32"))]
impl Inner {
    /// Whether a plain mimalloc block of `size` bytes is aligned to `align`.
    #[inline]
    fn plain(align: usize, size: usize) -> bool {
        align <= 16 && align <= size
    }

    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        use libmimalloc_sys::{mi_malloc, mi_malloc_aligned};
        // SAFETY: plain C calls; the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe {
            if Self::plain(layout.align(), layout.size()) {
                mi_malloc(layout.size()) as *mut u8
            } else {
                mi_malloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        use libmimalloc_sys::{mi_zalloc, mi_zalloc_aligned};
        // SAFETY: as `alloc`.
        unsafe {
            if Self::plain(layout.align(), layout.size()) {
                mi_zalloc(layout.size()) as *mut u8
            } else {
                mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from mimalloc (either entry point; `mi_free`
        // frees both).
        unsafe { libmimalloc_sys::mi_free(ptr as *mut std::ffi::c_void) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        use libmimalloc_sys::{mi_realloc, mi_realloc_aligned};
        let p = ptr as *mut std::ffi::c_void;
        // SAFETY: `ptr` came from mimalloc with `layout`; the new block
        // keeps the alignment (`plain` for the new size).
        unsafe {
            if Self::plain(layout.align(), new_size) {
                mi_realloc(p, new_size) as *mut u8
            } else {
                mi_realloc_aligned(p, new_size, layout.align()) as *mut u8
            }
        }
    }
}

static IN_USE: AtomicIsize = AtomicIsize::new(0);
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// The allocator (mimalloc; the system allocator on wasm32), counting the
/// bytes held.
pub struct CountingAllocator;

/// How far a thread's own count may drift before it is added to the
/// process's: the count is exact up to this many bytes per thread.
/// An atomic update per allocation is a visible share of a search that
/// allocates many small matrices; one per 256 KiB is not.
const BATCH: isize = 256 << 10;

thread_local! {
    /// The bytes this thread allocated minus those it freed since its
    /// last flush to [`IN_USE`] (no destructor, constant initialiser: the
    /// allocator may touch it at any time, thread exit included).
    static LOCAL: std::cell::Cell<isize> = const { std::cell::Cell::new(0) };
}

/// Adds `delta` bytes to the count: to this thread's, flushed to the
/// process's when it reaches [`BATCH`] either way (directly when the
/// thread's is gone).
#[inline]
fn count(delta: isize) {
    let flush = LOCAL.try_with(|c| {
        let v = c.get() + delta;
        if v.abs() >= BATCH {
            c.set(0);
            v
        } else {
            c.set(v);
            0
        }
    });
    match flush {
        Ok(0) => {}
        Ok(v) => {
            IN_USE.fetch_add(v, Ordering::Relaxed);
        }
        Err(_) => {
            IN_USE.fetch_add(delta, Ordering::Relaxed);
        }
    }
}

/// Marks the allocator as installed (once: a load otherwise).
#[inline]
fn installed() {
    if !INSTALLED.load(Ordering::Relaxed) {
        INSTALLED.store(true, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded to `Inner` (mimalloc, or `System` on
// wasm32) with the same arguments; the counters are a plain atomic and a
// constant-initialised thread-local cell, neither of which allocates.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged (the caller upholds `alloc`'s contract).
        let p = unsafe { Inner.alloc(layout) };
        if !p.is_null() {
            count(layout.size() as isize);
            installed();
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged.
        let p = unsafe { Inner.alloc_zeroed(layout) };
        if !p.is_null() {
            count(layout.size() as isize);
            installed();
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged (`ptr` came from this allocator, i.e. from `Inner`).
        unsafe { Inner.dealloc(ptr, layout) };
        count(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded unchanged.
        let p = unsafe { Inner.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            count(new_size as isize - layout.size() as isize);
        }
        p
    }
}

/// The bytes the process holds, when [`CountingAllocator`] is the global
/// allocator (`None` otherwise); exact up to 256 KiB per thread (each
/// thread adds its allocations to the count in batches).
pub fn in_use() -> Option<usize> {
    INSTALLED
        .load(Ordering::Relaxed)
        .then(|| IN_USE.load(Ordering::Relaxed).max(0) as usize)
}

/// Whether the process holds more than `bound` bytes (never, without a
/// bound or without the counting allocator).
pub fn over(bound: Option<usize>) -> bool {
    match (bound, in_use()) {
        (Some(b), Some(n)) => n > b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thread's allocations reach the process's count once they add up
    /// to a batch, frees alike; below a batch the count lags (by less than
    /// `BATCH` per thread, what `in_use` documents). No test binary
    /// installs the allocator, so only this test moves `IN_USE`.
    #[test]
    fn counts_reach_the_process_in_batches() {
        let at = || IN_USE.load(Ordering::Relaxed);
        let before = at();
        count(BATCH - 1);
        assert_eq!(at(), before);
        count(1);
        assert_eq!(at(), before + BATCH);
        count(-(BATCH - 1));
        assert_eq!(at(), before + BATCH);
        count(-BATCH);
        // -(2 BATCH - 1) locally: flushed.
        assert_eq!(at(), before - BATCH + 1);
        count(BATCH - 1);
        assert_eq!(at(), before - BATCH + 1, "the thread's count was 0");
        count(1);
        assert_eq!(at(), before + 1);
    }
}
