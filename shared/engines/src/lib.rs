//! The engines behind the domain's [`SpecEngine`](specpress_domain::ports::SpecEngine) port, for every process that
//! parses or diffs API documents (the HTTP functions, the webhook worker's payload diffs, the local server).
//!
//! - [`engine::Engines`]: validation over `specpress-apispec`, diffs over `specpress-diff`, on the blocking pool.
//! - [`cpu::CpuGate`] (`specpress-cpu`): at most one CPU-bound job per core at a time, in arrival order.
//! - [`allocator`]: the memory policy of the processes that parse documents (`specpress-alloc`; each binary links
//!   the allocator itself), applied by the engines' constructors.

pub use specpress_alloc as allocator;
/// The process's CPU gate (its own crate, `specpress-cpu`; re-exported for the engines' callers).
pub use specpress_cpu as cpu;
pub mod engine;

pub use engine::Engines;
