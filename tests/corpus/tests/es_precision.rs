//! GLSL ES debug shaders follow the ES precision rules, over piglit's GLSL
//! ES shaders (every stage, ES 1.00 to 3.20), each instrumented at several
//! steps with and without a value probe:
//! * no precision qualifier on a `bool`/`bvecN` (GLSL ES allows precision
//!   on float, int and opaque types only: NVIDIA rejects `highp bool` with
//!   C1151, Mesa lets it pass, so the driver here cannot be the check);
//! * in a GLSL ES fragment shader (no default float precision), every float
//!   declaration gldbg adds carries a precision, also in the packing
//!   function of an ES 2.0 context (`Api::Es2`).
//!
//! Needs Debian's `piglit` package, like `slice.rs`.

use std::sync::OnceLock;

use gldbg_corpus::*;
use glsl_instrument::{Api, ShaderModel, Stage};

/// Every `EVERY`-th GLSL ES shader of the corpus, at most `STEPS` steps each.
const EVERY: usize = 1;
const STEPS: usize = 4;

fn corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let dir = piglit_dir();
        assert!(
            dir.join("tests").is_dir(),
            "piglit is not installed at {}: install the Debian package `piglit`",
            dir.display()
        );
        Corpus::load(&dir)
    })
}

const PRECISIONS: [&str; 3] = ["highp", "mediump", "lowp"];

/// The identifier-like words of `line`, in order.
fn words(line: &str) -> Vec<&str> {
    line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect()
}

/// Each `PRECISION bool`/`PRECISION bvecN` of `source`, where PRECISION is
/// a precision keyword or a macro `#define`d as one (gldbg's `GLDBG_P`).
fn precision_on_bool(source: &str) -> Vec<String> {
    let mut qualifiers: Vec<String> = PRECISIONS.iter().map(|p| p.to_string()).collect();
    for line in source.lines() {
        let w = words(line);
        if line.trim_start().starts_with('#')
            && w.len() == 3
            && w[0] == "define"
            && PRECISIONS.contains(&w[2])
        {
            qualifiers.push(w[1].to_string());
        }
    }
    let mut found = Vec::new();
    for line in source.lines().filter(|l| !l.trim_start().starts_with('#')) {
        let w = words(line);
        for pair in w.windows(2) {
            let is_bool = pair[1] == "bool" || pair[1].starts_with("bvec");
            if is_bool && qualifiers.iter().any(|q| q == pair[0]) {
                found.push(line.trim().to_string());
            }
        }
    }
    found
}

/// Declarations of float types gldbg added (`gldbg_` names) without a
/// precision before them: `vec4 gldbg_v;`, `float gldbg_store(vec2 x)`
/// (a type, blanks, then the name: `vec4(gldbg_c)` is a constructor).
fn float_without_precision(source: &str) -> Vec<String> {
    let float_types = ["float", "vec2", "vec3", "vec4"];
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut found = Vec::new();
    for line in source.lines().filter(|l| !l.trim_start().starts_with('#')) {
        for t in float_types {
            for (at, _) in line.match_indices(t) {
                let before = &line[..at];
                let after = &line[at + t.len()..];
                let declares = before.chars().next_back().is_none_or(|c| !ident(c))
                    && after.starts_with(' ')
                    && after.trim_start().starts_with("gldbg_");
                if !declares {
                    continue;
                }
                let qualifier = before
                    .trim_end()
                    .rsplit(|c: char| !ident(c))
                    .next()
                    .unwrap_or("");
                if !PRECISIONS.contains(&qualifier) && !qualifier.starts_with("GLDBG_P") {
                    found.push(line.trim().to_string());
                }
            }
        }
    }
    found
}

#[test]
fn es_debug_shaders_put_no_precision_on_bool() {
    let es: Vec<&CorpusShader> = corpus()
        .shaders
        .iter()
        .filter(|s| version_of(&s.source).es)
        .collect();
    assert!(es.len() > 300, "only {} GLSL ES shaders", es.len());
    let mut problems = Vec::new();
    let (mut sources, mut with_bool, mut fragment) = (0, 0, 0);
    let mut stages = std::collections::BTreeSet::new();
    let mut packed = 0;
    // GLSL ES 1.00 fragment shaders also as an ES 2.0 context debugs them
    // (values packed into RGBA8 by a function of gldbg's).
    let runs = es.iter().step_by(EVERY).flat_map(|sh| {
        let es2 = sh.stage == Stage::Fragment && version_of(&sh.source).num == 100;
        [(sh, Api::Es), (sh, Api::Es2)]
            .into_iter()
            .take(if es2 { 2 } else { 1 })
    });
    for (sh, api) in runs {
        let Ok(model) = ShaderModel::parse_in(&sh.source, sh.stage, api) else {
            continue;
        };
        let positions = equiv::walk(&model, 200);
        for i in spread(positions.len(), STEPS) {
            let pos = &positions[i];
            for expr in [None, equiv::scope_expr(&model, pos)] {
                let Ok(ins) = model.instrument(&probe(pos, expr.as_deref())) else {
                    continue;
                };
                sources += 1;
                packed += usize::from(api == Api::Es2 && ins.source.contains("gldbg_pack"));
                stages.insert(sh.stage.name());
                with_bool += usize::from(ins.source.contains("bool"));
                for line in precision_on_bool(&ins.source) {
                    problems.push(format!("{}: precision on a bool: {line}", sh.location()));
                }
                if sh.stage == Stage::Fragment {
                    fragment += 1;
                    for line in float_without_precision(&ins.source) {
                        problems.push(format!("{}: no precision: {line}", sh.location()));
                    }
                }
            }
        }
    }
    eprintln!(
        "{sources} GLSL ES debug shaders ({fragment} fragment, {packed} packed for ES 2.0, \
         {with_bool} with bools) of {} stages checked",
        stages.len()
    );
    assert!(
        packed > 50,
        "packed ES 2.0 fragment debug shaders: {packed}"
    );
    assert!(
        sources > 500 && fragment > 200 && with_bool > 200 && stages.len() >= 4,
        "too little checked: {sources} sources, {fragment} fragment, stages {stages:?}"
    );
    problems.sort();
    problems.dedup();
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_checks_see_what_they_look_for() {
    let bad = "#define GLDBG_P highp\nGLDBG_P float f(GLDBG_P bool x) { return 1.0; }\nfloat g(highp bvec2 b);\n";
    assert_eq!(precision_on_bool(bad).len(), 2);
    assert!(precision_on_bool("highp float f(bool x, highp int y);\n").is_empty());
    assert_eq!(
        float_without_precision("vec4 gldbg_v;\nhighp float gldbg_c;\n").len(),
        1
    );
    assert!(
        float_without_precision(
            "GLDBG_P float gldbg_s(GLDBG_P vec2 x) { gldbg_v = vec4(gldbg_c); }\n"
        )
        .is_empty()
    );
}
