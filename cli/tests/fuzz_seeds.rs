//! Replays the command-line fuzz target's seed corpus (`fuzz/seeds/`, one
//! command line or hostile byte string a file) through the target's body,
//! `gldbg_cli::fuzz_command_line`: no panic, every error short. The seeds
//! cover every command word of CLI.md and the hostile lines of issue 12
//! (numbers past u32/u64, non-UTF-8, a 5,000-character name, deep parens).

#[test]
fn every_seed_parses_or_fails_cleanly() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds");
    let mut seeds = 0;
    let mut parsed = 0;
    for entry in std::fs::read_dir(&dir).expect("fuzz/seeds") {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        gldbg_cli::fuzz_command_line(&data);
        let text = String::from_utf8_lossy(&data);
        if matches!(gldbg_cli::command::parse(text.trim()), Ok(Some(_))) {
            parsed += 1;
        }
        seeds += 1;
    }
    assert!(seeds >= 30, "only {seeds} seeds in {}", dir.display());
    // Most seeds are valid commands (CLI.md's words): the corpus starts
    // the fuzzer inside the language, not only at its error paths.
    assert!(parsed >= 45, "only {parsed} of {seeds} seeds parse");
}

#[test]
fn a_megabyte_line_gives_a_short_error() {
    for line in [
        format!("break {}", "a".repeat(1 << 20)),
        format!("{} x", "é".repeat(1 << 19)),
        format!("set arg 1 {}", "9".repeat(1 << 20)),
    ] {
        gldbg_cli::fuzz_command_line(line.as_bytes());
    }
}
