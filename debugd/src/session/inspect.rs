//! Inspecting and changing the call the app is stopped at: `info call`
//! (with what pointer arguments point at), `set arg`, `info state`.

use super::*;

impl Session {
    pub fn info_call(&self) -> Result<pb::CallInfo> {
        let AtStop { stop, .. } = self.stopped()?;
        let pid = stop.pid;
        Ok(call_info(&stop, Some(Remote::new(pid))))
    }

    /// `set arg I VALUE`, or with `element` K, `set arg I[K] VALUE`: write
    /// element K of the array argument I points at, in the app's memory
    /// (process_vm_writev), typed by the pointee of the parameter.
    pub fn set_arg(&self, index: u32, element: Option<u32>, value: &str) -> Result<pb::CallInfo> {
        let mut c = self.control();
        let AtStop { stop, shm } = stopped_in(&c)?;
        let pid = stop.pid;
        if stop.ret.is_some() {
            return Err(Error::FailedPrecondition(
                "the call was already executed".into(),
            ));
        }
        cancel::check()?;
        let f = &FUNCTIONS[stop.function as usize];
        let Some(param) = f.params.get(index as usize) else {
            return Err(Error::InvalidArgument(format!(
                "{} has {} arguments (0-based index {index})",
                f.name,
                f.params.len()
            )));
        };
        if let Some(k) = element {
            let Some(elem) = pointee::elem_of(param) else {
                return Err(Error::InvalidArgument(format!(
                    "argument {index} of {} ({} {}) is not a pointer to numbers",
                    f.name, param.c_type, param.name
                )));
            };
            let addr = stop.args.get(index as usize).copied().unwrap_or(0);
            if addr == 0 {
                return Err(Error::InvalidArgument(format!("argument {index} is NULL")));
            }
            if let Some(n) = pointee::element_count(f, index as usize, &stop.args)
                && k as usize >= n
            {
                return Err(Error::InvalidArgument(format!(
                    "element {k} is out of range: argument {index} points at {n} elements"
                )));
            }
            let bytes = elem.parse(value).map_err(Error::InvalidArgument)?;
            // The element is the client's number: past the address space or
            // outside the app's mappings is its error, not ours.
            let at = (u64::from(k) * elem.size() as u64)
                .checked_add(addr)
                .ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "element {k} of argument {index} is past the end of the address space"
                    ))
                })?;
            Remote::new(pid).write(at, &bytes).map_err(|e| match e {
                nix::errno::Errno::EFAULT => Error::InvalidArgument(format!(
                    "element {k} of argument {index} ({at:#x}) is not in the app's memory"
                )),
                e => Error::app_memory("writing")(e),
            })?;
            return Ok(call_info(&stop, Some(Remote::new(pid))));
        }
        let word = format::parse_arg(param, value).map_err(Error::InvalidArgument)?;
        shm.set_arg(stop.slot, index as usize, word);
        let cur = c.current.as_mut().expect("stopped");
        if let Some(a) = cur.args.get_mut(index as usize) {
            *a = word;
        }
        let cur = cur.clone();
        Ok(call_info(&cur, Some(Remote::new(pid))))
    }

    /// `info state [NAME]`: GL state read on the stopped thread (one name,
    /// or the common table of [`glstate::COMMON`]).
    pub fn info_state(&self, name: &str) -> Result<pb::GlState> {
        use gldbg_proto::shm::{StateQuery, StateRequest, StateValue};
        let _dbg = self.debug_lock();
        let AtStop { stop, shm } = self.stopped()?;
        let queries: Vec<(glstate::StateName, u32)> = if name.trim().is_empty() {
            glstate::COMMON
                .iter()
                .filter_map(|e| Some((*e, api::gl_enum_value(e.name)?)))
                .collect()
        } else {
            vec![glstate::lookup(name).ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "{} is not a GL enum name",
                    crate::error::quote(name.trim())
                ))
            })?]
        };
        // The queries follow the request, 8-byte aligned.
        let first = (abi::BULK_REQUEST + size_of::<StateRequest>()).next_multiple_of(8);
        for (i, (e, value)) in queries.iter().enumerate() {
            shm.write_struct(
                first + i * size_of::<StateQuery>(),
                &StateQuery {
                    name: *value,
                    kind: e.kind,
                    count: e.count,
                    arg: 0,
                },
            );
        }
        shm.write_struct(
            abi::BULK_REQUEST,
            &StateRequest {
                count: queries.len() as u32,
                _pad: 0,
            },
        );
        let st = shm.command(stop.slot, abi::CMD_QUERY_STATE, CMD_TIMEOUT)?;
        check_status("CMD_QUERY_STATE", st, |status| Error::Preload {
            what: "reading GL state",
            status,
        })?;
        let values = queries
            .iter()
            .enumerate()
            .map(|(i, (e, _))| {
                let v: StateValue = shm.read_struct(abi::BULK_REPLY + i * size_of::<StateValue>());
                let n = (v.count as usize).min(v.values.len());
                pb::GlStateValue {
                    name: e.name.to_string(),
                    values: if v.error == 0 {
                        v.values[..n].to_vec()
                    } else {
                        Vec::new()
                    },
                    error: if v.error == 0 {
                        String::new()
                    } else {
                        api::gl_enum_name(v.error, "ErrorCode")
                            .map_or_else(|| format!("{:#x}", v.error), str::to_string)
                    },
                }
            })
            .collect();
        Ok(pb::GlState { values })
    }
}

/// The most bytes of a string argument `info call` shows.
const MAX_STRING_ARG: usize = 4096;

/// Call info of a stop; with `remote`, pointer contents where known (shader sources).
pub(super) fn call_info(s: &Stop, remote: Option<Remote>) -> pb::CallInfo {
    let Some(f) = FUNCTIONS.get(s.function as usize) else {
        return pb::CallInfo {
            function: format!("#{}", s.function),
            function_id: s.function,
            ..Default::default()
        };
    };
    let executed = s.ret.is_some();
    let contents = |i: usize| -> Option<String> {
        let r = remote?;
        let a = |k: usize| s.args.get(k).copied().unwrap_or(0);
        match (f.name, i) {
            ("glShaderSource" | "glShaderSourceARB", 2) => {
                r.shader_source(a(1) as i32, a(2), a(3)).ok()
            }
            ("glCreateShaderProgramv", 2) => r.shader_source(a(1) as i32, a(2), 0).ok(),
            _ => {
                let p = f.params.get(i)?;
                let ty = p.c_type.trim();
                let is_string = matches!(
                    ty,
                    "const GLchar *" | "const char *" | "const GLcharARB *" | "const GLubyte *"
                );
                if is_string && a(i) != 0 {
                    r.read_cstr_max(a(i), MAX_STRING_ARG)
                        .ok()
                        .map(|b| String::from_utf8_lossy(&b).into_owned())
                } else {
                    pointee::describe(f, i, &s.args, executed, &|addr, len| r.read(addr, len).ok())
                }
            }
        }
    };
    pb::CallInfo {
        function: f.name.to_string(),
        function_id: s.function,
        call: s.call_number,
        thread: s.tid,
        args: format::format_args(f, &s.args, contents),
        draw: s.draw,
        frame: s.frame,
        returned: s.ret.map(|r| format::format_ret(f, r)).unwrap_or_default(),
        error: gl_error_name(s.error),
        paused: false,
        pc: 0,
        pid: s.pid,
    }
}

/// The name of a GL error code ("" for 0).
pub(super) fn gl_error_name(e: u32) -> String {
    match e {
        0 => String::new(),
        e => api::gl_enum_name(e, "ErrorCode").map_or_else(|| format!("{e:#x}"), str::to_string),
    }
}
