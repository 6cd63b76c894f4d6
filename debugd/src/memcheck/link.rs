//! memcheck's command to a stopped thread over the shared memory:
//! `CMD_MEMCHECK` ([`run_checked`]) with the checked program of the call's
//! app program, built once per program and sources ([`MemcheckProgram`]).

use std::collections::HashMap;
use std::time::Duration;

use gldbg_proto::shm::{self as abi, BulkRef, MemcheckReply, MemcheckRequest, ShaderRef};
use glsl_instrument::memcheck::{
    COUNTER_SIZE_UNIFORM, MEMCHECK_BLOCK, MemcheckOptions, MemcheckShader, SHADOW_BLOCK,
    STORAGE_BASE_UNIFORM, STORAGE_CAP_UNIFORM,
};
use glsl_instrument::{Api, Stage};

use crate::error::{Error, Result};
use crate::program::StageSource;
use crate::shader::Reports;
use crate::shm::At;
use crate::status::check_status;

/// A checked call compiles, links and runs an instrumented shader over the
/// whole dispatch (slow on a software driver).
const TIMEOUT: Duration = Duration::from_secs(300);
/// An in-place call is waited for until it answers (or the app ends): given
/// up on while the preload still runs it, the call's `CMD_CONTINUE` would
/// run the app's call a second time after it.
const IN_PLACE_TIMEOUT: Duration = Duration::from_secs(7 * 24 * 3600);

/// The checked shader of one app program's stage and the program's other
/// stages, as recorded.
pub struct MemcheckProgram {
    pub program: u32,
    /// `Stage::Compute` or `Stage::Fragment`.
    pub stage: Stage,
    pub shader: MemcheckShader,
    pub others: Vec<StageSource>,
    /// The preload's cache key (equal keys: equal sources).
    pub cache_key: u64,
}

impl MemcheckProgram {
    /// The checked shader of `program`'s `stage` from its `stages`
    /// (recorded sources); `because` ends the message where the stage has
    /// no source.
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
        Ok(MemcheckProgram::new(program, stage, shader, others))
    }

    /// A program of an already checked `shader` (its cache key computed).
    pub fn new(
        program: u32,
        stage: Stage,
        shader: MemcheckShader,
        others: Vec<StageSource>,
    ) -> MemcheckProgram {
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
        MemcheckProgram {
            program,
            stage,
            shader,
            others,
            cache_key,
        }
    }

    /// The storage blocks whose bindings a run reports: those of the
    /// storage sites and of the tracked arrays, each once, in order.
    pub fn asked_blocks(&self) -> Vec<String> {
        let sites = self.shader.sites.iter().filter_map(|s| s.block.clone());
        let tracked = self.shader.storage.iter().map(|t| t.block.clone());
        let mut out: Vec<String> = Vec::new();
        for b in sites.chain(tracked) {
            if !out.contains(&b) {
                out.push(b);
            }
        }
        out
    }
}

/// What one checked call gave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemcheckRun {
    /// The findings block, exactly `shader.log_words()` words.
    pub words: Vec<u32>,
    /// The storage binding of each asked block
    /// ([`MemcheckProgram::asked_blocks`]); `u32::MAX`: not an active block.
    pub bindings: HashMap<String, u32>,
    /// Per tracked array: the shadow components given (0: not checked for
    /// races, over the budget or nothing bound) and those its range holds.
    pub caps: Vec<u32>,
    pub needed: Vec<u32>,
    pub shadow_bytes: u64,
    /// The call's GPU time (0: not measured).
    pub gpu_ns: u64,
}

/// Run the stopped call with `p`'s checked program: `in_place`, for the app
/// (the daemon then answers the stop with `CMD_SKIP`), else with what it
/// writes put back; at most `budget_bytes` of storage shadow.
///
/// A compile failure goes to `reports` (the shader saved); a link failure
/// is `Error::Replay { status: STATUS_LINK_FAILED, .. }` with the driver's
/// log, so that the caller can build again without shared shadows. On
/// any failure, [`call_ran`] says whether the call ran all the same.
pub fn run_checked(
    at: At<'_>,
    reports: &dyn Reports,
    p: &MemcheckProgram,
    how: How,
    budget_bytes: u64,
) -> Result<MemcheckRun> {
    let asked = p.asked_blocks();
    write_request(at, p, how, budget_bytes, &asked);
    // A preload that writes no reply (bulk region unavailable) leaves
    // `ran` 0 for `call_ran`.
    at.shm
        .write_struct(abi::BULK_REPLY, &MemcheckReply::default());
    let timeout = match how {
        How::Aside => TIMEOUT,
        How::InPlace | How::InPlaceArmed => IN_PLACE_TIMEOUT,
    };
    let st = at.run(abi::CMD_MEMCHECK, timeout)?;
    read_run(at, reports, p, st, asked)
}

/// How [`run_checked`] runs the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum How {
    /// What the call writes copied aside and put back (`memcheck stop`).
    Aside,
    /// For the app, in place (the daemon then answers with `CMD_SKIP`).
    InPlace,
    /// In place, and the program armed after (`MemcheckRequest::arm`):
    /// its later dispatches run checked without a stop.
    InPlaceArmed,
}

/// At a stop where findings of armed runs wait (the stop's
/// `memcheck_ran`): take the oldest run's reply into the bulk region; its
/// status and its reply (which checked and app program ran, at which call;
/// a cache key of 0: none was left), for [`read_taken`].
pub fn take_armed(at: At<'_>) -> Result<(u32, MemcheckReply)> {
    at.shm
        .write_struct(abi::BULK_REPLY, &MemcheckReply::default());
    let st = at.run(abi::CMD_MEMCHECK_TAKE, TIMEOUT)?;
    Ok((st, at.shm.read_struct::<MemcheckReply>(abi::BULK_REPLY)))
}

/// The run [`take_armed`] took (status `st`), of the checked program `p`
/// its key names, as [`run_checked`] gives one.
pub fn read_taken(
    at: At<'_>,
    reports: &dyn Reports,
    p: &MemcheckProgram,
    st: u32,
) -> Result<MemcheckRun> {
    read_run(at, reports, p, st, p.asked_blocks())
}

/// A `CMD_MEMCHECK` reply (status `st`) as a run of `p`.
fn read_run(
    at: At<'_>,
    reports: &dyn Reports,
    p: &MemcheckProgram,
    st: u32,
    asked: Vec<String>,
) -> Result<MemcheckRun> {
    let reply: MemcheckReply = at.shm.read_struct(abi::BULK_REPLY);
    let log = || String::from_utf8_lossy(&at.shm.read_bytes(reply.log)).into_owned();
    match st {
        abi::STATUS_OK => {}
        abi::STATUS_COMPILE_FAILED => {
            return Err(reports.rejected_shader("compile", p.stage, &p.shader.source, &log()));
        }
        st => {
            check_status("CMD_MEMCHECK", st, |status| Error::Replay {
                status,
                log: log(),
            })?;
        }
    }
    let words = |r: BulkRef| -> Vec<u32> {
        let bytes = at.shm.read_bytes(r);
        bytes
            .chunks_exact(4)
            .map(|w| u32::from_ne_bytes([w[0], w[1], w[2], w[3]]))
            .collect()
    };
    let run = MemcheckRun {
        words: words(reply.words),
        bindings: asked.into_iter().zip(words(reply.bindings)).collect(),
        caps: words(reply.caps),
        needed: words(reply.needed),
        shadow_bytes: reply.shadow_bytes,
        gpu_ns: reply.gpu_ns,
    };
    if run.words.len() != p.shader.log_words() || run.caps.len() != p.shader.storage.len() {
        return Err(Error::Internal(format!(
            "CMD_MEMCHECK answered {} findings words and {} shadow caps, not {} and {}",
            run.words.len(),
            run.caps.len(),
            p.shader.log_words(),
            p.shader.storage.len()
        )));
    }
    Ok(run)
}

/// After [`run_checked`] at `at` (failed, or not): whether the call ran.
/// An in-place run that failed after its call ran (reading the findings
/// back) already did the app's call: the stop is skipped, not continued.
pub fn call_ran(at: At<'_>) -> bool {
    at.shm.read_struct::<MemcheckReply>(abi::BULK_REPLY).ran != 0
}

/// The request of `p` at `BULK_REQUEST`, its strings after it.
fn write_request(at: At<'_>, p: &MemcheckProgram, how: How, budget: u64, asked: &[String]) {
    let start = size_of::<MemcheckRequest>().next_multiple_of(64);
    let mut w = at.shm.bulk_writer(abi::BULK_REQUEST + start);
    let mut req = MemcheckRequest {
        cache_key: p.cache_key,
        program: p.program,
        in_place: u32::from(how != How::Aside),
        arm: u32::from(how == How::InPlaceArmed),
        counters: u32::from(p.shader.counters),
        budget_bytes: budget,
        log_words: p.shader.log_words() as u32,
        ..Default::default()
    };
    req.shaders[0] = ShaderRef {
        gl_type: p.stage.gl_enum(),
        _pad: 0,
        source: w.push(p.shader.source.as_bytes()),
    };
    let mut n = 1;
    for s in p.others.iter().take(req.shaders.len() - 1) {
        req.shaders[n] = ShaderRef {
            gl_type: s.gl_type,
            _pad: 0,
            source: w.push(s.source.as_bytes()),
        };
        n += 1;
    }
    req.shader_count = n as u32;
    req.log_block = w.push(MEMCHECK_BLOCK.as_bytes());
    if !p.shader.storage.is_empty() {
        req.shadow_block = w.push(SHADOW_BLOCK.as_bytes());
    }
    let tracked: Vec<BulkRef> = (p.shader.storage.iter())
        .map(|t| w.push(t.block.as_bytes()))
        .collect();
    req.tracked = w.push(&BulkRef::list_bytes(&tracked));
    req.base_uniform = w.push(STORAGE_BASE_UNIFORM.as_bytes());
    req.cap_uniform = w.push(STORAGE_CAP_UNIFORM.as_bytes());
    req.counter_uniform = w.push(COUNTER_SIZE_UNIFORM.as_bytes());
    let names: Vec<BulkRef> = asked.iter().map(|b| w.push(b.as_bytes())).collect();
    req.asked = w.push(&BulkRef::list_bytes(&names));
    at.shm.write_struct(abi::BULK_REQUEST, &req);
}
