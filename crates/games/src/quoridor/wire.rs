//! The bot protocol of `specs/quoridor.md`, byte for byte.

use super::*;
use crate::{FaultPolicy, Wire};

impl Wire for Quoridor {
    fn start_message(&self, player: PlayerId, out: &mut String) {
        todo!()
    }
    fn turn_message(&self, player: PlayerId, out: &mut String) {
        todo!()
    }
    fn end_message(&self, _player: PlayerId, out: &mut String) {
        out.push_str("-1\n\n");
    }
    fn parse_action(&self, line: &str) -> Result<Action, String> {
        todo!()
    }
    fn format_action(&self, action: Action, out: &mut String) {
        todo!()
    }
    fn fault_policy(&self) -> FaultPolicy {
        FaultPolicy::PlayForBot
    }
    fn fault_action(&self, rng: &mut dyn rand::RngCore) -> Option<Action> {
        todo!()
    }
    fn snapshot(&self) -> serde_json::Value {
        todo!()
    }
    fn action_json(&self, action: Action) -> serde_json::Value {
        todo!()
    }
    fn settings_json(&self) -> serde_json::Value {
        serde_json::to_value(self.settings()).expect("settings serialize")
    }
}
