//! Admission of CPU-bound work: parsing, validating and diffing API documents (the engines), compressing large
//! answers (the Lambda response layer). A crate of its own so that the HTTP kit and the functions that parse nothing
//! use the process's one gate without linking the engines.
//!
//! Each job runs on the blocking pool, off the async workers, as before. What the gate adds: at most one job per
//! core runs at a time, and the others wait their turn in arrival order (tokio's semaphore is fair).
//!
//! Why a gate and not just the blocking pool: the pool starts a thread for every job, so eight concurrent deploys
//! put eight parse threads on two cores. The kernel then time-slices them with the async workers, which run the
//! requests' storage calls. A worker that is preempted while it holds the embedded engine's lock stalls every other
//! request until it runs again, and a parse that shares its core with seven others takes eight times as long to
//! finish. Both show up as the slowest few percent of requests. In the deploy benchmark (concurrency 8, 2 cores,
//! interleaved runs), the gate took p99 from 38-45 ms to 31-33 ms at the same or better throughput.
//!
//! Jobs also cannot pile up: memory held by parses in flight is bounded by the core count, not by the number of
//! concurrent requests. In AWS Lambda, where an instance serves one request at a time, the gate never waits.

use std::sync::{Arc, LazyLock};

use specpress_domain::{DomainError, Result};
use tokio::sync::Semaphore;

/// A fair limit on the CPU-bound jobs running at once.
#[derive(Debug, Clone)]
pub struct CpuGate {
    slots: Arc<Semaphore>,
    size: usize,
}

/// The process-wide gate: one slot per core the process may use.
static SHARED: LazyLock<CpuGate> =
    LazyLock::new(|| CpuGate::new(std::thread::available_parallelism().map_or(1, usize::from)));

impl CpuGate {
    /// A gate letting `slots` jobs (at least one) run at once.
    pub fn new(slots: usize) -> Self {
        let size = slots.max(1);
        CpuGate {
            slots: Arc::new(Semaphore::new(size)),
            size,
        }
    }

    /// The gate every engine of this process shares.
    pub fn shared() -> &'static CpuGate {
        &SHARED
    }

    /// How many jobs may run at once.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Waits for a slot (behind the jobs that asked first), then runs `job` on the blocking pool. The slot is held
    /// until `job` returns, even if the caller stops waiting: a job that was started always runs to its end, and
    /// the next one starts only then.
    pub async fn run<T, F>(&self, job: F) -> Result<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let slot = Arc::clone(&self.slots)
            .acquire_owned()
            .await
            .map_err(DomainError::unexpected)?;
        // The slot travels with the job's result: it is freed when the caller resumes with it, or, if the caller
        // stopped waiting, when the finished job's result is dropped.
        let (out, slot) = tokio::task::spawn_blocking(move || (job(), slot))
            .await
            .map_err(DomainError::unexpected)?;
        drop(slot);
        Ok(out)
    }
}
