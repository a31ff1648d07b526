//! Login throttling: failed logins are counted per source address and per account name (a
//! game server's team, an arena's user), and past a free allowance each further attempt must
//! wait a back-off that doubles up to a cap. An attempt made too early is refused without
//! checking its password (a server answers it as a wrong password, after the same delay).
//!
//! - Every attempt counts as a failure while its password is checked (so a thousand
//!   simultaneous attempts cannot all slip in before the first one fails); a login that turns
//!   out right takes its count back.
//! - Failures are forgotten one by one as time passes ([`Rule::forgive_every`]).
//! - A name's back-off only refuses addresses that have failed recently themselves: an account
//!   whose password someone is guessing can still log in from an address with a clean record.
//! - The tables are bounded ([`MAX_ENTRIES`]); when one is full, the entries with the oldest
//!   failures make room, so a flood from many addresses cannot grow them.
//! - [`Gates`] let each address check at most [`CHECKS_PER_ADDRESS`] passwords at a time; its
//!   other attempts wait their turn, so a flood from one address never holds more than that
//!   many places of the argon2 pool, and many people behind one address (a contest room behind
//!   one router) all get in, one after the other.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Entries a table keeps at most (per addresses, per names): a few MiB at worst.
pub const MAX_ENTRIES: usize = 16_384;
/// Passwords one address may have checked at the same time.
pub const CHECKS_PER_ADDRESS: usize = 2;

/// Where a login comes from: an IPv4 address, or the /64 network of an IPv6 address (one
/// machine usually has a whole /64, so single IPv6 addresses would cost an attacker nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// An IPv4 address (IPv4-mapped IPv6 addresses included).
    V4([u8; 4]),
    /// The first 64 bits of an IPv6 address.
    V6([u8; 8]),
}

impl From<IpAddr> for Source {
    fn from(ip: IpAddr) -> Source {
        match ip {
            IpAddr::V4(v4) => Source::V4(v4.octets()),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Source::V4(v4.octets()),
                None => {
                    let mut prefix = [0; 8];
                    prefix.copy_from_slice(&v6.octets()[..8]);
                    Source::V6(prefix)
                }
            },
        }
    }
}

/// How many failures are free, and how the back-off grows after them.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    /// Failures allowed before any back-off.
    pub free: u32,
    /// The back-off after the first failure past the free ones; it doubles with each more.
    pub first_backoff: Duration,
    /// The longest back-off.
    pub max_backoff: Duration,
    /// One failure is forgotten each time this much passes.
    pub forgive_every: Duration,
}

/// Per address: 10 free failures, then 1 s, 2 s, 4 s … up to a minute between attempts; one
/// failure forgotten every 30 s.
pub const PER_ADDRESS: Rule = Rule {
    free: 10,
    first_backoff: Duration::from_secs(1),
    max_backoff: Duration::from_secs(60),
    forgive_every: Duration::from_secs(30),
};

/// Per name: 20 free failures, then 1 s, 2 s … up to 30 s; one failure forgotten every 10 s,
/// faster than one address at its longest back-off can add them: a single address can never
/// put a name in back-off.
pub const PER_NAME: Rule = Rule {
    free: 20,
    first_backoff: Duration::from_secs(1),
    max_backoff: Duration::from_secs(30),
    forgive_every: Duration::from_secs(10),
};

impl Rule {
    fn backoff(&self, failures: u32) -> Duration {
        if failures <= self.free {
            return Duration::ZERO;
        }
        let doublings = (failures - self.free - 1).min(16);
        self.first_backoff
            .saturating_mul(1 << doublings)
            .min(self.max_backoff)
    }
}

/// The failures of one address or name.
#[derive(Clone, Copy, Debug)]
struct Record {
    failures: u32,
    /// When the last failure was counted: the back-off runs from there.
    last_failure: Instant,
    /// When a failure was last forgiven (or counted, at first).
    forgiven_at: Instant,
}

impl Record {
    /// Forgets the failures that time has forgiven by `now`.
    fn forgive(&mut self, rule: &Rule, now: Instant) {
        let every = rule.forgive_every.max(Duration::from_millis(1));
        let elapsed = now.saturating_duration_since(self.forgiven_at);
        let forgiven = (elapsed.as_nanos() / every.as_nanos()).min(u128::from(u32::MAX)) as u32;
        if forgiven > 0 {
            self.failures = self.failures.saturating_sub(forgiven);
            self.forgiven_at += every * forgiven.min(1 << 20);
        }
    }

    fn blocked(&self, rule: &Rule, now: Instant) -> bool {
        now < self.last_failure + rule.backoff(self.failures)
    }
}

/// A bounded table of records.
struct Table<K> {
    rule: Rule,
    records: HashMap<K, Record>,
}

impl<K: Eq + Hash + Clone> Table<K> {
    fn new(rule: Rule) -> Table<K> {
        Table {
            rule,
            records: HashMap::new(),
        }
    }

    /// The record of `key` as of `now`, if it has any failure left.
    fn get(&mut self, key: &K, now: Instant) -> Option<Record> {
        let record = self.records.get_mut(key)?;
        record.forgive(&self.rule, now);
        Some(*record)
    }

    fn blocked(&mut self, key: &K, now: Instant) -> bool {
        self.get(key, now)
            .is_some_and(|r| r.blocked(&self.rule, now))
    }

    fn fail(&mut self, key: &K, now: Instant) {
        if !self.records.contains_key(key) && self.records.len() >= MAX_ENTRIES {
            self.make_room(now);
        }
        let record = self.records.entry(key.clone()).or_insert(Record {
            failures: 0,
            last_failure: now,
            forgiven_at: now,
        });
        record.forgive(&self.rule, now);
        if record.failures == 0 {
            record.forgiven_at = now;
        }
        record.failures = record.failures.saturating_add(1);
        record.last_failure = now;
    }

    /// Takes back a failure counted for an attempt that turned out right.
    fn take_back(&mut self, key: &K, now: Instant) {
        if let Some(record) = self.records.get_mut(key) {
            record.forgive(&self.rule, now);
            record.failures = record.failures.saturating_sub(1);
            if record.failures == 0 {
                self.records.remove(key);
            }
        }
    }

    /// Drops the records time has cleared; if none, the one whose last failure is oldest.
    fn make_room(&mut self, now: Instant) {
        let rule = self.rule;
        self.records.retain(|_, r| {
            r.forgive(&rule, now);
            r.failures > 0
        });
        if self.records.len() >= MAX_ENTRIES
            && let Some(oldest) = self
                .records
                .iter()
                .min_by_key(|(_, r)| r.last_failure)
                .map(|(k, _)| k.clone())
        {
            self.records.remove(&oldest);
        }
    }
}

/// Why an attempt was refused without its password being checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Too many recent failures from this address.
    Address,
    /// Too many recent failures for this name, and this address has failed too.
    Name,
}

/// An attempt let through: settle it with [`Throttle::settle`] once its password is checked.
#[derive(Debug)]
pub struct Attempt {
    source: Source,
    name: String,
}

/// The failure counts of every address and account name (known or not: an unknown name is
/// throttled exactly like a known one, so throttling tells nothing about which accounts
/// exist).
pub struct Throttle {
    tables: Mutex<(Table<Source>, Table<String>)>,
}

impl Default for Throttle {
    fn default() -> Self {
        Throttle::new(PER_ADDRESS, PER_NAME)
    }
}

impl Throttle {
    /// A throttle with these rules per address and per name.
    pub fn new(per_address: Rule, per_name: Rule) -> Throttle {
        Throttle {
            tables: Mutex::new((Table::new(per_address), Table::new(per_name))),
        }
    }

    /// Lets an attempt by `source` to log in as `name` have its password checked, counting
    /// it as a failure until [`Throttle::settle`] says otherwise; or refuses it. Callers whose
    /// names ignore case pass them in one case.
    pub fn admit(&self, source: Source, name: &str, now: Instant) -> Result<Attempt, Refusal> {
        let mut tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        let (addresses, names) = &mut *tables;
        if addresses.blocked(&source, now) {
            return Err(Refusal::Address);
        }
        let name = name.to_owned();
        let clean = addresses.get(&source, now).is_none_or(|r| r.failures == 0);
        if !clean && names.blocked(&name, now) {
            return Err(Refusal::Name);
        }
        addresses.fail(&source, now);
        names.fail(&name, now);
        Ok(Attempt { source, name })
    }

    /// Records how an admitted attempt ended: a right password takes its failure back.
    pub fn settle(&self, attempt: Attempt, right: bool, now: Instant) {
        if right {
            let mut tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
            tables.0.take_back(&attempt.source, now);
            tables.1.take_back(&attempt.name, now);
        }
    }
}

/// One queue per address for its password checks: at most [`CHECKS_PER_ADDRESS`] at a time
/// each. The map only holds the addresses with an attempt under way.
#[derive(Default)]
pub struct Gates {
    open: Mutex<HashMap<Source, Arc<Semaphore>>>,
}

/// A place in an address's queue, held while its password is checked.
pub struct Gate<'a> {
    gates: &'a Gates,
    source: Source,
    permit: Option<OwnedSemaphorePermit>,
}

impl Gates {
    /// Waits for `source`'s turn.
    pub async fn enter(&self, source: Source) -> Gate<'_> {
        let semaphore = {
            let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
            open.entry(source)
                .or_insert_with(|| Arc::new(Semaphore::new(CHECKS_PER_ADDRESS)))
                .clone()
        };
        let mut gate = Gate {
            gates: self,
            source,
            permit: None,
        };
        // The semaphore is never closed, so acquiring only fails if that changes.
        gate.permit = semaphore.acquire_owned().await.ok();
        gate
    }

    /// Addresses with an attempt under way or waiting.
    pub fn len(&self) -> usize {
        self.open.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether no attempt is under way.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Drop for Gate<'_> {
    fn drop(&mut self) {
        drop(self.permit.take());
        let mut open = self.gates.open.lock().unwrap_or_else(|e| e.into_inner());
        // Only the map holds it: nobody is in or waiting (waiters hold a clone).
        if open
            .get(&self.source)
            .is_some_and(|s| Arc::strong_count(s) == 1)
        {
            open.remove(&self.source);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> Source {
        Source::from(text.parse::<IpAddr>().unwrap())
    }

    #[test]
    fn ipv6_addresses_count_by_their_network_and_mapped_ipv4_as_ipv4() {
        assert_eq!(ip("2001:db8::1"), ip("2001:db8::ffff:2"));
        assert_ne!(ip("2001:db8::1"), ip("2001:db9::1"));
        assert_eq!(ip("::ffff:10.0.0.1"), ip("10.0.0.1"));
    }

    #[test]
    fn the_backoff_doubles_after_the_free_failures_up_to_its_cap() {
        let rule = PER_ADDRESS;
        assert_eq!(rule.backoff(10), Duration::ZERO);
        assert_eq!(rule.backoff(11), Duration::from_secs(1));
        assert_eq!(rule.backoff(12), Duration::from_secs(2));
        assert_eq!(rule.backoff(14), Duration::from_secs(8));
        assert_eq!(rule.backoff(40), Duration::from_secs(60));
        assert_eq!(rule.backoff(u32::MAX), Duration::from_secs(60));
    }

    #[test]
    fn an_address_past_its_free_failures_waits_and_is_forgiven_with_time() {
        let throttle = Throttle::default();
        let (me, t0) = (ip("10.0.0.1"), Instant::now());
        for i in 0..11 {
            let team = format!("t{i}");
            let attempt = throttle.admit(me, &team, t0).expect("free failures");
            throttle.settle(attempt, false, t0);
        }
        assert_eq!(throttle.admit(me, "t", t0).unwrap_err(), Refusal::Address);
        assert!(
            throttle.admit(ip("10.0.0.2"), "t", t0).is_ok(),
            "others go on"
        );
        let later = t0 + Duration::from_millis(1001);
        let attempt = throttle.admit(me, "t", later).expect("after 1 s");
        throttle.settle(attempt, false, later);
        assert!(
            throttle
                .admit(me, "t", later + Duration::from_secs(1))
                .is_err()
        );
        let attempt = throttle.admit(me, "t", later + Duration::from_secs(2));
        throttle.settle(attempt.expect("2 s after the 12th failure"), true, later);
        // Twelve failures forgotten after 12 × 30 s.
        let much_later = later + Duration::from_secs(12 * 30);
        let attempt = throttle.admit(me, "t", much_later).unwrap();
        throttle.settle(attempt, true, much_later);
        let tables = throttle.tables.lock().unwrap();
        assert!(
            !tables.0.records.contains_key(&me),
            "a clean address is forgotten"
        );
    }

    #[test]
    fn simultaneous_attempts_count_before_they_are_checked_and_right_ones_are_taken_back() {
        let throttle = Throttle::default();
        let (me, now) = (ip("10.0.0.1"), Instant::now());
        let admitted: Vec<_> = (0..50)
            .filter_map(|_| throttle.admit(me, "alice", now).ok())
            .collect();
        assert_eq!(admitted.len(), 11);
        for attempt in admitted {
            throttle.settle(attempt, true, now);
        }
        assert!(throttle.admit(me, "alice", now).is_ok());
    }

    #[test]
    fn a_name_in_backoff_still_admits_an_address_with_a_clean_record() {
        let throttle = Throttle::default();
        let now = Instant::now();
        for i in 0..21 {
            let attempt = throttle
                .admit(ip(&format!("10.0.1.{i}")), "alice", now)
                .unwrap();
            throttle.settle(attempt, false, now);
        }
        assert_eq!(
            throttle.admit(ip("10.0.1.0"), "alice", now).unwrap_err(),
            Refusal::Name
        );
        assert!(throttle.admit(ip("10.0.2.1"), "alice", now).is_ok());
    }

    #[test]
    fn the_tables_stay_bounded_under_a_flood_from_many_addresses() {
        let throttle = Throttle::default();
        let now = Instant::now();
        for i in 0..(MAX_ENTRIES as u32 + 500) {
            let source = Source::V4(i.to_be_bytes());
            if let Ok(attempt) = throttle.admit(source, &format!("t{i}"), now) {
                throttle.settle(attempt, false, now);
            }
        }
        let tables = throttle.tables.lock().unwrap();
        assert!(tables.0.records.len() <= MAX_ENTRIES);
        assert!(tables.1.records.len() <= MAX_ENTRIES);
    }

    #[test]
    fn an_address_checks_two_passwords_at_a_time_and_is_forgotten_after() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let gates = Gates::default();
            let me = ip("10.0.0.1");
            let first = gates.enter(me).await;
            let second = gates.enter(me).await;
            let third = tokio::time::timeout(Duration::from_millis(50), gates.enter(me)).await;
            assert!(third.is_err(), "the third waits");
            let other = gates.enter(ip("10.0.0.2")).await;
            drop(other);
            drop(first);
            let third = gates.enter(me).await;
            drop((second, third));
            assert!(gates.is_empty());
        });
    }
}
