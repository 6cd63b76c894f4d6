//! Replays the fuzz seed corpus (`fuzz/seeds/`) through the fuzz target's
//! entry point: parse → step model → successors → instrument every reached
//! position. Never a panic; the seeds that should parse do, and every
//! fragment seed instruments at every position it reaches.

use glsl_instrument::{Stage, fuzzing};

fn stage_of(ext: &str) -> Option<Stage> {
    Some(match ext {
        "vert" => Stage::Vertex,
        "tesc" => Stage::TessControl,
        "tese" => Stage::TessEval,
        "geom" => Stage::Geometry,
        "frag" => Stage::Fragment,
        "comp" => Stage::Compute,
        _ => return None,
    })
}

#[test]
fn seed_corpus_replays_without_panics() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    assert!(paths.len() >= 10, "seeds missing in {}", dir.display());
    for path in paths {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let Some(stage) = path
            .extension()
            .and_then(|e| stage_of(&e.to_string_lossy()))
        else {
            continue;
        };
        let source = std::fs::read_to_string(&path).unwrap();
        let f = fuzzing::run(&source, stage);
        eprintln!("{name}: {f:?}");
        let expect_parse = !matches!(name.as_str(), "broken.frag" | "no_main.geom");
        assert_eq!(f.parsed, expect_parse, "{name}");
        if expect_parse {
            assert!(f.positions > 0, "{name}");
        }
        if stage == Stage::Fragment && expect_parse {
            // No expression and the malformed one: at least one instruments
            // per position probed.
            let probed = f.positions.min(fuzzing::MAX_INSTRUMENTED);
            assert!(f.instrumented >= probed, "{name}: {f:?}");
        }
        // Every prefix and a few byte-level mutations: an error or a model, never a panic.
        let bytes = source.as_bytes();
        for end in (0..bytes.len()).step_by(bytes.len() / 8 + 1) {
            let mut data = vec![stage as u8];
            data.extend_from_slice(&bytes[..end]);
            fuzzing::run_bytes(&data);
        }
        for k in (0..bytes.len()).step_by(bytes.len() / 6 + 1) {
            let mut data = vec![0u8];
            data.extend_from_slice(bytes);
            data[k + 1] = b"{}();#\n0x"[k % 9];
            fuzzing::run_bytes(&data);
        }
    }
}
