//! CI slice of the piglit corpus: every 50th unique shader must parse, or
//! be named with its cause in `known-failures.txt`; a few hand-written
//! `.shader_test` files must still pass with their fragment shader
//! instrumented. Needs Debian's `piglit` (GLDBG_PIGLIT_DIR overrides the
//! place); set GLDBG_SKIP_PIGLIT=1 to skip where it cannot be installed.

use std::collections::BTreeMap;
use std::time::Duration;

use gldbg_corpus::*;

/// Every `SLICE`-th unique shader (deterministic: sorted paths, first copy wins).
const SLICE: usize = 50;

fn piglit() -> Option<std::path::PathBuf> {
    let dir = piglit_dir();
    if dir.join("tests").is_dir() {
        return Some(dir);
    }
    if std::env::var_os("GLDBG_SKIP_PIGLIT").is_some() {
        eprintln!(
            "piglit not installed at {}: skipped (GLDBG_SKIP_PIGLIT)",
            dir.display()
        );
        return None;
    }
    panic!(
        "piglit is not installed at {} (apt-get install piglit, or set GLDBG_PIGLIT_DIR; GLDBG_SKIP_PIGLIT=1 skips)",
        dir.display()
    );
}

/// `known-failures.txt`: `LOCATION<TAB>CAUSE` per line, `#` comments.
fn known() -> BTreeMap<String, String> {
    include_str!("../known-failures.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn parse_slice() {
    let Some(dir) = piglit() else { return };
    let corpus = Corpus::load(&dir);
    assert!(
        corpus.shaders.len() > 10_000,
        "only {} shaders",
        corpus.shaders.len()
    );
    let slice = corpus.every(SLICE, 0);
    quiet_panics();
    let report = run_parse(&slice);
    let _ = std::panic::take_hook();
    let known = known();
    let total = report.total();
    eprintln!(
        "parsed {} of {} shaders of the slice ({:.2}%), {} with nothing to step",
        total.ok,
        total.total,
        rate(&total),
        total.no_main
    );
    let prefix = format!("{}/", dir.display());
    let tmp = std::env::temp_dir().join(format!("gldbg-corpus-slice-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut unnamed = Vec::new();
    for f in report.failures() {
        let at = f
            .location
            .strip_prefix(&prefix)
            .unwrap_or(&f.location)
            .to_string();
        let cause = cause_of(f);
        // Mesa is the oracle: a shader it rejects too (or a test it skips,
        // e.g. one requiring an extension to be absent) is not ours.
        let mesa = driver_compiles(&dir, slice[f.shader], &tmp);
        match known.get(&at) {
            _ if mesa == Some(false) => eprintln!("Mesa rejects or skips it too: {at}: {cause}"),
            Some(c) if *c == cause => eprintln!("known failure: {at}: {cause}"),
            _ => unnamed.push(format!("{at}\t{cause}\t(Mesa compiles it: {mesa:?})")),
        }
        assert!(!f.message.starts_with("panic"), "{at}: {}", f.message);
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(
        unnamed.is_empty(),
        "failures not named in tests/corpus/known-failures.txt (add them with their cause, or fix them):\n{}",
        unnamed.join("\n")
    );
}

fn cause_of(f: &Failure) -> String {
    normalise(&f.message)
}

#[test]
fn equivalence_slice() {
    let Some(dir) = piglit() else { return };
    if !dir.join("bin/shader_runner").exists() {
        panic!("no shader_runner in {}", dir.display());
    }
    let all = equiv::candidates(&dir);
    let tests: Vec<_> = all.iter().step_by(150).take(8).cloned().collect();
    quiet_panics();
    let r = equiv::run_equiv(&dir, &tests, 2, Duration::from_secs(60), 1, None);
    let _ = std::panic::take_hook();
    eprintln!("{r:#?}");
    assert!(r.ran_tests >= 4, "too few tests ran: {r:#?}");
    let real: Vec<_> = r
        .failures
        .iter()
        .filter(|(c, _)| c.as_str() != equiv::DISCARD_DEVIATION)
        .collect();
    assert!(
        real.is_empty(),
        "instrumented shaders changed the result: {real:#?}"
    );
}
