//! A pixel history's commands to a stopped thread over the shared memory:
//! `CMD_PIXEL_READ` ([`read_texel`]) and `CMD_PIXEL_HISTORY`
//! ([`draw_fragments`]), with the history shader of the draw's program
//! built once per program ([`HistoryShader`]).

use gldbg_proto::shm::{
    self as abi, BulkRef, FragmentPass, PixelHistoryReply, PixelHistoryRequest, PixelReadReply,
    PixelReadRequest, ShaderRef, TexelRef,
};
use glsl_instrument::{PixelHistory, Stage};

use crate::error::{Error, Result};
use crate::program::StageSource;
use crate::shader::Reports;
use crate::status::check_status;

/// A history replay compiles, links and draws several times.
const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);
/// Most fragments of one draw passed one by one.
const MAX_PASSES: u32 = 64;
/// Records the block holds (a draw covering the pixel more often is cut).
const MAX_RECORDS: u32 = 4096;

pub use crate::shm::At;

/// Read the texel of `texel` (`TEXEL_CURRENT`: of the image the current
/// draw framebuffer's draw buffer 0 writes) at the stop.
pub fn read_texel(at: At<'_>, texel: &TexelRef) -> Result<PixelReadReply> {
    at.shm
        .write_struct(abi::BULK_REQUEST, &PixelReadRequest { texel: *texel });
    let st = at.run(abi::CMD_PIXEL_READ, TIMEOUT)?;
    let reply: PixelReadReply = at.shm.read_struct(abi::BULK_REPLY);
    let log = || String::from_utf8_lossy(&at.shm.read_bytes(reply.log)).into_owned();
    match st {
        abi::STATUS_OK => Ok(reply),
        abi::STATUS_GL_FAILED if !log().is_empty() => Err(Error::FailedPrecondition(log())),
        st => check_status("CMD_PIXEL_READ", st, |status| Error::Replay {
            status,
            log: log(),
        })
        .map(|()| reply),
    }
}

/// The history shader of one app program and the program's other stages.
pub struct HistoryShader {
    pub program: u32,
    pub shader: PixelHistory,
    pub others: Vec<StageSource>,
    pub cache_key: u64,
}

impl HistoryShader {
    /// The history shader of `program` from its `stages` (recorded sources).
    pub fn build(
        program: u32,
        stages: &[StageSource],
        api: glsl_instrument::Api,
        because: &str,
    ) -> Result<HistoryShader> {
        let model = crate::shader::stage_model(stages, Stage::Fragment, api, because)?;
        let shader = model
            .instrument_history()
            .map_err(|e| Error::FailedPrecondition(e.to_string()))?;
        let others = crate::shader::other_stages(stages, Stage::Fragment, api);
        let cache_key = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            "history".hash(&mut h);
            shader.source.hash(&mut h);
            for s in &others {
                s.source.hash(&mut h);
            }
            h.finish()
        };
        Ok(HistoryShader {
            program,
            shader,
            others,
            cache_key,
        })
    }
}

/// A draw's reply to `CMD_PIXEL_HISTORY`.
pub struct DrawRead {
    pub reply: PixelHistoryReply,
    /// The records' words.
    pub words: Vec<u32>,
    pub passes: Vec<FragmentPass>,
}

/// Ask the stopped draw for its fragments at the texel with `shader`
/// (None: only which draw buffer writes the image and which program it
/// uses). A reply for another program than the shader's has no records.
pub fn draw_fragments(
    at: At<'_>,
    reports: &dyn Reports,
    texel: &TexelRef,
    shader: Option<&HistoryShader>,
) -> Result<DrawRead> {
    let start = std::mem::size_of::<PixelHistoryRequest>().next_multiple_of(64);
    let mut req = PixelHistoryRequest {
        texel: *texel,
        max_passes: MAX_PASSES,
        ..Default::default()
    };
    if let Some(h) = shader {
        let mut w = at.shm.bulk_writer(abi::BULK_REQUEST + start);
        req.cache_key = h.cache_key;
        req.program = h.program;
        req.shaders[0] = ShaderRef {
            gl_type: Stage::Fragment.gl_enum(),
            _pad: 0,
            source: w.push(h.shader.source.as_bytes()),
        };
        let mut n = 1;
        for s in h.others.iter().take(req.shaders.len() - 1) {
            req.shaders[n] = ShaderRef {
                gl_type: s.gl_type,
                _pad: 0,
                source: w.push(s.source.as_bytes()),
            };
            n += 1;
        }
        req.shader_count = n as u32;
        req.prim_uniform = w.push(h.shader.prim_uniform.as_bytes());
        req.pixel_uniform = w.push(h.shader.pixel_uniform.as_bytes());
        req.output_uniform = w.push(h.shader.output_uniform.as_bytes());
        let names: Vec<BulkRef> = (h.shader.outputs.iter())
            .map(|o| w.push(o.name.as_bytes()))
            .collect();
        req.outputs = w.push(&BulkRef::list_bytes(&names));
        req.trace = abi::TraceRequest {
            block: w.push(h.shader.block.as_bytes()),
            capacity_words: MAX_RECORDS * abi::HISTORY_RECORD_WORDS as u32,
            zero_data: 0,
        };
    }
    at.shm.write_struct(abi::BULK_REQUEST, &req);
    let st = at.run(abi::CMD_PIXEL_HISTORY, TIMEOUT)?;
    let reply: PixelHistoryReply = at.shm.read_struct(abi::BULK_REPLY);
    let log = || String::from_utf8_lossy(&at.shm.read_bytes(reply.log)).into_owned();
    match (st, shader) {
        (abi::STATUS_OK, _) => {}
        (abi::STATUS_COMPILE_FAILED, Some(h)) => {
            return Err(reports.rejected_shader(
                "compile",
                Stage::Fragment,
                &h.shader.source,
                &log(),
            ));
        }
        (abi::STATUS_LINK_FAILED, Some(h)) => {
            return Err(reports.rejected_shader(
                "link of the history fragment shader",
                Stage::Fragment,
                &h.shader.source,
                &log(),
            ));
        }
        (st, _) => {
            check_status("CMD_PIXEL_HISTORY", st, |status| Error::Replay {
                status,
                log: log(),
            })?;
        }
    }
    let words = match reply.trace.status {
        abi::TRACE_OK => {
            let bytes = at.shm.read_bytes(reply.trace.data);
            bytes
                .chunks_exact(4)
                .map(|w| u32::from_ne_bytes([w[0], w[1], w[2], w[3]]))
                .collect()
        }
        _ => Vec::new(),
    };
    let size = std::mem::size_of::<FragmentPass>();
    let passes = (0..reply.passes.len as usize / size)
        .map(|i| at.shm.read_struct(reply.passes.offset as usize + i * size))
        .collect();
    Ok(DrawRead {
        reply,
        words,
        passes,
    })
}
