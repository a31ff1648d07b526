use std::io::{BufRead, Write};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use arbiter_catalog::{Catalog, CatalogGame, TimeLimits, Visit};
use arbiter_games::{ClientEvent, Framing, OwnClock, TimeControl};
use clap::Args;

#[derive(Args)]
pub struct BotArgs {
    /// The game.
    #[arg(index = 1)]
    game: String,
    /// The robot; an unknown name is answered with the list of the game's robots.
    #[arg(index = 2)]
    name: String,
    /// Seed of the robot's own random choices.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Play on a game server at this address (HOST:PORT) instead of stdin/stdout: log in, then
    /// play every game the server starts until it ends the session.
    #[arg(long, value_name = "ADDR", requires = "team")]
    connect: Option<String>,
    /// The team to log in as (with --connect).
    #[arg(long)]
    team: Option<String>,
    /// The team's password (with --connect); from the environment variable ARBITER_PASSWORD
    /// if not given, which other users of the machine cannot see.
    #[arg(long)]
    password: Option<String>,
    /// The match's time control, which the protocols do not tell a bot; the game's own
    /// without these flags. Robots that search spend their time by it.
    #[command(flatten)]
    time: TimeLimits,
}

/// A robot of the game named, playing through `input` and `output`.
struct Bot<'a, I, O> {
    name: &'a str,
    seed: u64,
    time: &'a TimeLimits,
    input: I,
    output: O,
}

impl<I: BufRead, O: Write> Visit for Bot<'_, I, O> {
    type Output = Result<()>;

    fn visit<G: CatalogGame>(self) -> Result<()> {
        let time = self.time.time_control(G::PROTOCOL.time)?;
        play::<G>(self.name, self.seed, time, self.input, self.output)
    }
}

pub fn run<C: Catalog>(args: BotArgs) -> Result<()> {
    let time = &args.time;
    match &args.connect {
        Some(addr) => {
            let team = args.team.as_deref().expect("clap requires --team");
            let password = match &args.password {
                Some(p) => p.clone(),
                None => std::env::var("ARBITER_PASSWORD")
                    .context("--connect needs --password or ARBITER_PASSWORD")?,
            };
            let stream = std::net::TcpStream::connect(addr)
                .with_context(|| format!("cannot connect to {addr}"))?;
            let _ = stream.set_nodelay(true);
            let mut reader = std::io::BufReader::new(stream.try_clone()?);
            let mut writer = std::io::BufWriter::new(stream);
            login(&mut reader, &mut writer, team, &password)?;
            let bot = Bot {
                name: &args.name,
                seed: args.seed,
                time,
                input: reader,
                output: writer,
            };
            crate::visit::<C, _>(&args.game, bot)?
        }
        None => {
            let stdin = std::io::stdin().lock();
            let stdout = crate::out::Stdout;
            let bot = Bot {
                name: &args.name,
                seed: args.seed,
                time,
                input: stdin,
                output: stdout,
            };
            crate::visit::<C, _>(&args.game, bot)?
        }
    }
}

/// Sends the login block and reads the server's answer, up to its `.`.
fn login(
    reader: &mut impl BufRead,
    writer: &mut impl Write,
    team: &str,
    password: &str,
) -> Result<()> {
    write!(writer, "LOGIN {team} {password}\n.\n")?;
    writer.flush()?;
    let mut lines = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            bail!("the server closed the connection during the login");
        }
        let line = line.trim_end().to_owned();
        if line == "." {
            break;
        }
        lines.push(line);
    }
    match lines.first().map(String::as_str) {
        Some("MESSAGE OK") => Ok(()),
        Some(other) => bail!("the server refused the login of {team}: {other}"),
        None => bail!("the server answered the login with an empty block"),
    }
}

/// Plays as a bot: reads the referee's lines (stdin, or a server's socket) and answers (stdout,
/// or the socket), so a built-in robot exercises exactly the protocol a contestant's program
/// does.
fn play<G: CatalogGame>(
    name: &str,
    seed: u64,
    time: Option<TimeControl>,
    input: impl BufRead,
    mut stdout: impl Write,
) -> Result<()> {
    let mut clock = OwnClock::new(time.unwrap_or(G::PROTOCOL.time));
    let Some(mut robot) = G::robot(name, seed) else {
        bail!(
            "no robot named {name:?} for {}; there are: {}",
            G::NAME,
            G::ROBOTS.join(", ")
        );
    };
    let mut client = G::Client::default();
    let mut answer = String::new();
    for (number, line) in input.lines().enumerate() {
        let line = line.context("reading the referee's messages")?;
        let event = G::client_feed(&mut client, line.trim_end())
            .map_err(|e| anyhow::anyhow!("line {} from the referee: {e}", number + 1))?;
        match event {
            ClientEvent::Pending => {}
            ClientEvent::End => return Ok(()),
            ClientEvent::Acknowledge(ack) => {
                // The referee times an acknowledgement as a reply (the first one gets the
                // start-up allowance), so the bot's own clock counts it as one too.
                let request = clock.start(Instant::now());
                writeln!(stdout, "{ack}")?;
                stdout.flush()?;
                clock.answered(&request, Instant::now());
            }
            ClientEvent::YourTurn(game) => {
                let turn = clock.start(Instant::now());
                let action = robot.choose_in_time(&game, &turn);
                // Before the answer, so that the referee files the log under this turn.
                let log = robot.take_log();
                if !log.is_empty() {
                    let mut stderr = std::io::stderr().lock();
                    stderr.write_all(log.as_bytes())?;
                    stderr.flush()?;
                }
                answer.clear();
                game.format_action(action, &mut answer);
                answer.push('\n');
                if let Framing::Block { terminator } = G::PROTOCOL.framing {
                    answer.push_str(terminator);
                    answer.push('\n');
                }
                stdout.write_all(answer.as_bytes())?;
                stdout.flush()?;
                clock.answered(&turn, Instant::now());
                G::client_played(&mut client, action);
            }
        }
    }
    Ok(())
}
