//! The trace generator over piglit's shaders: every shader of a per-stage
//! sample that Mesa compiles, in a GLSL with storage blocks (desktop 1.40
//! on, ES 3.10 on), gets a trace shader that Mesa compiles too, whose
//! layout has a record for every step, the entry and main's end.
//!
//! Needs Debian's `piglit` package, like `slice.rs`.

use gldbg_corpus::driver::{Driver, first_error};
use gldbg_corpus::{Corpus, piglit_dir};
use glsl_instrument::{END_RECORD, ENTRY_RECORD, ShaderModel, TraceSpec};

/// Shaders per stage.
const PER_STAGE: usize = 100;

#[test]
fn piglit_shaders_trace_and_compile() {
    let dir = piglit_dir();
    assert!(
        dir.join("tests").is_dir(),
        "piglit is not installed at {}: install the Debian package `piglit`",
        dir.display()
    );
    let corpus = Corpus::load(&dir);
    let driver = Driver::new().expect("headless EGL context on Mesa");
    let spec = TraceSpec {
        focus: "true",
        start: 0,
        max_records: 1000,
    };
    let (mut traced, mut failures) = (0, Vec::new());
    for shader in corpus.per_stage(PER_STAGE, 0) {
        let at = format!("{}:{}", shader.path.display(), shader.line);
        let Ok(m) = ShaderModel::parse(&shader.source, shader.stage) else {
            continue;
        };
        let (version, es) = m.version();
        let storage = if es { version >= 310 } else { version >= 140 };
        if !storage
            || driver
                .compile(shader.stage.gl_enum(), &shader.source)
                .is_err()
        {
            continue;
        }
        let trace = match m.instrument_trace(&spec) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{at}: {e}"));
                continue;
            }
        };
        traced += 1;
        let records = &trace.layout.records;
        let last = m.last_step_of_main().unwrap();
        let complete = m.steps().iter().all(|s| records.contains_key(&s.id.0))
            && records.contains_key(&ENTRY_RECORD)
            && records.contains_key(&(END_RECORD | last.0));
        if !complete {
            failures.push(format!("{at}: layout without every record"));
        }
        if let Err(e) = driver.compile(shader.stage.gl_enum(), &trace.shader.source) {
            failures.push(format!("{at}: {}", first_error(&e)));
        }
    }
    eprintln!("{traced} shaders traced");
    assert!(traced >= PER_STAGE, "only {traced} shaders traced");
    assert!(
        failures.is_empty(),
        "{} of {traced} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
