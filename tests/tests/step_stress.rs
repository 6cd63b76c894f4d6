//! `step N` under stress: 20,000 `step N` commands (N from 1 to 7, mixed)
//! in one `gldbg run --batch` session on survivor (one GL thread, five GL
//! calls per frame). Every step must succeed and advance the thread's call
//! number by exactly N.
//!
//! The stop watcher and `step N`'s own loop both scan the slots; a scan
//! that claimed an old snapshot made the session continue a thread that
//! was running, whose next stop swallowed the command: a 10 s stall ("the
//! app did not take the command: timeout") and calls advancing by fewer
//! than N, a few times in a few thousand steps. Each `step N` opens that
//! window once, so the test counts commands, not calls. It takes about
//! 20 s on two loaded cores in a debug build.

mod support;

use gldbg_tests::*;

/// `step N` commands in the script.
const STEPS: usize = 20_000;
/// The largest N.
const MAX_N: u64 = 7;

/// A deterministic mix of counts, mostly N >= 2 (the `step N` loop), with
/// some `step 1` (the stop watcher's path) between them.
fn counts() -> Vec<u64> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..STEPS)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            1 + x % MAX_N
        })
        .collect()
}

#[test]
fn every_step_n_advances_exactly_n_calls() {
    require_workspace();
    let counts = counts();
    let calls: u64 = counts.iter().sum();
    assert!(counts.iter().filter(|&&n| n >= 2).count() > STEPS * 3 / 4);
    // Five calls a frame: frames enough that the app never ends first.
    let frames = calls / 5 + 1000;
    let script: String = counts.iter().map(|n| format!("step {n}\n")).collect();
    let dir = TempDir::new("step-stress");
    let start = std::time::Instant::now();
    let out = Session::new(support::survivor(), &script)
        .args(["--frames", &frames.to_string()])
        .run(&dir);
    let took = start.elapsed();
    let results = out.results();
    // The launch, then one result per step (`--batch` ends at a failure).
    let failed: Vec<_> = results.iter().filter(|r| r["ok"] != true).collect();
    assert!(
        failed.is_empty(),
        "{} failed commands, the first: {}",
        failed.len(),
        failed[0]
    );
    assert_eq!(results.len(), STEPS + 1, "{}", out.transcript());
    let stop = |r: &serde_json::Value| {
        assert_eq!(r["state"], "stopped", "{r}");
        let s = &r["stopped"];
        (s["thread"].as_u64().unwrap(), s["call"].as_u64().unwrap())
    };
    let (thread, mut call) = stop(results[0]);
    for (i, (r, n)) in results[1..].iter().zip(&counts).enumerate() {
        assert_eq!(r["cmd"], format!("step {n}"));
        let (t, c) = stop(r);
        assert_eq!(t, thread, "step #{i}: another thread stopped: {r}");
        assert_eq!(
            c,
            call + n,
            "step #{i} (`step {n}`) advanced {} calls: {r}",
            c as i64 - call as i64
        );
        call = c;
    }
    eprintln!("{STEPS} `step N` commands ({calls} calls) in {took:.1?}");
}
