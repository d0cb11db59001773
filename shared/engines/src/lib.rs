//! The engines behind the domain's [`SpecEngine`](specpress_domain::ports::SpecEngine) port, for every process that
//! parses or diffs API documents (the HTTP functions, the webhook worker's payload diffs, the local server).
//!
//! - [`engine::Engines`]: validation over `specpress-apispec`, diffs over `specpress-diff`, on the blocking pool.
//! - [`cpu::CpuGate`]: at most one CPU-bound job per core at a time, in arrival order.
//! - [`allocator`]: the global allocator of every Specpress binary and its options.

pub use specpress_alloc as allocator;
pub mod cpu;
pub mod engine;

pub use engine::Engines;
