//! Soak benchmark: a sustained mixed load on a real `specpress serve` process, sampling its resident memory, to
//! show whether anything grows without bound.
//!
//! `cargo bench -p specpress-e2e --bench soak` (env `BENCH_SECONDS`, default 600; `BENCH_WORKERS`, default 8;
//! `SPECPRESS_BIN`, default the release binary `target/release/specpress`, built if missing).
//!
//! The server is the shipped binary with its defaults (embedded engine persisted to a temporary data directory, the
//! in-process webhook consumers and sweeper running), except that the anonymous-diff rate limit is off (every client
//! here is one address). Each worker loops over a weighted mix: deploys (a ~60 KB document whose version and one
//! path change each time) to 16 documentations on 3 branches each, `GET /versions/{id}` (a diff), version history
//! pages (first and deep pages, cursors), `POST /diffs` + `GET /diffs/{id}` (two documents inline), public pages,
//! branch and hub lists, and webhook deliveries (4 documentations have a subscriber, a local receiver answering
//! 204). Every 10 s the server's RSS (VmRSS) is sampled; the bench prints the series, the peak, and the growth over
//! the second half of the run (MB per minute), which a bounded process keeps near zero.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use specpress_e2e::bench::{env_num, release_binary, rss_mb};

const ORG_TOKEN: &str = "soak-organization-token-0000000000";
const DOCS: usize = 16;
const BRANCHES: [&str; 3] = ["main", "next", "legacy"];

fn document(n: u64, paths: usize) -> String {
    let mut s = format!(
        "openapi: 3.0.3\ninfo:\n  title: Soak API\n  version: 1.0.{n}\n  description: A document for the soak benchmark.\npaths:\n"
    );
    for i in 0..paths {
        // One path changes name with every version: each deploy has a structural diff to compute.
        let name = if i == 0 {
            format!("rotating{}", n % 7)
        } else {
            format!("resources{i}")
        };
        s.push_str(&format!(
            "  /{name}/{{id}}:\n    get:\n      operationId: get{name}\n      summary: Fetch resource {i}\n      parameters:\n        - name: id\n          in: path\n          required: true\n          schema:\n            type: string\n        - name: expand\n          in: query\n          schema:\n            type: boolean\n      responses:\n        '200':\n          description: The resource\n          content:\n            application/json:\n              schema:\n                $ref: '#/components/schemas/Resource'\n        '404':\n          description: Not found\n"
        ));
    }
    s.push_str("components:\n  schemas:\n    Resource:\n      type: object\n      required: [id]\n      properties:\n        id:\n          type: string\n        name:\n          type: string\n");
    s
}

struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(dir: &std::path::Path) -> Server {
    let mut child = Command::new(release_binary())
        .args(["serve", "--port", "0", "--data-dir"])
        .arg(dir)
        .env("SPECPRESS_ORG_TOKEN", ORG_TOKEN)
        .env("SPECPRESS_DIFF_RATE_PER_MINUTE", "0")
        .env("SPECPRESS_ALLOW_LOOPBACK_URLS", "true")
        .env("SPECPRESS_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("specpress serve starts");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let base = loop {
        match lines.next() {
            Some(Ok(l)) => {
                if let Some(u) = l.strip_prefix("Listening on ") {
                    break u.trim().to_owned();
                }
            }
            _ => panic!("specpress serve did not start"),
        }
    };
    // Keep draining its output so it never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    Server { child, base }
}

/// A receiver answering 204 to every POST, counting them.
fn receiver(count: Arc<AtomicUsize>, stop: Arc<AtomicBool>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    listener.set_nonblocking(true).expect("nonblocking");
    std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            match listener.accept() {
                Ok((mut s, _)) => {
                    let count = count.clone();
                    std::thread::spawn(move || {
                        let _ = s.set_nonblocking(false);
                        let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
                        let mut buf = vec![0u8; 1 << 16];
                        let mut got = Vec::new();
                        // Read the head, then the body by Content-Length.
                        loop {
                            let Ok(n) = s.read(&mut buf) else { return };
                            if n == 0 {
                                return;
                            }
                            got.extend_from_slice(&buf[..n]);
                            if let Some(end) = find(&got, b"\r\n\r\n") {
                                let head = String::from_utf8_lossy(&got[..end]).to_lowercase();
                                let len: usize = head
                                    .lines()
                                    .find_map(|l| l.strip_prefix("content-length:"))
                                    .and_then(|v| v.trim().parse().ok())
                                    .unwrap_or(0);
                                while got.len() < end + 4 + len {
                                    let Ok(n) = s.read(&mut buf) else { return };
                                    if n == 0 {
                                        break;
                                    }
                                    got.extend_from_slice(&buf[..n]);
                                }
                                break;
                            }
                        }
                        count.fetch_add(1, Ordering::Relaxed);
                        let _ =
                            s.write_all(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
                    });
                }
                Err(_) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
    });
    format!("http://{addr}/hook")
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[derive(Default)]
struct Tally {
    ok: HashMap<&'static str, usize>,
    errors: HashMap<&'static str, usize>,
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let seconds: u64 = env_num("BENCH_SECONDS", 600);
    let workers: usize = env_num("BENCH_WORKERS", 8);
    let dir = tempfile::tempdir().expect("temp dir");
    let server = start(dir.path());
    let pid = server.child.id();
    let base = server.base.clone();
    let http = reqwest::Client::new();
    let auth = format!("Token {ORG_TOKEN}");

    // Documentations, each with a first version on every branch; 4 of them with a webhook subscriber.
    let hook_count = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let hook_url = receiver(hook_count.clone(), stop.clone());
    let r = http
        .post(format!("{base}/api/v1/hubs"))
        .header("Authorization", &auth)
        .json(&json!({"name": "Soak", "slug": "soak"}))
        .send()
        .await
        .expect("hub");
    assert_eq!(r.status().as_u16(), 201);
    for d in 0..DOCS {
        let slug = format!("soak-{d}");
        let r = http
            .post(format!("{base}/api/v1/docs"))
            .header("Authorization", &auth)
            .json(&json!({"name": slug, "slug": slug, "hub": "soak"}))
            .send()
            .await
            .expect("doc");
        assert_eq!(r.status().as_u16(), 201);
        if d < 4 {
            let r = http
                .post(format!("{base}/api/v1/docs/{slug}/webhooks"))
                .header("Authorization", &auth)
                .json(&json!({"url": hook_url}))
                .send()
                .await
                .expect("webhook");
            assert_eq!(r.status().as_u16(), 201, "{:?}", r.text().await);
        }
    }
    let seq = Arc::new(AtomicUsize::new(0));
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();

    // RSS sampler.
    let sampler = {
        let stop = stop.clone();
        tokio::spawn(async move {
            let mut samples = vec![(0u64, rss_mb(pid))];
            while !stop.load(Ordering::Relaxed) {
                tokio::time::sleep(Duration::from_secs(10)).await;
                samples.push((started.elapsed().as_secs(), rss_mb(pid)));
            }
            samples
        })
    };

    let mut tasks = Vec::new();
    for w in 0..workers {
        let http = http.clone();
        let base = base.clone();
        let auth = auth.clone();
        let seq = seq.clone();
        tasks.push(tokio::spawn(async move {
            let mut tally = Tally::default();
            let mut last_version: Option<String> = None;
            let mut i: u64 = w as u64;
            while Instant::now() < deadline {
                i = i.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let pick = (i >> 33) % 100;
                let d = ((i >> 20) as usize) % DOCS;
                let doc = format!("soak-{d}");
                let branch = BRANCHES[((i >> 10) as usize) % BRANCHES.len()];
                let (kind, ok): (&'static str, bool) = match pick {
                    0..=29 => {
                        let n = seq.fetch_add(1, Ordering::Relaxed) as u64;
                        let r = http
                            .post(format!("{base}/api/v1/versions"))
                            .header("Authorization", &auth)
                            .json(&json!({"documentation": doc, "branch_name": branch, "definition": document(n, 120)}))
                            .send()
                            .await;
                        let ok = match r {
                            Ok(r) if r.status().as_u16() == 201 => {
                                let v: Value = r.json().await.unwrap_or_default();
                                last_version = v["id"].as_str().map(str::to_owned);
                                true
                            }
                            Ok(r) => r.status().as_u16() == 204,
                            Err(_) => false,
                        };
                        ("deploy", ok)
                    }
                    30..=44 => match &last_version {
                        Some(v) => {
                            let r = http
                                .get(format!("{base}/api/v1/versions/{v}"))
                                .header("Authorization", &auth)
                                .send()
                                .await;
                            ("version+diff", r.is_ok_and(|r| r.status().is_success()))
                        }
                        None => continue,
                    },
                    45..=59 => {
                        let page = 1 + (i >> 40) % 20;
                        let r = http
                            .get(format!("{base}/api/v1/docs/{doc}/versions?branch={branch}&limit=5&page={page}"))
                            .header("Authorization", &auth)
                            .send()
                            .await;
                        ("history", r.is_ok_and(|r| r.status().is_success() || r.status().as_u16() == 404))
                    }
                    60..=69 => {
                        let n = seq.load(Ordering::Relaxed) as u64;
                        let r = http
                            .post(format!("{base}/api/v1/diffs"))
                            .json(&json!({"previous_definition": document(n, 80), "definition": document(n + 1, 80)}))
                            .send()
                            .await;
                        let ok = match r {
                            Ok(r) if r.status().as_u16() == 201 => {
                                let v: Value = r.json().await.unwrap_or_default();
                                let id = v["id"].as_str().unwrap_or_default().to_owned();
                                http.get(format!("{base}/api/v1/diffs/{id}?formats[]=json&formats[]=text"))
                                    .send()
                                    .await
                                    .is_ok_and(|r| r.status().is_success())
                            }
                            _ => false,
                        };
                        ("public diff", ok)
                    }
                    70..=89 => {
                        let path = if pick.is_multiple_of(2) {
                            format!("/doc/{doc}")
                        } else {
                            format!("/doc/{doc}/branches/{branch}")
                        };
                        let r = http.get(format!("{base}{path}")).send().await;
                        ("public page", r.is_ok_and(|r| r.status().is_success() || r.status().as_u16() == 404))
                    }
                    90..=94 => {
                        let r = http
                            .get(format!("{base}/api/v1/docs/{doc}/branches"))
                            .header("Authorization", &auth)
                            .send()
                            .await;
                        let ok = r.is_ok_and(|r| r.status().is_success());
                        let h = http
                            .get(format!("{base}/api/v1/hubs/soak"))
                            .header("Authorization", &auth)
                            .send()
                            .await;
                        ("lists", ok && h.is_ok_and(|r| r.status().is_success()))
                    }
                    _ => {
                        let d = d % 4;
                        let r = http
                            .get(format!("{base}/api/v1/docs/soak-{d}/webhooks"))
                            .header("Authorization", &auth)
                            .send()
                            .await;
                        ("webhooks", r.is_ok_and(|r| r.status().is_success()))
                    }
                };
                let slot = if ok { &mut tally.ok } else { &mut tally.errors };
                *slot.entry(kind).or_default() += 1;
            }
            tally
        }));
    }
    let mut ok: HashMap<&'static str, usize> = HashMap::new();
    let mut errors: HashMap<&'static str, usize> = HashMap::new();
    for t in tasks {
        if let Ok(tally) = t.await {
            for (k, v) in tally.ok {
                *ok.entry(k).or_default() += v;
            }
            for (k, v) in tally.errors {
                *errors.entry(k).or_default() += v;
            }
        }
    }
    let wall = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    let mut samples = sampler.await.unwrap_or_default();
    samples.push((wall.as_secs(), rss_mb(pid)));

    println!(
        "soak: {workers} workers for {:.0} s against {base}",
        wall.as_secs_f64()
    );
    let mut kinds: Vec<_> = ok.iter().collect();
    kinds.sort();
    for (k, v) in kinds {
        println!(
            "  {k:<13} {v:>7} ok, {:>5} errors, {:.1}/s",
            errors.get(k).copied().unwrap_or(0),
            *v as f64 / wall.as_secs_f64()
        );
    }
    println!(
        "  webhook deliveries received: {}",
        hook_count.load(Ordering::Relaxed)
    );
    println!("  RSS (MB) every 10 s:");
    for chunk in samples.chunks(6) {
        let line: Vec<String> = chunk
            .iter()
            .map(|(t, m)| format!("{t:>4}s {m:>6.1}"))
            .collect();
        println!("    {}", line.join(" | "));
    }
    let peak = samples.iter().map(|s| s.1).fold(0.0, f64::max);
    let half = samples.len() / 2;
    let (t0, m0) = samples[half];
    let (t1, m1) = *samples.last().unwrap_or(&(0, 0.0));
    let slope = if t1 > t0 {
        (m1 - m0) / ((t1 - t0) as f64 / 60.0)
    } else {
        0.0
    };
    println!(
        "  start {:.1} MB, peak {peak:.1} MB, end {m1:.1} MB; second half: {m0:.1} -> {m1:.1} MB = {slope:+.2} MB/min",
        samples[0].1
    );
}
