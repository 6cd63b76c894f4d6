//! `info flow`, `focus` and `display` in shader sessions, on the compute app
//! (`tests/apps/egl_compute.c`, counts known from its formula) and the
//! fragment app (`egl_shade`, paths known from the CPU reference):
//! * `info flow` at a branch counts the invocations on each side; at a
//!   loop condition, iteration by iteration, those evaluating it and those
//!   staying in (a `while` of `idx % 5` iterations); the chart is a PNG
//!   with one bar per side or iteration;
//! * `focus` makes `step` follow the focused invocation into the branch it
//!   really takes (without focus, the first side any invocation takes);
//! * `display` prints its expression after every step, at the focus.

use gldbg_tests::compute::{self, INVOCATIONS};
use gldbg_tests::*;

/// The PNG chart's width for `bars` bars (debugd's bar_chart layout).
fn chart_width(bars: u32) -> u32 {
    2 * 8 + bars * (10 + 4)
}

fn png_size(path: &std::path::Path) -> (u32, u32) {
    let img = decode_png(path);
    (img.width, img.height)
}

#[test]
fn flow_counts_branch_sides_and_loop_iterations() {
    require_workspace();
    let dir = TempDir::new("flow");
    let (branch_png, loop_png) = (dir.join("branch.png"), dir.join("loop.png"));
    let script = format!(
        "break glDispatchCompute\ncontinue\ndebug compute\ninfo flow\nbreak {}\ncontinue\ninfo flow {}\n\
         continue\ninfo flow\ndelete\nbreak {}\ncontinue\ninfo flow {}\nend\nkill\n",
        compute::IF,
        branch_png.display(),
        compute::WHILE,
        loop_png.display(),
    );
    let out = Session::new(egl_compute(), &script).keep_going().run(&dir);

    // Not at a condition: a clear error naming the step.
    let err = out.failed("info flow");
    assert!(err.contains("needs a branch or loop condition"), "{err}");

    // The if of iteration 0 (with a chart), then of iteration 1 (the
    // second plain `info flow`: the first was the error above).
    let branches = [
        (0u32, out.ok(&format!("info flow {}", branch_png.display()))),
        (1, out.ok_n("info flow", 1)),
    ];
    for (k, flow) in branches {
        assert_eq!(flow["kind"], "branch", "{flow}");
        assert_eq!(flow["line"], compute::IF, "{flow}");
        assert_eq!(flow["reached"], INVOCATIONS, "{flow}");
        let taken = (0..INVOCATIONS)
            .filter(|&i| compute::takes_if(i, k))
            .count() as u64;
        assert_eq!(flow["sides"][0]["label"], "true", "{flow}");
        assert_eq!(flow["sides"][0]["count"], taken, "iteration {k}: {flow}");
        assert_eq!(flow["sides"][1]["label"], "false", "{flow}");
        assert_eq!(
            flow["sides"][1]["count"],
            INVOCATIONS as u64 - taken,
            "iteration {k}: {flow}"
        );
    }
    assert_eq!(png_size(&branch_png).0, chart_width(2));

    // The while loop: invocation idx evaluates the condition idx % 5 + 1 times.
    let flow = out.ok(&format!("info flow {}", loop_png.display()));
    assert_eq!(flow["kind"], "loop", "{flow}");
    assert_eq!(flow["condition"], "n < idx % 5u", "{flow}");
    let iterations = flow["iterations"].as_array().expect("iterations");
    assert_eq!(iterations.len(), 5, "{flow}");
    for (n, it) in iterations.iter().enumerate() {
        let n = n as u32;
        let evaluated = (0..INVOCATIONS).filter(|i| i % 5 >= n).count() as u64;
        let entered = (0..INVOCATIONS).filter(|i| i % 5 > n).count() as u64;
        assert_eq!(it["iteration"], n, "{it}");
        assert_eq!(it["evaluated"], evaluated, "iteration {n}: {it}");
        assert_eq!(it["entered"], entered, "iteration {n}: {it}");
    }
    assert_eq!(png_size(&loop_png).0, chart_width(5));
}

#[test]
fn focus_follows_one_compute_invocation_and_display_prints_there() {
    require_workspace();
    let dir = TempDir::new("focus-compute");
    // Invocation (3,1,0) is idx 35: 35 % 7 == 0, so it takes the else
    // branch in every iteration; most invocations take the if branch first.
    let g = [3, 1, 0];
    let i = compute::index(g);
    assert!(!compute::takes_if(i, 0));
    let script = format!(
        "break glDispatchCompute\ncontinue\ndebug compute\nbreak {if_}\ncontinue\nstep\n\
         end\ndebug compute\nfocus invocation 3,1,0\ndisplay acc\nbreak {if_}\ncontinue\nstep\nstep\nstep\nstep\nstep\n\
         focus invocation 32,0,0\nfocus off\nend\nkill\n",
        if_ = compute::IF,
    );
    let out = Session::new(egl_compute(), &script).keep_going().run(&dir);

    // Without focus: from the if, `step` goes where any invocation goes first.
    let unfocused = out.ok_n("step", 0);
    assert_eq!(unfocused["line"], compute::ACC_ADD, "{unfocused}");

    let focus = out.ok("focus invocation 3,1,0");
    assert_eq!(
        focus["focus"],
        serde_json::json!({"x": 3, "y": 1, "z": 0}),
        "{focus}"
    );
    assert_eq!(focus["focus_reached"], true, "{focus}");
    let at_if = out.ok_n("continue", 2);
    assert_eq!(at_if["line"], compute::IF, "{at_if}");
    assert_eq!(at_if["iterations"], serde_json::json!([0]), "{at_if}");
    // Focused: into the else branch, then around the loop on its path.
    let lines: Vec<u64> = (1..6)
        .map(|n| out.ok_n("step", n)["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines[0], compute::ACC_SUB as u64, "steps: {lines:?}");
    assert!(
        !lines.contains(&(compute::ACC_ADD as u64)),
        "the focused invocation never takes the if branch: {lines:?}"
    );
    for n in 1..6 {
        assert_eq!(out.ok_n("step", n)["focus_reached"], true);
    }

    // `display acc`: a display event after every stop, at the focus.
    let watches: Vec<&serde_json::Value> = out
        .events()
        .into_iter()
        .filter(|e| e["event"] == "display")
        .collect();
    assert_eq!(
        watches.len(),
        7,
        "continue, 5 steps, focus off: {watches:?}"
    );
    // Without a focus, over all invocations.
    assert_eq!(
        watches[6]["summary"]["total"], INVOCATIONS,
        "{}",
        watches[6]
    );
    for w in &watches[..6] {
        assert_eq!(w["expr"], "acc", "{w}");
        assert_eq!(
            w["invocation"],
            serde_json::json!({"x": 3, "y": 1, "z": 0}),
            "{w}"
        );
    }
    // At the else branch of iteration 0, acc is still 0; after it, -0.5.
    assert_eq!(
        scalar(watches[1]),
        compute::acc_before(i, 0) as f64,
        "{}",
        watches[1]
    );
    assert_eq!(
        scalar(watches[5]),
        compute::acc_before(i, 1) as f64,
        "{}",
        watches[5]
    );

    let err = out.failed("focus invocation 32,0,0");
    assert!(err.contains("outside the dispatch"), "{err}");
    let off = out.ok("focus off");
    assert!(off.get("focus").is_none(), "{off}");
}

#[test]
fn focus_follows_one_fragment_into_its_else_branch() {
    require_workspace();
    let dir = TempDir::new("focus-fragment");
    // Pixel (20,20): x + 0.5 > 16 * i holds in iterations 0 and 1 only.
    let script = format!(
        "break draw\ncontinue\ndebug fragment\nfocus 20,20\nbreak {if_}\ncontinue\ncontinue\ncontinue\nstep\n\
         focus off\nend\ndebug fragment\nbreak {if_}\ncontinue\ncontinue\ncontinue\nstep\nend\nkill\n",
        if_ = lines::ACC_ADD - 1,
    );
    let out = Session::new(egl_shade(), &script).run(&dir);
    let at_if = out.ok_n("continue", 3);
    assert_eq!(at_if["iterations"], serde_json::json!([2]), "{at_if}");
    let focused = out.ok_n("step", 0);
    assert_eq!(focused["line"], lines::ACC_SUB, "{focused}");
    assert_eq!(focused["focus_reached"], true, "{focused}");
    let unfocused = out.ok_n("step", 1);
    assert_eq!(unfocused["line"], lines::ACC_ADD, "{unfocused}");
}
