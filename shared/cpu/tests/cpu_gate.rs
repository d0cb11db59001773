//! The CPU gate: at most `size` jobs at once, started in the order they asked, and a slot outlives a caller that
//! stops waiting.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use specpress_cpu::CpuGate;

/// A job that records when it starts and how many jobs run beside it.
fn job(
    i: usize,
    running: Arc<AtomicUsize>,
    peak: Arc<AtomicUsize>,
    started: Arc<Mutex<Vec<usize>>>,
) -> impl FnOnce() -> usize + Send + 'static {
    move || {
        let now = running.fetch_add(1, Ordering::SeqCst) + 1;
        peak.fetch_max(now, Ordering::SeqCst);
        if let Ok(mut s) = started.lock() {
            s.push(i);
        }
        std::thread::sleep(Duration::from_millis(15));
        running.fetch_sub(1, Ordering::SeqCst);
        i * 10
    }
}

#[tokio::test(flavor = "current_thread")]
async fn jobs_beyond_the_gate_size_wait_and_start_in_the_order_they_asked() {
    let gate = CpuGate::new(2);
    let (running, peak) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let started = Arc::new(Mutex::new(Vec::new()));
    let mut handles = Vec::new();
    for i in 0..7 {
        let gate = gate.clone();
        let work = job(i, running.clone(), peak.clone(), started.clone());
        handles.push(tokio::spawn(async move { gate.run(work).await }));
        // Let the task ask for its slot before the next one is spawned.
        tokio::task::yield_now().await;
    }
    let mut results = Vec::new();
    for h in handles {
        results.push(h.await.expect("task").expect("job"));
    }
    assert_eq!(results, vec![0, 10, 20, 30, 40, 50, 60]);
    assert_eq!(
        peak.load(Ordering::SeqCst),
        2,
        "never more jobs at once than slots"
    );
    let order = started.lock().expect("order").clone();
    // The first two start together (either may record first); every later one starts in arrival order.
    let mut head = order[..2].to_vec();
    head.sort_unstable();
    assert_eq!(head, vec![0, 1]);
    assert_eq!(&order[2..], &[2, 3, 4, 5, 6]);
}

#[tokio::test(flavor = "current_thread")]
async fn a_caller_that_stops_waiting_keeps_its_slot_until_the_job_ends() {
    let gate = CpuGate::new(1);
    let (running, peak) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let started = Arc::new(Mutex::new(Vec::new()));
    // The first caller gives up while its job runs.
    let first = gate.run(job(0, running.clone(), peak.clone(), started.clone()));
    let abandoned = tokio::time::timeout(Duration::from_millis(1), first).await;
    assert!(abandoned.is_err(), "the caller stopped waiting");
    // The next job must not start before the abandoned one has finished.
    let second = gate
        .run(job(1, running.clone(), peak.clone(), started.clone()))
        .await
        .expect("job");
    assert_eq!(second, 10);
    assert_eq!(peak.load(Ordering::SeqCst), 1, "the jobs never overlapped");
    assert_eq!(started.lock().expect("order").clone(), vec![0, 1]);
}

#[test]
fn the_shared_gate_has_one_slot_per_available_core() {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    assert_eq!(CpuGate::shared().size(), cores);
    assert_eq!(
        CpuGate::new(0).size(),
        1,
        "a gate always lets one job through"
    );
}
