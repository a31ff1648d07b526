//! Setting up a tournament: its players (folders and robots), format, rounds and challenger,
//! the compliance check, and the settings stored with it so that it resumes as it started.

use std::path::{Path, PathBuf};

use arbiter_catalog::{CatalogGame, TimeLimits, robot_list};
use arbiter_referee::Commands;
use arbiter_sandbox::SandboxPolicy;

use crate::TournamentError;
use crate::arena::GameArena;
use crate::compliance;
use crate::plan::initial_matches;
use crate::play::Arena;
use crate::players::{self, Contestant, Status};
use crate::programs;
use crate::schedule::Format;
use crate::settings::StoredSettings;
use crate::sprt::{ROUNDS_AHEAD, SprtPlan};
use arbiter_store::blocking::Store;
use arbiter_store::{Tournament, now_ms};

/// What a new tournament is made of (the flags of `arbiter tournament run`).
#[derive(Clone, Debug)]
pub struct NewTournament<S> {
    /// The folder of player folders, if any.
    pub dir: Option<PathBuf>,
    /// More players: `builtin:NAME` or a player folder.
    pub add: Vec<String>,
    /// Players whose programs the store holds already, built and checked where they were
    /// handed in (an arena's versions, see [`programs::stored_player`]): they are not checked
    /// again, and their programs not stored again.
    pub stored: Vec<Contestant>,
    /// The name the organiser gives the tournament, if any.
    pub name: Option<String>,
    /// The format; by default round-robin for 2-player games, groups otherwise.
    pub format: Option<Format>,
    /// Rounds (Swiss default: log2 of the players, rounded up; others 1).
    pub rounds: Option<u32>,
    /// The player a gauntlet pits against all others.
    pub challenger: Option<String>,
    /// The tournament seed.
    pub seed: u64,
    /// Where replays go (default: next to a SQLite store).
    pub replays: Option<PathBuf>,
    /// Players that fail the compliance check play anyway.
    pub keep_failing: bool,
    /// Tries of a match that fails because of Arbiter or the machine.
    pub attempts: u32,
    /// Matches (and compliance checks) at once.
    pub jobs: usize,
    /// The game's settings.
    pub settings: S,
    /// The time limits.
    pub time: TimeLimits,
    /// Whether and how bot programs are sandboxed.
    pub sandbox: SandboxPolicy,
    /// The largest player folder stored, in MiB once compressed (`--max-program-mb`).
    pub max_program_mb: u64,
    /// An SPRT between the two players of `add` (A first), with format [`Format::Sprt`]; its
    /// `players` are filled in here.
    pub sprt: Option<SprtPlan>,
    /// How the commands of player folders are run.
    pub commands: Commands,
}

/// The arena of a stored tournament of game `G`, as it was created.
pub fn stored_arena<G: CatalogGame>(t: &Tournament) -> Result<GameArena<G>, TournamentError> {
    let stored = StoredSettings::<G::Settings>::of(t)?;
    let sandbox = stored.sandbox.open().map_err(|e| setup(e.to_string()))?;
    let arena =
        GameArena::new(stored.flags, &stored.time, sandbox).map_err(|e| setup(e.to_string()))?;
    Ok(match t.format {
        Format::Sprt => arena.with_a_board_per_seed(),
        _ => arena,
    })
}

/// What happens while a tournament is set up, for the caller to tell.
#[derive(Debug)]
pub enum Note<'a> {
    /// A folder that is not a player is skipped.
    Skipped(&'a Contestant),
    /// This many player programs are being checked.
    Checking(usize),
    /// A player failed the compliance check (and plays anyway if `Status::Kept`).
    Failed(&'a Contestant),
    /// A player passed the compliance check, but its first move there was against the rules.
    Warned {
        /// The player.
        player: &'a Contestant,
        /// The move and why it was refused.
        why: &'a str,
    },
    /// A player's folder has links pointing outside it: they are stored as written, and work
    /// on a machine only where their target exists.
    OutsideLinks {
        /// The player.
        player: &'a Contestant,
        /// The links, as paths inside the folder.
        links: &'a [PathBuf],
    },
}

/// A tournament set up and stored, ready for [`crate::pool::run`].
pub struct Created<G: CatalogGame> {
    /// The tournament as stored.
    pub tournament: Tournament,
    /// What plays its matches.
    pub arena: GameArena<G>,
    /// The players that play.
    pub playing: usize,
}

/// Sets up a tournament of game `G` in `store`: gathers and checks the players, plans the
/// first matches, and stores it all.
pub fn create<G: CatalogGame>(
    store: &Store,
    db: &str,
    mut new: NewTournament<G::Settings>,
    on_note: &mut dyn FnMut(Note<'_>),
) -> Result<Created<G>, TournamentError> {
    let base = replays_base(new.replays.as_deref(), store, db)?;
    let hidden = contest_folders(&new, store, &base);
    new.sandbox = std::mem::take(&mut new.sandbox).hiding(hidden);
    let arena = new_arena::<G>(&mut new)?;
    let per_match = arena.players_per_match();
    let mut players = match &mut new.sprt {
        Some(plan) => sprt_players::<G>(plan, &new.add, per_match, new.commands)?,
        None => gather_players::<G>(
            new.dir.as_deref(),
            &new.add,
            std::mem::take(&mut new.stored),
            new.commands,
        )?,
    };
    refuse_large_folders(&mut players, &new.sandbox);
    for p in players.iter().filter(|p| p.status == Status::Invalid) {
        on_note(Note::Skipped(p));
    }
    let format = match new.sprt {
        Some(_) => Format::Sprt,
        None => choose_format(new.format, per_match)?,
    };
    let challenger = find_challenger(&players, new.challenger.as_deref(), format)?;
    // The compliance check writes its replays before the store numbers the tournament: in a
    // folder of this process, named for the tournament once it has its number.
    let checks = base.join(format!(".checking-{}", std::process::id()));
    create_folder(&checks)?;
    check(&arena, &mut players, &new, &checks, on_note);
    store_programs(store, &mut players, new.max_program_mb, on_note)?;
    check_needed_play(&players, challenger.as_deref(), new.sprt.as_ref())?;
    let playing = players.iter().filter(|p| p.status.plays()).count();
    let rounds = rounds_of(&new, format, playing)?;
    let stored = StoredSettings {
        flags: new.settings,
        time: new.time,
        replays: PathBuf::new(),
        challenger: challenger.clone(),
        keep_failing: new.keep_failing,
        attempts: new.attempts,
        sandbox: new.sandbox,
        sprt: new.sprt.clone(),
    };
    let mut t = Tournament {
        id: 0,
        game: G::NAME.to_owned(),
        format,
        seed: new.seed,
        rounds,
        players_per_match: per_match,
        settings: serde_json::Value::Null,
        created: now_ms(),
        finished: None,
        max_attempts: new.attempts,
        name: new.name,
    };
    let (matches, bye) = match &new.sprt {
        Some(plan) => (
            plan.matches(t.seed, 1..=ROUNDS_AHEAD.min(plan.rounds())),
            None,
        ),
        None => initial_matches(&t, &players, challenger.as_deref())?,
    };
    let bye = bye
        .as_ref()
        .map(|(round, player)| (*round, player.as_str()));
    let settings_of = |id: i64| {
        let stored = StoredSettings {
            replays: base.join(format!("t{id}")),
            ..stored.clone()
        };
        serde_json::to_value(&stored).expect("settings are plain values")
    };
    t.id = store.create(&t, &settings_of, &players, &matches, bye)?;
    t.settings = settings_of(t.id);
    move_checks(&checks, &base.join(format!("t{}", t.id)))?;
    Ok(Created {
        tournament: t,
        arena,
        playing,
    })
}

/// The folders of a new tournament no bot may see, stored with it so that every worker hides
/// them: the store's, the players', each added player's parent, the replays'.
fn contest_folders<S>(new: &NewTournament<S>, store: &Store, replays: &Path) -> Vec<PathBuf> {
    // The folder of a bare file name is the current folder, made absolute by `hiding`.
    let folder_of = |file: &Path| match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let added = new
        .add
        .iter()
        .filter(|a| !a.starts_with("builtin:"))
        .map(|a| folder_of(Path::new(a)));
    store
        .file()
        .map(folder_of)
        .into_iter()
        .chain(new.dir.clone())
        .chain(added)
        .chain([replays.to_path_buf()])
        .collect()
}

/// The arena of a new tournament. Games that draw their board (Domino) draw it from the
/// tournament seed, and every match of the tournament is played on it: the two games of a
/// pairing share their board. An SPRT draws one for each pair of games, from the pair's seed.
fn new_arena<G: CatalogGame>(
    new: &mut NewTournament<G::Settings>,
) -> Result<GameArena<G>, TournamentError> {
    if let Some(seed) = G::board_seed(&mut new.settings)
        && new.sprt.is_none()
    {
        seed.get_or_insert(new.seed);
    }
    let sandbox = new.sandbox.open().map_err(|e| setup(e.to_string()))?;
    let arena = GameArena::<G>::new(new.settings.clone(), &new.time, sandbox)
        .map_err(|e| setup(e.to_string()))?;
    Ok(match new.sprt {
        Some(_) => arena.with_a_board_per_seed(),
        None => arena,
    })
}

/// Keeps out, before any match, the players whose folder is over the sandbox's folder limits
/// (the sandbox would refuse to copy it for each of their matches), as invalid folders are.
fn refuse_large_folders(players: &mut [Contestant], sandbox: &SandboxPolicy) {
    for p in players.iter_mut().filter(|p| p.status == Status::Ok) {
        if let Some(folder) = &p.folder
            && let Err(error) = sandbox.check_folder(folder)
        {
            p.status = Status::Invalid;
            p.reason = Some(error.to_string());
        }
    }
}

/// The players a tournament cannot do without, a gauntlet's challenger and an SPRT's two,
/// must play after the compliance check.
fn check_needed_play(
    players: &[Contestant],
    challenger: Option<&str>,
    sprt: Option<&SprtPlan>,
) -> Result<(), TournamentError> {
    if let Some(c) = challenger
        && !players.iter().any(|p| p.id == c && p.status.plays())
    {
        return Err(setup(format!(
            "the challenger {c} does not play: it failed the compliance check, or its folder \
             could not be stored (see above)"
        )));
    }
    if let Some(plan) = sprt
        && players.iter().filter(|p| p.status.plays()).count() < 2
    {
        return Err(setup(format!(
            "an SPRT needs both {} and {} to play: one failed the compliance check, or its \
             folder could not be stored (see above)",
            plan.specs[0], plan.specs[1]
        )));
    }
    Ok(())
}

/// The rounds of a new tournament: as given, or the format's default (Swiss: log2 of the
/// players, rounded up; an SPRT: enough for its most pairs).
fn rounds_of<S>(
    new: &NewTournament<S>,
    format: Format,
    playing: usize,
) -> Result<u32, TournamentError> {
    let rounds = new.rounds.unwrap_or(match (&new.sprt, format) {
        (Some(plan), _) => plan.rounds(),
        (None, Format::Swiss) => (playing.max(2) as f64).log2().ceil() as u32,
        (None, _) => 1,
    });
    if rounds == 0 {
        return Err(setup("--rounds must be at least 1".into()));
    }
    Ok(rounds)
}

fn setup(message: String) -> TournamentError {
    TournamentError::TableSetup(message)
}

/// Runs the compliance check on the player programs, telling who failed.
fn check<G: CatalogGame>(
    arena: &GameArena<G>,
    players: &mut [Contestant],
    new: &NewTournament<G::Settings>,
    replays: &Path,
    on_note: &mut dyn FnMut(Note<'_>),
) {
    let to_check = players
        .iter()
        .filter(|p| compliance::needs_check(p))
        .count();
    if to_check > 0 {
        on_note(Note::Checking(to_check));
    }
    let warnings = compliance::check_players(arena, players, new.jobs, replays, new.keep_failing);
    for (i, why) in &warnings {
        on_note(Note::Warned {
            player: &players[*i],
            why,
        });
    }
    for p in players
        .iter()
        .filter(|p| matches!(p.status, Status::Failing | Status::Kept))
    {
        on_note(Note::Failed(p));
    }
}

/// Stores the program of every player that plays and has none stored yet, its hash on the
/// player, so that workers on any machine run it (see [`crate::programs`]). A folder that
/// cannot be stored (too large, a special file, unreadable) keeps its player out, as an
/// invalid folder does.
fn store_programs(
    store: &Store,
    players: &mut [Contestant],
    max_mb: u64,
    on_note: &mut dyn FnMut(Note<'_>),
) -> Result<(), TournamentError> {
    for p in players
        .iter_mut()
        .filter(|p| p.status.plays() && p.is_process() && p.program.is_none())
    {
        match programs::store_program(store, p, max_mb)? {
            Ok((hash, links)) => {
                p.program = Some(hash);
                if !links.is_empty() {
                    on_note(Note::OutsideLinks {
                        player: p,
                        links: &links,
                    });
                }
            }
            Err(error) => {
                p.status = Status::Invalid;
                p.reason = Some(error.to_string());
                on_note(Note::Skipped(p));
            }
        }
    }
    Ok(())
}

/// The format given, or the default for the number of players a match has.
fn choose_format(given: Option<Format>, per_match: usize) -> Result<Format, TournamentError> {
    let format = match given {
        Some(f) => f,
        None if per_match == 2 => Format::RoundRobin,
        None => Format::Groups,
    };
    if format == Format::Swiss && per_match != 2 {
        return Err(setup(format!(
            "Swiss pairs two players, but this game has {per_match} players a match: use \
             --format groups or round-robin"
        )));
    }
    Ok(format)
}

/// The id of a gauntlet's challenger; only a gauntlet has one, and it must.
fn find_challenger(
    players: &[Contestant],
    name: Option<&str>,
    format: Format,
) -> Result<Option<String>, TournamentError> {
    match (name, format) {
        (Some(name), Format::Gauntlet) => Ok(Some(
            players::find(players, name)
                .ok_or_else(|| setup(format!("--challenger {name}: no such player")))?
                .id
                .clone(),
        )),
        (None, Format::Gauntlet) => Err(setup("a gauntlet needs --challenger PLAYER".into())),
        (Some(_), _) => Err(setup("--challenger is for --format gauntlet".into())),
        (None, _) => Ok(None),
    }
}

/// The folder the replays of a new tournament go under (in `t{id}`): `given`, DB-replays/
/// next to a SQLite file, or for a database server this machine's cache (workers store their
/// replays in the database too).
fn replays_base(given: Option<&Path>, store: &Store, db: &str) -> Result<PathBuf, TournamentError> {
    Ok(match (given, store.file()) {
        (Some(dir), _) => std::path::absolute(dir).map_err(io(format!("{}", dir.display())))?,
        (None, Some(file)) => {
            let stem = file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "tournament".into());
            file.with_file_name(format!("{stem}-replays"))
        }
        (None, None) => replays_cache(db),
    })
}

/// The folder of this machine's cache that holds the replay files of a database server's
/// matches and games (which it keeps too), under `db`'s host, port and database.
pub fn replays_cache(db: &str) -> PathBuf {
    crate::cache_dir().join("replays").join(file_safe(db))
}

/// A database URL as a folder name: its host, port and database, without the password.
fn file_safe(db: &str) -> String {
    let place = db.rsplit('@').next().unwrap_or(db);
    let place = place.split('?').next().unwrap_or(place);
    place
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn create_folder(dir: &Path) -> Result<(), TournamentError> {
    std::fs::create_dir_all(dir).map_err(io(format!("creating {}", dir.display())))
}

/// Moves the compliance check's replays into the tournament's folder.
fn move_checks(checks: &Path, replays: &Path) -> Result<(), TournamentError> {
    if std::fs::rename(checks, replays).is_ok() {
        return Ok(());
    }
    // The folder is there already (left by a store that was deleted): the files move one by
    // one, replacing old ones.
    create_folder(replays)?;
    let entries = std::fs::read_dir(checks).map_err(io(format!("reading {}", checks.display())))?;
    for entry in entries.flatten() {
        let to = replays.join(entry.file_name());
        std::fs::rename(entry.path(), &to).map_err(io(format!("moving to {}", to.display())))?;
    }
    std::fs::remove_dir(checks).map_err(io(format!("removing {}", checks.display())))
}

fn io(what: String) -> impl FnOnce(std::io::Error) -> TournamentError {
    move |source| TournamentError::Io { what, source }
}

/// The players of a folder, those added with `--add` and those `stored` already, each id
/// once.
pub fn gather_players<G: CatalogGame>(
    dir: Option<&Path>,
    add: &[String],
    stored: Vec<Contestant>,
    commands: Commands,
) -> Result<Vec<Contestant>, TournamentError> {
    let mut players = match dir {
        Some(dir) => players::discover(dir, commands)?,
        None => Vec::new(),
    };
    for name in add {
        let player = added_player::<G>("--add", name, commands)?;
        join(&mut players, player, &format!("--add {name}"))?;
    }
    for player in stored {
        join(&mut players, player, "a stored program")?;
    }
    if players.is_empty() {
        return Err(setup(
            "no players: give a folder of player folders, or --add builtin:NAME".into(),
        ));
    }
    Ok(players)
}

/// Adds `player`, given as `given`, unless a player of its id is there already.
fn join(
    players: &mut Vec<Contestant>,
    player: Contestant,
    given: &str,
) -> Result<(), TournamentError> {
    if players.iter().any(|p| p.id == player.id) {
        return Err(setup(format!(
            "{given}: there is already a player {}",
            player.id
        )));
    }
    players.push(player);
    Ok(())
}

/// The two players of an SPRT, A and B, as `add` gives them; their ids go into `plan`. The
/// same player twice (a robot against itself) is told apart by `#2` on B's id.
fn sprt_players<G: CatalogGame>(
    plan: &mut SprtPlan,
    add: &[String],
    per_match: usize,
    commands: Commands,
) -> Result<Vec<Contestant>, TournamentError> {
    if per_match != 2 {
        return Err(setup(format!(
            "an SPRT plays two players against each other, but this game has {per_match} \
             players a match (--players 2, if the game has it)"
        )));
    }
    let [a, b] = add else {
        return Err(setup(format!(
            "an SPRT needs two players, --bot A (the new version) and --bot B; {} given",
            add.len()
        )));
    };
    let a = added_player::<G>("--bot", a, commands)?;
    let mut b = added_player::<G>("--bot", b, commands)?;
    if a.id == b.id {
        b.id.push_str("#2");
        b.alias.push_str("#2");
    }
    plan.players = [a.id.clone(), b.id.clone()];
    Ok(vec![a, b])
}

/// The player of one `--add`: a robot of the game, or a player folder.
fn added_player<G: CatalogGame>(
    flag: &str,
    name: &str,
    commands: Commands,
) -> Result<Contestant, TournamentError> {
    if let Some(robot) = name.strip_prefix("builtin:") {
        if !G::is_robot(robot) {
            return Err(setup(format!(
                "{flag} {name}: {} has no such robot; there are: {}",
                G::NAME,
                robot_list::<G>()
            )));
        }
        return Ok(Contestant::builtin(robot));
    }
    let path = Path::new(name);
    let id = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .ok_or_else(|| setup(format!("{flag} {name}: not builtin:NAME nor a folder")))?;
    let mut found = players::discover_one(&id, path, commands);
    if found.status == Status::Invalid {
        return Err(setup(format!(
            "{flag} {name}: {}",
            found.reason.take().unwrap_or_default()
        )));
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every player that plays gets its program stored and its hash; one too large to store
    /// does not play, and says why; robots and players out already are left as they are.
    #[test]
    fn the_programs_of_the_players_that_play_are_stored() {
        let root = arbiter_testdir::fresh("setup");
        let store = Store::open(
            root.join("t.db").to_str().unwrap(),
            arbiter_store::Presence::MayCreate,
        )
        .unwrap();
        let mut players = Vec::new();
        for (id, extra) in [("fits", 0), ("huge", 3 << 20), ("out", 0)] {
            let dir = root.join("players").join(id);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("info.txt"), format!("{id}\nAda Lovelace\n./bot\n")).unwrap();
            // Bytes that do not compress.
            let mut x = 0x9e37_79b9_7f4a_7c15_u64;
            let noise: Vec<u8> = (0..extra)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            std::fs::write(dir.join("weights"), noise).unwrap();
            std::os::unix::fs::symlink("/usr/bin/env", dir.join("env")).unwrap();
            players.push(players::discover_one(id, &dir, Commands::AsWritten));
        }
        players[2].status = Status::Failing;
        players.push(Contestant::builtin("runner"));
        let mut notes = Vec::new();
        store_programs(&store, &mut players, 1, &mut |note| {
            notes.push(match note {
                Note::OutsideLinks { player, links } => format!("{} {links:?}", player.id),
                Note::Skipped(p) => format!("{} {}", p.id, p.reason.as_deref().unwrap()),
                other => format!("{other:?}"),
            })
        })
        .unwrap();
        let hash = players[0].program.clone().unwrap();
        assert!(store.program(&hash).unwrap().is_some());
        assert_eq!(notes[0], "fits [\"env\"]");
        assert!(
            notes[1].starts_with("huge the player folder "),
            "{}",
            notes[1]
        );
        assert!(notes[1].ends_with(" compress to more than 1.0 MiB, the limit (--max-program-mb)"));
        assert_eq!(notes.len(), 2);
        assert_eq!(players[1].status, Status::Invalid);
        assert_eq!(
            (players[1].program.clone(), players[2].program.clone()),
            (None, None)
        );
        assert_eq!(players[3].program, None);
        store.close();
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// The players of an arena's final: robots added by name, versions whose programs are
    /// stored already; each id once, and they alone are players enough.
    #[test]
    fn players_stored_already_join_those_added() {
        use arbiter_games::quoridor::Quoridor;
        let version = Contestant {
            id: "walker v1".into(),
            alias: "walker v1".into(),
            full_name: "ann".into(),
            command: Some("./bot".into()),
            folder: None,
            status: Status::Ok,
            reason: None,
            program: Some("ab".repeat(32)),
        };
        let add = vec!["builtin:random".to_owned()];
        let players =
            gather_players::<Quoridor>(None, &add, vec![version.clone()], Commands::AsWritten)
                .unwrap();
        let ids: Vec<&str> = players.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["builtin:random", "walker v1"]);
        let alone =
            gather_players::<Quoridor>(None, &[], vec![version.clone()], Commands::AsWritten);
        assert_eq!(alone.unwrap().len(), 1);
        let twice = gather_players::<Quoridor>(
            None,
            &[],
            vec![version.clone(), version],
            Commands::AsWritten,
        );
        let error = twice.unwrap_err().to_string();
        assert_eq!(
            error,
            "a stored program: there is already a player walker v1"
        );
        // Neither checked nor stored again.
        assert!(!compliance::needs_check(&players[1]));
        assert!(!compliance::needs_check(&players[0]), "a robot");
    }
}
