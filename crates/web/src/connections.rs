//! Accepting connections within limits: at most so many at once (one more is answered 503 and
//! closed at once, so that it holds nothing while the server goes on answering the others), and
//! a connection that sends no complete request head for a while, whether new or kept alive
//! between requests, is closed. A response being sent (a replay, a live match) is not idle.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use crate::Limits;

/// What a connection over the cap is told before it is closed.
const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
connection: close\r\ncontent-length: 79\r\n\r\n\
{\"error\":\"the server has too many connections; try again later\",\"kind\":\"busy\"}\n";

/// How long accepting waits after failing (out of descriptors, say) before trying again.
const ACCEPT_RETRY: Duration = Duration::from_millis(50);

/// Serves `app` on `listener` until the process ends. Each request carries the address of
/// its client as axum's `ConnectInfo<SocketAddr>` (login throttling counts failures by it).
pub async fn serve(listener: TcpListener, app: Router, limits: Limits) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let mut warned = false;
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                if !std::mem::replace(&mut warned, true) {
                    eprintln!("arbiter serve: cannot accept a connection ({e}); retrying");
                }
                tokio::time::sleep(ACCEPT_RETRY).await;
                continue;
            }
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            // A best effort: the socket's buffer is empty, so this fits, or the client is gone.
            let _ = stream.try_write(BUSY);
            continue;
        };
        let app = app.clone();
        tokio::spawn(async move {
            serve_connection(stream, peer, app, limits.idle_timeout).await;
            drop(slot);
        });
    }
}

async fn serve_connection(
    stream: TcpStream,
    peer: SocketAddr,
    app: Router,
    idle_timeout: Duration,
) {
    let _ = stream.set_nodelay(true);
    let app = app.layer(axum::Extension(ConnectInfo(peer)));
    let service = TowerToHyperService::new(app);
    let connection = http1::Builder::new()
        .timer(TokioTimer::new())
        // Runs while a request head is awaited: from the start, and between the requests of a
        // kept-alive connection; not while a response is sent.
        .header_read_timeout(idle_timeout)
        .serve_connection(TokioIo::new(stream), service);
    // A client that closes or resets its connection is no failure of the server.
    let _ = connection.await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_busy_answer_is_as_long_as_it_says() {
        let text = std::str::from_utf8(BUSY).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(
            head.contains(&format!("content-length: {}", body.len())),
            "{text}"
        );
        serde_json::from_str::<serde_json::Value>(body).unwrap();
    }
}
