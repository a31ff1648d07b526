//! The one rule by which every seat that reads a bot's lines (a process's pipe, a TCP
//! connection) tells answers from late answers, extra lines and answers sent ahead.

use std::collections::VecDeque;
use std::time::Instant;

use arbiter_games::{ExtraLines, Framing, Protocol};

use crate::seat::{DiscardReason, Discarded, Line, MAX_LINE};

/// Sorts the lines a bot sends, in the order it sent them, into the answers to the referee's
/// requests and the lines that answer nothing. A seat keeps only its transport: it tells the
/// sorter when a request opens ([`AnswerSorter::open`]), when its message was fully written
/// ([`AnswerSorter::written`]), each line as it is read ([`AnswerSorter::push`]), and when the
/// request's time ran out ([`AnswerSorter::timed_out`]).
///
/// The rule, for every protocol ([`Protocol::framing`], [`Protocol::extra_lines`]):
///
/// 1. **Units.** Under [`Framing::Line`] every line is one unit; under [`Framing::Block`] the
///    lines up to the terminator are one unit, joined by `\n` without the terminator. A unit
///    is *begun* when its first line was read and *read* when its last line was.
/// 2. **Owed.** A request that timed out is owed its answer: while one is owed, the next unit
///    the bot completes is that late answer and is dropped ([`DiscardReason::Late`]), whenever
///    it comes, so a late answer is never taken for the next one (Quoridor). Under
///    [`Framing::Block`] nothing sent before a request was written answers it (Labyrinth), so
///    once a request is written nothing is owed any more.
/// 3. **Discard.** Under [`ExtraLines::Discard`] the answer to a request is the first unit,
///    not owed, begun once the request was written: a unit begun earlier was sent before the
///    bot could have read the request. Every other unit is dropped as
///    [`DiscardReason::Extra`]; so is a block begun before a request was written, as soon as it
///    was.
/// 4. **Next reply.** Under [`ExtraLines::NextReply`] the answer is the first unit not owed,
///    whenever it was sent; the units after it are kept, in order, as the answers to the next
///    requests, as a judge that reads one line per request does (Domino).
#[derive(Debug, Default)]
pub struct AnswerSorter {
    /// Requests that timed out and are owed their late answer.
    owed: usize,
    /// A block begun and not yet ended.
    partial: Option<Partial>,
    /// Answers sent ahead of their requests ([`ExtraLines::NextReply`]).
    queued: VecDeque<Line>,
    request: Request,
}

#[derive(Debug)]
struct Partial {
    block: Line,
    begun: Instant,
}

#[derive(Debug, Default)]
enum Request {
    /// Nothing asked: every line answers nothing (or is kept, under next reply).
    #[default]
    Closed,
    /// Asked, but the seat does not know yet when the message was fully written: the lines
    /// read meanwhile wait to be sorted until it does.
    Unwritten { held: Vec<Line> },
    /// Asked, the message fully written at this instant.
    Written(Instant),
}

impl AnswerSorter {
    /// A request is about to be written. Returns its answer if the bot sent it ahead
    /// ([`ExtraLines::NextReply`]): the request is then answered, though its message still goes
    /// out, as the bot reads on.
    pub fn open(&mut self, protocol: &Protocol, discarded: &mut Vec<Discarded>) -> Option<Line> {
        // A request the seat gave up on without a word (its bot went down) answers nothing.
        self.close(protocol, discarded);
        if let Some(answer) = self.queued.pop_front() {
            return Some(answer);
        }
        self.request = Request::Unwritten { held: Vec::new() };
        None
    }

    /// The open request's message was fully handed to the bot at `at`. Sorts the lines read
    /// while that was not known; returns the answer among them, if there is one.
    pub fn written(
        &mut self,
        protocol: &Protocol,
        at: Instant,
        discarded: &mut Vec<Discarded>,
    ) -> Option<Line> {
        let Request::Unwritten { held } =
            std::mem::replace(&mut self.request, Request::Written(at))
        else {
            return None;
        };
        if let Framing::Block { .. } = protocol.framing {
            self.owed = 0;
        }
        if protocol.extra_lines == ExtraLines::Discard {
            self.drop_partial(discarded);
        }
        self.push_all(protocol, held, discarded)
    }

    /// Sorts one line the bot sent; returns the answer to the open request if it completes
    /// it. The request is then closed: later lines are sorted as sent unasked.
    pub fn push(
        &mut self,
        protocol: &Protocol,
        line: Line,
        discarded: &mut Vec<Discarded>,
    ) -> Option<Line> {
        let discard = protocol.extra_lines == ExtraLines::Discard;
        if let Request::Unwritten { held } = &mut self.request
            && discard
        {
            held.push(line);
            return None;
        }
        if let (Request::Written(written), Some(partial)) = (&self.request, &self.partial)
            && discard
            && partial.begun < *written
            && line.at >= *written
        {
            self.drop_partial(discarded);
        }
        let (unit, begun) = self.assemble(protocol.framing, line)?;
        if self.owed > 0 {
            self.owed -= 1;
            discarded.push(Discarded {
                line: unit,
                why: DiscardReason::Late,
                unfinished: false,
            });
            return None;
        }
        let answers = match self.request {
            Request::Closed => false,
            Request::Unwritten { .. } => !discard,
            Request::Written(written) => !discard || begun >= written,
        };
        if answers {
            self.request = Request::Closed;
            Some(unit)
        } else if discard {
            discarded.push(Discarded {
                line: unit,
                why: DiscardReason::Extra,
                unfinished: false,
            });
            None
        } else {
            self.queued.push_back(unit);
            None
        }
    }

    /// Sorts lines read together, in order; the answer among them, if there is one.
    pub fn push_all(
        &mut self,
        protocol: &Protocol,
        lines: Vec<Line>,
        discarded: &mut Vec<Discarded>,
    ) -> Option<Line> {
        let mut answer = None;
        for line in lines {
            if let Some(line) = self.push(protocol, line, discarded) {
                answer = Some(line);
            }
        }
        answer
    }

    /// The open request got no answer in time: it is owed one, and the lines held for it
    /// answer nothing.
    pub fn timed_out(&mut self, protocol: &Protocol, discarded: &mut Vec<Discarded>) {
        self.close(protocol, discarded);
        self.owed += 1;
    }

    /// Closes the open request, if any, sorting the lines held for it as sent unasked.
    fn close(&mut self, protocol: &Protocol, discarded: &mut Vec<Discarded>) {
        if let Request::Unwritten { held } = std::mem::take(&mut self.request) {
            self.push_all(protocol, held, discarded);
        }
    }

    fn drop_partial(&mut self, discarded: &mut Vec<Discarded>) {
        if let Some(partial) = self.partial.take() {
            discarded.push(Discarded {
                line: partial.block,
                why: DiscardReason::Extra,
                unfinished: true,
            });
        }
    }

    /// Feeds one line to the framing; the unit it completes and when that unit was begun.
    fn assemble(&mut self, framing: Framing, line: Line) -> Option<(Line, Instant)> {
        let Framing::Block { terminator } = framing else {
            let begun = line.at;
            return Some((line, begun));
        };
        if line.text.trim_end_matches('\r') == terminator {
            let (mut block, begun) = match self.partial.take() {
                Some(Partial { block, begun }) => (block, begun),
                None => (
                    Line {
                        text: String::new(),
                        at: line.at,
                        overlong: false,
                    },
                    line.at,
                ),
            };
            block.at = line.at;
            return Some((block, begun));
        }
        match &mut self.partial {
            None => {
                self.partial = Some(Partial {
                    begun: line.at,
                    block: line,
                })
            }
            Some(Partial { block, .. }) => {
                block.overlong |= line.overlong;
                if block.text.len() + 1 + line.text.len() > MAX_LINE {
                    block.overlong = true;
                } else if !block.overlong {
                    block.text.push('\n');
                    block.text.push_str(&line.text);
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use arbiter_games::domino::Domino;
    use arbiter_games::labyrinth::Labyrinth;
    use arbiter_games::quoridor::Quoridor;
    use arbiter_games::{ExtraLines, Framing, Protocol, Wire};

    use super::*;

    const BLOCKS: Protocol = Labyrinth::PROTOCOL;
    const LINES: Protocol = Quoridor::PROTOCOL;
    const NEXT: Protocol = Domino::PROTOCOL;

    #[test]
    fn the_protocols_of_the_games_are_the_three_kinds_tested() {
        assert_eq!(BLOCKS.framing, Framing::Block { terminator: "." });
        assert_eq!(LINES.extra_lines, ExtraLines::Discard);
        assert_eq!(NEXT.extra_lines, ExtraLines::NextReply);
    }

    fn line(text: &str, at: Instant) -> Line {
        Line {
            text: text.to_owned(),
            at,
            overlong: false,
        }
    }

    fn reasons(discarded: &[Discarded]) -> Vec<(&str, DiscardReason)> {
        discarded
            .iter()
            .map(|d| (d.line.text.as_str(), d.why))
            .collect()
    }

    /// Regression: a late answer and the answer to the next request, read together, were taken
    /// as one answer and an extra line, so the bot stayed one answer behind for good.
    #[test]
    fn a_late_answer_and_the_next_answer_read_together_are_told_apart() {
        let mut sorter = AnswerSorter::default();
        let mut discarded = Vec::new();
        assert!(sorter.open(&LINES, &mut discarded).is_none());
        sorter.timed_out(&LINES, &mut discarded);
        let sent = Instant::now();
        assert!(sorter.open(&LINES, &mut discarded).is_none());
        assert!(sorter.written(&LINES, sent, &mut discarded).is_none());
        let at = sent + Duration::from_millis(5);
        let batch = vec![line("4 7", at), line("4 6", at), line("more", at)];
        let answer = sorter.push_all(&LINES, batch, &mut discarded);
        assert_eq!(answer.unwrap().text, "4 6");
        assert_eq!(
            reasons(&discarded),
            [("4 7", DiscardReason::Late), ("more", DiscardReason::Extra)]
        );
    }

    #[test]
    fn a_block_is_its_lines_joined_without_the_terminator() {
        let mut sorter = AnswerSorter::default();
        let mut discarded = Vec::new();
        let sent = Instant::now();
        sorter.open(&BLOCKS, &mut discarded);
        sorter.written(&BLOCKS, sent, &mut discarded);
        assert!(
            sorter
                .push(&BLOCKS, line("PUSH 0 1 2 15", sent), &mut discarded)
                .is_none()
        );
        assert!(
            sorter
                .push(&BLOCKS, line("GOTO 0 2\r", sent), &mut discarded)
                .is_none()
        );
        let block = sorter
            .push(&BLOCKS, line(".\r", sent), &mut discarded)
            .unwrap();
        assert_eq!(block.text, "PUSH 0 1 2 15\nGOTO 0 2\r");
        assert!(!block.overlong);
        assert!(discarded.is_empty());
    }

    #[test]
    fn a_block_past_the_line_limit_is_overlong() {
        let mut sorter = AnswerSorter::default();
        let mut discarded = Vec::new();
        let sent = Instant::now();
        sorter.open(&BLOCKS, &mut discarded);
        sorter.written(&BLOCKS, sent, &mut discarded);
        let long = "x".repeat(MAX_LINE / 2 + 1);
        sorter.push(&BLOCKS, line(&long, sent), &mut discarded);
        sorter.push(&BLOCKS, line(&long, sent), &mut discarded);
        let block = sorter.push(&BLOCKS, line(".", sent), &mut discarded);
        assert!(block.unwrap().overlong);
    }
}
