//! `arbiter submit`: hands in a version of a bot to an arena over its HTTP API (the token from
//! `ARBITER_TOKEN`), waits until it is built and checked, and says how it went by its exit
//! status — 0 active (or passed), 1 its build or check failed (the reason on stderr), 2 a usage
//! or connection error — for scripts and CI jobs.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use arbiter_text::for_terminal as shown;
use clap::Args;
use serde_json::{Value, json};

use crate::out::{errln, outln};

/// Bytes of a folder packed for an upload, at most (unpacked): the arena's own default limit.
const MAX_PACKED_BYTES: u64 = 64 << 20;
/// Entries of a folder packed for an upload, at most: the arena's own default limit.
const MAX_PACKED_ENTRIES: u64 = 2_000;
/// The pause before a version's event stream that ended early is opened again.
const REOPEN_PAUSE: Duration = Duration::from_millis(500);
/// The longest event of a version's stream: its build log is bounded well below.
const MAX_EVENT_BYTES: usize = 4 << 20;

#[derive(Args)]
pub struct SubmitArgs {
    /// The arena's address, as its pages are reached (http://HOST:PORT or https://…).
    #[arg(long)]
    arena: String,
    /// The bot's name; a bot new to the arena is made, in your own team (or --team).
    #[arg(long)]
    bot: String,
    /// The game the bot plays.
    #[arg(long)]
    game: String,
    /// The team a new bot belongs to (default: your own team).
    #[arg(long)]
    team: Option<String>,
    /// Print the outcome as one JSON object {"bot", "version", "state", "reason", "sprt"} on
    /// stdout; "sprt" is the series against the bot's previous version, or null.
    #[arg(long)]
    json: bool,
    /// Once the version is active, wait until its SPRT series against the bot's previous
    /// version has decided (or run out of games), and tell its result.
    #[arg(long)]
    wait_sprt: bool,
    /// Give up waiting after this many seconds (exit status 2), --wait-sprt included.
    #[arg(long, default_value_t = 1800)]
    wait: u64,
    /// One source file (its extension says its language), a .zip or .tar.gz of a player
    /// folder, or a player folder, packed as a .tar.gz (its .git folder left out).
    path: PathBuf,
}

/// How a submission ended, for the exit status.
enum Outcome {
    /// The version plays (or passed, while the team keeps another one pinned).
    Passed,
    /// Its build or check failed.
    Failed,
}

pub fn run(args: SubmitArgs) -> ExitCode {
    match submit(&args) {
        Ok(Outcome::Passed) => ExitCode::SUCCESS,
        Ok(Outcome::Failed) => ExitCode::from(1),
        Err(error) => {
            let message = format!("{error:#}");
            errln!("arbiter: {}", shown(&message));
            ExitCode::from(2)
        }
    }
}

fn submit(args: &SubmitArgs) -> Result<Outcome> {
    let token = std::env::var("ARBITER_TOKEN")
        .ok()
        .filter(|t| !t.trim().is_empty());
    let Some(token) = token else {
        bail!(
            "set ARBITER_TOKEN to an API token of yours (the arena's operator makes one with \
             `arbiter arena token NAME`)"
        );
    };
    let base = args.arena.trim_end_matches('/');
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        bail!("--arena {base:?} is not an http:// or https:// address");
    }
    let (file_name, bytes) = upload_of(&args.path)?;
    let api = Api::new(base, token.trim());
    let path = format!(
        "/api/arena/bots/{}/{}/versions",
        segment(&args.game),
        segment(&args.bot)
    );
    let answer = api.upload(&path, &file_name, &bytes, args.team.as_deref())?;
    let number = answer["version"]
        .as_i64()
        .ok_or_else(|| anyhow!("the arena's answer names no version: {answer}"))?;
    let url = answer["url"]
        .as_str()
        .map_or_else(|| format!("{path}/{number}"), str::to_owned);
    errln!("{} version {number} handed in ({file_name})", args.bot);
    let deadline = Instant::now() + Duration::from_secs(args.wait);
    let mut version = wait(&api, &url, args, number, deadline)?;
    if args.wait_sprt && version["state"] == "active" {
        let bot = format!(
            "/api/arena/bots/{}/{}/events",
            segment(&args.game),
            segment(&args.bot)
        );
        version = wait_sprt(&api, &bot, args, number, deadline)?;
    }
    report(args, number, &version)
}

/// Follows the version until its build and check are over, telling each new state on stderr.
/// The version's event stream tells each change as it happens; a stream cut short (a proxy's
/// time limit, the client's own) is opened again.
fn wait(api: &Api, url: &str, args: &SubmitArgs, number: i64, deadline: Instant) -> Result<Value> {
    let mut told = String::new();
    loop {
        let settled = api.follow(&format!("{url}/events"), deadline, &mut |version| {
            let state = version["state"].as_str().unwrap_or("").to_owned();
            if state != told {
                errln!("{} version {number}: {}", args.bot, shown(&state));
                told = state;
            }
            let stage = version["stage"].as_str().unwrap_or(&told);
            matches!(stage, "passed" | "build_failed" | "check_failed")
        })?;
        if let Some(version) = settled {
            return Ok(version);
        }
        if Instant::now() >= deadline {
            bail!(
                "gave up waiting after {} s: version {number} is still {told}",
                args.wait
            );
        }
        std::thread::sleep(REOPEN_PAUSE);
    }
}

/// Follows the bot (its event stream tells each change of it and of its versions) until the
/// SPRT series of version `number` has ended, telling its progress on stderr; the version then.
/// A version with no series and no earlier version that passed has nothing to wait for: no
/// previous version, no series.
fn wait_sprt(
    api: &Api,
    bot_events: &str,
    args: &SubmitArgs,
    number: i64,
    deadline: Instant,
) -> Result<Value> {
    let mut told = Value::Null;
    loop {
        let settled = api.follow(bot_events, deadline, &mut |bot| {
            let Some(version) = version_of(bot, number) else {
                return false;
            };
            let sprt = &version["sprt"];
            if sprt.is_object() && sprt["games"] != told["games"] {
                errln!("{} version {number}: {}", args.bot, series_line(sprt));
                told = sprt.clone();
            }
            match sprt["result"].as_str() {
                Some(result) => result != "running",
                None => !has_earlier_passed(bot, number),
            }
        })?;
        if let Some(bot) = settled {
            return version_of(&bot, number)
                .cloned()
                .ok_or_else(|| anyhow!("the arena's bot holds no version {number}"));
        }
        if Instant::now() >= deadline {
            bail!(
                "gave up waiting after {} s: the SPRT series of version {number} has not ended",
                args.wait
            );
        }
        std::thread::sleep(REOPEN_PAUSE);
    }
}

/// Version `number` in a bot's JSON.
fn version_of(bot: &Value, number: i64) -> Option<&Value> {
    bot["versions"]
        .as_array()?
        .iter()
        .find(|v| v["number"].as_i64() == Some(number))
}

/// Whether the bot has a version before `number` that passed its check: one its series may be
/// played against.
fn has_earlier_passed(bot: &Value, number: i64) -> bool {
    bot["versions"].as_array().is_some_and(|versions| {
        versions
            .iter()
            .any(|v| v["number"].as_i64().is_some_and(|n| n < number) && v["stage"] == "passed")
    })
}

/// A series as one line: the arena's own sentence ("v7 against v6: +34 ± 12 Elo, stronger (H1
/// accepted after 212 games)"), else its figures.
fn series_line(sprt: &Value) -> String {
    match sprt["sentence"].as_str() {
        Some(sentence) => shown(sentence).into_owned(),
        None => format!(
            "SPRT series {}: {:+.1} ± {:.1} Elo after {} games",
            shown(sprt["result"].as_str().unwrap_or("?")),
            sprt["elo"].as_f64().unwrap_or(f64::NAN),
            sprt["elo_error95"].as_f64().unwrap_or(f64::NAN),
            sprt["games"].as_u64().unwrap_or(0)
        ),
    }
}

/// Says how it went: the reason and log of a failure on stderr, the JSON object if asked.
fn report(args: &SubmitArgs, number: i64, version: &Value) -> Result<Outcome> {
    let state = version["state"].as_str().unwrap_or("");
    let stage = version["stage"].as_str().unwrap_or(state);
    let reason = version["reason"].as_str();
    let outcome = if stage == "passed" {
        Outcome::Passed
    } else {
        Outcome::Failed
    };
    if let Outcome::Failed = outcome {
        errln!(
            "{} version {number}: {}",
            args.bot,
            shown(reason.unwrap_or(state))
        );
        if let Some(log) = version["build_log"].as_str() {
            // Line by line: escaping the whole log would show its line breaks as `\n`.
            for line in log.trim_end().lines() {
                errln!("{}", shown(line));
            }
        }
    } else if state != "active" {
        errln!(
            "{} version {number} passed; the team keeps another version active",
            args.bot
        );
    }
    if args.json {
        // `sprt` as the arena tells it: null when there is no series (yet).
        let sprt = version.get("sprt").cloned().unwrap_or(Value::Null);
        let object = json!({ "bot": args.bot, "version": number, "state": state,
            "reason": reason, "sprt": sprt });
        outln!("{object}")?;
    }
    Ok(outcome)
}

/// The file to upload: a file as it is, a folder packed as a `.tar.gz`.
fn upload_of(path: &Path) -> Result<(String, Vec<u8>)> {
    let meta = std::fs::metadata(path).with_context(|| format!("reading {}", path.display()))?;
    let name = std::path::absolute(path)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .filter(|n| !n.is_empty() && n != "." && n != "..")
        .unwrap_or_else(|| "bot".to_owned());
    if meta.is_dir() {
        let bytes = pack(path).with_context(|| format!("packing {}", path.display()))?;
        return Ok((format!("{name}.tar.gz"), bytes));
    }
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    Ok((name, bytes))
}

/// Packs the player folder `dir` (its contents, without `.git`) as a `.tar.gz` in memory.
/// Links and special files are refused, as the arena refuses them in an archive.
fn pack(dir: &Path) -> Result<Vec<u8>> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    tar.mode(tar::HeaderMode::Deterministic);
    let mut budget = (MAX_PACKED_BYTES, MAX_PACKED_ENTRIES);
    add_folder(&mut tar, dir, Path::new(""), &mut budget)?;
    let gz = tar.into_inner()?;
    Ok(gz.finish()?)
}

fn add_folder<W: std::io::Write>(
    tar: &mut tar::Builder<W>,
    root: &Path,
    relative: &Path,
    budget: &mut (u64, u64),
) -> Result<()> {
    let mut entries: Vec<_> =
        std::fs::read_dir(root.join(relative))?.collect::<std::io::Result<_>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = relative.join(entry.file_name());
        // A folder handed in from a checkout: its history is no part of the bot.
        if relative.as_os_str().is_empty() && entry.file_name() == ".git" {
            continue;
        }
        let kind = entry.file_type()?;
        budget.1 = budget
            .1
            .checked_sub(1)
            .ok_or_else(|| anyhow!("it holds more than {MAX_PACKED_ENTRIES} files and folders"))?;
        if kind.is_dir() {
            tar.append_dir(&name, entry.path())?;
            add_folder(tar, root, &name, budget)?;
        } else if kind.is_file() {
            let size = entry.metadata()?.len();
            budget.0 = budget.0.checked_sub(size).ok_or_else(|| {
                anyhow!("its files hold more than {} MiB", MAX_PACKED_BYTES >> 20)
            })?;
            tar.append_path_with_name(entry.path(), &name)?;
        } else {
            bail!(
                "{} is a link or a special file: the arena takes plain files and folders only",
                name.display()
            );
        }
    }
    Ok(())
}

/// A path segment of the API, percent-encoded where a name could hold what a URL means
/// otherwise.
fn segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The arena's API, with the token.
struct Api {
    agent: ureq::Agent,
    base: String,
    authorization: String,
}

impl Api {
    fn new(base: &str, token: &str) -> Api {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(300)))
            .build();
        Api {
            agent: config.into(),
            base: base.to_owned(),
            authorization: format!("Bearer {token}"),
        }
    }

    /// Posts the multipart form of an upload; the arena's JSON answer.
    fn upload(
        &self,
        path: &str,
        file_name: &str,
        bytes: &[u8],
        team: Option<&str>,
    ) -> Result<Value> {
        let boundary = format!("arbiter-{}", arbiter_logins::new_invite_code());
        let body = multipart(&boundary, file_name, bytes, team);
        let url = format!("{}{path}", self.base);
        let response = self
            .agent
            .post(&url)
            .header("Authorization", &self.authorization)
            .header(
                "Content-Type",
                &format!("multipart/form-data; boundary={boundary}"),
            )
            .send(&body[..])
            .with_context(|| format!("sending the version to {url}"))?;
        answer(response, &url)
    }
}

impl Api {
    /// Reads the server-sent events at `path`, handing each event's JSON to `settled` until it
    /// says the version is settled (that JSON is returned), the stream ends or breaks (`None`:
    /// open it again), or `deadline` passes (`None`). The stream's keep-alive comments let the
    /// deadline be looked at while nothing changes.
    fn follow(
        &self,
        path: &str,
        deadline: Instant,
        settled: &mut dyn FnMut(&Value) -> bool,
    ) -> Result<Option<Value>> {
        use std::io::BufRead as _;
        let url = format!("{}{path}", self.base);
        let response = self
            .agent
            .get(&url)
            .header("Authorization", &self.authorization)
            .header("Accept", "text/event-stream")
            .call()
            .with_context(|| format!("reading {url}"))?;
        if !response.status().is_success() {
            return answer(response, &url).map(Some);
        }
        let mut lines = std::io::BufReader::new(response.into_body().into_reader());
        let (mut event, mut data, mut line) = (String::new(), String::new(), String::new());
        while Instant::now() < deadline {
            line.clear();
            // A broken stream is opened again, as one that ended.
            let mut bounded = std::io::Read::take(&mut lines, MAX_EVENT_BYTES as u64);
            let Ok(read) = bounded.read_line(&mut line) else {
                return Ok(None);
            };
            if read == 0 {
                return Ok(None);
            }
            let field = line.trim_end_matches(['\r', '\n']);
            if let Some(name) = field.strip_prefix("event:") {
                event = name.trim_start().to_owned();
            } else if let Some(value) = field.strip_prefix("data:") {
                data.push_str(value.strip_prefix(' ').unwrap_or(value));
            } else if field.is_empty() && !data.is_empty() {
                if event == "failure" {
                    bail!("the arena could not follow the version: {}", shown(&data));
                }
                let value: Value = serde_json::from_str(&data)
                    .with_context(|| format!("{url} sent an event that is not JSON"))?;
                if settled(&value) {
                    return Ok(Some(value));
                }
                event.clear();
                data.clear();
            }
        }
        Ok(None)
    }
}

/// The JSON of a successful answer; the arena's own words for a refusal.
fn answer(response: ureq::http::Response<ureq::Body>, url: &str) -> Result<Value> {
    let status = response.status();
    let text = response
        .into_body()
        .read_to_string()
        .with_context(|| format!("reading the answer of {url}"))?;
    let value: Option<Value> = serde_json::from_str(&text).ok();
    if status.is_success() {
        return value.ok_or_else(|| anyhow!("{url} answered what is not JSON: {text:.200}"));
    }
    let said = value
        .as_ref()
        .and_then(|v| v["error"].as_str().map(str::to_owned))
        .unwrap_or_else(|| text.chars().take(200).collect());
    bail!("the arena refused ({status}): {said}")
}

/// A `multipart/form-data` body with the file (and the team of a new bot).
fn multipart(boundary: &str, file_name: &str, bytes: &[u8], team: Option<&str>) -> Vec<u8> {
    // As browsers do: quotes and line breaks of the name escaped, the rest as it is.
    let quoted = file_name
        .replace('"', "%22")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    let mut body = Vec::with_capacity(bytes.len() + 512);
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; \
             filename=\"{quoted}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(bytes);
    body.extend_from_slice(b"\r\n");
    if let Some(team) = team {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"team\"\r\n\r\n{team}\r\n"
            )
            .as_bytes(),
        );
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_percent_encoded_in_paths() {
        assert_eq!(segment("walker-2.0_x"), "walker-2.0_x");
        assert_eq!(segment("a b/c"), "a%20b%2Fc");
    }

    #[test]
    fn a_folder_is_packed_without_its_git_and_a_link_is_refused() {
        let dir = arbiter_testdir::fresh("submit-pack");
        std::fs::create_dir_all(dir.join("bot/.git")).unwrap();
        std::fs::create_dir_all(dir.join("bot/src")).unwrap();
        std::fs::write(dir.join("bot/.git/HEAD"), "ref").unwrap();
        std::fs::write(dir.join("bot/info.txt"), "x").unwrap();
        std::fs::write(dir.join("bot/src/main.py"), "print()").unwrap();
        let (name, bytes) = upload_of(&dir.join("bot")).unwrap();
        assert_eq!(name, "bot.tar.gz");
        let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(&bytes[..]));
        let names: Vec<String> = archive
            .entries()
            .unwrap()
            .map(|e| e.unwrap().path().unwrap().display().to_string())
            .collect();
        assert_eq!(names, ["info.txt", "src", "src/main.py"]);
        std::os::unix::fs::symlink("/etc/passwd", dir.join("bot/src/pw")).unwrap();
        let error = format!("{:#}", upload_of(&dir.join("bot")).unwrap_err());
        assert!(error.contains("src/pw is a link"), "{error}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_multipart_body_holds_the_file_and_the_team() {
        let body = multipart("B", "a\"b.py", b"print()", Some("crew"));
        let text = String::from_utf8(body).unwrap();
        assert!(text.starts_with(
            "--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a%22b.py\""
        ));
        assert!(text.contains("\r\n\r\nprint()\r\n--B\r\n"));
        assert!(text.ends_with("name=\"team\"\r\n\r\ncrew\r\n--B--\r\n"));
    }
}
