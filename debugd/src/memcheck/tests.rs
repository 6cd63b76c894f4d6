//! The findings' conversion, deduplication and report, from hand-made
//! records and sites.

use super::*;
use glsl_instrument::memcheck::{
    FindingKind, HEADER_WORDS, KINDS, OtherSide, RECORD_WORDS, TrackedArray,
};

fn site(line: u32, expr: &str, variable: &str, space: Space) -> MemSite {
    MemSite {
        line,
        column: 9,
        expr: expr.into(),
        variable: variable.into(),
        space,
        block: (space == Space::Storage).then(|| "Buf".to_string()),
        binding: matches!(space, Space::Image | Space::Counter).then_some(2),
        element_words: match space {
            Space::Image => 2,
            Space::Local => 0,
            _ => 1,
        },
        signed: true,
    }
}

fn shader() -> MemcheckShader {
    MemcheckShader {
        source: String::new(),
        sites: vec![
            site(10, "data[i + 1]", "buf.data", Space::Storage),
            site(12, "tile[j]", "tile", Space::Shared),
            site(14, "imageStore(img, p, v)", "img", Space::Image),
            site(16, "data[k]", "buf.data", Space::Storage),
        ],
        storage: vec![TrackedArray {
            block: "Buf".into(),
            array: "buf.data".into(),
            components: 1,
        }],
        counters: false,
        not_checked: Vec::new(),
    }
}

/// Places as the session makes them: the driver's line (here +2, as a
/// `#line` would) and the user's file for the first site.
fn places(s: &MemcheckShader) -> Vec<Place> {
    s.sites
        .iter()
        .enumerate()
        .map(|(i, site)| Place {
            line: site.line + 2,
            column: site.column,
            file: (i == 0).then(|| ("sum.comp".to_string(), site.line - 3)),
        })
        .collect()
}

const CALL: CallOf<'static> = CallOf {
    call: 40,
    function: "glDispatchCompute",
    stage: Stage::Compute,
    program: 3,
};

fn bindings() -> HashMap<String, u32> {
    HashMap::from([("Buf".to_string(), 5)])
}

#[test]
fn an_out_of_bounds_finding_shows_its_place_binding_and_invocation() {
    let s = shader();
    let (places, b) = (places(&s), bindings());
    let sites = Sites {
        shader: &s,
        places: &places,
        bindings: &b,
    };
    let f = Finding {
        kind: FindingKind::OutOfBounds,
        site: 0,
        count: 7,
        element: vec![64],
        invocation: Invocation::Compute {
            workgroup: [3, 0, 0],
            local: [15, 0, 0],
        },
        write: false,
        other: None,
    };
    let m = sites.finding(&f, CALL);
    assert_eq!(m.kind, "out-of-bounds");
    assert_eq!(
        (m.line, m.column),
        (12, 9),
        "the driver's line, as stops show it"
    );
    assert_eq!((m.file.as_str(), m.file_line), ("sum.comp", 7));
    assert_eq!(
        (m.expr.as_str(), m.variable.as_str()),
        ("data[i + 1]", "buf.data")
    );
    assert_eq!(
        m.binding,
        Some(5),
        "the storage block's binding in the call"
    );
    assert_eq!(m.element, vec![64]);
    assert_eq!(m.invocations.len(), 1);
    assert_eq!(m.invocations[0].workgroup, vec![3, 0, 0]);
    assert_eq!(m.invocations[0].local, vec![15, 0, 0]);
    assert!(!m.invocations[0].write && m.invocations[0].line == 0);
    assert_eq!((m.call, m.count, m.program), (40, 7, 3));
    assert_eq!(
        (m.stage.as_str(), m.function.as_str()),
        ("compute", "glDispatchCompute")
    );
}

#[test]
fn a_race_has_both_sides_with_the_other_line() {
    let s = shader();
    let (places, b) = (places(&s), bindings());
    let sites = Sites {
        shader: &s,
        places: &places,
        bindings: &b,
    };
    let f = Finding {
        kind: FindingKind::Race,
        site: 3,
        count: 2,
        element: vec![4],
        invocation: Invocation::Compute {
            workgroup: [0, 0, 0],
            local: [1, 0, 0],
        },
        write: true,
        other: Some(OtherSide {
            site: 0,
            invocation: Some(Invocation::Compute {
                workgroup: [1, 0, 0],
                local: [0, 0, 0],
            }),
            write: false,
            atomic: true,
        }),
    };
    let m = sites.finding(&f, CALL);
    assert_eq!(m.kind, "race");
    assert_eq!(m.line, 18);
    assert_eq!(m.file, "", "only site 0 maps to the file");
    let [first, other] = &m.invocations[..] else {
        panic!("two sides: {:?}", m.invocations)
    };
    assert!(first.write && first.line == 0);
    assert_eq!((other.line, other.column), (12, 9));
    assert_eq!(other.expr, "data[i + 1]");
    assert_eq!(other.workgroup, vec![1, 0, 0]);
    assert!(!other.write && other.atomic);
}

#[test]
fn bindings_of_shared_images_and_unknown_blocks() {
    let s = shader();
    let places = places(&s);
    let unknown = HashMap::from([("Buf".to_string(), u32::MAX)]);
    let sites = Sites {
        shader: &s,
        places: &places,
        bindings: &unknown,
    };
    let at = |site: usize, element: Vec<i64>, invocation| Finding {
        kind: FindingKind::OutOfBounds,
        site,
        count: 1,
        element,
        invocation,
        write: true,
        other: None,
    };
    let frag = Invocation::Fragment { x: 7, y: 3 };
    let m = sites.finding(&at(0, vec![1], frag), CALL);
    assert_eq!(
        m.binding, None,
        "a binding the run could not tell is not shown"
    );
    let m = sites.finding(&at(1, vec![-1], frag), CALL);
    assert_eq!(
        (m.binding, m.element.clone()),
        (None, vec![-1]),
        "shared: no binding"
    );
    let m = sites.finding(&at(2, vec![-2, 40], frag), CALL);
    assert_eq!(m.binding, Some(2), "an image's declared binding");
    assert_eq!(m.element, vec![-2, 40]);
    let p = m.invocations[0].pixel.unwrap();
    assert_eq!((p.x, p.y), (7, 3));
    assert!(m.invocations[0].workgroup.is_empty());
}

#[test]
fn findings_are_deduplicated_per_kind_and_line_with_counts() {
    let mut store = Findings::default();
    let f = |kind: &str, line: u32, count: u64, call: u64| pb::MemcheckFinding {
        kind: kind.into(),
        line,
        count,
        call,
        ..Default::default()
    };
    assert!(
        store.add(1, f("race", 12, 2, 40)).is_some(),
        "new: an event"
    );
    assert!(
        store.add(1, f("race", 12, 5, 41)).is_none(),
        "same kind and line"
    );
    assert!(
        store.add(1, f("out-of-bounds", 12, 1, 41)).is_some(),
        "another kind"
    );
    assert!(store.add(1, f("race", 13, 1, 41)).is_some(), "another line");
    assert!(
        store.add(2, f("race", 12, 1, 42)).is_some(),
        "another shader"
    );
    // A race between two lines is one, whichever side found it.
    let side = |line| pb::MemcheckInvocation {
        line,
        ..Default::default()
    };
    let mut w = f("race", 9, 7, 43);
    w.invocations = vec![side(0), side(12)];
    let mut r = f("race", 12, 56, 43);
    r.invocations = vec![side(0), side(9)];
    assert!(store.add(1, w).is_some(), "lines 9 and 12");
    assert!(store.add(1, r).is_none(), "lines 12 and 9: the same race");
    store.count_call(4096, 1000);
    store.count_call(1024, 500);
    store.not_checked.insert("b".into());
    store.not_checked.insert("a".into());
    store.not_checked.insert("b".into());
    let r = store.report(pb::MemcheckMode::MemcheckOn, DEFAULT_BUDGET);
    let seen: Vec<(&str, u32, u64, u64)> = r
        .findings
        .iter()
        .map(|f| (f.kind.as_str(), f.line, f.count, f.call))
        .collect();
    assert_eq!(
        seen,
        [
            ("race", 12, 7, 40),
            ("out-of-bounds", 12, 1, 41),
            ("race", 13, 1, 41),
            ("race", 12, 1, 42),
            ("race", 9, 63, 43)
        ],
        "first found first, counts summed, the first call kept"
    );
    assert_eq!(r.mode(), pb::MemcheckMode::MemcheckOn);
    assert_eq!((r.calls_checked, r.shadow_bytes, r.gpu_ns), (2, 4096, 1500));
    assert_eq!(r.budget_bytes, 256 << 20);
    assert_eq!(r.not_checked, ["a", "b"]);
}

#[test]
fn records_decode_into_findings_as_the_session_shows_them() {
    // A dispatch of 4x1x1 groups of 16: site 3's race record (kind 2).
    let s = shader();
    let mut words = vec![0u32; s.log_words()];
    words[..6].copy_from_slice(&[4, 1, 1, 16, 1, 1]);
    let at = HEADER_WORDS + (3 * KINDS + 2) * RECORD_WORDS;
    words[at] = 3; // count
    words[at + 1] = 9; // element
    words[at + 4] = 2; // workgroup (flat)
    words[at + 5] = 5; // local (flat)
    words[at + 6] = 1; // the other site + 1
    words[at + 7] = 1;
    words[at + 8] = 6;
    words[at + 9] = glsl_instrument::memcheck::FLAG_WRITE;
    let found = s.decode(&words, Stage::Compute);
    assert_eq!(found.len(), 1);
    let (places, b) = (places(&s), bindings());
    let sites = Sites {
        shader: &s,
        places: &places,
        bindings: &b,
    };
    let m = sites.finding(&found[0], CALL);
    assert_eq!((m.kind.as_str(), m.line, m.count), ("race", 18, 3));
    assert_eq!(m.element, vec![9]);
    assert_eq!(m.invocations[0].workgroup, vec![2, 0, 0]);
    assert_eq!(m.invocations[0].local, vec![5, 0, 0]);
    assert_eq!(m.invocations[1].workgroup, vec![1, 0, 0]);
    assert_eq!(m.invocations[1].line, 12, "site 0's driver line");
    // Its invocation's global id for the stop's focus: group 2 of 16 + 5.
    let focus = focus_of(&found[0].invocation, [16, 1, 1]);
    assert_eq!(focus, reply::Invocation::Global { x: 37, y: 0, z: 0 });
    let focus = focus_of(&Invocation::Fragment { x: 3, y: 4 }, [1, 1, 1]);
    assert_eq!(focus, reply::Invocation::Pixel { x: 3, y: 4 });
}

#[test]
fn the_budget_cut_is_said() {
    let s = shader();
    assert!(budget_notes(&s, 3, &[100], &[100], 1024).is_empty());
    let n = budget_notes(&s, 3, &[10], &[100], 1024);
    assert_eq!(
        n,
        [
            "program 3: races in buf.data are checked in its first 10 of 100 components only \
          (shadow budget 1024 bytes)"
        ]
    );
    let n = budget_notes(&s, 3, &[0], &[100], 1024);
    assert!(n[0].contains("are not checked (100 components"), "{}", n[0]);
}

#[test]
fn a_calls_findings_are_one_per_key_with_the_calls_whole_count() {
    let f = |line: u32, count: u64| pb::MemcheckFinding {
        kind: "race".into(),
        line,
        count,
        call: 50,
        ..Default::default()
    };
    let mut store = Findings::default();
    store.add(3, f(12, 1));
    let (call, new) = store.add_call(3, vec![f(20, 4), f(20, 6), f(12, 2)]);
    let counts: Vec<(u32, u64)> = call.iter().map(|f| (f.line, f.count)).collect();
    assert_eq!(counts, [(20, 10), (12, 2)], "summed within the call");
    let new: Vec<(u32, u64)> = new.iter().map(|f| (f.line, f.count)).collect();
    assert_eq!(new, [(20, 10)], "the event has the call's whole count");
    let all: Vec<(u32, u64)> = store.all().iter().map(|f| (f.line, f.count)).collect();
    assert_eq!(all, [(12, 3), (20, 10)]);
}
