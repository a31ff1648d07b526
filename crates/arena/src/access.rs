//! Who may see and do what: the one place that decides it. Every handler asks here, with the
//! viewer and the object, and serves what the answer allows; nothing else decides.
//!
//! - A bot's name, game, team, version numbers, states and results are public.
//! - Its source, build logs, failure reasons, file names and the stderr (with `#draw` lines) in
//!   its replays belong to its team and the admins; the operator may make replay logs public
//!   (`public_logs`).
//! - A team's members see and add its members; an admin sees everything.
//! - Changing a bot (uploading, pinning, retiring) is for its team (and admins), and so is
//!   starting its unrated matches (challenges, the playground).
//! - A match's replay shows each seat's stderr to that seat's team only: a team sees its own
//!   bot's logs in a match against another team's bot, never the opponent's.
//! - Running the arena (pausing the ladder, freezing uploads, disabling a bot) is the admins'.

use arbiter_store::User;

use crate::error::AppError;

/// Who is asking.
#[derive(Clone, Debug)]
pub enum Viewer {
    /// Not signed in.
    Visitor,
    /// A signed-in user (by session or API token), with the ids of their teams.
    User {
        /// The user.
        user: User,
        /// Ids of the teams they belong to.
        teams: Vec<i64>,
    },
}

impl Viewer {
    /// The signed-in user, or the error asking to sign in.
    pub fn user(&self) -> Result<&User, AppError> {
        match self {
            Viewer::User { user, .. } => Ok(user),
            Viewer::Visitor => Err(AppError::sign_in()),
        }
    }

    fn is_admin(&self) -> bool {
        matches!(self, Viewer::User { user, .. } if user.admin)
    }

    fn in_team(&self, team: i64) -> bool {
        matches!(self, Viewer::User { teams, .. } if teams.contains(&team))
    }
}

/// What is looked at.
#[derive(Clone, Copy, Debug)]
pub enum Object {
    /// A bot of a team, with its versions: source, build logs and reasons are the private part.
    Bot {
        /// The bot's team.
        team: i64,
    },
    /// A replay one of whose programs is the team's: the private part is the seats' logs.
    Replay {
        /// The team whose logs are in it.
        team: i64,
    },
    /// A team: the private part is its members.
    Team {
        /// The team.
        team: i64,
    },
    /// The admin's views: users, every queue, quotas.
    Admin,
}

/// How much of an object a viewer sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sight {
    /// Nothing: the request is refused.
    Nothing,
    /// What everyone sees.
    Public,
    /// Everything, the private part too.
    Full,
}

/// What a viewer sees of an object; `public_logs` is the operator's choice to show every
/// replay's logs to everyone.
pub fn sight(viewer: &Viewer, object: Object, public_logs: bool) -> Sight {
    if viewer.is_admin() {
        return Sight::Full;
    }
    match object {
        Object::Admin => Sight::Nothing,
        Object::Replay { .. } if public_logs => Sight::Full,
        Object::Bot { team } | Object::Replay { team } | Object::Team { team } => {
            if viewer.in_team(team) {
                Sight::Full
            } else {
                Sight::Public
            }
        }
    }
}

/// Which seats' logs of a match's replay the viewer sees, from the team of each seat's bot
/// (`None`: a built-in robot, whose log tells nothing of anyone): each seat is looked at as a
/// replay of its own team's.
pub fn visible_seats(viewer: &Viewer, seat_teams: &[Option<i64>], public_logs: bool) -> Vec<bool> {
    seat_teams
        .iter()
        .map(|team| match team {
            Some(team) => sight(viewer, Object::Replay { team: *team }, public_logs) == Sight::Full,
            None => true,
        })
        .collect()
}

/// What is done.
#[derive(Clone, Copy, Debug)]
pub enum Act {
    /// Upload a version to, pin a version of, or retire a bot of `team`; or create a bot in it.
    ChangeBot {
        /// The bot's team.
        team: i64,
    },
    /// Start an unrated match or series of a bot of `team` (a challenge, the playground).
    PlayWith {
        /// The bot's team.
        team: i64,
    },
    /// Add a member to `team`.
    AddMember {
        /// The team.
        team: i64,
    },
    /// Create something of one's own (a team).
    Create,
    /// Read the private part of an object (a version's source).
    ReadPrivate(Object),
    /// Open the admin's views.
    Admin,
    /// Run the arena: pause the ladder, freeze uploads, disable a bot.
    Operate,
}

/// Whether a viewer may do `act`: `Ok`, or the error to answer (401 signed out, 403 else).
pub fn allow(viewer: &Viewer, act: Act) -> Result<(), AppError> {
    viewer.user()?;
    let allowed = match act {
        Act::Create => true,
        Act::ChangeBot { team } | Act::PlayWith { team } | Act::AddMember { team } => {
            viewer.is_admin() || viewer.in_team(team)
        }
        Act::ReadPrivate(object) => sight(viewer, object, false) == Sight::Full,
        Act::Admin | Act::Operate => viewer.is_admin(),
    };
    if allowed {
        Ok(())
    } else {
        Err(AppError::Forbidden(match act {
            Act::ChangeBot { .. } => "only the bot's team may change it".to_owned(),
            Act::PlayWith { .. } => "only the bot's team may start its matches".to_owned(),
            Act::AddMember { .. } => "only the team's members may add members".to_owned(),
            Act::ReadPrivate(_) => "only the bot's team may see this".to_owned(),
            Act::Admin | Act::Create => "only an admin may see this".to_owned(),
            Act::Operate => "only an admin may run the arena".to_owned(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(id: i64, admin: bool, teams: Vec<i64>) -> Viewer {
        Viewer::User {
            user: User {
                id,
                name: format!("u{id}"),
                admin,
                password: String::new(),
                created: 0,
            },
            teams,
        }
    }

    #[test]
    fn each_viewer_sees_what_the_rules_say() {
        let member = user(1, false, vec![10]);
        let stranger = user(2, false, vec![20]);
        let admin = user(3, true, vec![30]);
        let visitor = Viewer::Visitor;
        let bot = Object::Bot { team: 10 };
        let replay = Object::Replay { team: 10 };
        for (viewer, expected) in [
            (&member, Sight::Full),
            (&stranger, Sight::Public),
            (&visitor, Sight::Public),
            (&admin, Sight::Full),
        ] {
            assert_eq!(sight(viewer, bot, false), expected);
            assert_eq!(sight(viewer, replay, false), expected);
            assert_eq!(sight(viewer, replay, true), Sight::Full);
        }
        assert_eq!(sight(&member, Object::Admin, false), Sight::Nothing);
        // A match of ada's bot (team 10), bob's (team 20) and a robot.
        let seats = [Some(10), Some(20), None];
        assert_eq!(visible_seats(&member, &seats, false), [true, false, true]);
        assert_eq!(visible_seats(&stranger, &seats, false), [false, true, true]);
        assert_eq!(visible_seats(&visitor, &seats, false), [false, false, true]);
        assert_eq!(visible_seats(&admin, &seats, false), [true, true, true]);
        assert_eq!(visible_seats(&visitor, &seats, true), [true, true, true]);
        assert_eq!(sight(&admin, Object::Admin, false), Sight::Full);
    }

    #[test]
    fn acts_are_refused_with_401_signed_out_and_403_to_others() {
        let member = user(1, false, vec![10]);
        let stranger = user(2, false, vec![20]);
        let admin = user(3, true, vec![]);
        let change = Act::ChangeBot { team: 10 };
        assert!(allow(&member, change).is_ok());
        assert!(allow(&admin, change).is_ok());
        assert_eq!(allow(&stranger, change).unwrap_err().kind(), "forbidden");
        assert_eq!(
            allow(&Viewer::Visitor, change).unwrap_err().kind(),
            "unauthorized"
        );
        assert_eq!(
            allow(&Viewer::Visitor, Act::Create).unwrap_err().kind(),
            "unauthorized"
        );
        assert!(allow(&stranger, Act::Create).is_ok());
        assert_eq!(allow(&member, Act::Admin).unwrap_err().kind(), "forbidden");
        assert!(allow(&admin, Act::Admin).is_ok());
        let play = Act::PlayWith { team: 10 };
        assert!(allow(&member, play).is_ok() && allow(&admin, play).is_ok());
        assert_eq!(allow(&stranger, play).unwrap_err().kind(), "forbidden");
        assert_eq!(
            allow(&member, Act::Operate).unwrap_err().kind(),
            "forbidden"
        );
        assert!(allow(&admin, Act::Operate).is_ok());
        let source = Act::ReadPrivate(Object::Bot { team: 10 });
        assert!(allow(&member, source).is_ok());
        assert_eq!(allow(&stranger, source).unwrap_err().kind(), "forbidden");
    }
}
