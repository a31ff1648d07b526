//! A version built: laid out as a player folder, its build command run in the sandbox, the
//! result taken out of the jail, its `info.txt` read as tournaments read it, and packed.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use arbiter_folder::Bounds;
use arbiter_programs::{DEFAULT_MAX_MB, ProgramError};
use arbiter_referee::{Commands, INFO_TXT, read_player_folder};
use arbiter_sandbox::{Limit, Limits, SandboxPolicy};

use crate::layout::{BuildStep, Plan, lay_out};
use crate::run::{End, Ran, run};
use crate::take_out::{copy_out, over_reason};
use crate::{BuildError, BuildLimits, Built, FOLDER_LANGUAGE, Languages, Source};

/// The shell's exit status for a command it did not find.
const NOT_FOUND: i32 = 127;

/// Open files per process of a build: compilers open more than bots (the default 256).
const BUILD_OPEN_FILES: u32 = 1024;

/// Unpacks or lays out `source` into a fresh folder under `work`, builds it in the sandbox
/// (no network, `limits`), writes its `info.txt`, and packs the result as a program. A
/// version that cannot be built is [`Built::Failed`], with its log and the reason; its
/// folder is then removed. On success the caller removes [`Built::Ok`]'s folder's parent
/// once done with it (it is the only thing in it).
pub fn build(
    source: Source<'_>,
    languages: &Languages,
    limits: &BuildLimits,
    sandbox: &SandboxPolicy,
    work: &Path,
) -> Result<Built, BuildError> {
    build_until(
        source,
        languages,
        limits,
        sandbox,
        work,
        &AtomicBool::new(false),
    )
}

/// [`build`], ended with [`BuildError::Stopped`] (its processes killed, its folder removed)
/// when `stop` is set: Arbiter is stopping, and the job goes back to the queue.
pub fn build_until(
    source: Source<'_>,
    languages: &Languages,
    limits: &BuildLimits,
    sandbox: &SandboxPolicy,
    work: &Path,
    stop: &AtomicBool,
) -> Result<Built, BuildError> {
    let root = fresh_folder(work)?;
    let job = Job {
        languages,
        limits,
        sandbox,
        stop,
    };
    let built = build_in(&root, source, &job);
    if !matches!(built, Ok(Built::Ok { .. })) {
        remove_quietly(&root);
    }
    built
}

/// What every step of a build is given.
struct Job<'a> {
    languages: &'a Languages,
    limits: &'a BuildLimits,
    sandbox: &'a SandboxPolicy,
    stop: &'a AtomicBool,
}

fn build_in(root: &Path, source: Source<'_>, job: &Job<'_>) -> Result<Built, BuildError> {
    let laid_out = root.join("source");
    std::fs::create_dir(&laid_out).map_err(BuildError::io("making", &laid_out))?;
    let plan = match lay_out(source, job.languages, job.limits, &laid_out)? {
        Ok(plan) => plan,
        Err(reason) => return Ok(failed(String::new(), reason)),
    };
    let (folder, log, took) = match &plan.build {
        None => (laid_out, String::new(), None),
        Some(step) => match run_step(root, &laid_out, step, &plan, job)? {
            Ok((folder, ran)) => (folder, ran.log, Some(ran.took)),
            Err(failure) => return Ok(failure),
        },
    };
    if let Some(info) = &plan.info {
        let path = folder.join(INFO_TXT);
        // Written after the build, so that the command is the language's whatever it did.
        let _ = std::fs::remove_file(&path);
        std::fs::write(&path, info).map_err(BuildError::io("writing", &path))?;
    }
    if let Err(error) = read_player_folder(&folder, Commands::AsWritten) {
        return Ok(failed(log, in_folder(&error.to_string(), &folder)));
    }
    let program = match arbiter_programs::pack(&folder, DEFAULT_MAX_MB << 20) {
        Ok(program) => program,
        Err(error @ (ProgramError::TooLarge { .. } | ProgramError::Special { .. })) => {
            return Ok(failed(log, in_folder(&error.to_string(), &folder)));
        }
        Err(error) => return Err(error.into()),
    };
    Ok(Built::Ok {
        folder,
        program,
        log,
        language: plan.language,
        took,
    })
}

/// Runs the build step in a jail of the sandbox (or, without one, in the folder itself): the
/// built folder and what the command did, or the failure.
fn run_step(
    root: &Path,
    laid_out: &Path,
    step: &BuildStep,
    plan: &Plan,
    job: &Job<'_>,
) -> Result<Result<(PathBuf, Ran), Built>, BuildError> {
    let limits = job.limits;
    let policy = build_policy(job.sandbox, &plan.toolchains, limits);
    let sandbox = policy.open()?;
    let bounds = output_bounds(&policy, limits);
    let built = root.join("built");
    let mut over = None;
    let ran = match &sandbox {
        Some(sandbox) => {
            let mut take_out = |scratch: &Path| {
                over = copy_out(scratch, &built, &bounds)?;
                Ok(())
            };
            run(
                &step.command,
                laid_out,
                Some(sandbox),
                limits,
                job.stop,
                &mut take_out,
            )?
        }
        None => {
            let ran = run(&step.command, laid_out, None, limits, job.stop, &mut |_| {
                Ok(())
            })?;
            over = arbiter_folder::walk(laid_out, &bounds, &mut |_| Ok(()))
                .err()
                .and_then(|e| match e {
                    arbiter_folder::WalkError::Over(over) => Some(over),
                    arbiter_folder::WalkError::Io { .. } => None,
                });
            ran
        }
    };
    if ran.end == End::Stopped {
        return Err(BuildError::Stopped);
    }
    if ran.end != End::Exited(0) {
        let mut reason = end_reason(ran.end, &step.program, limits);
        if ran.end == End::Exited(NOT_FOUND) && plan.language != FOLDER_LANGUAGE {
            // The shell found no program of the language's own command: the arena's doing.
            reason.push_str(&format!(
                ": {} is not installed here, or the sandbox does not show it (tell the \
                 arena's operator)",
                step.program
            ));
        }
        return Ok(Err(failed(ran.log, reason)));
    }
    if let Some(over) = over {
        return Ok(Err(failed(ran.log, over_reason(over, &bounds))));
    }
    let folder = match sandbox {
        Some(_) => {
            remove_quietly(laid_out);
            built
        }
        None => laid_out.to_owned(),
    };
    Ok(Ok((folder, ran)))
}

/// The sandbox of a build: the operator's, showing the language's toolchains too (those that
/// exist: a folder that does not would keep the sandbox from being built), under the build's
/// limits.
fn build_policy(
    sandbox: &SandboxPolicy,
    toolchains: &[PathBuf],
    limits: &BuildLimits,
) -> SandboxPolicy {
    let mut policy = showing(sandbox, toolchains);
    if let SandboxPolicy::Preferred(config) | SandboxPolicy::Required(config) = &mut policy {
        config.limits = Limits {
            memory_mb: limits.memory_mb,
            max_processes: limits.max_processes,
            file_size_mb: limits.output_mb,
            open_files: BUILD_OPEN_FILES,
            // A backstop: the wall-clock limit ends the build first.
            cpu_seconds: limits.time.as_secs().saturating_mul(2).max(1),
        };
    }
    policy
}

/// `sandbox` showing the folders `toolchains` too, read-only, to whatever runs in it (those
/// that exist): the sandbox a version runs in, given its language's toolchains
/// ([`Languages::toolchains_for`]).
pub fn showing(sandbox: &SandboxPolicy, toolchains: &[PathBuf]) -> SandboxPolicy {
    let mut policy = sandbox.clone();
    if let SandboxPolicy::Preferred(config) | SandboxPolicy::Required(config) = &mut policy {
        for folder in toolchains {
            if folder.is_absolute() && folder.exists() && !config.read_only.contains(folder) {
                config.read_only.push(folder.clone());
            }
        }
    }
    policy
}

/// How large the built folder may be: `output_mb`, and the sandbox's bounds of a player
/// folder's entries and depth (a built folder is one).
fn output_bounds(policy: &SandboxPolicy, limits: &BuildLimits) -> Bounds {
    let folders = match policy {
        SandboxPolicy::Preferred(config) | SandboxPolicy::Required(config) => config.folders,
        SandboxPolicy::Off => Default::default(),
    };
    Bounds {
        bytes: limits.output_mb.saturating_mul(1 << 20),
        entries: folders.max_entries,
        depth: folders.max_depth,
    }
}

/// Why a build that did not exit with 0 failed, in one line.
fn end_reason(end: End, program: &str, limits: &BuildLimits) -> String {
    match end {
        End::Exited(code) => format!("{program} exited with status {code}"),
        End::Signal(signal) => format!(
            "{program} was killed by signal {signal}{}",
            signal_name(signal).map_or(String::new(), |n| format!(" ({n})"))
        ),
        End::TimedOut => format!("the build took longer than {}", seconds(limits.time)),
        End::Limit(Limit::Memory) => format!(
            "the build went over its memory limit of {} MiB",
            limits.memory_mb
        ),
        End::Limit(Limit::Processes) => format!(
            "the build went over its limit of {} processes and threads",
            limits.max_processes
        ),
        End::Limit(Limit::Cpu) => "the build went over its limit of CPU seconds".to_owned(),
        End::Stopped => "the build was stopped".to_owned(),
    }
}

fn seconds(time: Duration) -> String {
    match time.subsec_millis() {
        0 => format!("{} s", time.as_secs()),
        _ => format!("{:.1} s", time.as_secs_f64()),
    }
}

fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGTERM => "SIGTERM",
        libc::SIGBUS => "SIGBUS",
        libc::SIGXFSZ => "SIGXFSZ: a file larger than the build may write",
        _ => return None,
    })
}

/// A message about the player folder `folder` with its path taken out: its author knows which
/// folder, and the machine's paths are no business of theirs.
pub(crate) fn in_folder(message: &str, folder: &Path) -> String {
    let folder = folder.to_string_lossy();
    message
        .replace(&format!("{folder}/"), "")
        .replace(&*folder, "the player folder")
}

fn failed(log: String, reason: String) -> Built {
    Built::Failed { log, reason }
}

/// A folder of its own under `work` (made if missing) for one build.
fn fresh_folder(work: &Path) -> Result<PathBuf, BuildError> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    std::fs::create_dir_all(work).map_err(BuildError::io("making", work))?;
    loop {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let folder = work.join(format!("build-{}-{n}-{nanos}", std::process::id()));
        match std::fs::create_dir(&folder) {
            Ok(()) => return Ok(folder),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(BuildError::io("making", &folder)(e)),
        }
    }
}

/// Removes the folder of a build that succeeded: the parent of [`Built::Ok`]'s player folder,
/// made for it under `work`. One that cannot be removed is said on stderr.
pub fn remove_built(folder: &Path) {
    if let Some(root) = folder.parent() {
        remove_quietly(root);
    }
}

/// Removes a build's folder; one that cannot be removed is said on stderr, not left silently.
fn remove_quietly(folder: &Path) {
    if let Err(error) = arbiter_folder::remove_tree(folder) {
        use std::io::Write;
        // A closed stderr is no reason to stop: the warning is then lost.
        let _ = writeln!(
            std::io::stderr(),
            "warning: could not remove the build folder {}: {error}",
            arbiter_text::short_path(folder)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_build_says_why_in_one_line() {
        let limits = BuildLimits::default();
        let reason = |end| end_reason(end, "g++", &limits);
        assert_eq!(reason(End::Exited(1)), "g++ exited with status 1");
        assert_eq!(reason(End::TimedOut), "the build took longer than 120 s");
        assert_eq!(
            reason(End::Limit(Limit::Memory)),
            "the build went over its memory limit of 2048 MiB"
        );
        assert_eq!(
            reason(End::Signal(9)),
            "g++ was killed by signal 9 (SIGKILL)"
        );
        let short = BuildLimits {
            time: Duration::from_millis(1500),
            ..BuildLimits::default()
        };
        assert_eq!(
            end_reason(End::TimedOut, "go", &short),
            "the build took longer than 1.5 s"
        );
    }
}
