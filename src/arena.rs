//! `arbiter arena`: the operator's commands of the arena — users, API tokens, invite codes —
//! and the site itself (`serve`). The store does the work; this only reads flags and prints.

use std::io::BufRead;

use anyhow::{Context, Result, bail};
use arbiter_store::{ArenaStore, Presence};
use clap::{Args, Subcommand};

use crate::out::outln;

#[derive(Args)]
pub struct ArenaArgs {
    #[command(subcommand)]
    command: ArenaCommand,
}

#[derive(Subcommand)]
enum ArenaCommand {
    /// Users of the arena.
    User(UserArgs),
    /// Print a new API token of a user, for scripts (`arbiter submit` reads it from
    /// ARBITER_TOKEN). The store keeps only its SHA-256.
    Token(TokenArgs),
    /// Print new invite codes, each good for one sign-up (when sign-up is not open).
    Invite(InviteArgs),
}

#[derive(Args)]
struct UserArgs {
    #[command(subcommand)]
    command: UserCommand,
}

#[derive(Subcommand)]
enum UserCommand {
    /// Make a user (and its own team of the same name); the password is read from standard
    /// input, one line.
    Add(UserAddArgs),
}

/// The arena's store.
#[derive(Args)]
struct DbArg {
    /// The store: a SQLite file, or a postgres:// URL (the arena on many machines).
    #[arg(long)]
    db: String,
}

#[derive(Args)]
struct UserAddArgs {
    /// The user's name: letters, digits, '_', '-' and '.', up to 32.
    name: String,
    /// Make it an admin: it sees and manages every team, bot and version.
    #[arg(long)]
    admin: bool,
    #[command(flatten)]
    db: DbArg,
}

#[derive(Args)]
struct TokenArgs {
    /// The user the token acts as.
    name: String,
    /// What the token is for, shown in the user's list of tokens.
    #[arg(long, default_value = "command line")]
    label: String,
    #[command(flatten)]
    db: DbArg,
}

#[derive(Args)]
struct InviteArgs {
    /// How many codes, 1 to 1000.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    count: u32,
    #[command(flatten)]
    db: DbArg,
}

pub fn run(args: ArenaArgs) -> Result<()> {
    match args.command {
        ArenaCommand::User(UserArgs {
            command: UserCommand::Add(args),
        }) => add_user(args),
        ArenaCommand::Token(args) => token(args),
        ArenaCommand::Invite(args) => invite(args),
    }
}

/// A runtime for one command's calls of the store.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the runtime")
}

async fn open(db: &str, presence: Presence) -> Result<ArenaStore> {
    ArenaStore::open(db, presence)
        .await
        .with_context(|| format!("opening the arena's store {db}"))
}

fn add_user(args: UserAddArgs) -> Result<()> {
    arbiter_store::arena::check_name("user", &args.name)?;
    let password = read_password()?;
    if let Err(why) = arbiter_logins::check_new_password(&password) {
        bail!("{why} (the password is read from standard input, one line)");
    }
    let params = arbiter_logins::Params::default();
    let phc = arbiter_logins::hash_in(&password, &params, &mut Vec::new())?;
    runtime()?.block_on(async {
        let store = open(&args.db.db, Presence::MayCreate).await?;
        let user = store.add_user(&args.name, &phc, args.admin).await?;
        let what = if user.admin { "admin" } else { "user" };
        outln!("{what} {} added", user.name)?;
        Ok(())
    })
}

/// The first line of standard input, without its line ending.
fn read_password() -> Result<String> {
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context("reading the password from standard input")?;
    let line = line.strip_suffix('\n').unwrap_or(&line);
    Ok(line.strip_suffix('\r').unwrap_or(line).to_owned())
}

fn token(args: TokenArgs) -> Result<()> {
    runtime()?.block_on(async {
        let store = open(&args.db.db, Presence::MustExist).await?;
        let Some(user) = store.user_by_name(&args.name).await? else {
            bail!(
                "the arena has no user {:?} (`arbiter arena user add` makes one)",
                args.name
            );
        };
        let token = arbiter_logins::new_token();
        store
            .add_token(user.id, &arbiter_logins::sha256_hex(&token), &args.label)
            .await?;
        outln!("{token}")?;
        Ok(())
    })
}

fn invite(args: InviteArgs) -> Result<()> {
    runtime()?.block_on(async {
        let store = open(&args.db.db, Presence::MayCreate).await?;
        // Every code is stored before any is printed: a code shown is a code that works.
        let mut codes = Vec::with_capacity(args.count as usize);
        for _ in 0..args.count {
            let code = arbiter_logins::new_invite_code();
            store.add_invite(&arbiter_logins::sha256_hex(&code)).await?;
            codes.push(code);
        }
        for code in codes {
            outln!("{code}")?;
        }
        Ok(())
    })
}
