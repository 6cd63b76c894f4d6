//! The command language's parser (`gldbg_cli::command::parse`) on any
//! bytes: never a panic, never a long error message.
//!
//! Seeds: `cli/fuzz/seeds/` (one command line a file; replayed by
//! `cli/tests/fuzz_seeds.rs` in the normal test suite).
//! Run: `cd cli && RUSTC_BOOTSTRAP=1 cargo fuzz run command_line fuzz/seeds`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    gldbg_cli::fuzz_command_line(data);
});
