//! What a shader debug compiles besides the instrumented shader: the
//! model of the debugged stage's shader objects (the one with `main`, the
//! others as siblings) and the program's other stages, `#include`s spliced.

use glsl_instrument::{Api, ShaderModel, Stage};

use crate::error::{Error, Result};
use crate::program::StageSource;

/// The model of the stage's shader object that defines `main`, its other
/// shader objects (functions it calls) as siblings, `#include`s spliced:
/// the debug program compiles them as the instrumenter rewrote them.
pub fn stage_model(
    stages: &[StageSource],
    stage: Stage,
    api: Api,
    because: &str,
) -> Result<ShaderModel> {
    let mine: Vec<&StageSource> = stages
        .iter()
        .filter(|s| s.gl_type == stage.gl_enum())
        .collect();
    if mine.is_empty() {
        return Err(Error::FailedPrecondition(format!(
            "the current program has no {} shader{because}",
            stage.name()
        )));
    }
    if mine.iter().any(|s| s.source.is_empty()) {
        return Err(Error::FailedPrecondition(format!(
            "the {} shader's source is unknown{because}",
            stage.name()
        )));
    }
    let parse = |s: &StageSource| {
        ShaderModel::parse_with(&s.source, stage, &s.includes, api)
            .map_err(|e| Error::InvalidArgument(format!("{} shader {e}", stage.name())))
    };
    // The first object that parses with a `main`; a single one as it is
    // (its parse error, or its missing `main`, is reported).
    let mut chosen = None;
    if mine.len() > 1 {
        for (i, s) in mine.iter().enumerate() {
            if let Ok(m) = parse(s)
                && m.has_main()
            {
                chosen = Some((i, m));
                break;
            }
        }
    }
    let (index, mut model) = match chosen {
        Some(c) => c,
        None => (0, parse(mine[0])?),
    };
    let siblings: Vec<String> = mine
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != index)
        .map(|(_, s)| {
            glsl_instrument::splice_includes(&s.source, &s.includes, api)
                .unwrap_or_else(|_| s.source.clone())
        })
        .collect();
    model.set_siblings(siblings);
    Ok(model)
}

/// The program's stages other than `stage`, as the debug program compiles
/// them with `glCompileShader`: their `#include`s spliced in.
pub fn other_stages(stages: &[StageSource], stage: Stage, api: Api) -> Vec<StageSource> {
    stages
        .iter()
        .filter(|s| s.gl_type != stage.gl_enum())
        .map(|s| StageSource {
            source: glsl_instrument::splice_includes(&s.source, &s.includes, api)
                .unwrap_or_else(|_| s.source.clone()),
            ..s.clone()
        })
        .collect()
}
