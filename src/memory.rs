//! The memory bound (`--max-memory`): a global allocator that counts the
//! bytes the process holds, and the check the search makes against it.
//!
//! Written here because the bound must be checked by the search itself, at
//! the places where it grows (paths, candidates, final states), and stop it
//! with an undecided answer before the operating system or the allocator
//! aborts the process; an allocator that fails allocations (as
//! memory-limiting allocator crates do) would abort instead. The count is
//! of the whole process: in a `suite`, the checks running at that moment
//! share the bound (a row it stopped then is checked again alone).
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

/// The bytes a block of `size` bytes holds: mimalloc serves a small or
/// medium block from a bin of a size up to an eighth larger
/// (`mi_good_size`), and those bytes are resident as much as the ones
/// asked for (counting the size asked alone lets a search that fills the
/// bound with small blocks hold up to an eighth more than the bound).
/// Alloc and free count the same figure, a function of the size alone.
/// The size itself on wasm32.
#[inline]
fn held(size: usize) -> isize {
    #[cfg(not(target_arch = "wasm32"))]
    // SAFETY: `mi_good_size` only computes a size; any argument is valid.
    let size = unsafe { mi_good_size(size) };
    size as isize
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
    /// The bytes this thread allocated since it started (frees not
    /// subtracted): [`allocated_here`].
    static ALLOCATED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The bytes the calling thread has allocated since it started, frees not
/// subtracted (0 without [`CountingAllocator`]): a measure of work that
/// does not depend on the machine's load, read by the listings' share of
/// work (`engine::trace::Work`).
pub fn allocated_here() -> u64 {
    ALLOCATED.try_with(|a| a.get()).unwrap_or(0)
}

/// Adds `delta` bytes to the count: to this thread's, flushed to the
/// process's when it reaches [`BATCH`] either way (directly when the
/// thread's is gone).
#[inline]
fn count(delta: isize) {
    if delta > 0 {
        let _ = ALLOCATED.try_with(|a| a.set(a.get() + delta as u64));
    }
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
            count(held(layout.size()));
            installed();
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged.
        let p = unsafe { Inner.alloc_zeroed(layout) };
        if !p.is_null() {
            count(held(layout.size()));
            installed();
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged (`ptr` came from this allocator, i.e. from `Inner`).
        unsafe { Inner.dealloc(ptr, layout) };
        count(-held(layout.size()));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded unchanged.
        let p = unsafe { Inner.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            count(held(new_size) - held(layout.size()));
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

/// Whether the process holds more than `bound` bytes, or more than the
/// operating system lets it hold ([`system_cap`]) whatever the bound
/// (never without the counting allocator).
///
/// What the process holds is the count plus what it does not see (the
/// program, its libraries and stacks); once that passes seven eighths of
/// the bound, also its resident memory (read at most once a millisecond): blocks freed among blocks still
/// held stay resident, so a search that allocates and frees many small
/// blocks holds more pages than it counts bytes, by a tenth on a path
/// listing over thousands of threads.
pub fn over(bound: Option<usize>) -> bool {
    let Some(n) = in_use() else {
        return false;
    };
    let over_bound = bound.is_some_and(|b| {
        let held = n.saturating_add(uncounted());
        held > b || (held > b / 8 * 7 && resident_lately().is_some_and(|r| r > b))
    });
    over_bound || system_cap().is_some_and(|c| n > c)
}

/// The process's resident memory ([`resident`]) as read at most a
/// millisecond ago: [`over`] asks near the bound at every check, and
/// reading `/proc` costs tens of microseconds.
fn resident_lately() -> Option<usize> {
    #[cfg(target_arch = "wasm32")]
    return None;
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::atomic::AtomicU64;
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        // Microseconds after `START` of the last reading (0: none yet).
        static READ_AT: AtomicU64 = AtomicU64::new(0);
        static READING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let now = START
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_micros() as u64
            + 1;
        let at = READ_AT.load(Ordering::Relaxed);
        if at == 0 || now.saturating_sub(at) >= 1000 {
            let r = resident()?;
            READING.store(r, Ordering::Relaxed);
            READ_AT.store(now, Ordering::Relaxed);
            return Some(r);
        }
        Some(READING.load(Ordering::Relaxed))
    }
}

/// What the process's resident memory holds besides the bytes counted:
/// the program, its libraries and the threads' stacks, which count
/// against `--max-memory` as well (it bounds the process). Read once, the
/// first time a bound is checked, as resident memory less the count then
/// (at most 64 MiB; 0 where the system does not say).
fn uncounted() -> usize {
    static BASE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *BASE.get_or_init(|| match (resident(), in_use()) {
        (Some(r), Some(n)) => r.saturating_sub(n).min(64 << 20),
        _ => 0,
    })
}

/// The most bytes the process may count before the operating system would
/// refuse it memory: half its address-space limit (`RLIMIT_AS`: the
/// address space also holds the program, the thread stacks and the
/// allocator's reserved but unused ranges) or nine tenths of its control
/// group's memory limit (cgroup v2 `memory.max`, v1
/// `memory.limit_in_bytes`: resident memory, of which the count misses
/// only the program and the allocator's slack), the lower; `None` when
/// neither limit is set or they cannot be read (read once, on Linux).
pub fn system_cap() -> Option<usize> {
    static CAP: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    *CAP.get_or_init(|| {
        let address = address_space_limit().map(|b| b / 2);
        let group = cgroup_limit().map(|b| b / 10 * 9);
        match (address, group) {
            (Some(a), Some(g)) => Some(a.min(g)),
            (a, g) => a.or(g),
        }
    })
}

/// The bound `bound` (`--max-memory`) as it is enforced: lowered to
/// [`system_cap`] where that is lower.
pub fn effective(bound: Option<usize>) -> Option<usize> {
    match (bound, system_cap()) {
        (Some(b), Some(c)) => Some(b.min(c)),
        (b, c) => b.or(c),
    }
}

/// `RLIMIT_AS`, from `/proc/self/limits` (`Max address space  SOFT  HARD
/// bytes`), when set.
fn address_space_limit() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with("Max address space"))?;
    let soft = line["Max address space".len()..]
        .split_whitespace()
        .next()?;
    soft.parse().ok()
}

/// The memory limit of the process's control group, when set: cgroup v2's
/// `memory.max` (`max` when unset) of the group `/proc/self/cgroup` names
/// (`0::/PATH`), or cgroup v1's `memory.limit_in_bytes` (a huge number when
/// unset, which is taken as none).
fn cgroup_limit() -> Option<usize> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let read = |p: String| -> Option<usize> {
        let t = std::fs::read_to_string(p).ok()?;
        let n: u64 = t.trim().parse().ok()?;
        // v1 spells "no limit" as the largest page-aligned i64.
        (n < (1 << 62)).then_some(n as usize)
    };
    let mut limit: Option<usize> = None;
    for line in groups.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let found = if controllers.is_empty() {
            read(format!("/sys/fs/cgroup{path}/memory.max"))
        } else if controllers.split(',').any(|c| c == "memory") {
            read(format!("/sys/fs/cgroup/memory{path}/memory.limit_in_bytes"))
                .or_else(|| read("/sys/fs/cgroup/memory/memory.limit_in_bytes".into()))
        } else {
            None
        };
        if let Some(f) = found {
            limit = Some(limit.map_or(f, |l: usize| l.min(f)));
        }
    }
    limit
}

/// The default memory bound: 4 GiB (a search's `--max-memory`, and the
/// largest input file read).
pub const DEFAULT_MAX_MEMORY: usize = 4 << 30;

/// Whether the process holds more than `bound`, the memory bound of the
/// request reading an input (its `--max-memory`; `None`: no bound but the
/// system's), or than the system lets it: for work that cannot be bounded
/// from inside (a compiler run in process), checked while it runs.
///
/// What the process holds is the count of bytes allocated with the
/// program ([`over`]) or, when larger, its resident memory (what such work
/// frees, the allocator may keep) less `retained`, the resident memory the
/// allocator kept from earlier work when the request started
/// ([`retained`]): after a search near the bound the process stays
/// resident near it while holding almost nothing, and a later request is
/// held to what it adds, not refused for those pages.
pub fn over_input_bound(bound: Option<usize>, retained: usize) -> bool {
    let bound = bound.unwrap_or(usize::MAX);
    over(Some(bound)) || resident().is_some_and(|r| r.saturating_sub(retained) > bound)
}

/// Whether `extra` more bytes would leave the process within `bound`, the
/// memory bound of the request reading an input (`None`: none), and the
/// system's: asked before a buffer of the input doubles, so that the
/// copy, which holds the old and the new buffer at once, does not
/// overshoot the bound. What the process holds is counted as in
/// [`over_input_bound`] (`retained` as there); without the counting
/// allocator, nothing is counted and the bound is left to the system.
pub fn input_bound_leaves(bound: Option<usize>, extra: usize, retained: usize) -> bool {
    let bound = bound.unwrap_or(usize::MAX);
    let cap = system_cap().map_or(bound, |c| c.min(bound));
    in_use().is_none_or(|n| {
        let resident = resident().map_or(0, |r| r.saturating_sub(retained));
        let held = n.max(resident);
        held.saturating_add(extra) <= cap
    })
}

/// The resident memory the allocator keeps beyond what the process holds
/// and its program (its code, libraries and stacks): pages earlier work freed, kept for
/// reuse (0 without the counting allocator or where the system does not
/// say). A request notes it when it starts ([`over_input_bound`]).
pub fn retained() -> usize {
    match (resident(), in_use()) {
        (Some(r), Some(n)) => r.saturating_sub(n.saturating_add(uncounted())),
        _ => 0,
    }
}

/// mimalloc's `mi_option_purge_delay` (the same place in the options of
/// its versions 2 and 3 that `libmimalloc-sys` builds).
#[cfg(not(target_arch = "wasm32"))]
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

#[cfg(not(target_arch = "wasm32"))]
unsafe extern "C" {
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    fn mi_good_size(size: usize) -> usize;
}

/// Asks the allocator to give pages freed back to the system after a
/// millisecond instead of mimalloc's default ten (and ten times that for
/// its arenas). The memory bound is held on the bytes the process holds,
/// but what a user and an address-space or cgroup limit see is the
/// resident memory: with the default delay, a search that frees one
/// phase's tables and grows the next keeps both resident for a while, and
/// its peak passes the bound's allowance. The `vkmm` binary calls this when
/// it starts; a program installing [`CountingAllocator`] may too. Nothing on
/// wasm32.
pub fn return_freed_memory_promptly() {
    #[cfg(not(target_arch = "wasm32"))]
    // SAFETY: `mi_option_set` only stores the option's value; any value of
    // the purge delay is valid (0: at once, -1: never).
    unsafe {
        mi_option_set(MI_OPTION_PURGE_DELAY, 1)
    };
}

/// The process's resident memory in bytes (`VmRSS` of
/// `/proc/self/status`), where the system says it.
fn resident() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: usize = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib << 10)
}

/// The message of a front end stopped by [`over_input_bound`]; the
/// session reports the request undecided.
pub const MEMORY_IS_UP: &str = "stopped at the memory bound (--max-memory)";

/// Why an input file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// Not a regular file (a FIFO, a device, a folder, a socket): reading
    /// it could block forever or never end.
    NotRegular(&'static str),
    /// Larger than the memory bound.
    TooLarge {
        size: u64,
        bound: usize,
    },
    Io(std::io::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::NotRegular(what) => write!(
                f,
                "not a regular file ({what}): give a file (reading it could block or never end)"
            ),
            ReadError::TooLarge { size, bound } => write!(
                f,
                "the file has at least {size} bytes, more than the memory bound ({} MiB; --max-memory)",
                bound >> 20
            ),
            ReadError::Io(e) => write!(f, "cannot read file: {e}"),
        }
    }
}

/// An input file's bytes: regular files only (a symbolic link is
/// followed), at most `bound` (the memory bound of the request reading
/// it, its `--max-memory`; `None`: no bound), lowered to [`system_cap`];
/// the size is checked as the file is read too, since a file may grow or
/// report no size. The bound travels with the request: requests running
/// side by side in one process each read under their own.
pub fn read_input(path: &std::path::Path, bound: Option<usize>) -> Result<Vec<u8>, ReadError> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind_of(&meta)));
    }
    let bound = effective(Some(bound.unwrap_or(usize::MAX))).unwrap_or(usize::MAX);
    if meta.len() > bound as u64 {
        return Err(ReadError::TooLarge {
            size: meta.len(),
            bound,
        });
    }
    let file = std::fs::File::open(path).map_err(ReadError::Io)?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(bound as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() > bound {
        return Err(ReadError::TooLarge {
            size: bytes.len() as u64,
            bound,
        });
    }
    Ok(bytes)
}

/// [`read_input`] as UTF-8 text; a file that is not UTF-8 is an error
/// naming the byte offset of its first bad byte.
pub fn read_input_text(path: &std::path::Path, bound: Option<usize>) -> Result<String, String> {
    let bytes = read_input(path, bound).map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "file is not UTF-8: invalid byte at offset {}",
            e.utf8_error().valid_up_to()
        )
    })
}

/// What a file that is not a regular file is, in words.
fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if meta.is_dir() {
        "a folder"
    } else {
        "not a file"
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
