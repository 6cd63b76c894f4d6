//! PLACEHOLDER for the preload link of memcheck (`link.rs`, written apart:
//! `CMD_MEMCHECK`). The same names and signatures as the contract's, so
//! the session compiles against them; `build` makes the checked shader
//! (no preload needed), `run_checked` says the link is not built. Replaced
//! by `link.rs` at merge.

use std::collections::HashMap;

use glsl_instrument::memcheck::{MemcheckOptions, MemcheckShader};
use glsl_instrument::{Api, Stage};

use crate::error::{Error, Result};
use crate::history::link::At;
use crate::program::StageSource;
use crate::shader::Reports;

/// The checked shader of one app program's stage and its other stages.
pub struct MemcheckProgram {
    pub program: u32,
    pub stage: Stage,
    pub shader: MemcheckShader,
    pub others: Vec<StageSource>,
    pub cache_key: u64,
}

impl MemcheckProgram {
    /// The checked shader of `program`'s `stage` from its `stages`.
    pub fn build(
        program: u32,
        stages: &[StageSource],
        api: Api,
        stage: Stage,
        opts: MemcheckOptions,
        because: &str,
    ) -> Result<MemcheckProgram> {
        let model = crate::shader::stage_model(stages, stage, api, because)?;
        let shader = model
            .instrument_memcheck(opts)
            .map_err(|e| Error::FailedPrecondition(e.to_string()))?;
        let others = crate::shader::other_stages(stages, stage, api);
        let cache_key = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            "memcheck".hash(&mut h);
            shader.source.hash(&mut h);
            for s in &others {
                s.source.hash(&mut h);
            }
            h.finish()
        };
        Ok(MemcheckProgram {
            program,
            stage,
            shader,
            others,
            cache_key,
        })
    }
}

/// What one checked call's run read back.
pub struct MemcheckRun {
    pub words: Vec<u32>,
    pub bindings: HashMap<String, u32>,
    pub caps: Vec<u32>,
    pub needed: Vec<u32>,
    pub shadow_bytes: u64,
    pub gpu_ns: u64,
}

/// After [`run_checked`] failed: whether the call ran all the same (an
/// in-place run that failed reading the findings back).
pub fn call_ran(at: At<'_>) -> bool {
    let _ = at;
    false
}

/// Run the stopped call with the checked program (placeholder: refused).
pub fn run_checked(
    at: At<'_>,
    reports: &dyn Reports,
    p: &MemcheckProgram,
    in_place: bool,
    budget_bytes: u64,
) -> Result<MemcheckRun> {
    let _ = (at, reports, p, in_place, budget_bytes);
    Err(Error::Unimplemented(
        "memcheck: the preload link is not built".into(),
    ))
}
