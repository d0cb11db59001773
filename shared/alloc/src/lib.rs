//! The allocator of every Specpress binary.
//!
//! Every binary (the Lambda functions and `specpress`) links this crate itself (`use specpress_alloc as _;` in its
//! `main.rs`; `tests/tests/functions.rs` checks it), so the one declaration here picks their allocator: mimalloc.
//! The spec and diff engines' benchmarks link it too (as a dev-dependency; the engines themselves do not depend on
//! it), so they measure the allocator that ships. Parsing and diffing multi-MB documents builds and frees millions
//! of small nodes; under the system allocator a fifth of a `POST /diffs` went to `malloc`/`free` (perf, Stripe
//! pair).

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in mimalloc 3's `mi_option_e` (`include/mimalloc.h`, the version libmimalloc-sys 0.1.49
/// builds by default); the Rust bindings name no constant for it.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Keeps memory freed by one request mapped for the next, instead of returning it to the OS after a short delay.
///
/// A diff of two 4 MB documents frees some 150 MB of nodes; purged, that memory is faulted and zeroed again by the
/// next request (`clear_page` was 14% of the CPU of back-to-back `POST /diffs`). Kept, the process stays at its
/// high-water mark, which is what a Lambda function's memory setting has to allow for anyway. Called by the engines'
/// constructors (through [`configure_for_service`]), so every process that parses documents has it; idempotent.
pub fn retain_freed_memory() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: `mi_option_set` stores an integer option (-1: never purge); it is valid at any time, on any thread.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    });
}

/// Backs the process's memory with ordinary 4 KiB pages: no transparent huge pages (THP) from here on.
///
/// mimalloc asks the kernel for 2 MiB pages on its arenas. A huge page is resident as a whole as soon as one byte of
/// it is touched, so a document check peaks 1.5-1.9x higher with them (GitHub 12.4 MB: 62 MB against 41 MB; Stripe
/// YAML 4.0 MB: 32 MB against 21 MB). What they buy is fewer page faults the first time memory is touched: a
/// one-shot process (`specpress diff`) is up to a quarter faster with them. A service touches its memory once and
/// then reuses it ([`retain_freed_memory`]), so its steady state is as fast either way (spec benchmark medians within
/// 4%), and it keeps the smaller footprint, which is what a Lambda function's memory setting has to allow for.
/// Linux only (`prctl(PR_SET_THP_DISABLE)`, which wins over `madvise`); elsewhere, and on failure, it does nothing.
pub fn small_pages() {
    #[cfg(target_os = "linux")]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // SAFETY: PR_SET_THP_DISABLE takes an integer flag and touches no memory of ours; it sets a flag on the
            // process's address space that the kernel checks at each later page fault.
            unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
        });
    }
}

/// The memory policy of a long-running service (the Lambda functions and `specpress serve`): freed memory is kept
/// for the next request ([`retain_freed_memory`]) and backed by small pages ([`small_pages`]). Called by the engines'
/// constructors; idempotent.
pub fn configure_for_service() {
    retain_freed_memory();
    small_pages();
}

#[cfg(test)]
mod tests {
    /// `THP_enabled` of `/proc/self/status` (Linux 6.x); `None` where the kernel does not report it.
    fn thp_enabled() -> Option<bool> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = status.lines().find(|l| l.starts_with("THP_enabled:"))?;
        Some(line.split_whitespace().nth(1)? == "1")
    }

    #[test]
    fn service_policy_turns_transparent_huge_pages_off_for_the_process() {
        let Some(before) = thp_enabled() else {
            eprintln!("this kernel does not report THP_enabled; nothing to check");
            return;
        };
        super::configure_for_service();
        assert_eq!(
            thp_enabled(),
            Some(false),
            "THP_enabled was {before} before the call"
        );
        // Idempotent.
        super::configure_for_service();
        assert_eq!(thp_enabled(), Some(false));
    }
}
