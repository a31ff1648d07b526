//! The open-files limit of Arbiter's commands, raised once at the start of `main`: in the servers
//! (the game server, the web server) each client holds a descriptor, in a tournament each
//! running bot a few, and the usual soft limit of 1024 is reached by a thousand idle clients
//! while the hard limit is often far higher.

#![warn(missing_docs)]

/// Raises the soft limit of open files to the hard limit. Returns the limit in force (0 if it
/// cannot be read).
pub fn raise_fd_limit() -> libc::rlim_t {
    // SAFETY: getrlimit and setrlimit only read and write the struct passed.
    unsafe {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return 0;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                return raised.rlim_cur;
            }
        }
        limit.rlim_cur
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_limit_in_force_is_the_hard_limit_once_raised() {
        let raised = super::raise_fd_limit();
        assert!(raised > 0);
        assert_eq!(super::raise_fd_limit(), raised);
    }
}
