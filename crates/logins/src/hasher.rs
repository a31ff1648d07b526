//! argon2id on a fixed pool of threads of their own. argon2 is slow and needs 19 MiB per hash
//! on purpose; each thread keeps one work area for all its hashes, and at most one piece of
//! work per thread is handed out at a time (the others wait, cheaply, in the async tasks of
//! their requests). So a flood of logins costs a bounded amount of memory and never takes the
//! threads that serve games or pages.

use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, Mutex, OnceLock};

use argon2::password_hash::rand_core::{OsRng, RngCore};
use argon2::password_hash::{Output, ParamsString, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};

/// Threads hashing passwords at most: more would only take memory and cores from the rest.
pub const MAX_THREADS: usize = 4;

/// What can go wrong with the pool.
#[derive(Debug, thiserror::Error)]
pub enum LoginError {
    /// Its threads are gone (the process is stopping).
    #[error("the password checks stopped")]
    Stopped,
    /// argon2 refused to hash (a password longer than it takes).
    #[error("hashing the password: {0}")]
    Hash(String),
}

/// A piece of work for a thread of the pool, given its argon2 work area.
type Work = Box<dyn FnOnce(&mut Vec<Block>) + Send>;

struct Job {
    work: Work,
    /// The place in the pool, given back when the work is done.
    _place: OwnedSemaphorePermit,
}

/// The pool.
pub struct Hasher {
    places: Arc<Semaphore>,
    jobs: Mutex<std_mpsc::Sender<Job>>,
    /// The parameters of the hashes it makes.
    params: Params,
    /// The hash that names that are no account are checked against, made on first use.
    stand_in: Arc<OnceLock<String>>,
}

impl Hasher {
    /// Starts `threads` threads (1 to [`MAX_THREADS`]) making hashes with argon2's default
    /// parameters (19 MiB, 2 passes, as OWASP recommends).
    pub fn start(threads: usize) -> std::io::Result<Hasher> {
        Hasher::with_params(threads, Params::default())
    }

    /// [`Hasher::start`] with other parameters for the hashes it makes.
    pub fn with_params(threads: usize, params: Params) -> std::io::Result<Hasher> {
        let threads = threads.clamp(1, MAX_THREADS);
        let (jobs, queue) = std_mpsc::channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        for i in 0..threads {
            let queue = queue.clone();
            std::thread::Builder::new()
                .name(format!("password-{i}"))
                .spawn(move || work_loop(&queue))?;
        }
        Ok(Hasher {
            places: Arc::new(Semaphore::new(threads)),
            jobs: Mutex::new(jobs),
            params,
            stand_in: Arc::new(OnceLock::new()),
        })
    }

    /// Runs `work` on a thread of the pool, with that thread's argon2 work area, once one is
    /// free.
    pub async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Vec<Block>) -> T + Send + 'static,
    ) -> Result<T, LoginError> {
        let place = self
            .places
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| LoginError::Stopped)?;
        let (reply, answer) = oneshot::channel();
        let job = Job {
            work: Box::new(move |memory| {
                let _ = reply.send(work(memory));
            }),
            _place: place,
        };
        self.jobs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send(job)
            .map_err(|_| LoginError::Stopped)?;
        answer.await.map_err(|_| LoginError::Stopped)
    }

    /// The argon2id hash of `password` with a fresh random salt, as a PHC string.
    pub async fn hash(&self, password: String) -> Result<String, LoginError> {
        let params = self.params.clone();
        self.run(move |memory| hash_in(&password, &params, memory))
            .await?
    }

    /// Whether `password` is the one hashed as `phc` (a PHC string); `None` for a name that
    /// is no account, which is checked against a stand-in hash with the parameters of the
    /// hashes this pool makes, so that it takes as long to refuse as a wrong password.
    pub async fn verify(&self, phc: Option<String>, password: String) -> bool {
        let (params, stand_in) = (self.params.clone(), self.stand_in.clone());
        let checked = self.run(move |memory| {
            let known = phc.is_some();
            let phc = phc.unwrap_or_else(|| {
                stand_in
                    .get_or_init(|| stand_in_with(&params, memory))
                    .clone()
            });
            // `&` rather than `&&`: the stand-in is checked as fully as a real hash.
            verify_in(&phc, &password, memory) & known
        });
        checked.await.unwrap_or(false)
    }
}

fn work_loop(queue: &Mutex<std_mpsc::Receiver<Job>>) {
    let mut memory: Vec<Block> = Vec::new();
    loop {
        let job = {
            let queue = queue.lock().unwrap_or_else(|e| e.into_inner());
            match queue.recv() {
                Ok(job) => job,
                // The pool is gone.
                Err(_) => return,
            }
        };
        (job.work)(&mut memory);
    }
}

/// The argon2id hash of `password` with `params` and a fresh random salt, as a PHC string,
/// with `memory` as argon2's work area.
pub fn hash_in(
    password: &str,
    params: &Params,
    memory: &mut Vec<Block>,
) -> Result<String, LoginError> {
    let failed = |e: &dyn std::fmt::Display| LoginError::Hash(e.to_string());
    let salt = SaltString::generate(&mut OsRng);
    let mut salt_bytes = [0u8; 64];
    let raw_salt = salt.decode_b64(&mut salt_bytes).map_err(|e| failed(&e))?;
    let argon2 = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
    memory.resize(params.block_count(), Block::default());
    let mut out = vec![0u8; params.output_len().unwrap_or(Params::DEFAULT_OUTPUT_LEN)];
    argon2
        .hash_password_into_with_memory(password.as_bytes(), raw_salt, &mut out, &mut memory[..])
        .map_err(|e| failed(&e))?;
    let hash = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(params).map_err(|e| failed(&e))?,
        salt: Some(salt.as_salt()),
        hash: Some(Output::new(&out).map_err(|e| failed(&e))?),
    };
    Ok(hash.to_string())
}

/// Whether `password` hashes to `phc` (a PHC string of argon2), with `memory` as argon2's
/// work area; the comparison takes the same time wherever the hashes differ. A string that
/// is no argon2 hash matches nothing.
pub fn verify_in(phc: &str, password: &str, memory: &mut Vec<Block>) -> bool {
    let Ok(hash) = PasswordHash::new(phc) else {
        return false;
    };
    let (Ok(algorithm), Ok(params), Some(salt), Some(expected)) = (
        Algorithm::try_from(hash.algorithm),
        Params::try_from(&hash),
        hash.salt,
        hash.hash,
    ) else {
        return false;
    };
    let Ok(version) = hash
        .version
        .map_or(Ok(Version::default()), Version::try_from)
    else {
        return false;
    };
    let mut salt_bytes = [0u8; 64];
    let Ok(salt) = salt.decode_b64(&mut salt_bytes) else {
        return false;
    };
    memory.resize(params.block_count(), Block::default());
    let argon2 = Argon2::new(algorithm, version, params);
    let computed = Output::init_with(expected.len(), |out| {
        argon2
            .hash_password_into_with_memory(password.as_bytes(), salt, out, &mut memory[..])
            .map_err(|_| argon2::password_hash::Error::Password)
    });
    // Output's equality is constant-time.
    computed.is_ok_and(|computed| computed == expected)
}

/// Whether `phc` is an argon2 hash as a PHC string.
pub fn is_argon2_phc(phc: &str) -> bool {
    PasswordHash::new(phc).is_ok_and(|h| Algorithm::try_from(h.algorithm).is_ok())
}

/// A hash of a random password with the parameters of `model` (a PHC string; argon2's
/// defaults if there is none or it cannot be read): checking a password against it costs what
/// checking one against `model` costs, and matches nothing.
pub fn stand_in_like(model: Option<&str>, memory: &mut Vec<Block>) -> String {
    let params = model
        .and_then(|m| PasswordHash::new(m).ok())
        .and_then(|m| Params::try_from(&m).ok())
        .unwrap_or_default();
    stand_in_with(&params, memory)
}

fn stand_in_with(params: &Params, memory: &mut Vec<Block>) -> String {
    let mut random = [0u8; 32];
    OsRng.fill_bytes(&mut random);
    let password: String = random.iter().map(|b| format!("{b:02x}")).collect();
    // Hashing costs one check, once; what matters is the parameters in the string.
    hash_in(&password, params, memory).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use argon2::PasswordVerifier;

    /// Small parameters: the tests check what is computed, not how slowly.
    fn small() -> Params {
        Params::new(256, 1, 1, None).unwrap()
    }

    #[test]
    fn a_hash_is_a_phc_string_argon2_itself_verifies() {
        let phc = hash_in("s3cret", &small(), &mut Vec::new()).unwrap();
        assert!(phc.starts_with("$argon2id$v=19$m=256,t=1,p=1$"), "{phc}");
        let parsed = PasswordHash::new(&phc).unwrap();
        assert!(
            Argon2::default()
                .verify_password(b"s3cret", &parsed)
                .is_ok()
        );
        assert!(is_argon2_phc(&phc));
        assert!(!is_argon2_phc("plain"));
        let mut memory = Vec::new();
        assert!(verify_in(&phc, "s3cret", &mut memory));
        assert!(!verify_in(&phc, "S3cret", &mut memory));
        assert!(!verify_in("not a hash", "s3cret", &mut memory));
        let again = hash_in("s3cret", &small(), &mut memory).unwrap();
        assert_ne!(again, phc, "a fresh salt each time");
    }

    /// Equal work, not equal stopwatch readings (a timed test fails on a loaded machine): the
    /// stand-in hash has the model's algorithm, version, parameters and length, and its check
    /// runs argon2 over a work area of the same size.
    #[test]
    fn a_stand_in_costs_what_its_model_costs_and_matches_nothing() {
        let params = Params::new(512, 2, 1, None).unwrap();
        let mut memory = Vec::new();
        let model = hash_in("pw", &params, &mut memory).unwrap();
        let stand_in = stand_in_like(Some(&model), &mut memory);
        let (m, s) = (
            PasswordHash::new(&model).unwrap(),
            PasswordHash::new(&stand_in).unwrap(),
        );
        assert_eq!((s.algorithm, s.version), (m.algorithm, m.version));
        assert_eq!(Params::try_from(&s).unwrap(), Params::try_from(&m).unwrap());
        assert_eq!(s.hash.map(|h| h.len()), m.hash.map(|h| h.len()));
        let mut known = Vec::new();
        let mut unknown = Vec::new();
        assert!(!verify_in(&model, "x", &mut known));
        assert!(!verify_in(&stand_in, "pw", &mut unknown));
        assert_eq!(known.len(), unknown.len());
        assert!(!known.is_empty());
    }

    #[test]
    fn the_pool_hashes_and_verifies_many_at_once_on_its_few_threads() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        runtime.block_on(async {
            let hasher = Arc::new(Hasher::with_params(2, small()).unwrap());
            let phc = hasher.hash("right".into()).await.unwrap();
            let tasks: Vec<_> = (0..20)
                .map(|i| {
                    let (hasher, phc) = (hasher.clone(), phc.clone());
                    let password = if i % 2 == 0 { "right" } else { "wrong" };
                    tokio::spawn(async move { hasher.verify(Some(phc), password.into()).await })
                })
                .collect();
            for (i, task) in tasks.into_iter().enumerate() {
                assert_eq!(task.await.unwrap(), i % 2 == 0);
            }
            assert!(!hasher.verify(None, "right".into()).await, "no account");
            let threads = hasher.run(|_| std::thread::current().name().map(str::to_owned));
            assert!(threads.await.unwrap().unwrap().starts_with("password-"));
        });
    }
}
