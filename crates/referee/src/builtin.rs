//! A robot running inside the referee, behind the same [`Seat`] interface as a bot program.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

use arbiter_games::{Clock, Robot, Wire};

use crate::seat::{Ask, Discarded, Down, ExitInfo, Line, Reply, Seat, SeatKind, cap_log};

/// A robot in process as a seat: it answers from the position, never from text.
pub struct BuiltinSeat<G> {
    name: String,
    robot: Box<dyn Robot<G>>,
    down: Option<Down>,
}

impl<G> BuiltinSeat<G> {
    /// A seat named `name` played by `robot`.
    pub fn new(name: impl Into<String>, robot: Box<dyn Robot<G>>) -> Self {
        BuiltinSeat {
            name: name.into(),
            robot,
            down: None,
        }
    }
}

impl<G: Wire> Seat<G> for BuiltinSeat<G> {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> SeatKind {
        SeatKind::Builtin
    }

    fn send(&mut self, _text: &str) -> Result<(), Down> {
        self.down.clone().map_or(Ok(()), Err)
    }

    /// Runs the robot on the referee's thread. The time it takes is charged to its bank like a
    /// process's; a robot is not interrupted at the deadline, only judged late.
    fn request(
        &mut self,
        ask: Ask<'_, G>,
        _message: &str,
        deadline: Instant,
        _discarded: &mut Vec<Discarded>,
    ) -> Reply {
        if let Some(down) = &self.down {
            return Reply::Down(down.clone());
        }
        let (game, control) = match ask {
            Ask::Turn(game, control) => (game, control),
            Ask::Ack(ack) => {
                return Reply::Answer(Line {
                    text: ack.to_owned(),
                    at: Instant::now(),
                    overlong: false,
                });
            }
        };
        // A robot bug must cost that robot the match, not bring the referee down.
        let clock = Clock {
            started: Instant::now(),
            deadline,
            control,
        };
        match catch_unwind(AssertUnwindSafe(|| self.robot.choose_in_time(game, &clock))) {
            Ok(action) => {
                let mut text = String::new();
                game.format_action(action, &mut text);
                Reply::Answer(Line {
                    text,
                    at: Instant::now(),
                    overlong: false,
                })
            }
            Err(panic) => {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                let down = Down::Disconnected {
                    error: format!("robot panicked: {message}"),
                };
                self.down = Some(down.clone());
                Reply::Down(down)
            }
        }
    }

    fn take_log(&mut self) -> String {
        let mut log = self.robot.take_log();
        cap_log(&mut log);
        log
    }

    fn close(&mut self, _deadline: Instant) -> ExitInfo {
        ExitInfo::default()
    }
}
