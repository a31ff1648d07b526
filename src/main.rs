//! `arbiter`: the command line of the Arbiter referee, for the games of the catalog.

fn main() -> std::process::ExitCode {
    // Every command, as the servers do: a tournament's matches at once (each bot's pipes, its
    // cgroup's files) hold descriptors, and the usual soft limit of 1024 is far below the hard.
    arbiter_fdlimit::raise_fd_limit();
    arbiter::run::<arbiter_catalog::Games>(std::env::args_os())
}
