//! `arbiter arena robot|ladder|uploads|bot`: the operator's commands of the ladder. Each
//! changes one thing in the arena's store, which every server and worker on that store obeys
//! within a second: no restart, no signal, whichever machine they run on.

use anyhow::{Result, bail};
use arbiter_catalog::{Catalog, CatalogGame, Visit};
use arbiter_store::{ArenaStore, Bot, Presence};
use clap::{Args, Subcommand};

use crate::arena::{DbArg, open, runtime};
use crate::out::outln;

#[derive(Args)]
pub struct RobotArgs {
    #[command(subcommand)]
    command: RobotCommand,
}

#[derive(Subcommand)]
enum RobotCommand {
    /// Enroll a built-in robot as a permanent member of a game's ladder (shown as a robot,
    /// never retired). A robot with a node budget (`strong/nodes=2000`) is a member of its own.
    Add(RobotAddArgs),
    /// The robots enrolled, one a line: game, name, and whether disabled.
    List(RobotListArgs),
}

#[derive(Args)]
struct RobotAddArgs {
    /// The game whose ladder it joins.
    game: String,
    /// The robot's name as `arbiter bot GAME NAME` takes it, budget suffix included.
    robot: String,
    #[command(flatten)]
    db: DbArg,
}

#[derive(Args)]
struct RobotListArgs {
    /// Only this game's robots.
    #[arg(long)]
    game: Option<String>,
    #[command(flatten)]
    db: DbArg,
}

#[derive(Args)]
pub struct LadderArgs {
    #[command(subcommand)]
    command: LadderCommand,
}

#[derive(Subcommand)]
enum LadderCommand {
    /// Schedule no new ladder games (those queued are played out; challenges, the playground
    /// and SPRT series go on).
    Pause(DbArg),
    /// Schedule ladder games again.
    Resume(DbArg),
}

#[derive(Args)]
pub struct UploadsArgs {
    #[command(subcommand)]
    command: UploadsCommand,
}

#[derive(Subcommand)]
enum UploadsCommand {
    /// Refuse new versions (before a final); those handed in are still built and played.
    Freeze(DbArg),
    /// Take new versions again.
    Open(DbArg),
}

#[derive(Args)]
pub struct BotArgs {
    #[command(subcommand)]
    command: BotCommand,
}

#[derive(Subcommand)]
enum BotCommand {
    /// Take a bot off the ladder; its versions, games and rating stay.
    Disable(BotNameArgs),
    /// Put a disabled bot back on the ladder, with its rating as it was.
    Enable(BotNameArgs),
}

#[derive(Args)]
struct BotNameArgs {
    /// The bot's game.
    game: String,
    /// The bot's name (a robot's name too).
    name: String,
    #[command(flatten)]
    db: DbArg,
}

pub fn robot<C: Catalog>(args: RobotArgs) -> Result<()> {
    match args.command {
        RobotCommand::Add(args) => add_robot::<C>(args),
        RobotCommand::List(args) => list_robots(args),
    }
}

/// Checks the robot's name against the game's before the store is touched: a typo is said
/// now, with the names there are, not as a ladder game that fails later.
fn add_robot<C: Catalog>(args: RobotAddArgs) -> Result<()> {
    crate::visit::<C, _>(&args.game, KnownRobot(&args.robot))??;
    runtime()?.block_on(async {
        let store = open(&args.db.db, Presence::MayCreate).await?;
        let bot = store.add_robot(&args.game, &args.robot).await?;
        outln!("robot {} enrolled in the {} ladder", bot.name, bot.game)?;
        Ok(())
    })
}

/// Whether a game has the robot named, budget suffix included.
struct KnownRobot<'a>(&'a str);

impl Visit for KnownRobot<'_> {
    type Output = Result<()>;

    fn visit<G: CatalogGame>(self) -> Result<()> {
        if G::is_robot(self.0) {
            return Ok(());
        }
        bail!(
            "{} has no robot {:?}: its robots are {} (a searching robot takes a node budget, \
             NAME/nodes=N)",
            G::NAME,
            self.0,
            G::ROBOTS.join(", ")
        )
    }
}

fn list_robots(args: RobotListArgs) -> Result<()> {
    runtime()?.block_on(async {
        let store = open(&args.db.db, Presence::MustExist).await?;
        for bot in store.robots(args.game.as_deref()).await? {
            let disabled = if bot.disabled { "\tdisabled" } else { "" };
            outln!("{}\t{}{disabled}", bot.game, bot.name)?;
        }
        Ok(())
    })
}

pub fn ladder(args: LadderArgs) -> Result<()> {
    let (db, paused) = match args.command {
        LadderCommand::Pause(db) => (db, true),
        LadderCommand::Resume(db) => (db, false),
    };
    on_store(&db, |store| async move {
        store.set_ladder_paused(paused).await?;
        Ok(outln!(
            "{}",
            if paused {
                "ladder paused"
            } else {
                "ladder resumed"
            }
        )?)
    })
}

pub fn uploads(args: UploadsArgs) -> Result<()> {
    let (db, frozen) = match args.command {
        UploadsCommand::Freeze(db) => (db, true),
        UploadsCommand::Open(db) => (db, false),
    };
    on_store(&db, |store| async move {
        store.set_uploads_frozen(frozen).await?;
        Ok(outln!(
            "{}",
            if frozen {
                "uploads frozen"
            } else {
                "uploads open"
            }
        )?)
    })
}

pub fn bot(args: BotArgs) -> Result<()> {
    let (args, disabled) = match args.command {
        BotCommand::Disable(args) => (args, true),
        BotCommand::Enable(args) => (args, false),
    };
    on_store(&args.db, |store| async move {
        let bot = named_bot(&store, &args.game, &args.name).await?;
        store.set_disabled(bot.id, disabled).await?;
        let what = if disabled { "disabled" } else { "enabled" };
        Ok(outln!("{} bot {} {what}", bot.game, bot.name)?)
    })
}

/// The bot `name` of `game`, or an error that says there is none.
async fn named_bot(store: &ArenaStore, game: &str, name: &str) -> Result<Bot> {
    match store.bot(game, name).await? {
        Some(bot) => Ok(bot),
        None => bail!("the arena has no bot {name:?} in {game:?}"),
    }
}

/// Runs `change` on the store of `db`, which must exist: an operator's command on a store
/// that is not there is a typo, not a new arena.
fn on_store<F, Fut>(db: &DbArg, change: F) -> Result<()>
where
    F: FnOnce(ArenaStore) -> Fut,
    Fut: Future<Output = Result<()>>,
{
    runtime()?.block_on(async {
        let store = open(&db.db, Presence::MustExist).await?;
        change(store).await
    })
}
