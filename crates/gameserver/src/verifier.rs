//! The password checks of logins, on a fixed pool of threads of their own. argon2 is slow and
//! needs 19 MiB per check on purpose; each thread keeps one work area for all its checks, and
//! at most one check per thread is handed out at a time (the others wait, cheaply, in the
//! async tasks of their connections). So a flood of logins costs a bounded amount of memory
//! and never takes the threads the games run on.

use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, Mutex};

use argon2::Block;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};

use crate::accounts::LiveAccounts;

/// Threads checking passwords at most: more would only take memory and cores from the games.
pub const MAX_THREADS: usize = 4;

/// What a check found: whether the password is right, and the reason the accounts file could
/// not be read again if it changed and could not.
pub type Checked = (bool, Option<String>);

struct Job {
    team: String,
    password: String,
    reply: oneshot::Sender<Checked>,
    /// The place in the pool, given back when the check is done.
    _place: OwnedSemaphorePermit,
}

/// The pool.
pub struct Verifier {
    places: Arc<Semaphore>,
    jobs: Mutex<std_mpsc::Sender<Job>>,
}

impl Verifier {
    /// Starts `threads` threads (1 to [`MAX_THREADS`]) checking passwords against `accounts`.
    pub fn start(accounts: Arc<LiveAccounts>, threads: usize) -> std::io::Result<Verifier> {
        let threads = threads.clamp(1, MAX_THREADS);
        let (jobs, queue) = std_mpsc::channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        for i in 0..threads {
            let (accounts, queue) = (accounts.clone(), queue.clone());
            std::thread::Builder::new()
                .name(format!("login-check-{i}"))
                .spawn(move || check_loop(&accounts, &queue))?;
        }
        Ok(Verifier {
            places: Arc::new(Semaphore::new(threads)),
            jobs: Mutex::new(jobs),
        })
    }

    /// Whether `password` is `team`'s, once a thread is free for it.
    pub async fn check(&self, team: String, password: String) -> Checked {
        let Ok(place) = self.places.clone().acquire_owned().await else {
            return (false, None);
        };
        let (reply, answer) = oneshot::channel();
        let job = Job {
            team,
            password,
            reply,
            _place: place,
        };
        if self
            .jobs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send(job)
            .is_err()
        {
            return (false, Some("the password checks stopped".into()));
        }
        answer.await.unwrap_or((false, None))
    }
}

fn check_loop(accounts: &LiveAccounts, queue: &Mutex<std_mpsc::Receiver<Job>>) {
    let mut memory: Vec<Block> = Vec::new();
    loop {
        let job = {
            let queue = queue.lock().unwrap_or_else(|e| e.into_inner());
            match queue.recv() {
                Ok(job) => job,
                // The server is gone.
                Err(_) => return,
            }
        };
        let (current, problem) = accounts.current();
        let right = current.verify_in(&job.team, &job.password, &mut memory);
        let _ = job.reply.send((right, problem));
    }
}
