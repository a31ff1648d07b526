//! A throw-away PostgreSQL for tests: [`Cluster::start`] runs `initdb` in a fresh temporary
//! folder and starts `postgres` on 127.0.0.1 at a free port (and on a Unix socket in that
//! folder); dropping the [`Cluster`] stops it and removes the folder.
//!
//! PostgreSQL refuses to run as root, and CI runs as root: then the cluster runs as the
//! `postgres` user when there is one, else as a system user `arbiter-pg` created for it. The
//! server runs with `fsync` off and little shared memory — its data is thrown away anyway.
//!
//! The server is started with a parent-death signal, so that it dies with the thread that
//! started it even when the test process is killed: start a cluster in the test that uses it
//! (never in a `static`, which is never dropped) and drop it there.
#![warn(missing_docs)]

mod binaries;
mod user;

use std::fs::File;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use binaries::Binaries;
use user::RunAs;

/// The superuser of every cluster, and the user of the URLs given out.
pub const USER: &str = "arbiter";

/// How long a starting server may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// Ports tried before giving up: another process may take the free port found before the
/// server binds it.
const PORT_ATTEMPTS: usize = 5;

/// A running PostgreSQL server with a data folder of its own.
pub struct Cluster {
    /// The temporary folder: the data folder, the socket and the server's log.
    dir: PathBuf,
    port: u16,
    binaries: Binaries,
    run_as: RunAs,
    server: Child,
}

impl Cluster {
    /// Creates a cluster in a new temporary folder and starts its server; the error says what
    /// failed (a missing `initdb`, the server's log when it did not start).
    pub fn start() -> Result<Cluster, String> {
        let binaries = Binaries::find()?;
        let run_as = RunAs::for_this_process()?;
        let dir = fresh_dir()?;
        let cleanup = |error: String| {
            let _ = std::fs::remove_dir_all(&dir);
            error
        };
        run_as.give(&dir).map_err(cleanup)?;
        init(&binaries, &run_as, &dir).map_err(cleanup)?;
        let mut last = String::new();
        for _ in 0..PORT_ATTEMPTS {
            let port = free_port().map_err(cleanup)?;
            match serve(&binaries, &run_as, &dir, port) {
                Ok(server) => {
                    return Ok(Cluster {
                        dir,
                        port,
                        binaries,
                        run_as,
                        server,
                    });
                }
                Err(error) => last = error,
            }
        }
        Err(cleanup(last))
    }

    /// The port the server listens on, on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The folder of the server's Unix socket.
    pub fn socket_dir(&self) -> &Path {
        &self.dir
    }

    /// The URL of the cluster's `postgres` database.
    pub fn url(&self) -> String {
        self.url_of("postgres")
    }

    /// Creates the database `name` (letters, digits and `_`) and returns its URL,
    /// `postgres://arbiter@127.0.0.1:PORT/name`.
    ///
    /// # Panics
    /// When the name is not a plain identifier or the server refuses: a test cannot go on.
    pub fn database(&self, name: &str) -> String {
        assert!(
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "database name {name:?}: letters, digits and _ only"
        );
        self.sql(&format!("CREATE DATABASE \"{name}\""))
            .unwrap_or_else(|e| panic!("creating database {name}: {e}"));
        self.url_of(name)
    }

    /// Ends every connection to database `name` (but the one asking), as a server restart or a
    /// network cut would: for tests of a dropped connection.
    ///
    /// # Panics
    /// When the server refuses.
    pub fn terminate_connections(&self, name: &str) {
        self.sql(&format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = '{}' AND pid <> pg_backend_pid()",
            name.replace('\'', "''")
        ))
        .unwrap_or_else(|e| panic!("terminating the connections to {name}: {e}"));
    }

    /// Runs SQL in the `postgres` database through `psql`; its output, or what went wrong.
    pub fn sql(&self, sql: &str) -> Result<String, String> {
        let output = Command::new(self.binaries.tool("psql"))
            .args([
                "-X",
                "-q",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-h",
                "127.0.0.1",
            ])
            .args([
                "-p",
                &self.port.to_string(),
                "-U",
                USER,
                "-d",
                "postgres",
                "-c",
                sql,
            ])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("running psql: {e}"))?;
        if output.status.success() {
            Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
        } else {
            Err(String::from_utf8_lossy(&output.stderr).trim().to_owned())
        }
    }

    /// The process id of the server (the postmaster).
    pub fn pid(&self) -> u32 {
        self.server.id()
    }

    fn url_of(&self, database: &str) -> String {
        format!("postgres://{USER}@127.0.0.1:{}/{database}", self.port)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // Immediate: the data is thrown away, there is nothing to flush.
        let _ = self
            .run_as
            .command(&self.binaries.tool("pg_ctl"))
            .args(["stop", "-m", "immediate", "-w", "-D"])
            .arg(self.dir.join("data"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        if !matches!(self.server.try_wait(), Ok(Some(_))) {
            let _ = self.server.kill();
        }
        let _ = self.server.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A new empty folder under the system's temporary folder, named for this process.
fn fresh_dir() -> Result<PathBuf, String> {
    static COUNT: AtomicU32 = AtomicU32::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!(
        "arbiter-pg-{}-{}-{nanos}",
        std::process::id(),
        COUNT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    Ok(dir)
}

/// `initdb`: a cluster whose superuser is [`USER`], trusted on local connections.
fn init(binaries: &Binaries, run_as: &RunAs, dir: &Path) -> Result<(), String> {
    let output = run_as
        .command(&binaries.tool("initdb"))
        .args([
            "--no-sync",
            "--no-locale",
            "--encoding=UTF8",
            "--auth=trust",
        ])
        .arg(format!("--username={USER}"))
        .arg("-D")
        .arg(dir.join("data"))
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("running initdb: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "initdb failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// Starts the server on `port` and waits until it accepts connections.
fn serve(binaries: &Binaries, run_as: &RunAs, dir: &Path, port: u16) -> Result<Child, String> {
    let log_path = dir.join(format!("postgres-{port}.log"));
    let log = File::create(&log_path).map_err(|e| format!("{}: {e}", log_path.display()))?;
    let log_err = log.try_clone().map_err(|e| e.to_string())?;
    let mut server = run_as
        .server_command(&binaries.tool("postgres"))
        .arg("-D")
        .arg(dir.join("data"))
        .args(["-p", &port.to_string(), "-c", "listen_addresses=127.0.0.1"])
        .arg("-c")
        .arg(format!("unix_socket_directories={}", dir.display()))
        // Speed over safety: the data dies with the test.
        .args(["-c", "fsync=off", "-c", "synchronous_commit=off"])
        .args(["-c", "full_page_writes=off", "-c", "shared_buffers=8MB"])
        // Room for load tests of many workers.
        .args(["-c", "max_connections=200"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log_err)
        .spawn()
        .map_err(|e| format!("starting postgres: {e}"))?;
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        if let Ok(Some(status)) = server.try_wait() {
            let log = std::fs::read_to_string(&log_path).unwrap_or_default();
            return Err(format!("postgres exited ({status}): {}", log.trim()));
        }
        if ready(binaries, port) {
            return Ok(server);
        }
        if Instant::now() > deadline {
            let _ = server.kill();
            let _ = server.wait();
            return Err(format!(
                "postgres did not accept connections on port {port}"
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether the server on `port` accepts connections (not merely the socket: a starting
/// server answers "the database system is starting up").
fn ready(binaries: &Binaries, port: u16) -> bool {
    TcpStream::connect(("127.0.0.1", port)).is_ok()
        && Command::new(binaries.tool("pg_isready"))
            .args(["-q", "-h", "127.0.0.1", "-p", &port.to_string(), "-U", USER])
            .status()
            .is_ok_and(|s| s.success())
}

/// A port free on 127.0.0.1 now.
fn free_port() -> Result<u16, String> {
    TcpListener::bind(("127.0.0.1", 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("finding a free port: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cluster_starts_accepts_connections_and_is_gone_after_drop() {
        let cluster = Cluster::start().unwrap();
        let url = cluster.database("scratch");
        assert_eq!(
            url,
            format!("postgres://arbiter@127.0.0.1:{}/scratch", cluster.port())
        );
        assert_eq!(cluster.url(), url.replace("/scratch", "/postgres"));
        assert_eq!(cluster.sql("SELECT 6 * 7").unwrap(), "42");
        assert!(
            cluster
                .sql("SELECT datname FROM pg_database")
                .unwrap()
                .lines()
                .any(|l| l == "scratch")
        );
        let (pid, port, dir) = (cluster.pid(), cluster.port(), cluster.dir.clone());
        assert!(dir.join("data").is_dir());
        drop(cluster);
        assert!(!Path::new(&format!("/proc/{pid}")).exists(), "server gone");
        assert!(
            TcpStream::connect(("127.0.0.1", port)).is_err(),
            "port closed"
        );
        assert!(!dir.exists(), "folder removed");
    }

    #[test]
    fn terminated_connections_are_cut() {
        let cluster = Cluster::start().unwrap();
        cluster.database("cut");
        let mut held = Command::new(cluster.binaries.tool("psql"))
            .args([
                "-X",
                "-q",
                "-h",
                "127.0.0.1",
                "-p",
                &cluster.port().to_string(),
            ])
            .args(["-U", USER, "-d", "cut", "-c", "SELECT pg_sleep(60)"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let count = "SELECT count(*) FROM pg_stat_activity WHERE datname = 'cut'";
        while cluster.sql(count).unwrap() == "0" {
            std::thread::sleep(Duration::from_millis(20));
        }
        cluster.terminate_connections("cut");
        let status = held.wait().unwrap();
        assert!(!status.success(), "the held connection was cut");
        assert_eq!(cluster.sql(count).unwrap(), "0");
    }

    #[test]
    fn clusters_run_side_by_side() {
        let (a, b) = (Cluster::start().unwrap(), Cluster::start().unwrap());
        assert_ne!(a.port(), b.port());
        a.database("same");
        b.database("same");
    }
}
