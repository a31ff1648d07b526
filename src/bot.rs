use std::io::{BufRead, Write};

use anyhow::{Context, Result, bail};
use arbiter_bots::Robots;
use arbiter_games::{ClientEvent, WireClient};
use clap::Args;

use crate::games::{GameName, dispatch};

#[derive(Args)]
pub struct BotArgs {
    game: GameName,
    /// The robot (Quoridor: random, runner or blocker).
    name: String,
    /// Seed of the robot's own random choices.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

pub fn run(args: BotArgs) -> Result<()> {
    dispatch!(args.game, G => serve::<G>(&args.name, args.seed))
}

/// Plays as a bot process: reads the referee's lines on stdin and answers on stdout, so a
/// built-in robot exercises exactly the protocol a contestant's program does.
fn serve<G: WireClient + Robots>(name: &str, seed: u64) -> Result<()> {
    let Some(mut robot) = G::robot(name, seed) else {
        bail!(
            "no robot named {name:?} for {}; there are: {}",
            G::NAME,
            G::ROBOTS.join(", ")
        );
    };
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let mut client = G::Client::default();
    let mut answer = String::new();
    for (number, line) in stdin.lines().enumerate() {
        let line = line.context("reading stdin")?;
        let event = G::client_feed(&mut client, line.trim_end())
            .map_err(|e| anyhow::anyhow!("line {} from the referee: {e}", number + 1))?;
        match event {
            ClientEvent::Pending => {}
            ClientEvent::End => return Ok(()),
            ClientEvent::Acknowledge(ack) => {
                writeln!(stdout, "{ack}")?;
                stdout.flush()?;
            }
            ClientEvent::YourTurn(game) => {
                let action = robot.choose(&game);
                answer.clear();
                game.format_action(action, &mut answer);
                answer.push('\n');
                if let Some(end) = game.answer_end() {
                    answer.push_str(end);
                    answer.push('\n');
                }
                stdout.write_all(answer.as_bytes())?;
                stdout.flush()?;
                G::client_played(&mut client, action);
            }
        }
    }
    Ok(())
}
