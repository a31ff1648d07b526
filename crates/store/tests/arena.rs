//! The arena's store on both of its backends: a SQLite file and a throw-away PostgreSQL
//! cluster (`arbiter-pgtest`). Each scenario takes a fresh target and uses the public API only;
//! the concurrent ones open a store per task, as workers on several machines do.

use std::collections::BTreeSet;
use std::path::PathBuf;

use arbiter_pgtest::Cluster;
use arbiter_store::{
    ArenaJob, ArenaStore, Handed, JobKind, Presence, StoreError, StoredProgram, VersionState,
};

/// Where a scenario's store lives.
trait Backend {
    /// A new store's target, named `name`, not created yet (SQLite) or empty (PostgreSQL).
    fn fresh(&self, name: &str) -> String;
}

struct Sqlite(PathBuf);

impl Backend for Sqlite {
    fn fresh(&self, name: &str) -> String {
        let dir = self.0.join(name);
        let _ = std::fs::remove_dir_all(&dir);
        dir.join("arena.db").to_str().unwrap().to_owned()
    }
}

impl Backend for Cluster {
    fn fresh(&self, name: &str) -> String {
        self.database(name)
    }
}

/// A lease of a minute, in milliseconds.
const MINUTE: i64 = 60_000;

/// Every scenario, in turn, each on a store of its own.
fn scenarios(backend: &dyn Backend) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        accounts_teams_and_tokens(backend.fresh("accounts")).await;
        invite_codes_are_single_use_under_concurrency(backend.fresh("invites")).await;
        versions_are_numbered_and_keep_their_source(backend.fresh("versions")).await;
        two_claims_never_get_the_same_job(backend.fresh("claims")).await;
        a_finish_with_an_old_claim_is_refused(backend.fresh("fencing")).await;
        a_lapsed_lease_is_requeued_and_fails_after_its_last_attempt(backend.fresh("lapsed")).await;
        a_version_becomes_active_only_after_passing(backend.fresh("active")).await;
        a_pinned_version_stays_active_when_a_newer_one_passes(backend.fresh("pinned")).await;
        a_failed_build_keeps_its_log_and_queues_no_check(backend.fresh("build_failed")).await;
    });
}

#[test]
fn arena_on_sqlite() {
    scenarios(&Sqlite(arbiter_testdir::fresh("arena-sqlite")));
}

#[test]
fn arena_on_postgresql() {
    scenarios(&Cluster::start().unwrap());
}

/// The store at `target` opened again, with connections of its own, as another process would.
async fn reopen(target: &str) -> ArenaStore {
    ArenaStore::open(target, Presence::MustExist).await.unwrap()
}

async fn open(target: &str) -> ArenaStore {
    ArenaStore::open(target, Presence::MayCreate).await.unwrap()
}

/// A store with user `ann` and her bot `walker` in quoridor.
async fn with_bot(target: &str) -> (ArenaStore, i64, i64) {
    let store = open(target).await;
    let ann = store.add_user("ann", "$argon2id$x", false).await.unwrap();
    let team = store.teams_of(ann.id).await.unwrap()[0].id;
    let bot = store.add_bot(team, "quoridor", "walker").await.unwrap();
    (store, ann.id, bot.id)
}

async fn accounts_teams_and_tokens(target: String) {
    let store = open(&target).await;
    let ann = store.add_user("Ann", "$argon2id$a", true).await.unwrap();
    assert!(ann.admin);
    assert_eq!(store.user_by_name("ann").await.unwrap(), Some(ann.clone()));
    let again = store
        .add_user("ANN", "$argon2id$b", false)
        .await
        .unwrap_err();
    assert!(
        matches!(again, StoreError::NameTaken { kind: "user", .. }),
        "{again}"
    );
    let bad = store.add_user("a b", "$x", false).await.unwrap_err();
    assert_eq!(
        bad.to_string(),
        "\"a b\" cannot name a user: ' ' is not allowed: only letters, digits, '_', '-' and '.'"
    );
    assert!(matches!(
        store.add_user("", "$x", false).await,
        Err(StoreError::BadName { .. })
    ));
    let own = store.teams_of(ann.id).await.unwrap();
    assert_eq!(own.len(), 1);
    assert_eq!(own[0].name, "Ann");

    let bob = store.add_user("bob", "$argon2id$c", false).await.unwrap();
    let crew = store.add_team("crew", ann.id).await.unwrap();
    store.add_member(crew.id, bob.id).await.unwrap();
    store.add_member(crew.id, bob.id).await.unwrap();
    let members: Vec<String> = store
        .team_members(crew.id)
        .await
        .unwrap()
        .into_iter()
        .map(|u| u.name)
        .collect();
    assert_eq!(members, ["Ann", "bob"]);
    let bobs: Vec<String> = store
        .teams_of(bob.id)
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(bobs, ["bob", "crew"], "its own team first");
    assert!(store.is_member(crew.id, bob.id).await.unwrap());
    assert!(store.remove_member(crew.id, bob.id).await.unwrap());
    assert!(!store.is_member(crew.id, bob.id).await.unwrap());
    let clash = store.add_team("BOB", ann.id).await.unwrap_err();
    assert!(
        matches!(clash, StoreError::NameTaken { kind: "team", .. }),
        "{clash}"
    );

    let hash = "ab".repeat(32);
    store.add_token(bob.id, &hash, "laptop").await.unwrap();
    assert_eq!(
        store.user_by_token(&hash).await.unwrap().map(|u| u.id),
        Some(bob.id)
    );
    assert_eq!(store.user_by_token(&"cd".repeat(32)).await.unwrap(), None);
    assert_eq!(store.tokens_of(bob.id).await.unwrap()[0].label, "laptop");
    assert!(store.revoke_token(bob.id, &hash).await.unwrap());
    assert_eq!(store.user_by_token(&hash).await.unwrap(), None);
    let nobody = store.add_token(999, &hash, "x").await.unwrap_err();
    assert!(matches!(nobody, StoreError::NotFound(_)), "{nobody}");

    store.set_password(bob.id, "$argon2id$d").await.unwrap();
    assert_eq!(
        store.user(bob.id).await.unwrap().unwrap().password,
        "$argon2id$d"
    );
    assert_eq!(store.users().await.unwrap().len(), 2);
}

async fn invite_codes_are_single_use_under_concurrency(target: String) {
    let store = open(&target).await;
    let codes: Vec<String> = (0..5).map(|i| format!("{i:064x}")).collect();
    for code in &codes {
        store.add_invite(code).await.unwrap();
    }
    assert_eq!(store.open_invites().await.unwrap(), 5);
    // Eight takers, each with its own connection, try every code at once.
    let mut takers = Vec::new();
    for _ in 0..8 {
        // Opened here: sqlx's migrations make a future the compiler cannot prove `Send`
        // for every lifetime, which `tokio::spawn` asks.
        let (store, codes) = (reopen(&target).await, codes.clone());
        takers.push(tokio::spawn(async move {
            let mut taken = Vec::new();
            for code in &codes {
                if store.take_invite(code).await.unwrap() {
                    taken.push(code.clone());
                }
            }
            taken
        }));
    }
    let mut all = Vec::new();
    for taker in takers {
        all.extend(taker.await.unwrap());
    }
    all.sort();
    assert_eq!(all, codes, "each code taken exactly once");
    assert!(!store.take_invite(&codes[0]).await.unwrap());
    assert!(!store.take_invite(&"f".repeat(64)).await.unwrap());
    assert_eq!(store.open_invites().await.unwrap(), 0);
}

async fn versions_are_numbered_and_keep_their_source(target: String) {
    let (store, ann, bot) = with_bot(&target).await;
    let taken = store.add_bot(1, "quoridor", "WALKER").await.unwrap_err();
    assert!(
        matches!(taken, StoreError::NameTaken { kind: "bot", .. }),
        "{taken}"
    );
    store.add_bot(1, "domino", "walker").await.unwrap();
    let before = arbiter_store::now_ms();
    let bytes: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
    let first = store
        .add_version(bot, ann, "bot.zip", &bytes)
        .await
        .unwrap();
    let second = store
        .add_version(bot, ann, "bot.py", b"print()")
        .await
        .unwrap();
    assert_eq!((first.number, second.number), (1, 2));
    assert_eq!(first.state, VersionState::Queued);
    assert_eq!(store.source(first.id).await.unwrap(), bytes);
    assert_eq!(store.version(bot, 2).await.unwrap(), Some(second.clone()));
    assert_eq!(store.version_by_id(first.id).await.unwrap(), Some(first));
    let numbers: Vec<i64> = store
        .versions(bot)
        .await
        .unwrap()
        .iter()
        .map(|v| v.number)
        .collect();
    assert_eq!(numbers, [2, 1], "newest first");
    assert_eq!(store.uploads_since(ann, before).await.unwrap(), 2);
    assert_eq!(
        store.uploads_since(ann, second.created + 1).await.unwrap(),
        0
    );
    assert_eq!(store.bot_by_id(bot).await.unwrap().unwrap().versions, 2);
    let queue = store.queue().await.unwrap();
    assert_eq!(queue.len(), 2);
    assert_eq!(
        (queue[0].kind, queue[0].running, queue[0].bot_name.as_str()),
        (JobKind::Build, false, "walker")
    );
    let missing = store.add_version(999, ann, "a.c", b"").await.unwrap_err();
    assert!(matches!(missing, StoreError::NotFound(_)), "{missing}");
    assert_eq!(store.bots("quoridor").await.unwrap().len(), 1);
    assert_eq!(store.all_bots().await.unwrap().len(), 2);
    assert_eq!(store.bots_of_team(1).await.unwrap().len(), 2);
    assert_eq!(
        store.bot("quoridor", "Walker").await.unwrap().map(|b| b.id),
        Some(bot)
    );
}

async fn two_claims_never_get_the_same_job(target: String) {
    let (store, ann, bot) = with_bot(&target).await;
    for _ in 0..40 {
        store
            .add_version(bot, ann, "bot.py", b"print()")
            .await
            .unwrap();
    }
    let mut workers = Vec::new();
    for w in 0..4 {
        let store = reopen(&target).await;
        workers.push(tokio::spawn(async move {
            let name = format!("w{w}");
            let mut mine = Vec::new();
            while let Some(job) = store.claim_job(&name, MINUTE).await.unwrap() {
                assert_eq!(job.kind, JobKind::Build);
                let failed = Err(("log", "no compiler"));
                assert_eq!(
                    store.finish_build(&job, failed).await.unwrap(),
                    Handed::Taken
                );
                mine.push(job.id);
            }
            mine
        }));
    }
    let mut all = Vec::new();
    for worker in workers {
        all.extend(worker.await.unwrap());
    }
    let distinct: BTreeSet<i64> = all.iter().copied().collect();
    assert_eq!((all.len(), distinct.len()), (40, 40));
    assert!(store.queue().await.unwrap().is_empty());
}

async fn a_finish_with_an_old_claim_is_refused(target: String) {
    let (store, ann, bot) = with_bot(&target).await;
    let version = store
        .add_version(bot, ann, "bot.py", b"print()")
        .await
        .unwrap();
    // A lease already over: the next expiry takes the job back.
    let old = store.claim_job("slow", -1).await.unwrap().unwrap();
    assert_eq!(
        store
            .version_by_id(version.id)
            .await
            .unwrap()
            .unwrap()
            .state,
        VersionState::Building
    );
    assert_eq!(store.expire_job_leases().await.unwrap().len(), 1);
    let new = store.claim_job("fast", MINUTE).await.unwrap().unwrap();
    assert_eq!((new.id, new.claim), (old.id, old.claim + 1));
    let built = Ok(("hash", "python3", "built"));
    assert_eq!(
        store.finish_build(&old, built).await.unwrap(),
        Handed::Refused
    );
    assert_eq!(store.fail_job(&old, "oops").await.unwrap(), Handed::Refused);
    assert_eq!(
        store.finish_build(&new, built).await.unwrap(),
        Handed::Taken
    );
    // The answer to a first try was lost: the same hand-in again is taken, and changes nothing.
    assert_eq!(
        store.finish_build(&new, built).await.unwrap(),
        Handed::Taken
    );
    let queue = store.queue().await.unwrap();
    assert_eq!(queue.len(), 1, "one check queued: {queue:?}");
    assert_eq!(queue[0].kind, JobKind::Check);
    let check = store.claim_job("fast", MINUTE).await.unwrap().unwrap();
    let stale = ArenaJob {
        claim: check.claim - 1,
        ..check.clone()
    };
    assert_eq!(
        store.finish_check(&stale, true, None, &[]).await.unwrap(),
        Handed::Refused
    );
    let wrong_kind = ArenaJob {
        kind: JobKind::Build,
        ..check.clone()
    };
    assert_eq!(
        store.finish_build(&wrong_kind, built).await.unwrap(),
        Handed::Refused
    );
}

async fn a_lapsed_lease_is_requeued_and_fails_after_its_last_attempt(target: String) {
    let (store, ann, bot) = with_bot(&target).await;
    let version = store
        .add_version(bot, ann, "bot.cpp", b"int main(){}")
        .await
        .unwrap();
    let state = |store: &ArenaStore| {
        let store = store.clone();
        async move { store.version_by_id(version.id).await.unwrap().unwrap() }
    };
    // A renewed lease holds.
    store.claim_job("w", -1).await.unwrap().unwrap();
    assert_eq!(store.renew_jobs("w", MINUTE).await.unwrap(), 1);
    assert!(store.expire_job_leases().await.unwrap().is_empty());
    // A worker that stops gives its job back without counting an attempt.
    assert_eq!(store.release_jobs("w").await.unwrap(), 1);
    assert_eq!(state(&store).await.state, VersionState::Queued);
    for attempt in 1..=arbiter_store::arena::MAX_JOB_ATTEMPTS {
        store.claim_job("dying", -1).await.unwrap().unwrap();
        let expired = store.expire_job_leases().await.unwrap();
        assert_eq!(expired.len(), 1);
        let last = attempt == arbiter_store::arena::MAX_JOB_ATTEMPTS;
        assert_eq!(expired[0].failed, last);
        let wanted = if last {
            VersionState::BuildFailed
        } else {
            VersionState::Queued
        };
        assert_eq!(state(&store).await.state, wanted);
    }
    let failed = state(&store).await;
    assert_eq!(
        failed.reason.as_deref(),
        Some(
            "the build was tried 3 times and never finished: its worker stopped renewing its \
             lease"
        )
    );
    assert_eq!(store.claim_job("w", MINUTE).await.unwrap(), None);
}

/// Builds and checks version `number` of `bot`, its check passing or not.
async fn build_and_check(store: &ArenaStore, bot: i64, number: i64, passed: bool) {
    let version = store.version(bot, number).await.unwrap().unwrap();
    let program = StoredProgram {
        hash: format!("{:064x}", version.id),
        size: 1,
        entries: 1,
        archive: vec![1, 2, 3],
    };
    store.save_program(&program).await.unwrap();
    let job = store.claim_job("w", MINUTE).await.unwrap().unwrap();
    assert_eq!((job.kind, job.version), (JobKind::Build, version.id));
    let built = Ok((program.hash.as_str(), "c++", "g++ said nothing"));
    assert_eq!(
        store.finish_build(&job, built).await.unwrap(),
        Handed::Taken
    );
    let checked = store.version_by_id(version.id).await.unwrap().unwrap();
    assert_eq!(checked.state, VersionState::Checking);
    assert_eq!(checked.program.as_deref(), Some(program.hash.as_str()));
    assert_eq!(checked.language.as_deref(), Some("c++"));
    let job = store.claim_job("w", MINUTE).await.unwrap().unwrap();
    assert_eq!((job.kind, job.version), (JobKind::Check, version.id));
    let reason = (!passed).then_some("it crashed as seat 2");
    let replays = [("v vs random, seat 1".to_owned(), vec![0x1f, 0x8b, 0])];
    let handed = store.finish_check(&job, passed, reason, &replays).await;
    assert_eq!(handed.unwrap(), Handed::Taken);
}

async fn a_version_becomes_active_only_after_passing(target: String) {
    let (store, ann, bot) = with_bot(&target).await;
    store
        .add_version(bot, ann, "bot.cpp", b"int main(){}")
        .await
        .unwrap();
    let active = |store: &ArenaStore| {
        let store = store.clone();
        async move { store.bot_by_id(bot).await.unwrap().unwrap().active }
    };
    let refused = store.set_active(bot, 1).await.unwrap_err();
    assert_eq!(
        refused.to_string(),
        "version 1 cannot play: it is queued (only a version that passed its check can)"
    );
    assert_eq!(active(&store).await, None);
    build_and_check(&store, bot, 1, true).await;
    assert_eq!(active(&store).await, Some(1));
    let v1 = store.version(bot, 1).await.unwrap().unwrap();
    assert_eq!(v1.state, VersionState::Passed);
    let replays = store.check_replays(v1.id).await.unwrap();
    assert_eq!(
        replays,
        [("v vs random, seat 1".to_owned(), vec![0x1f, 0x8b, 0])]
    );

    store
        .add_version(bot, ann, "bot.cpp", b"int main(){}")
        .await
        .unwrap();
    build_and_check(&store, bot, 2, false).await;
    let v2 = store.version(bot, 2).await.unwrap().unwrap();
    assert_eq!(
        (v2.state, v2.reason.as_deref()),
        (VersionState::CheckFailed, Some("it crashed as seat 2"))
    );
    assert_eq!(
        active(&store).await,
        Some(1),
        "a failed check changes nothing"
    );
    assert!(matches!(
        store.set_active(bot, 2).await,
        Err(StoreError::NotPlayable { number: 2, .. })
    ));
    assert!(matches!(
        store.set_active(bot, 7).await,
        Err(StoreError::NotFound(_))
    ));
    store.retire(bot).await.unwrap();
    assert!(store.bot_by_id(bot).await.unwrap().unwrap().retired);
    store.set_retired(bot, false).await.unwrap();
    assert!(!store.bot_by_id(bot).await.unwrap().unwrap().retired);
}

async fn a_pinned_version_stays_active_when_a_newer_one_passes(target: String) {
    let (store, ann, bot) = with_bot(&target).await;
    let bot_now = |store: &ArenaStore| {
        let store = store.clone();
        async move {
            let b = store.bot_by_id(bot).await.unwrap().unwrap();
            (b.active, b.pinned)
        }
    };
    store.add_version(bot, ann, "a.py", b"1").await.unwrap();
    build_and_check(&store, bot, 1, true).await;
    store.set_active(bot, 1).await.unwrap();
    assert_eq!(bot_now(&store).await, (Some(1), true));
    store.add_version(bot, ann, "a.py", b"2").await.unwrap();
    build_and_check(&store, bot, 2, true).await;
    assert_eq!(bot_now(&store).await, (Some(1), true), "pinned stays");
    store.unpin(bot).await.unwrap();
    assert_eq!(bot_now(&store).await, (Some(2), false), "the newest passed");

    // Versions 3 and 4 built; 4's check passes before 3's: 4 stays, being the newest.
    store.add_version(bot, ann, "a.py", b"3").await.unwrap();
    store.add_version(bot, ann, "a.py", b"4").await.unwrap();
    let b3 = store.claim_job("w", MINUTE).await.unwrap().unwrap();
    let b4 = store.claim_job("w", MINUTE).await.unwrap().unwrap();
    for job in [&b3, &b4] {
        let handed = store.finish_build(job, Ok(("h", "python3", ""))).await;
        assert_eq!(handed.unwrap(), Handed::Taken);
    }
    let c3 = store.claim_job("w", MINUTE).await.unwrap().unwrap();
    let c4 = store.claim_job("w", MINUTE).await.unwrap().unwrap();
    store.finish_check(&c4, true, None, &[]).await.unwrap();
    assert_eq!(bot_now(&store).await, (Some(4), false));
    store.finish_check(&c3, true, None, &[]).await.unwrap();
    assert_eq!(bot_now(&store).await, (Some(4), false));
}

async fn a_failed_build_keeps_its_log_and_queues_no_check(target: String) {
    let (store, ann, bot) = with_bot(&target).await;
    let version = store
        .add_version(bot, ann, "bot.cpp", b"int main(")
        .await
        .unwrap();
    let since = version.updated;
    let job = store.claim_job("w", MINUTE).await.unwrap().unwrap();
    let failed = Err(("bot.cpp:1:10: error: expected ')'", "it does not compile"));
    assert_eq!(
        store.finish_build(&job, failed).await.unwrap(),
        Handed::Taken
    );
    let v = store.version_by_id(version.id).await.unwrap().unwrap();
    assert_eq!(v.state, VersionState::BuildFailed);
    assert!(v.state.is_final());
    assert_eq!(
        v.build_log.as_deref(),
        Some("bot.cpp:1:10: error: expected ')'")
    );
    assert_eq!(v.reason.as_deref(), Some("it does not compile"));
    assert_eq!(v.program, None);
    assert!(store.queue().await.unwrap().is_empty());
    let changed = store.versions_changed_since(since).await.unwrap();
    assert_eq!(changed.last().map(|v| v.id), Some(version.id));
    assert_eq!(store.bot_by_id(bot).await.unwrap().unwrap().active, None);
}
