//! memcheck (issue 17): out-of-bounds accesses, uninitialised reads and
//! races found by running the app's dispatches (and draws) with a checked
//! program. This module knows neither the session nor protobuf.
//!
//! * [`link`] — the checked program of an app program
//!   ([`link::MemcheckProgram`]) and `CMD_MEMCHECK` at a stop
//!   ([`link::run_checked`]): the call run with it, in place or with its
//!   writes put back, the findings block read back.

pub mod link;
