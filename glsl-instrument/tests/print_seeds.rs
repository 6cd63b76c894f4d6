//! Replays the `print_expr` fuzz seed corpus (`fuzz/seeds_print/`: first
//! byte the stage, the shader, `\n//print\n`, the expression) through the
//! fuzz target's entry point on a thread with a daemon worker's 2 MiB
//! stack: never a panic, never a stack overflow. Seeds named `ok_*` must
//! instrument, `refuse_*` (side effects, too deep, out-of-range literals,
//! injection) must be refused as bad expressions at every probe.

use glsl_instrument::fuzzing;

#[test]
fn print_seed_corpus_replays_on_a_worker_stack() {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(replay)
        .unwrap()
        .join()
        .unwrap();
}

fn replay() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds_print");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    assert!(paths.len() >= 20, "seeds missing in {}", dir.display());
    for path in paths {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let data = std::fs::read(&path).unwrap();
        let f = fuzzing::run_print_bytes(&data);
        assert!(f.parsed, "{name}: the shader does not parse");
        if name.starts_with("ok_") {
            // Names declared later in `main` are not in scope at its entry.
            assert!(f.instrumented > 0, "{name}: {f:?}");
        } else if name.starts_with("refuse_") {
            assert!(f.instrumented == 0 && f.refused > 0, "{name}: {f:?}");
        }
        // The expression alone on the fixed shader, its prefixes and a few
        // byte-level mutations: an error or a probe, never a panic.
        let sep = data
            .windows(fuzzing::PRINT_SEPARATOR.len())
            .position(|w| w == fuzzing::PRINT_SEPARATOR)
            .unwrap();
        let expr = &data[sep + fuzzing::PRINT_SEPARATOR.len()..];
        let mut alone = vec![0u8];
        alone.extend_from_slice(expr);
        fuzzing::run_print_bytes(&alone);
        for end in (0..expr.len()).step_by(expr.len() / 4 + 1) {
            fuzzing::run_print_bytes(&data[..sep + fuzzing::PRINT_SEPARATOR.len() + end]);
        }
        for k in (sep + 9..data.len()).step_by(data.len() / 3 + 1) {
            let mut m = data.clone();
            m[k] = b"()=+[];,"[k % 8];
            fuzzing::run_print_bytes(&m);
        }
    }
}
