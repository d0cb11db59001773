//! The per-client rate limiter of the unauthenticated diff routes (`specpress_api::limit`), alone: `cargo bench -p specpress-api-diffs --bench limit`
//! (env `BENCH_CHECKS`, checks per scenario, default 2,000,000).
//!
//! Clients are taken round-robin among 1,000 addresses. Scenarios: the production quota (120 per minute, burst 30),
//! where after the bursts nearly every check is refused; a quota no client reaches, where every check passes; and
//! the production quota checked from two threads at once. Prints nanoseconds per check.

use std::time::Instant;

use specpress_api::limit::RateLimiter;

fn clients() -> Vec<String> {
    (0..1000)
        .map(|i| format!("10.{}.{}.{}", i / 65536, (i / 256) % 256, i % 256))
        .collect()
}

fn run(limiter: &RateLimiter, clients: &[String], checks: usize, offset: usize) -> usize {
    let mut refused = 0;
    for i in 0..checks {
        if limiter
            .check(&clients[(i + offset) % clients.len()])
            .is_err()
        {
            refused += 1;
        }
    }
    refused
}

fn main() {
    let checks: usize = std::env::var("BENCH_CHECKS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000_000);
    let clients = clients();
    for (label, per_minute, burst) in [
        ("production quota", 120, 30),
        ("quota never reached", u32::MAX, 1_000_000),
    ] {
        let limiter = RateLimiter::new(per_minute, burst).expect("enabled");
        let started = Instant::now();
        let refused = run(&limiter, &clients, checks, 0);
        let took = started.elapsed();
        println!(
            "{label:<28} {:>6.1} ns per check ({refused} of {checks} refused)",
            took.as_nanos() as f64 / checks as f64
        );
    }
    let limiter = RateLimiter::new(120, 30).expect("enabled");
    let started = Instant::now();
    std::thread::scope(|s| {
        for t in 0..2 {
            let (limiter, clients) = (&limiter, &clients);
            s.spawn(move || run(limiter, clients, checks / 2, t * 500));
        }
    });
    println!(
        "{:<28} {:>6.1} ns per check",
        "two threads, production",
        started.elapsed().as_nanos() as f64 / checks as f64
    );
}
