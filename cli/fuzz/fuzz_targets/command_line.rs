//! The command language's parser (`gldbg_cli::command::parse`) on any
//! bytes: never a panic, never a long error message.
//!
//! Seeds: `cli/fuzz/seeds/` (one command line a file; replayed by
//! `cli/tests/fuzz_seeds.rs` in the normal test suite).
//! Run: `cd cli && cargo +nightly fuzz run command_line fuzz/corpus/command_line fuzz/seeds`
//! (libFuzzer adds new inputs to the first directory, git-ignored).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    gldbg_cli::fuzz_command_line(data);
});
