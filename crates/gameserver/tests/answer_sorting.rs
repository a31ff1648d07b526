//! One table of cases for the answer sorter, run against both seat kinds for real: a child
//! process behind a [`ProcessSeat`], and a client on a 127.0.0.1 socket behind a [`TcpSeat`].
//! Each case is a bot's script (what it sends, when it reads a request, when it pauses) and the
//! referee's requests with what each must get; both seats must sort the lines the same way.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arbiter_games::Wire;
use arbiter_games::domino::Domino;
use arbiter_games::labyrinth::Labyrinth;
use arbiter_games::quoridor::Quoridor;
use arbiter_gameserver::TcpSeat;
use arbiter_gameserver::conn::{self, Writers};
use arbiter_referee::{Ask, DiscardReason, Discarded, ProcessSeat, Reply, Seat};

/// One step of a bot's script.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// Sends this line.
    Say(&'static str),
    /// Reads one request (a line).
    Read,
    /// Waits this many milliseconds.
    Pause(u64),
}

/// What a request must get.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Expect {
    Answer(&'static str),
    Timeout,
}

/// One request of the referee: a pause before it, its time limit, what it must get.
struct Request {
    pause_ms: u64,
    limit_ms: u64,
    expect: Expect,
}

const ANSWERED: u64 = 3000;
/// Long enough for a line sent before a request to be read before it is written.
const SETTLE: u64 = 300;
/// A request that times out.
const SHORT: u64 = 300;
/// A bot that answers after the request it answers timed out and the next one went out.
const LATE: u64 = 900;

fn ask(expect: Expect) -> Request {
    Request {
        pause_ms: 0,
        limit_ms: match expect {
            Expect::Answer(_) => ANSWERED,
            Expect::Timeout => SHORT,
        },
        expect,
    }
}

fn ask_later(expect: Expect) -> Request {
    Request {
        pause_ms: SETTLE,
        ..ask(expect)
    }
}

use DiscardReason::{Extra, Late};
use Expect::{Answer, Timeout};
use Step::{Pause, Read, Say};

/// The bot's script as a shell script for a process seat; it lingers at the end, so that it is
/// not gone while the referee still asks.
fn shell_script(steps: &[Step]) -> String {
    let mut script = String::new();
    for step in steps {
        match step {
            Say(text) => script.push_str(&format!("printf '%s\\n' '{text}'; ")),
            Read => script.push_str("read -r request; "),
            Pause(ms) => script.push_str(&format!("sleep {}; ", *ms as f64 / 1000.0)),
        }
    }
    script.push_str("sleep 10");
    script
}

/// Plays `requests` on `seat`; what each got, and every line discarded, in order.
fn play<G: Wire>(
    seat: &mut dyn Seat<G>,
    requests: &[Request],
) -> (Vec<Expect>, Vec<(String, DiscardReason)>) {
    let mut got = Vec::new();
    let mut discarded: Vec<Discarded> = Vec::new();
    for request in requests {
        std::thread::sleep(Duration::from_millis(request.pause_ms));
        let deadline = Instant::now() + Duration::from_millis(request.limit_ms);
        let reply = seat.request(Ask::Ack("ok"), "REQUEST\n", deadline, &mut discarded);
        got.push(match reply {
            Reply::Answer(line) => Answer(line.text.leak()),
            Reply::Timeout => Timeout,
            Reply::Down(down) => panic!("the bot went down: {down}"),
        });
    }
    let discarded = discarded
        .into_iter()
        .map(|d| (d.line.text, d.why))
        .collect();
    (got, discarded)
}

fn on_process<G: Wire>(
    steps: &[Step],
    requests: &[Request],
) -> (Vec<Expect>, Vec<(String, DiscardReason)>) {
    let argv = ["sh".to_owned(), "-c".to_owned(), shell_script(steps)];
    let mut seat = ProcessSeat::spawn("bot", &argv, None).unwrap();
    let result = play::<G>(&mut seat, requests);
    Seat::<G>::close(&mut seat, Instant::now());
    result
}

fn on_tcp<G: Wire>(
    steps: &[Step],
    requests: &[Request],
) -> (Vec<Expect>, Vec<(String, DiscardReason)>) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let steps = steps.to_vec();
    // The client starts its script once its lines are kept: a client's lines are dropped
    // until it is seated in a game.
    let (seated, wait_seated) = std::sync::mpsc::channel::<()>();
    let client = std::thread::spawn(move || {
        let stream = TcpStream::connect(addr).unwrap();
        wait_seated.recv().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut writer = stream;
        let mut line = String::new();
        for step in steps {
            match step {
                Say(text) => writer.write_all(format!("{text}\n").as_bytes()).unwrap(),
                Read => {
                    line.clear();
                    reader.read_line(&mut line).unwrap();
                }
                Pause(ms) => std::thread::sleep(Duration::from_millis(ms)),
            }
        }
        // Until the server closes the connection.
        while reader.read_line(&mut line).is_ok_and(|n| n > 0) {}
    });
    let (stream, _) = listener.accept().unwrap();
    stream.set_nonblocking(true).unwrap();
    let conn = {
        let _runtime = runtime.enter();
        let stream = tokio::net::TcpStream::from_std(stream).unwrap();
        let (reader, writer) = conn::split(stream);
        conn::start("bot".to_owned(), reader, writer, &Writers::default())
    };
    conn.set_playing(true);
    seated.send(()).unwrap();
    let mut seat = TcpSeat::new(conn.clone(), Arc::default(), Arc::default());
    let result = play::<G>(&mut seat, requests);
    conn.drop_client("the case is over");
    client.join().unwrap();
    result
}

/// Runs one case on both seat kinds and checks both against what it must give.
fn check<G: Wire>(steps: &[Step], requests: &[Request], discarded: &[(&str, DiscardReason)]) {
    let expected: Vec<Expect> = requests.iter().map(|r| r.expect).collect();
    let discarded: Vec<(String, DiscardReason)> = discarded
        .iter()
        .map(|&(text, why)| (text.to_owned(), why))
        .collect();
    for (kind, run) in [
        ("process", on_process::<G> as fn(&[Step], &[Request]) -> _),
        ("tcp", on_tcp::<G>),
    ] {
        let (got, dropped) = run(steps, requests);
        assert_eq!(got, expected, "{kind} seat: the replies");
        assert_eq!(dropped, discarded, "{kind} seat: the lines discarded");
    }
}

// One line per answer, extra lines dropped (Quoridor).

#[test]
fn lines_an_answer_after_the_request() {
    check::<Quoridor>(&[Read, Say("4 5")], &[ask(Answer("4 5"))], &[]);
}

#[test]
fn lines_a_line_sent_before_the_request_is_extra() {
    check::<Quoridor>(
        &[Say("early"), Read, Say("4 5")],
        &[ask_later(Answer("4 5"))],
        &[("early", Extra)],
    );
}

#[test]
fn lines_a_line_after_the_answer_is_extra() {
    check::<Quoridor>(
        &[Read, Say("a"), Say("b"), Read, Say("c")],
        &[ask(Answer("a")), ask_later(Answer("c"))],
        &[("b", Extra)],
    );
}

#[test]
fn lines_a_late_answer_before_the_next_request_is_late() {
    check::<Quoridor>(
        &[Read, Pause(SHORT + 100), Say("late"), Read, Say("a")],
        &[ask(Timeout), ask_later(Answer("a"))],
        &[("late", Late)],
    );
}

/// Regression: the TCP seat forgot what a timed-out request was owed as soon as the next
/// request went out, so a late answer read after that was taken as the next answer, a bot
/// behind by one answer for good (the process seat kept it owed).
#[test]
fn lines_an_owed_answer_stays_owed_when_the_next_request_goes_out() {
    check::<Quoridor>(
        &[Read, Pause(LATE), Say("late"), Read, Say("a")],
        &[ask(Timeout), ask(Answer("a"))],
        &[("late", Late)],
    );
}

// Blocks ended by `.`, nothing sent before a request answers it (Labyrinth).

#[test]
fn blocks_an_answer_is_its_lines_joined() {
    check::<Labyrinth>(
        &[Read, Say("PUSH 1"), Say("GOTO 2"), Say(".")],
        &[ask(Answer("PUSH 1\nGOTO 2"))],
        &[],
    );
}

#[test]
fn blocks_a_whole_block_before_the_request_is_extra() {
    check::<Labyrinth>(
        &[Say("PUSH 9"), Say("."), Read, Say("PUSH 1"), Say(".")],
        &[ask_later(Answer("PUSH 1"))],
        &[("PUSH 9", Extra)],
    );
}

#[test]
fn blocks_a_block_begun_before_the_request_is_dropped_when_it_goes_out() {
    check::<Labyrinth>(
        &[Say("PUSH 9"), Read, Say("PUSH 1"), Say(".")],
        &[ask_later(Answer("PUSH 1"))],
        &[("PUSH 9", Extra)],
    );
}

#[test]
fn blocks_a_block_after_the_answer_is_extra() {
    check::<Labyrinth>(
        &[Read, Say("PUSH 1"), Say("."), Say("PUSH 2"), Say("."), Read],
        &[ask(Answer("PUSH 1")), ask_later(Timeout)],
        &[("PUSH 2", Extra)],
    );
}

#[test]
fn blocks_a_late_block_before_the_next_request_is_late() {
    check::<Labyrinth>(
        &[
            Read,
            Pause(SHORT + 100),
            Say("PUSH 7"),
            Say("."),
            Read,
            Say("PUSH 1"),
            Say("."),
        ],
        &[ask(Timeout), ask_later(Answer("PUSH 1"))],
        &[("PUSH 7", Late)],
    );
}

/// The other side of the owed rule: in a protocol of blocks nothing owed survives a request
/// being written, and a block begun after it answers it.
#[test]
fn blocks_nothing_is_owed_once_the_next_request_went_out() {
    check::<Labyrinth>(
        &[Read, Pause(LATE), Say("PUSH 7"), Say("."), Read],
        &[ask(Timeout), ask(Answer("PUSH 7"))],
        &[],
    );
}

// Extra lines are the next replies (Domino).

#[test]
fn next_reply_a_line_sent_before_the_request_answers_it() {
    check::<Domino>(&[Say("ok"), Read], &[ask_later(Answer("ok"))], &[]);
}

#[test]
fn next_reply_lines_after_the_answer_answer_the_next_requests() {
    check::<Domino>(
        &[Read, Say("a"), Say("b"), Say("c"), Read, Read],
        &[ask(Answer("a")), ask_later(Answer("b")), ask(Answer("c"))],
        &[],
    );
}

#[test]
fn next_reply_a_late_answer_is_late() {
    check::<Domino>(
        &[Read, Pause(SHORT + 100), Say("late"), Read, Say("a")],
        &[ask(Timeout), ask_later(Answer("a"))],
        &[("late", Late)],
    );
}
