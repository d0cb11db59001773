//! Test support: a scripted HTTP/1.1 server on 127.0.0.1 and a stub DNS resolver.
#![allow(dead_code)]

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use specpress_fetch::DnsResolve;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A running test server.
pub struct Server {
    pub addr: SocketAddr,
    pub requests: Arc<Mutex<Vec<Request>>>,
}

impl Server {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }
    pub fn port(&self) -> u16 {
        self.addr.port()
    }
    pub fn seen(&self) -> Vec<Request> {
        self.requests.lock().expect("lock").clone()
    }
}

async fn read_request(stream: &mut TcpStream) -> Option<Request> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos;
        }
        if buf.len() > 64 * 1024 {
            return None;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_owned();
    let path = first.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < len {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(Request {
        method,
        path,
        headers,
        body,
    })
}

/// Starts a server on 127.0.0.1:0; `handler` gets each request and the connection to write to.
pub async fn serve<F, Fut>(handler: F) -> Server
where
    F: Fn(Request, TcpStream) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let requests = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&requests);
    let handler = Arc::new(handler);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let handler = Arc::clone(&handler);
            let seen = Arc::clone(&seen);
            tokio::spawn(async move {
                if let Some(req) = read_request(&mut stream).await {
                    seen.lock().expect("lock").push(req.clone());
                    handler(req, stream).await;
                }
            });
        }
    });
    Server { addr, requests }
}

/// A complete HTTP/1.1 response with Content-Length and `Connection: close`.
pub fn response(status: u16, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// Writes `bytes` and closes the connection.
pub async fn reply(mut stream: TcpStream, bytes: Vec<u8>) {
    let _ = stream.write_all(&bytes).await;
    let _ = stream.shutdown().await;
}

/// A DNS source with fixed answers that counts lookups per name.
#[derive(Default)]
pub struct StubResolver {
    answers: HashMap<String, Vec<IpAddr>>,
    pub lookups: Mutex<HashMap<String, usize>>,
    pub total: AtomicUsize,
}

impl StubResolver {
    pub fn new(entries: &[(&str, &[&str])]) -> Arc<Self> {
        let answers = entries
            .iter()
            .map(|(name, ips)| {
                let ips = ips.iter().map(|s| s.parse().expect("test ip")).collect();
                ((*name).to_owned(), ips)
            })
            .collect();
        Arc::new(Self {
            answers,
            ..Self::default()
        })
    }
    pub fn count(&self, name: &str) -> usize {
        self.lookups
            .lock()
            .expect("lock")
            .get(name)
            .copied()
            .unwrap_or(0)
    }
    pub fn total(&self) -> usize {
        self.total.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl DnsResolve for StubResolver {
    async fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        self.total.fetch_add(1, Ordering::SeqCst);
        *self
            .lookups
            .lock()
            .expect("lock")
            .entry(host.to_owned())
            .or_default() += 1;
        self.answers
            .get(host)
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such host (stub)"))
    }
}
