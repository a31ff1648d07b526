//! A cgroup per bot: its memory and process limits, its CPU time, every process it started.
//!
//! Both layouts are supported: cgroup v1 (one hierarchy per controller: `memory`, `pids`,
//! `cpuacct`, `freezer`) and the unified cgroup v2. A bot's cgroup is made under Arbiter's own
//! cgroup, so the limits of the organiser's session still hold above it.
//!
//! The freezer stops every process of a bot between its turns, so that it cannot take CPU from
//! the bot that is thinking (v1: `freezer.state`; v2: `cgroup.freeze`, in every cgroup but the
//! root since Linux 5.2).

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::{Limit, Limits, SandboxError};

/// Where bots' cgroups are made.
#[derive(Debug)]
pub(crate) enum Cgroups {
    /// One folder per controller: Arbiter's own cgroup in each.
    V1 {
        memory: PathBuf,
        pids: PathBuf,
        cpuacct: Option<PathBuf>,
        freezer: Option<PathBuf>,
    },
    /// Arbiter's cgroup in the unified hierarchy, with memory and pids enabled for children;
    /// `freeze` when its children have `cgroup.freeze`.
    V2 { parent: PathBuf, freeze: bool },
}

impl Cgroups {
    /// Finds the writable controllers, or says why there are none.
    pub(crate) fn find() -> Result<Cgroups, String> {
        let mountinfo = read_small("/proc/self/mountinfo")?;
        let membership = read_small("/proc/self/cgroup")?;
        let own = |controller: &str| own_v1_folder(&mountinfo, &membership, controller);
        let found = match (own("memory"), own("pids")) {
            (Some(memory), Some(pids)) => Cgroups::V1 {
                memory,
                pids,
                cpuacct: own("cpuacct"),
                freezer: own("freezer"),
            },
            _ => Cgroups::V2 {
                parent: v2_parent(&mountinfo, &membership)?,
                freeze: false,
            },
        };
        let freezes = found.probe()?;
        Ok(match found {
            Cgroups::V2 { parent, .. } => Cgroups::V2 {
                parent,
                freeze: freezes,
            },
            v1 => v1,
        })
    }

    /// Makes and removes a cgroup, to learn now rather than at the first match that we cannot;
    /// whether it could be frozen.
    fn probe(&self) -> Result<bool, String> {
        let name = format!("arbiter-probe-{}", std::process::id());
        let mut freezes = false;
        for parent in self.parents() {
            let dir = parent.join(&name);
            make_dir(&dir, self.is_v2())
                .map_err(|e| format!("cannot make a cgroup in {}: {e}", parent.display()))?;
            freezes |= dir.join(FREEZER_V1).exists() || dir.join(FREEZER_V2).exists();
            let _ = fs::remove_dir(&dir);
        }
        Ok(freezes)
    }

    /// Why bots cannot be frozen between their turns here, if they cannot.
    pub(crate) fn no_freezer(&self) -> Option<&'static str> {
        match self {
            Cgroups::V1 { freezer: None, .. } => {
                Some("cgroup v1 is used and its freezer controller is not mounted")
            }
            Cgroups::V2 { freeze: false, .. } => {
                Some("cgroup v2 is used and its cgroups have no cgroup.freeze (Linux before 5.2)")
            }
            _ => None,
        }
    }

    fn parents(&self) -> Vec<&Path> {
        match self {
            Cgroups::V1 {
                memory,
                pids,
                cpuacct,
                freezer,
            } => [Some(memory), Some(pids), cpuacct.as_ref(), freezer.as_ref()]
                .into_iter()
                .flatten()
                .map(PathBuf::as_path)
                .collect(),
            Cgroups::V2 { parent, .. } => vec![parent],
        }
    }

    fn is_v2(&self) -> bool {
        matches!(self, Cgroups::V2 { .. })
    }

    /// Makes the cgroup of one bot, with `limits` set.
    pub(crate) fn make(&self, n: u32, limits: &Limits) -> Result<BotCgroup, SandboxError> {
        let name = format!("arbiter-{}-{n}", std::process::id());
        let mut bot = BotCgroup {
            dirs: Vec::new(),
            procs: Vec::new(),
            memory_events: None,
            pids_events: None,
            cpu: None,
            freezer: None,
            v2: self.is_v2(),
        };
        // A leftover that a killed Arbiter left frozen: its processes die only once thawed, and
        // its folders in the other hierarchies can be removed only once they have died.
        if let Cgroups::V1 {
            freezer: Some(freezer),
            ..
        } = self
        {
            let _ = fs::write(freezer.join(&name).join(FREEZER_V1), "THAWED");
        }
        for parent in self.parents() {
            let dir = parent.join(&name);
            make_dir(&dir, bot.v2).map_err(SandboxError::io("making cgroup", &dir))?;
            bot.procs.push(open_write(&dir.join("cgroup.procs"))?);
            bot.dirs.push(dir);
        }
        let memory = limits.memory_mb << 20;
        match self {
            Cgroups::V1 {
                memory: memory_parent,
                pids: pids_parent,
                cpuacct,
                freezer,
            } => {
                let (memory_dir, pids_dir) = (memory_parent.join(&name), pids_parent.join(&name));
                write(&memory_dir.join("memory.limit_in_bytes"), memory)?;
                // Swap accounting is often off; where it is on, swap must not extend the limit.
                let _ = write(&memory_dir.join("memory.memsw.limit_in_bytes"), memory);
                write(&pids_dir.join("pids.max"), limits.max_processes)?;
                bot.memory_events = Some(open_read(&memory_dir.join("memory.oom_control"))?);
                bot.pids_events = Some(open_read(&pids_dir.join("pids.events"))?);
                bot.cpu = cpuacct
                    .as_ref()
                    .and_then(|d| File::open(d.join(&name).join("cpuacct.usage")).ok());
                if let Some(freezer) = freezer {
                    bot.freezer = Some(open_write(&freezer.join(&name).join(FREEZER_V1))?);
                }
            }
            Cgroups::V2 { freeze, .. } => {
                let dir = &bot.dirs[0];
                write(&dir.join("memory.max"), memory)?;
                let _ = write(&dir.join("memory.swap.max"), 0);
                write(&dir.join("pids.max"), limits.max_processes)?;
                bot.memory_events = Some(open_read(&dir.join("memory.events"))?);
                bot.pids_events = Some(open_read(&dir.join("pids.events"))?);
                bot.cpu = File::open(dir.join("cpu.stat")).ok();
                if *freeze {
                    bot.freezer = Some(open_write(&dir.join(FREEZER_V2))?);
                }
            }
        }
        Ok(bot)
    }
}

/// The file that freezes a cgroup, in cgroup v1's freezer hierarchy and in cgroup v2.
const FREEZER_V1: &str = "freezer.state";
const FREEZER_V2: &str = "cgroup.freeze";

/// Makes the cgroup folder `dir`. One already there is a leftover: names carry Arbiter's PID,
/// which no other live process has, so the folder was left by an Arbiter killed before it
/// could remove it, whose PID has come back. What still runs in it is killed and it is
/// removed, so that the new bot starts in a cgroup of its own.
fn make_dir(dir: &Path, v2: bool) -> io::Result<()> {
    match fs::create_dir(dir) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            drop(BotCgroup::leftover(dir, v2));
            fs::create_dir(dir)
        }
        made => made,
    }
}

/// One bot's cgroup. Dropping it kills what is left in it and removes it.
#[derive(Debug)]
pub(crate) struct BotCgroup {
    dirs: Vec<PathBuf>,
    /// `cgroup.procs` of each folder, opened before the bot starts: the child joins by writing
    /// to them between fork and exec, where nothing may be allocated.
    procs: Vec<File>,
    memory_events: Option<File>,
    pids_events: Option<File>,
    cpu: Option<File>,
    /// `freezer.state` (v1) or `cgroup.freeze` (v2), where the machine has a freezer.
    freezer: Option<File>,
    v2: bool,
}

impl BotCgroup {
    /// The folder of a cgroup left behind, to be emptied and removed by dropping it (thawed
    /// first if it was left frozen).
    fn leftover(dir: &Path, v2: bool) -> BotCgroup {
        let freezer = [FREEZER_V1, FREEZER_V2]
            .into_iter()
            .find_map(|file| OpenOptions::new().write(true).open(dir.join(file)).ok());
        BotCgroup {
            dirs: vec![dir.to_path_buf()],
            procs: Vec::new(),
            memory_events: None,
            pids_events: None,
            cpu: None,
            freezer,
            v2,
        }
    }

    /// Descriptors the starting child writes `0` (itself) to.
    pub(crate) fn join_fds(&self) -> Vec<RawFd> {
        self.procs.iter().map(AsRawFd::as_raw_fd).collect()
    }

    /// The limit the bot ran into, if it did.
    pub(crate) fn limit_hit(&self) -> Option<Limit> {
        let count = |file: &Option<File>, key: &str| {
            file.as_ref()
                .and_then(|f| read_at_start(f).ok())
                .and_then(|text| keyed_value(&text, key))
                .unwrap_or(0)
        };
        if count(&self.memory_events, "oom_kill") > 0 {
            Some(Limit::Memory)
        } else if count(&self.pids_events, "max") > 0 {
            Some(Limit::Processes)
        } else {
            None
        }
    }

    /// CPU time used by all the bot's processes so far.
    pub(crate) fn cpu_time(&self) -> Option<Duration> {
        let text = read_at_start(self.cpu.as_ref()?).ok()?;
        if self.v2 {
            keyed_value(&text, "usage_usec").map(Duration::from_micros)
        } else {
            text.trim().parse().ok().map(Duration::from_nanos)
        }
    }

    /// Whether the cgroup has a freezer ([`BotCgroup::freeze`] does something).
    pub(crate) fn can_freeze(&self) -> bool {
        self.freezer.is_some()
    }

    /// Stops every process of the cgroup, and those it starts, until [`BotCgroup::thaw`]; does
    /// nothing without a freezer. Does not wait: cgroup v1 freezes asynchronously (`FREEZING`,
    /// then `FROZEN`), and a process on a core is stopped within microseconds, by an
    /// interrupt; the CPU it takes meanwhile is still counted by [`BotCgroup::cpu_time`].
    pub(crate) fn freeze(&self) -> io::Result<()> {
        self.set_frozen(true)
    }

    /// Lets the processes of the cgroup run again after [`BotCgroup::freeze`].
    pub(crate) fn thaw(&self) -> io::Result<()> {
        self.set_frozen(false)
    }

    fn set_frozen(&self, frozen: bool) -> io::Result<()> {
        let Some(file) = &self.freezer else {
            return Ok(());
        };
        let value: &[u8] = match (self.v2, frozen) {
            (false, true) => b"FROZEN",
            (false, false) => b"THAWED",
            (true, true) => b"1",
            (true, false) => b"0",
        };
        file.write_at(value, 0).map(drop)
    }

    /// Kills every process in the cgroup and waits (up to a limit) until none is left.
    pub(crate) fn kill_all(&self) {
        let Some(dir) = self.dirs.last() else { return };
        if self.v2 {
            let _ = fs::write(dir.join("cgroup.kill"), "1");
        }
        // A frozen process of cgroup v1 dies of SIGKILL only once thawed; the signals sent
        // below, before it can run, are waiting for it then.
        let mut thawed = false;
        let give_up = Instant::now() + Duration::from_secs(2);
        while Instant::now() < give_up {
            let Ok(pids) = fs::read_to_string(dir.join("cgroup.procs")) else {
                return;
            };
            let pids: Vec<i32> = pids.lines().filter_map(|l| l.trim().parse().ok()).collect();
            if pids.is_empty() {
                return;
            }
            for pid in pids {
                // SAFETY: kill with a pid read from the bot's own cgroup.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
            if !thawed {
                let _ = self.thaw();
                thawed = true;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

impl Drop for BotCgroup {
    fn drop(&mut self) {
        self.kill_all();
        for dir in &self.dirs {
            // A killed process leaves its cgroup a moment after it is gone from cgroup.procs.
            let give_up = Instant::now() + Duration::from_secs(1);
            while fs::remove_dir(dir).is_err() && dir.exists() && Instant::now() < give_up {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    }
}

/// `key N` on a line of `text` (the format of the cgroup event and stat files).
fn keyed_value(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let (k, v) = line.split_once(' ')?;
        (k == key).then(|| v.trim().parse().ok()).flatten()
    })
}

fn read_at_start(file: &File) -> io::Result<String> {
    let mut buf = [0u8; 1024];
    let n = file.read_at(&mut buf, 0)?;
    Ok(String::from_utf8_lossy(&buf[..n]).into_owned())
}

fn read_small(path: &str) -> Result<String, String> {
    fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
}

fn open_write(path: &Path) -> Result<File, SandboxError> {
    OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(SandboxError::io("opening", path))
}

fn open_read(path: &Path) -> Result<File, SandboxError> {
    File::open(path).map_err(SandboxError::io("opening", path))
}

fn write(path: &Path, value: impl ToString) -> Result<(), SandboxError> {
    fs::write(path, value.to_string()).map_err(SandboxError::io("writing", path))
}

/// A mount of `/proc/self/mountinfo`: where it is, what part of its hierarchy it shows, its
/// type and its options.
struct Mount<'a> {
    point: &'a str,
    root: &'a str,
    fstype: &'a str,
    options: &'a str,
}

fn mounts(mountinfo: &str) -> impl Iterator<Item = Mount<'_>> {
    mountinfo.lines().filter_map(|line| {
        let (before, after) = line.split_once(" - ")?;
        let fields: Vec<&str> = before.split(' ').collect();
        let mut after = after.split(' ');
        Some(Mount {
            root: fields.get(3)?,
            point: fields.get(4)?,
            fstype: after.next()?,
            options: after.nth(1)?,
        })
    })
}

/// Arbiter's own folder in the v1 hierarchy of `controller`, if it is mounted.
fn own_v1_folder(mountinfo: &str, membership: &str, controller: &str) -> Option<PathBuf> {
    let mount = mounts(mountinfo)
        .find(|m| m.fstype == "cgroup" && m.options.split(',').any(|o| o == controller))?;
    let path = membership.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers
            .split(',')
            .any(|c| c == controller)
            .then_some(path)
    })?;
    Some(under_mount(&mount, path))
}

/// Arbiter's own cgroup v2 folder, with the memory and pids controllers enabled for its
/// children; enabling them there first moves Arbiter into a leaf of its own, as cgroup v2 has
/// no processes in a cgroup whose children have controllers.
fn v2_parent(mountinfo: &str, membership: &str) -> Result<PathBuf, String> {
    let none = "neither cgroup v1 memory and pids controllers nor cgroup v2 are mounted";
    let mount = mounts(mountinfo)
        .find(|m| m.fstype == "cgroup2")
        .ok_or(none)?;
    let path = membership
        .lines()
        .find_map(|line| line.strip_prefix("0::"))
        .ok_or(none)?;
    let own = under_mount(&mount, path);
    let has_both = |file: &str| {
        fs::read_to_string(own.join(file)).is_ok_and(|text| {
            let words: Vec<&str> = text.split_whitespace().collect();
            words.contains(&"memory") && words.contains(&"pids")
        })
    };
    if !has_both("cgroup.controllers") {
        return Err(format!(
            "the memory and pids controllers are not available in cgroup {}",
            own.display()
        ));
    }
    if has_both("cgroup.subtree_control") {
        return Ok(own);
    }
    let leaf = own.join(format!("arbiter-referee-{}", std::process::id()));
    let enable = || -> io::Result<()> {
        fs::create_dir_all(&leaf)?;
        fs::write(leaf.join("cgroup.procs"), "0")?;
        fs::write(own.join("cgroup.subtree_control"), "+memory +pids")
    };
    enable().map_err(|e| {
        format!(
            "cannot enable the memory and pids controllers in cgroup {}: {e}",
            own.display()
        )
    })?;
    Ok(own)
}

/// The folder of cgroup `path` (as `/proc/self/cgroup` names it) under `mount`.
fn under_mount(mount: &Mount<'_>, path: &str) -> PathBuf {
    let inside = path.strip_prefix(mount.root).unwrap_or(path);
    Path::new(mount.point).join(inside.trim_start_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTINFO: &str = "\
35 30 0:30 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory
36 30 0:31 / /sys/fs/cgroup/pids rw,nosuid - cgroup cgroup rw,pids
37 30 0:32 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw
38 30 0:33 /docker/abc /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct";

    #[test]
    fn v1_folders_are_found_under_their_mounts() {
        let membership = "4:memory:/process_api/62f\n8:pids:/\n2:cpu,cpuacct:/docker/abc/x\n0::/";
        assert_eq!(
            own_v1_folder(MOUNTINFO, membership, "memory"),
            Some(PathBuf::from("/sys/fs/cgroup/memory/process_api/62f"))
        );
        assert_eq!(
            own_v1_folder(MOUNTINFO, membership, "pids"),
            Some(PathBuf::from("/sys/fs/cgroup/pids"))
        );
        // A mount showing part of its hierarchy: the path is taken relative to that part.
        assert_eq!(
            own_v1_folder(MOUNTINFO, membership, "cpuacct"),
            Some(PathBuf::from("/sys/fs/cgroup/cpu,cpuacct/x"))
        );
        assert_eq!(own_v1_folder(MOUNTINFO, membership, "freezer"), None);
    }

    #[test]
    fn a_cgroup_left_by_a_killed_arbiter_whose_pid_came_back_is_replaced() {
        let cgroups = Cgroups::find().expect("cgroups are writable here");
        // A number this process's own bots never reach, in the name a leftover would have.
        let n = u32::MAX;
        let name = format!("arbiter-{}-{n}", std::process::id());
        let mut stray = std::process::Command::new("sleep")
            .arg("600")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        for parent in cgroups.parents() {
            fs::create_dir(parent.join(&name)).unwrap();
            fs::write(
                parent.join(&name).join("cgroup.procs"),
                stray.id().to_string(),
            )
            .unwrap();
        }
        let bot = cgroups
            .make(n, &Limits::default())
            .expect("the leftover is replaced");
        // The leftover's process was killed with it; the new cgroup is empty.
        assert!(!stray.wait().unwrap().success());
        for dir in &bot.dirs {
            assert_eq!(fs::read_to_string(dir.join("cgroup.procs")).unwrap(), "");
        }
        drop(bot);
        for parent in cgroups.parents() {
            assert!(!parent.join(&name).exists());
        }
    }

    /// A shell spinning in a busy loop, not yet in any cgroup of ours.
    fn busy_loop() -> std::process::Child {
        std::process::Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .spawn()
            .unwrap()
    }

    /// Waits until `done`, failing with `what` if it does not come (the guard only stops a
    /// hang: a freezer state changes in microseconds).
    fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
        let give_up = Instant::now() + Duration::from_secs(10);
        while !done() {
            assert!(Instant::now() < give_up, "waited 10 s for {what}");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Whether every process of `bot` is stopped, as its freezer says.
    fn frozen(bot: &BotCgroup) -> bool {
        let dir = bot.dirs.last().unwrap();
        match bot.v2 {
            true => fs::read_to_string(dir.join("cgroup.events"))
                .is_ok_and(|text| keyed_value(&text, "frozen") == Some(1)),
            false => fs::read_to_string(dir.join(FREEZER_V1)).unwrap().trim() == "FROZEN",
        }
    }

    /// Freezes `bot`, whose busy loop is running, and checks that its CPU counter stands still
    /// until it is thawed, and moves again then.
    /// Frozen again, `child` in `bot` is still killed when the cgroup is dropped (v1 kills a
    /// frozen process only once it is thawed).
    fn assert_killed_frozen(bot: BotCgroup, child: &mut std::process::Child) {
        bot.freeze().unwrap();
        wait_for("the cgroup to be frozen", || frozen(&bot));
        drop(bot);
        assert!(!child.wait().unwrap().success());
    }

    fn assert_freezes(bot: &BotCgroup) {
        let cpu = || bot.cpu_time().expect("the cgroup counts CPU time");
        wait_for("the busy loop to use CPU", || cpu() > Duration::ZERO);
        bot.freeze().unwrap();
        wait_for("the cgroup to be frozen", || frozen(bot));
        let stopped = cpu();
        // Time for a running loop to show up in its counter; a frozen one shows nothing.
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(cpu(), stopped, "a frozen cgroup used CPU");
        bot.thaw().unwrap();
        wait_for("the thawed loop to use CPU again", || cpu() > stopped);
        assert!(!frozen(bot));
    }

    #[test]
    fn a_frozen_cgroup_uses_no_cpu_until_it_is_thawed() {
        let cgroups = Cgroups::find().expect("cgroups are writable here");
        assert_eq!(cgroups.no_freezer(), None, "this machine has a freezer");
        let bot = cgroups.make(u32::MAX - 1, &Limits::default()).unwrap();
        assert!(bot.can_freeze());
        let mut child = busy_loop();
        for dir in &bot.dirs {
            fs::write(dir.join("cgroup.procs"), child.id().to_string()).unwrap();
        }
        assert_freezes(&bot);
        assert_killed_frozen(bot, &mut child);
    }

    #[test]
    fn a_cgroup_v2_beside_v1_freezes_through_cgroup_freeze() {
        // Where cgroup v2 is mounted beside the v1 controllers (as here), its freezer is
        // tried on a cgroup of its own; elsewhere the test of the layout in use covers it.
        let mountinfo = read_small("/proc/self/mountinfo").unwrap();
        let Some(mount) = mounts(&mountinfo).find(|m| m.fstype == "cgroup2") else {
            return;
        };
        let membership = read_small("/proc/self/cgroup").unwrap();
        let own = membership
            .lines()
            .find_map(|l| l.strip_prefix("0::"))
            .unwrap();
        let dir = under_mount(&mount, own).join(format!("arbiter-freeze-{}", std::process::id()));
        make_dir(&dir, true).unwrap();
        let bot = BotCgroup {
            dirs: vec![dir.clone()],
            procs: Vec::new(),
            memory_events: None,
            pids_events: None,
            cpu: File::open(dir.join("cpu.stat")).ok(),
            freezer: Some(open_write(&dir.join(FREEZER_V2)).unwrap()),
            v2: true,
        };
        let mut child = busy_loop();
        fs::write(dir.join("cgroup.procs"), child.id().to_string()).unwrap();
        assert_freezes(&bot);
        assert_killed_frozen(bot, &mut child);
        assert!(!dir.exists());
    }

    #[test]
    fn a_cgroup_left_frozen_by_a_killed_arbiter_is_thawed_and_replaced() {
        let cgroups = Cgroups::find().expect("cgroups are writable here");
        let Cgroups::V1 {
            freezer: Some(freezer),
            ..
        } = &cgroups
        else {
            return;
        };
        let n = u32::MAX - 2;
        let name = format!("arbiter-{}-{n}", std::process::id());
        let mut stray = busy_loop();
        for parent in cgroups.parents() {
            fs::create_dir(parent.join(&name)).unwrap();
            fs::write(
                parent.join(&name).join("cgroup.procs"),
                stray.id().to_string(),
            )
            .unwrap();
        }
        fs::write(freezer.join(&name).join(FREEZER_V1), "FROZEN").unwrap();
        let bot = cgroups.make(n, &Limits::default()).unwrap();
        assert!(!stray.wait().unwrap().success());
        assert!(!frozen(&bot));
        drop(bot);
        assert!(!freezer.join(&name).exists());
    }

    #[test]
    fn event_files_are_read_by_key() {
        let events = "low 0\nhigh 0\nmax 3\noom 1\noom_kill 2\n";
        assert_eq!(keyed_value(events, "oom_kill"), Some(2));
        assert_eq!(keyed_value(events, "max"), Some(3));
        assert_eq!(keyed_value(events, "oom_group_kill"), None);
    }
}
