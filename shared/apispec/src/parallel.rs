//! Two halves of a job at once (the two documents of a diff, the renderings of a report), on a pool of
//! long-lived threads.
//!
//! Starting threads per request cost more than their start-up: each new thread got a fresh allocator heap, so the
//! memory the previous request's threads had freed was not reused, and every `POST /diffs` faulted in (and the
//! kernel zeroed) tens of MB of new pages. The pool's threads live as long as the process, and so do their heaps.

use std::sync::OnceLock;

/// Stack of each pool thread, as a main thread's: the parser's nesting budget fits with room to spare.
const STACK_BYTES: usize = 8 * 1024 * 1024;

fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("specpress-engine-{i}"))
            .stack_size(STACK_BYTES)
            .build()
            .ok()
    })
    .as_ref()
}

/// Runs `a` and `b` at the same time (one thread per core, shared by every caller) and returns both results. A
/// panic in either is resumed on the caller. If no thread can be started, they run one after the other here.
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    match pool() {
        Some(pool) => pool.join(a, b),
        None => (a(), b()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_returns_both_results_in_order() {
        let (a, b) = join(|| 6 * 7, || "b".repeat(3));
        assert_eq!((a, b.as_str()), (42, "bbb"));
    }

    #[test]
    fn join_runs_the_halves_on_two_threads_when_the_machine_has_two_cores() {
        if std::thread::available_parallelism().map_or(1, usize::from) < 2 {
            return;
        }
        // Each half waits for the other to have started: this only returns if they run at the same time.
        let barrier = std::sync::Barrier::new(2);
        let (a, b) = join(
            || {
                barrier.wait();
                std::thread::current().id()
            },
            || {
                barrier.wait();
                std::thread::current().id()
            },
        );
        assert_ne!(a, b);
    }

    #[test]
    fn a_panic_in_either_half_reaches_the_caller() {
        let r = std::panic::catch_unwind(|| join(|| 1, || panic!("boom")));
        assert!(r.is_err());
    }

    #[test]
    fn the_pool_threads_have_room_for_deep_recursion() {
        fn depth(n: usize) -> usize {
            let pad = std::hint::black_box([0u8; 512]);
            if n == 0 {
                pad[0] as usize
            } else {
                1 + depth(n - 1)
            }
        }
        // About 5 MB of stack: more than a default 2 MiB thread has.
        let (a, _) = join(|| depth(10_000), || ());
        assert_eq!(a, 10_000);
    }
}
