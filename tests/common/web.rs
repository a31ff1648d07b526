//! An `arbiter web` process for the tests that talk to it over real sockets.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

/// An `arbiter web` process, killed when dropped.
pub struct WebServer {
    child: Child,
    pub addr: SocketAddr,
}

impl WebServer {
    /// `arbiter web --replays DIR FLAGS…` on a free port.
    pub fn replays(replays: &Path, flags: &[&str]) -> WebServer {
        let mut args = vec![OsStr::new("--replays"), replays.as_os_str()];
        args.extend(flags.iter().map(OsStr::new));
        WebServer::start(&args)
    }

    /// `arbiter web ARGS…` on a free port, once it listens.
    pub fn start(args: &[&OsStr]) -> WebServer {
        let mut child = super::arbiter()
            .args(["web", "--listen", "127.0.0.1:0"])
            .args(args)
            .stdout(Stdio::piped())
            .spawn()
            .expect("arbiter web starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .trim()
            .strip_prefix("http://")
            .and_then(|rest| rest.trim_end_matches('/').parse().ok())
            .unwrap_or_else(|| panic!("arbiter web printed {line:?}"));
        WebServer { child, addr }
    }

    /// The most memory the server has held (VmHWM), in MiB.
    pub fn peak_mib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
        let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        kib >> 10
    }

    pub fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(self.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        stream
    }

    /// One request on a connection of its own: the status and the body (chunked or not, as it
    /// came: the tests look for text in it).
    pub fn get(&self, path: &str) -> (u16, String) {
        let mut stream = self.connect();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut text = String::new();
        stream.read_to_string(&mut text).unwrap();
        status_and_body(&text)
    }
}

impl Drop for WebServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn status_and_body(text: &str) -> (u16, String) {
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {text:.200}"));
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, body.to_owned())
}

/// Reads a follower's stream until a line holding `needle`.
pub fn read_until(follower: &mut BufReader<TcpStream>, needle: &str) {
    let mut line = String::new();
    loop {
        line.clear();
        let n = follower.read_line(&mut line).unwrap();
        assert!(n > 0, "the stream ended before {needle:?}");
        if line.contains(needle) {
            return;
        }
    }
}
