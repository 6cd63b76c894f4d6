//! `info sources` (issue 16): the texture reads of the focused invocation.
//! For each call of a sampling built-in in the shader
//! (`ShaderModel::sampling_sites`), one replay of its coordinate at the
//! call's step (a `dprintf` message from every invocation reaching it),
//! the focused invocation's messages kept: one read per execution, in
//! its order within the site.

use glsl_instrument::Stage;

use super::reply::Invocation;
use super::{Link, ShaderDebug};
use crate::error::{Error, Result};

/// Reads one call site may report (a loop's executions).
const LIMIT: u32 = 4096;

/// One texture read of the focused invocation.
#[derive(Clone, Debug, PartialEq)]
pub struct Sampled {
    pub line: u32,
    pub column: u32,
    /// The built-in (`texture`, `texelFetch`, ...).
    pub function: String,
    /// The sampler as written (`u_tex`, `shadows[1]`).
    pub sampler: String,
    /// The coordinate argument as written, and its value.
    pub coord_text: String,
    pub coord: Vec<f64>,
    /// The coordinate is in texels (`texelFetch`).
    pub texels: bool,
    /// The last component divides the others (`textureProj`).
    pub projective: bool,
}

impl ShaderDebug {
    /// The focused invocation's texture reads, and notes on call sites
    /// whose coordinate could not be read.
    pub fn sampled(&mut self, link: &mut dyn Link) -> Result<(Vec<Sampled>, Vec<String>)> {
        let Some((_, focus)) = self.focus else {
            return Err(Error::FailedPrecondition(
                "info sources lists the focused invocation's texture reads: `focus X,Y` first"
                    .into(),
            ));
        };
        if !matches!(self.model.stage(), Stage::Fragment | Stage::Compute) {
            return Err(Error::FailedPrecondition(
                "info sources is for fragment and compute shaders".into(),
            ));
        }
        let mut out = Vec::new();
        let mut notes = Vec::new();
        for site in self.model.sampling_sites() {
            let step = self.model.step(site.step);
            let (line, column) = (step.line, step.column);
            let (messages, dropped) =
                match self.messages(&[site.step], &[site.coord.as_str()], LIMIT, link) {
                    Ok(m) => m,
                    Err(e) => {
                        notes.push(format!(
                            "line {line}: {}({}, {}): the coordinate could not be read: {e}",
                            site.function, site.sampler, site.coord
                        ));
                        continue;
                    }
                };
            if dropped > 0 {
                notes.push(format!(
                    "line {line}: more than {LIMIT} reads there over the draw: some of the \
                     focused invocation's may be missing"
                ));
            }
            let mine = messages
                .into_iter()
                .filter(|m| m.invocation == Some(focus) && !matches!(focus, Invocation::Vertex(_)));
            for m in mine {
                out.push(Sampled {
                    line,
                    column,
                    function: site.function.clone(),
                    sampler: site.sampler.clone(),
                    coord_text: site.coord.clone(),
                    coord: m.values.into_iter().flat_map(|(_, v)| v).collect(),
                    texels: site.texels,
                    projective: site.projective,
                });
            }
        }
        Ok((out, notes))
    }
}
