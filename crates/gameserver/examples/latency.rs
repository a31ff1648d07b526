//! Turn latency of the game server with robot clients over loopback: a turn block handed to
//! the socket → the reply read by the referee → the next block handed to a socket.
//!
//! `cargo run --release -p arbiter-gameserver --example latency [CLIENTS...]` (default: 10 100):
//! each figure is one Labyrinth session of that many greedy clients in one round, ⌈n/10⌉
//! games at once.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arbiter_games::labyrinth::Labyrinth;
use arbiter_games::{ClientEvent, Wire, WireClient};
use arbiter_gameserver::{Accounts, Latencies, ServerConfig, percentile};
use arbiter_robots::Robots;
use arbiter_store::GameServerStore;

fn client(addr: std::net::SocketAddr, team: String) {
    let stream = TcpStream::connect(addr).unwrap();
    stream.set_nodelay(true).unwrap();
    let mut writer = stream.try_clone().unwrap();
    write!(writer, "LOGIN {team} pw\n.\n").unwrap();
    let reader = BufReader::new(stream);
    let mut robot = Labyrinth::robot("greedy", 0).unwrap();
    let mut state = <Labyrinth as WireClient>::Client::default();
    let mut answer = String::new();
    for line in reader.lines() {
        let Ok(line) = line else { return };
        match Labyrinth::client_feed(&mut state, &line).unwrap() {
            ClientEvent::YourTurn(game) => {
                let action = robot.choose(&game);
                answer.clear();
                game.format_action(action, &mut answer);
                answer.push_str("\n.\n");
                writer.write_all(answer.as_bytes()).unwrap();
            }
            ClientEvent::End => return,
            _ => {}
        }
    }
}

fn session(clients: usize) {
    let dir = std::env::temp_dir().join(format!("arbiter-latency-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join(format!("latency-{clients}.db"));
    let _ = std::fs::remove_file(&db);
    let mut accounts = Accounts::default();
    let teams: Vec<String> = (0..clients).map(|i| format!("team{i}")).collect();
    for team in &teams {
        accounts.set_password(team, "pw").unwrap();
    }
    let tables = clients.div_ceil(10) as u32;
    let config = ServerConfig {
        interval: Duration::from_secs(3600),
        min_players: 4,
        max_players: 10,
        games: Some(tables),
        live: false,
        login_timeout: Duration::from_secs(60),
        start_when_idle: Some(clients),
        replays: None,
        time: None,
        robot: "greedy".into(),
        quiet: true,
        accounts_file: None,
        status: None,
    };
    let latencies = Arc::new(Latencies::default());
    arbiter_fdlimit::raise_fd_limit();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let threads: Vec<_> = teams
        .iter()
        .cloned()
        .map(|team| std::thread::spawn(move || client(addr, team)))
        .collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let started = Instant::now();
    let summary = runtime.block_on(async {
        listener.set_nonblocking(true).unwrap();
        let listener = tokio::net::TcpListener::from_std(listener).unwrap();
        let store = GameServerStore::open(db.to_str().unwrap(), "labyrinth")
            .await
            .unwrap();
        // The default settings: the level the session is at, one seat per player.
        arbiter_gameserver::serve::<Labyrinth>(
            listener,
            accounts,
            store,
            None,
            config,
            Default::default(),
            latencies.clone(),
        )
        .await
        .unwrap()
    });
    let elapsed = started.elapsed();
    for t in threads {
        t.join().unwrap();
    }
    let mut samples = latencies.take();
    let n = samples.turn_us.len();
    println!(
        "{clients} clients, {} game(s) at once: {n} client turns in {:.1} s; reply p50 {} µs p99 {} µs; \
         turn (block → reply → next block) p50 {} µs p99 {} µs",
        summary.games,
        elapsed.as_secs_f64(),
        percentile(&mut samples.reply_us, 50.0),
        percentile(&mut samples.reply_us, 99.0),
        percentile(&mut samples.turn_us, 50.0),
        percentile(&mut samples.turn_us, 99.0),
    );
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a number of clients"))
        .collect();
    let sizes = if sizes.is_empty() {
        vec![10, 100]
    } else {
        sizes
    };
    for clients in sizes {
        session(clients);
    }
}
