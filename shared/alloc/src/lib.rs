//! The allocator of every Specpress binary.
//!
//! Every binary (the Lambda functions and `specpress`) links this crate through `specpress-api`, so the one
//! declaration here picks their allocator: mimalloc. The spec and diff engines' benchmarks link it too (as a
//! dev-dependency; the engines themselves do not depend on it), so they measure the allocator that ships. Parsing and diffing multi-MB documents builds and frees millions of small nodes; under the
//! system allocator a fifth of a `POST /diffs` went to `malloc`/`free` (perf, Stripe pair).

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
/// constructors, so every process that parses documents has it; idempotent.
pub fn retain_freed_memory() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: `mi_option_set` stores an integer option (-1: never purge); it is valid at any time, on any thread.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    });
}
