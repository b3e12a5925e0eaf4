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

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// The system allocator, counting the bytes held.
pub struct CountingAllocator;

// SAFETY: every call is forwarded to `System` with the same arguments; the
// counters are plain atomics and never allocate.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged (the caller upholds `alloc`'s contract).
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            IN_USE.fetch_add(layout.size(), Ordering::Relaxed);
            INSTALLED.store(true, Ordering::Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            IN_USE.fetch_add(layout.size(), Ordering::Relaxed);
            INSTALLED.store(true, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged (`ptr` came from this allocator, i.e. from `System`).
        unsafe { System.dealloc(ptr, layout) };
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded unchanged.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                IN_USE.fetch_add(new_size - layout.size(), Ordering::Relaxed);
            } else {
                IN_USE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

/// The bytes the process holds, when [`CountingAllocator`] is the global
/// allocator (`None` otherwise).
pub fn in_use() -> Option<usize> {
    INSTALLED
        .load(Ordering::Relaxed)
        .then(|| IN_USE.load(Ordering::Relaxed))
}

/// Whether the process holds more than `bound` bytes (never, without a
/// bound or without the counting allocator).
pub fn over(bound: Option<usize>) -> bool {
    match (bound, in_use()) {
        (Some(b), Some(n)) => n > b,
        _ => false,
    }
}
