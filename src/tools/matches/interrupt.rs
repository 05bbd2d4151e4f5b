//! Ctrl+C (or a plain `kill`, SIGTERM) during `agon match`. As in
//! cutechess-cli, the first interrupt
//! ends the match gracefully: no game starts after it, the games in
//! progress are abandoned (not counted, not recorded), and the summary of
//! the finished games is printed and their records written. A second
//! interrupt ends the process at once (exit status 130).
//!
//! The engines of a match are started with SIGINT ignored (see
//! [`super::external`]), so the terminal's Ctrl+C reaches only the match,
//! which then stops them with `quit` like after a normal match. SIGTERM is
//! taken the same way, so that a match stopped by a script or a batch
//! system does not leave its engines behind (an engine whose input closes
//! is not bound to exit: some then spin on end of file).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// The flag the signal handler sets. Created once, before the handler is
/// installed, so the handler only ever reads an initialised cell.
static REQUESTED: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// Installs the SIGINT and SIGTERM handler (once; later calls return the
/// same flag)
/// and returns the flag it sets. Where the platform has no such signal
/// the flag simply never gets set by one.
pub fn install() -> Arc<AtomicBool> {
    let mut fresh = false;
    let flag = REQUESTED.get_or_init(|| {
        fresh = true;
        Arc::new(AtomicBool::new(false))
    });
    if fresh {
        install_handler();
    }
    Arc::clone(flag)
}

#[cfg(unix)]
fn install_handler() {
    extern "C" fn on_interrupt(_signal: libc::c_int) {
        // Only async-signal-safe work here: an atomic swap, `_exit`.
        let Some(flag) = REQUESTED.get() else {
            return;
        };
        if flag.swap(true, Ordering::SeqCst) {
            // SAFETY: `_exit` is async-signal-safe; a second Ctrl+C means
            // the user wants out now.
            unsafe { libc::_exit(130) };
        }
    }
    // SAFETY: a zeroed `sigaction` is a valid empty one; the handler above
    // touches nothing but an initialised atomic and `_exit`.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        // Failing to install leaves the signal's default: the match ends
        // without its summary, as before.
        libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut());
        libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
    }
}

#[cfg(not(unix))]
fn install_handler() {}
