//! Issue 12 points 1, 7 and 10 end to end: through `gldbg run` (which
//! embeds the daemon, its gRPC served by 2 MiB tokio workers), `print`
//! expressions that overflowed the daemon's stack (a long sum, nested
//! unary minus, nested calls), that had side effects (assignments, `++`,
//! atomics, image stores) or an out-of-range literal each get a clear error
//! naming what was refused, and the session keeps answering: a pure `print`
//! afterwards gives the CPU reference's value and the app exits normally.

mod support;

use gldbg_tests::*;

#[test]
fn hostile_print_expressions_are_refused_and_the_session_goes_on() {
    require_workspace();
    let dir = TempDir::new("hostile-print");
    // Each deep row nests past 10x the print limit (64 levels).
    let deep = 10 * 64 + 60;
    let sum = format!("u_gain{}", " + u_gain".repeat(deep));
    let unary = format!("{}u_gain", "- ".repeat(deep));
    let calls = format!("{}u_gain{}", "abs(".repeat(deep), ")".repeat(deep));
    let refused: Vec<(String, &str)> = vec![
        (sum, "expression nested too deeply (more than 64 levels)"),
        (unary, "expression nested too deeply (more than 64 levels)"),
        (calls, "expression nested too deeply (more than 64 levels)"),
        ("u_gain = 5.0".into(), "an assignment to `u_gain`"),
        ("p.x += 1.0".into(), "an assignment to `p.x`"),
        ("p.y++".into(), "`++` on `p.y`"),
        (
            "atomicCounterIncrement(c)".into(),
            "`atomicCounterIncrement`",
        ),
        (
            "imageStore(img, ivec2(0), vec4(1.0))".into(),
            "`imageStore`",
        ),
        (
            "modf(u_gain, p.x)".into(),
            "`modf` (it writes its `out` argument)",
        ),
        ("1e39".into(), "float literal out of range"),
    ];
    let mut script = String::from("break draw\ncontinue\ndebug fragment\nstep\n");
    for (expr, _) in &refused {
        script.push_str(&format!("print {expr}\nprint p @ 20,20\n"));
    }
    script.push_str("print shade(p) @ 20,20\nend\ndelete\ncontinue\n");
    let out = Session::new(egl_shade(), &script).keep_going().run(&dir);
    assert_eq!(out.ok("continue")["stopped"]["function"], "glDrawArrays");
    let want = shade(20, 20, gain(0));
    for (n, (expr, what)) in refused.iter().enumerate() {
        let err = out.failed(&format!("print {expr}"));
        assert!(err.contains(what), "print {expr}: {err}");
        // The daemon still answers, with the right value.
        let p = values(out.ok_n("print p @ 20,20", n));
        assert_eq!(
            p,
            vec![want.p[0] as f64, want.p[1] as f64],
            "after print #{n}"
        );
    }
    // A user function writing only its locals is no side effect.
    assert_close(
        scalar(out.ok("print shade(p) @ 20,20")),
        want.v as f64,
        1e-6,
        "shade(p) @ 20,20",
    );
    support::assert_exited_0(&out, "continue", 1);
}
