//! Program recording: shader sources, attachments and links recorded from
//! the app's calls per share group, combined with the preload's answer
//! about the current program (`info program`, the debugged stages).

use super::*;

/// Shader objects recorded from the app's calls, per share group: object
/// names are per context (or share group). A program used in a context
/// outside the group that built it falls back to the driver's copy of its
/// sources.
#[derive(Default)]
pub(super) struct Recordings {
    /// Keyed by the context that stands for the share group.
    by_group: HashMap<u64, Recorded>,
    /// Each GL context made sharing objects with another: the context that
    /// stands for its share group (the group's first).
    share_group: HashMap<u64, u64>,
    /// Bumped at every recorded change (source breakpoints verify again
    /// only when it moved).
    generation: u64,
}

impl Recordings {
    /// The context that stands for `context`'s share group.
    fn share_root(&self, context: u64) -> u64 {
        self.share_group.get(&context).copied().unwrap_or(context)
    }

    /// The shader bookkeeping of `context`'s share group.
    pub(super) fn of(&self, context: u64) -> Option<&Recorded> {
        self.by_group.get(&self.share_root(context))
    }

    /// The bookkeeping kept under `context` itself (the group's first
    /// context: a context made sharing with another has none of its own).
    pub(super) fn of_context(&self, context: u64) -> Option<&Recorded> {
        self.by_group.get(&context)
    }

    /// The shader bookkeeping of `context`'s share group, to record into.
    pub(super) fn of_mut(&mut self, context: u64) -> &mut Recorded {
        self.generation += 1;
        let root = self.share_root(context);
        self.by_group.entry(root).or_default()
    }

    /// What changed so far (see `generation`).
    pub(super) fn generation(&self) -> u64 {
        self.generation
    }

    /// Every shader object recorded with a source, in every share group
    /// (by group, then name): its name, type, source and the programs it
    /// is attached to or was linked into.
    pub(super) fn every_shader(&self) -> Vec<ShaderObject> {
        let mut groups: Vec<&u64> = self.by_group.keys().collect();
        groups.sort();
        let mut out = Vec::new();
        for g in groups {
            let r = &self.by_group[g];
            let mut ids: Vec<&u32> = r.shaders.keys().collect();
            ids.sort();
            for id in ids {
                let Some(source) = r.shaders[id].source.clone() else {
                    continue;
                };
                let mut programs: Vec<u32> = r
                    .attached
                    .iter()
                    .filter(|(_, s)| s.contains(id))
                    .map(|(p, _)| *p)
                    .chain(
                        r.linked
                            .iter()
                            .filter(|(_, s)| s.iter().any(|s| s.id == *id))
                            .map(|(p, _)| *p),
                    )
                    .collect();
                programs.sort();
                programs.dedup();
                out.push(ShaderObject {
                    id: *id,
                    gl_type: r.shaders[id].gl_type,
                    source,
                    programs,
                });
            }
        }
        out
    }

    /// A context `created` that shares objects with `share` (0: none).
    pub(super) fn context_created(&mut self, created: u64, share: u64) {
        if created != 0 && share != 0 {
            let root = self.share_root(share);
            self.share_group.insert(created, root);
        }
    }
}

/// A recorded shader object (`ListShaders`, source breakpoints' checks).
pub(super) struct ShaderObject {
    pub(super) id: u32,
    pub(super) gl_type: u32,
    pub(super) source: String,
    pub(super) programs: Vec<u32>,
}

/// The program current at the stop, as recording and the driver know it:
/// what program recording hands to `info program` and shader debugging.
pub(super) struct CurrentProgram {
    /// The preload's description of the program.
    pub(super) text: ProgramText,
    /// Its stages' sources (recorded, else the driver's).
    pub(super) stages: Vec<StageSource>,
    /// Why some source is unknown (the app loaded a binary), if it is.
    pub(super) note: Option<String>,
}

impl Session {
    /// Record a shader call's effect; may execute it (CMD_FINISH) to learn its result.
    pub(super) fn record(
        &self,
        pid: u32,
        shm: &SharedMemory,
        call: &StoppedCall,
    ) -> Result<Option<u64>> {
        let name = function_name(call.function);
        let a = |i: usize| call.args.get(i).copied().unwrap_or(0);
        let remote = Remote::new(pid);
        let mem = Error::app_memory("reading");
        match name {
            "glCreateShader" | "glCreateShaderObjectARB" => {
                let ret = self.finish(shm, call)?;
                self.control()
                    .programs
                    .of_mut(call.context)
                    .create_shader(ret as u32, a(0) as u32);
                Ok(Some(ret))
            }
            "glCreateProgram" | "glCreateProgramObjectARB" => {
                let ret = self.finish(shm, call)?;
                self.control()
                    .programs
                    .of_mut(call.context)
                    .create_program(ret as u32);
                Ok(Some(ret))
            }
            "glShaderSource" | "glShaderSourceARB" => {
                let src = remote.shader_source(a(1) as i32, a(2), a(3)).map_err(mem)?;
                self.control()
                    .programs
                    .of_mut(call.context)
                    .shader_source(a(0) as u32, src);
                Ok(None)
            }
            "glAttachShader" | "glAttachObjectARB" => {
                self.control()
                    .programs
                    .of_mut(call.context)
                    .attach(a(0) as u32, a(1) as u32);
                Ok(None)
            }
            "glDetachShader" | "glDetachObjectARB" => {
                self.control()
                    .programs
                    .of_mut(call.context)
                    .detach(a(0) as u32, a(1) as u32);
                Ok(None)
            }
            "glLinkProgram" | "glLinkProgramARB" => {
                self.control()
                    .programs
                    .of_mut(call.context)
                    .link(a(0) as u32);
                Ok(None)
            }
            // Object names are per share group: a context created sharing
            // with another sees the programs that one built.
            "glXCreateContext"
            | "glXCreateNewContext"
            | "glXCreateContextAttribsARB"
            | "eglCreateContext" => {
                let share = a(if name == "glXCreateNewContext" { 3 } else { 2 });
                let ret = self.finish(shm, call)?;
                self.control().programs.context_created(ret, share);
                Ok(Some(ret))
            }
            "glNamedStringARB" | "glDeleteNamedStringARB" => {
                let (name, text) = if name == "glNamedStringARB" {
                    let text = remote.string(a(4), a(3) as i32).map_err(mem)?;
                    (remote.string(a(2), a(1) as i32).map_err(mem)?, Some(text))
                } else {
                    (remote.string(a(1), a(0) as i32).map_err(mem)?, None)
                };
                self.control()
                    .programs
                    .of_mut(call.context)
                    .named_string(name, text);
                Ok(None)
            }
            "glCompileShaderIncludeARB" => {
                let paths = remote.strings(a(1) as i32, a(2), a(3)).map_err(mem)?;
                self.control()
                    .programs
                    .of_mut(call.context)
                    .compile_include(a(0) as u32, paths);
                Ok(None)
            }
            "glProgramBinary" | "glProgramBinaryOES" => {
                self.control()
                    .programs
                    .of_mut(call.context)
                    .program_binary(a(0) as u32);
                Ok(None)
            }
            "glShaderBinary" => {
                let count = (a(0) as i32).clamp(0, 1024) as usize;
                let ids = remote.read_i32s(a(1), count).map_err(mem)?;
                let ids: Vec<u32> = ids.into_iter().map(|i| i as u32).collect();
                self.control()
                    .programs
                    .of_mut(call.context)
                    .shader_binary(&ids);
                Ok(None)
            }
            "glCreateShaderProgramv" => {
                let src = remote.shader_source(a(1) as i32, a(2), 0).map_err(mem)?;
                let ret = self.finish(shm, call)?;
                let mut c = self.control();
                let programs = c.programs.of_mut(call.context);
                programs.create_program(ret as u32);
                programs.shader_program(ret as u32, a(0) as u32, src);
                Ok(Some(ret))
            }
            _ => Ok(None),
        }
    }

    pub(super) fn finish(&self, shm: &SharedMemory, call: &StoppedCall) -> Result<u64> {
        let slot = call.slot;
        let st = shm.command_at(slot, call.stop_id, abi::CMD_FINISH, CMD_TIMEOUT)?;
        if st != abi::STATUS_OK {
            return Err(Error::Command {
                command: "CMD_FINISH",
                status: st,
            });
        }
        Ok(shm.header().slots[slot].ret.load(Ordering::Acquire))
    }

    /// Ask the preload for the current program and combine with recorded sources.
    /// The current program's description, its stages' sources and, when
    /// some source is unknown because the app loaded a binary, why.
    pub(super) fn query_program(&self) -> Result<CurrentProgram> {
        let AtStop { stop, shm } = self.stopped()?;
        let st = shm.command(stop.slot, abi::CMD_QUERY_PROGRAM, CMD_TIMEOUT)?;
        if st == abi::STATUS_NO_PROGRAM {
            // A program whose glProgramBinary failed (under gldbg, always)
            // and that the app never linked from source cannot be current.
            let c = self.control();
            let loaded = c
                .programs
                .of_context(stop.context)
                .and_then(Recorded::unlinked_binary_note);
            if let Some(note) = loaded {
                return Err(Error::FailedPrecondition(format!(
                    "no program is current: {note}"
                )));
            }
        }
        check_status("CMD_QUERY_PROGRAM", st, |status| Error::Preload {
            what: "querying the program",
            status,
        })?;
        let reply: ProgramReply = shm.read_struct(abi::BULK_REPLY);
        let text = program::parse_program_text(&shm.read_bytes(reply.text));
        let c = self.control();
        let none = Recorded::default();
        let recorded = c.programs.of(stop.context).unwrap_or(&none);
        // The sources the app linked (a pipeline: each stage program's),
        // else the attached shaders' as recorded or as the driver has them.
        let mut stages: Vec<StageSource> = Vec::new();
        for program in &text.programs {
            if let Some(linked) = recorded.linked.get(program) {
                stages.extend(linked.iter().cloned());
            }
        }
        // A stage may be several shader objects: all of them.
        let linked_types: Vec<u32> = stages.iter().map(|s| s.gl_type).collect();
        for (id, ty) in &text.shaders {
            if linked_types.contains(ty) {
                continue;
            }
            let shader = recorded.shaders.get(id);
            let rec = shader.and_then(|s| s.source.clone());
            // A shader loaded with glShaderBinary has no GLSL: what a
            // driver answers for its source (NVIDIA: the SPIR-V words) is
            // not one.
            let binary = recorded.binary_shaders.contains(id);
            let source = rec
                .clone()
                .or_else(|| text.sources.get(id).cloned().filter(|_| !binary))
                .unwrap_or_default();
            let paths = shader.map_or(&[][..], |s| &s.search_paths[..]);
            stages.push(StageSource {
                id: *id,
                gl_type: *ty,
                recorded: rec.is_some(),
                includes: recorded.includes(&source, paths),
                source,
            });
        }
        let shaders: Vec<u32> = text.shaders.iter().map(|s| s.0).collect();
        let unknown = stages.is_empty() || stages.iter().any(|s| s.source.is_empty());
        let note = unknown
            .then(|| recorded.binary_note(&text.programs, &shaders))
            .flatten();
        Ok(CurrentProgram { text, stages, note })
    }

    pub fn info_program(&self) -> Result<pb::ProgramInfo> {
        let _dbg = self.debug_lock();
        let CurrentProgram { text, stages, note } = self.query_program()?;
        let var = |v: &program::ProgramVariable| pb::Variable {
            name: v.name.clone(),
            r#type: program::glsl_type_name(v.gl_type),
            size: v.size,
            location: v.location,
            value: v.value.clone(),
            index: 0,
            block: v.block.clone(),
        };
        Ok(pb::ProgramInfo {
            note: note.unwrap_or_default(),
            program: text.program,
            shaders: stages
                .iter()
                .map(|s| pb::ShaderInfo {
                    stage: program::stage_name(s.gl_type),
                    id: s.id,
                    version: program::glsl_version(&s.source),
                    source: s.source.clone(),
                    recorded: s.recorded,
                })
                .collect(),
            uniforms: text.uniforms.iter().map(var).collect(),
            attributes: text.attributes.iter().map(var).collect(),
            outputs: text
                .outputs
                .iter()
                .map(|(n, l, i)| pb::Variable {
                    name: n.clone(),
                    r#type: String::new(),
                    size: 1,
                    location: *l,
                    value: String::new(),
                    index: *i,
                    block: String::new(),
                })
                .collect(),
        })
    }
}
