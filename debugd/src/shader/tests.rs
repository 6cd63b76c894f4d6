//! Unit tests of shader debugging: the probe cache, probe results, and
//! the probe cycle against an in-memory link.

use super::{ProbeCache, ProbeResult};

#[test]
fn a_primitive_lists_each_emission_once_in_order() {
    // A strip of 4 emitted by primitive 1 is captured as two triangles
    // (0 1 2, 2 1 3); instance 1 of primitive 1 emits one vertex.
    let r = ProbeResult {
        width: 9,
        height: 1,
        layers: 1,
        values: Vec::new(),
        components: 0,
        coverage: vec![1; 9],
        code: 17,
        timing: Default::default(),
        held: crate::shader::Held::All,
        trace: None,
        emission: vec![
            [0, 0, 0],
            [0, 1, 0],
            [1, 1, 0],
            [2, 1, 0],
            [2, 1, 0],
            [1, 1, 0],
            [3, 1, 0],
            [0, 1, 1],
            [1, 2, 0],
        ],
    };
    assert_eq!(
        r.emitted_by(1),
        vec![(1, 0, 0), (2, 1, 0), (3, 2, 0), (6, 3, 0), (7, 0, 1)]
    );
    assert_eq!(r.emitted_by(0), vec![(0, 0, 0)]);
    assert!(r.emitted_by(5).is_empty());
}

fn coverage_probe(invocations: usize) -> std::sync::Arc<ProbeResult> {
    std::sync::Arc::new(ProbeResult {
        width: invocations as u32,
        height: 1,
        layers: 1,
        values: Vec::new(),
        components: 0,
        coverage: vec![1; invocations],
        code: 17,
        timing: Default::default(),
        held: crate::shader::Held::All,
        trace: None,
        emission: Vec::new(),
    })
}

#[test]
fn the_probe_cache_drops_the_least_recently_used_but_never_the_current() {
    use glsl_instrument::{Position, StepId};
    let key = |step: u32| {
        let pos = Position {
            step: StepId(step),
            calls: Vec::new(),
            iterations: Vec::new(),
        };
        (pos, None, false, false, crate::shader::ReadMode::All)
    };
    let mut cache = ProbeCache::new(300);
    let current = key(0);
    cache.insert(current.clone(), coverage_probe(100), &current);
    cache.insert(key(1), coverage_probe(100), &current);
    cache.insert(key(2), coverage_probe(100), &current);
    assert!(cache.get(&key(1)).is_some()); // 1 is now newer than 2
    cache.insert(key(3), coverage_probe(100), &current);
    assert!(
        cache.peek(&key(2)).is_none(),
        "the least recently used goes"
    );
    assert!(cache.peek(&current).is_some() && cache.peek(&key(1)).is_some());
    assert!(cache.peek(&key(3)).is_some());
    assert_eq!(cache.bytes, 300);
    // A result larger than the budget evicts everything but the current.
    cache.insert(key(4), coverage_probe(1000), &current);
    assert!(cache.peek(&current).is_some());
    assert!(cache.peek(&key(1)).is_none() && cache.peek(&key(3)).is_none());
    assert!(
        cache.peek(&key(4)).is_none(),
        "it goes too, being the oldest but the current"
    );
    assert_eq!(cache.bytes, 100);
}

/// The probe cycle against an in-memory link: a fragment shader over a
/// 2x1 framebuffer where fragment 0 takes the `if` and fragment 1 the
/// `else`, with `a` = 2.5 and 0.5. The link answers what the preload would
/// for each step (coverage) and for `a` (its values), and logs requests.
mod probe_cycle {
    use glsl_instrument::{Instrumented, Probe, Semantics, ShaderModel, Stage, StepMode};

    use crate::error::{Error, Result};
    use crate::shader::reply::Invocation;
    use crate::shader::{
        FocusOn, FragmentOptions, Link, ProbeResult, ReadMode, ShaderDebug, StepRequest, Target,
    };

    const SOURCE: &str = "#version 330
uniform float t;
out vec4 color;
void main() {
    float a = t * 2.0;
    if (a > 1.0) {
        color = vec4(1.0);
    } else {
        color = vec4(0.0);
    }
}
";

    /// A loop: its steps are probed at a loop path.
    const LOOP_SOURCE: &str = "#version 330
uniform float t;
out vec4 color;
void main() {
    float s = 0.0;
    for (int i = 0; i < 3; i++) {
        s += t;
    }
    color = vec4(s);
}
";

    /// The values of `a` (and `s`) at fragments 0 and 1.
    const A: [f32; 2] = [2.5, 0.5];

    /// Which debug shader a request carried: the one
    /// `ShaderModel::instrument` or `instrument_end_of_main` builds.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Built {
        AtStep,
        EndOfMain,
    }

    /// What the link was asked, beyond the (line, expression) of `log`.
    #[derive(Clone, Debug, PartialEq)]
    struct Asked {
        built: Built,
        path: Vec<u32>,
        readback: ReadMode,
    }

    struct MemoryLink {
        model: ShaderModel,
        /// (line, expression) of each request.
        log: Vec<(u32, Option<String>)>,
        /// The shader, path and readback of each request.
        asked: Vec<Asked>,
        /// The next request fails with this (once).
        fail_next: Option<Error>,
        /// Trace requests (answered "no trace here").
        traces_asked: usize,
    }

    impl MemoryLink {
        /// Which of the model's debug shaders for the request's probe it
        /// carries (compared by source and cache key); panics on none.
        fn built(&self, request: &StepRequest<'_>) -> Built {
            let probe = Probe {
                position: request.position,
                expr: request.expr,
                semantics: Semantics::ReportDiscarded,
            };
            let same = |i: Instrumented| {
                i.source == request.shader.source && i.cache_key == request.shader.cache_key
            };
            if same(self.model.instrument(&probe).expect("instruments")) {
                Built::AtStep
            } else if same(
                self.model
                    .instrument_end_of_main(&probe)
                    .expect("instruments"),
            ) {
                Built::EndOfMain
            } else {
                panic!("the request's shader is none the model builds for its probe")
            }
        }
    }

    impl Link for MemoryLink {
        fn step(&mut self, request: &StepRequest<'_>) -> Result<ProbeResult> {
            assert_eq!(request.stage, Stage::Fragment);
            assert!(request.others.is_empty());
            if request.trace.is_some() {
                // As a context without storage buffers in the stage answers.
                self.traces_asked += 1;
                return Err(Error::Unimplemented("this link writes no trace".into()));
            }
            let built = self.built(request);
            match built {
                Built::AtStep => assert_eq!(request.path, &request.position.iterations[..]),
                Built::EndOfMain => assert!(request.path.is_empty(), "no loop path at the end"),
            }
            let line = self.model.step(request.position.step).line;
            self.log.push((line, request.expr.map(str::to_string)));
            self.asked.push(Asked {
                built,
                path: request.path.to_vec(),
                readback: request.readback,
            });
            if let Some(e) = self.fail_next.take() {
                return Err(e);
            }
            let coverage = match (built, line) {
                (Built::EndOfMain, _) => vec![1, 1],
                (_, 7) => vec![1, 0],
                (_, 9) => vec![0, 1],
                _ => vec![1, 1],
            };
            let (values, components) = match request.expr {
                Some("a" | "s") => {
                    assert_eq!(request.components, 1, "a float reads one component back");
                    (A.to_vec(), 1)
                }
                Some(e) => panic!("unexpected expression {e:?}"),
                None => (Vec::new(), 0),
            };
            Ok(ProbeResult {
                width: 2,
                height: 1,
                layers: 1,
                values,
                components,
                coverage,
                code: 1, // float
                timing: Default::default(),
                held: crate::shader::Held::All,
                trace: None,
                emission: Vec::new(),
            })
        }
    }

    fn start() -> (ShaderDebug, MemoryLink) {
        start_with(SOURCE)
    }

    fn start_with(source: &str) -> (ShaderDebug, MemoryLink) {
        let model = || ShaderModel::parse(source, Stage::Fragment).expect("parses");
        let mut link = MemoryLink {
            model: model(),
            log: Vec::new(),
            asked: Vec::new(),
            fail_next: None,
            traces_asked: 0,
        };
        let target = Target {
            model: model(),
            stop_serial: 1,
            others: Vec::new(),
            fragment_options: FragmentOptions::default(),
            vertex_buffer: false,
        };
        let d = ShaderDebug::start(target, &mut link).expect("starts");
        (d, link)
    }

    fn pixel(x: u32, y: u32) -> Option<Invocation> {
        Some(Invocation::Pixel { x, y })
    }

    #[test]
    fn steps_follow_the_coverage_the_link_reports() {
        let (mut d, mut link) = start();
        assert_eq!((d.stop().line, d.reached), (5, 2));
        assert!(d.step_once(StepMode::Into, &mut link).unwrap());
        assert_eq!((d.stop().line, d.reached), (6, 2));
        // The `if` side fragment 0 takes comes first and is reached.
        assert!(d.step_once(StepMode::Into, &mut link).unwrap());
        assert_eq!((d.stop().line, d.reached), (7, 1));
        assert_eq!(
            link.log,
            vec![(5, None), (6, None), (7, None)],
            "one coverage probe per step"
        );
    }

    #[test]
    fn a_focus_makes_steps_follow_its_invocation() {
        let (mut d, mut link) = start();
        let stop = d
            .set_focus(FocusOn::At(Invocation::Pixel { x: 1, y: 0 }), &mut link)
            .unwrap();
        assert_eq!(stop.focus, pixel(1, 0));
        assert!(stop.focus_reached);
        d.step_once(StepMode::Into, &mut link).unwrap();
        d.step_once(StepMode::Into, &mut link).unwrap();
        // Fragment 1 does not reach line 7: the step goes on to the `else`.
        assert_eq!((d.stop().line, d.reached), (9, 1));
        assert!(d.stop().focus_reached);
        // A link without traces: asked once, said once, then probes.
        assert_eq!(link.traces_asked, 1);
        let warnings = d.take_warnings();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("no trace"), "{warnings:?}");
        assert!(d.stop().trace.is_none());
        // A request naming no invocation is an error, not "any".
        let e = d.set_focus(FocusOn::Unnamed, &mut link).unwrap_err();
        assert_eq!(e.to_string(), "focus needs an invocation");
        assert_eq!(d.stop().focus, pixel(1, 0));
        d.set_focus(FocusOn::Any, &mut link).unwrap();
        assert_eq!(d.stop().focus, None);
    }

    #[test]
    fn print_reads_values_from_the_link_and_caches_them() {
        let (mut d, mut link) = start();
        // At the `if`, after `a`'s declaration.
        d.step_once(StepMode::Into, &mut link).unwrap();
        // As the session does before each command: the reply's cost is its own.
        let _ = d.take_timing();
        let r = d.print("a", pixel(1, 0), &mut link).unwrap();
        assert_eq!((r.ty.as_str(), r.reached), ("float", true));
        assert_eq!(r.value, vec![0.5]);
        assert!(r.timing.is_some_and(|t| t.probes == 1));
        let requests = link.log.len();
        assert_eq!(link.log.last(), Some(&(6, Some("a".to_string()))));
        // The same value at the other fragment: no new replay.
        let r = d.print("a", pixel(0, 0), &mut link).unwrap();
        assert_eq!(r.value, vec![2.5]);
        assert_eq!(r.timing, None, "cached: no probe ran");
        assert_eq!(link.log.len(), requests);
        // A summary over both fragments.
        let s = d.print("a", None, &mut link).unwrap().summary.unwrap();
        assert_eq!((s.count, s.total), (2, 2));
        assert_eq!((s.min, s.max), (vec![0.5], vec![2.5]));
        // Outside the framebuffer the link's extent says so.
        let e = d.print("a", pixel(2, 0), &mut link).unwrap_err();
        assert_eq!(e.to_string(), "pixel (2,0) is outside the 2x1 framebuffer");
    }

    #[test]
    fn a_fragment_that_did_not_reach_the_step_has_no_value() {
        let (mut d, mut link) = start();
        d.step_once(StepMode::Into, &mut link).unwrap();
        d.step_once(StepMode::Into, &mut link).unwrap();
        assert_eq!(d.stop().line, 7);
        let r = d.print("a", pixel(1, 0), &mut link).unwrap();
        assert!(!r.reached && r.value.is_empty());
        let s = d.print("a", None, &mut link).unwrap().summary.unwrap();
        assert_eq!(
            (s.count, s.min.clone(), s.max.clone()),
            (1, vec![2.5], vec![2.5])
        );
    }

    #[test]
    fn a_point_print_asks_for_that_invocation_only() {
        let (mut d, mut link) = start();
        d.step_once(StepMode::Into, &mut link).unwrap();
        d.print("a", pixel(1, 0), &mut link).unwrap();
        assert_eq!(
            link.asked.last(),
            Some(&Asked {
                built: Built::AtStep,
                path: Vec::new(),
                readback: ReadMode::One((1, 0, 0)),
            })
        );
    }

    #[test]
    fn a_summary_print_asks_for_a_summary_or_everything() {
        let (mut d, mut link) = start();
        d.step_once(StepMode::Into, &mut link).unwrap();
        let s = d.print("a", None, &mut link).unwrap().summary.unwrap();
        assert_eq!((s.min, s.max), (vec![0.5], vec![2.5]));
        let value_request = link
            .log
            .iter()
            .position(|(_, e)| e.as_deref() == Some("a"))
            .expect("a value probe");
        let readback = link.asked[value_request].readback;
        assert!(
            matches!(
                readback,
                ReadMode::Summary { components: 1, .. } | ReadMode::All
            ),
            "{readback:?}"
        );
    }

    #[test]
    fn a_probe_inside_a_loop_carries_its_iteration_path() {
        let (mut d, mut link) = start_with(LOOP_SOURCE);
        for _ in 0..20 {
            if d.pos.iterations == [1] {
                break;
            }
            assert!(d.step_once(StepMode::Into, &mut link).unwrap());
        }
        assert_eq!(d.pos.iterations, vec![1], "the loop's second iteration");
        d.print("s", pixel(0, 0), &mut link).unwrap();
        let last = link.asked.last().unwrap();
        assert_eq!((last.built, last.path.clone()), (Built::AtStep, vec![1]));
    }

    #[test]
    fn at_the_end_of_main_prints_probe_the_end_with_no_path() {
        let (mut d, mut link) = start();
        let mut steps = 0;
        while d.step_once(StepMode::Into, &mut link).unwrap() {
            steps += 1;
            assert!(steps < 50, "stepping ends");
        }
        assert!(d.finished);
        let before = link.asked.len();
        let r = d.print("a", pixel(1, 0), &mut link).unwrap();
        assert_eq!((r.value.clone(), r.reached), (vec![0.5], true));
        let asked = &link.asked[before..];
        assert_eq!(asked.len(), 1, "{asked:?}");
        assert_eq!(
            asked[0],
            Asked {
                built: Built::EndOfMain,
                path: Vec::new(),
                readback: ReadMode::One((1, 0, 0)),
            }
        );
    }

    #[test]
    fn a_failed_probe_is_reported_and_asked_again_next_time() {
        let (mut d, mut link) = start();
        d.step_once(StepMode::Into, &mut link).unwrap();
        link.fail_next = Some(Error::FailedPrecondition("the app ended".into()));
        let before = link.log.len();
        let e = d.print("a", pixel(1, 0), &mut link).unwrap_err();
        assert_eq!(e.to_string(), "the app ended");
        assert_eq!(link.log.len(), before + 1);
        // Nothing was cached for the failure: the link is asked again.
        let r = d.print("a", pixel(1, 0), &mut link).unwrap();
        assert_eq!((r.value, r.reached), (vec![0.5], true));
        assert_eq!(link.log.len(), before + 2);
        assert_eq!(link.log.last(), Some(&(6, Some("a".to_string()))));
    }
}
