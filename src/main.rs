//! `arbiter`: the command line of the Arbiter referee, for the games of the catalog.

fn main() -> std::process::ExitCode {
    arbiter::run::<arbiter_catalog::Games>(std::env::args_os())
}
