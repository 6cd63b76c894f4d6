// The classification of calls by name: included by `api.rs` and by the
// build script (which derives the call shapes of draws from it).

/// What kind of call a function is, for breakpoints and for the wrappers'
/// generated side work. The one hand-written table keyed by name.
pub mod class {
    /// Draws primitives with the current program (`break draw`).
    pub const DRAW: u32 = 1 << 0;
    /// Dispatches compute work.
    pub const DISPATCH: u32 = 1 << 1;
    /// Changes the current program or pipeline (`break shader-switch`).
    pub const SHADER_SWITCH: u32 = 1 << 2;
    /// Ends a frame (`break frame`).
    pub const FRAME_END: u32 = 1 << 3;
    /// Changes the framebuffer binding.
    pub const FRAMEBUFFER: u32 = 1 << 4;
    /// Returns function pointers: the preload answers with its wrappers.
    pub const GET_PROC_ADDRESS: u32 = 1 << 5;
    /// `glGetError`: the preload may hand back an error it held for the app.
    pub const GET_ERROR: u32 = 1 << 6;
    /// Shader/program bookkeeping the daemon records (sources, attachments, links).
    pub const SHADER_RECORD: u32 = 1 << 7;
    /// Query object calls: the preload answers for an app query a debug
    /// step split in two (it ended the query before the replay and
    /// counted on in a query of its own after it).
    pub const QUERY: u32 = 1 << 8;
    /// `glBegin`, `glEnd` and the calls allowed between them: the preload
    /// defers the sequence under a debugger so a step can replay it.
    pub const IMMEDIATE: u32 = 1 << 9;
    /// `glBeginTransformFeedback`: the preload remembers the app's primitive
    /// mode (a step's own capture must not leave another one behind).
    pub const FEEDBACK_BEGIN: u32 = 1 << 10;
    /// Program and shader binaries: `glProgramBinary` (the preload makes it
    /// fail, so the app compiles from source) and the state queries that
    /// answer the number and list of binary formats (none, under gldbg).
    pub const BINARY: u32 = 1 << 11;
    /// `glNewList`, `glEndList`: the preload knows when a display list is
    /// only compiled (`GL_COMPILE`), when a draw call draws nothing.
    pub const LIST: u32 = 1 << 12;
    /// Sets a sampler or image uniform to a bindless texture handle
    /// (`glUniformHandleui64ARB` ...): the preload remembers which uniforms
    /// hold handles, to give a debug program the same.
    pub const HANDLE_UNIFORM: u32 = 1 << 13;
    /// Waits for the GPU's results (`glFinish`, buffer and image read-backs,
    /// buffer maps): its wrapper takes the slow path while memcheck's armed
    /// runs wait to be read (preload `memcheck_armed.rs`: read there).
    pub const GPU_SYNC: u32 = 1 << 14;
    /// The classes whose wrappers call a hand-written hook (preload `hooks.rs`).
    pub const HOOKED: u32 = GET_PROC_ADDRESS
        | GET_ERROR
        | QUERY
        | IMMEDIATE
        | FEEDBACK_BEGIN
        | BINARY
        | LIST
        | HANDLE_UNIFORM;
}

/// Whether `name` is `glBegin`, `glEnd` or a call GL allows between them
/// (vertex attributes, colors, normals, texture coordinates, materials,
/// evaluator points, `glArrayElement`, display lists).
fn immediate_call(name: &str) -> bool {
    let base = ["ARB", "EXT", "NV", "OES"]
        .iter()
        .find_map(|s| name.strip_suffix(s))
        .unwrap_or(name);
    if matches!(
        base,
        "glBegin"
            | "glEnd"
            | "glEdgeFlag"
            | "glEdgeFlagv"
            | "glArrayElement"
            | "glCallList"
            | "glCallLists"
    ) {
        return true;
    }
    // (prefix, the component counts it takes, the letters that may come first)
    const FORMS: [(&str, &str, &str); 12] = [
        ("glVertexAttrib", "1234", "ILP"),
        ("glVertex", "234", "P"),
        ("glColor", "34", "P"),
        ("glSecondaryColor", "3", "P"),
        ("glNormal", "3", "P"),
        ("glTexCoord", "1234", "P"),
        ("glMultiTexCoord", "1234", "P"),
        ("glEvalCoord", "12", ""),
        ("glEvalPoint", "12", ""),
        ("glFogCoord", "", ""),
        ("glIndex", "", ""),
        ("glMaterial", "", ""),
    ];
    FORMS.iter().any(|&(prefix, counts, first)| {
        let Some(mut rest) = base.strip_prefix(prefix) else {
            return false;
        };
        if let Some(c) = rest.chars().next().filter(|c| first.contains(*c)) {
            rest = &rest[c.len_utf8()..];
        }
        if !counts.is_empty() {
            match rest.chars().next() {
                Some(c) if counts.contains(c) => rest = &rest[1..],
                _ => return false,
            }
        }
        let rest = rest.strip_suffix('v').unwrap_or(rest);
        let rest = rest.strip_prefix('N').unwrap_or(rest);
        matches!(
            rest,
            "b" | "s" | "i" | "f" | "d" | "ub" | "us" | "ui" | "h" | "x" | "i64" | "ui64"
        ) || (rest.is_empty() && prefix == "glEvalPoint")
    })
}

/// Whether `name` waits for the GPU's results: `glFinish`, reading a
/// buffer, image or the framebuffer back, mapping a buffer.
fn gpu_sync(name: &str) -> bool {
    let base = ["ARB", "EXT", "OES", "KHR"]
        .iter()
        .find_map(|s| name.strip_suffix(s))
        .unwrap_or(name);
    matches!(
        base,
        "glFinish"
            | "glGetBufferSubData"
            | "glGetNamedBufferSubData"
            | "glMapBuffer"
            | "glMapBufferRange"
            | "glMapNamedBuffer"
            | "glMapNamedBufferRange"
            | "glReadPixels"
            | "glReadnPixels"
            | "glGetTexImage"
            | "glGetnTexImage"
            | "glGetTextureImage"
            | "glGetTextureSubImage"
    )
}

/// Whether `name` is a query object call (`class::QUERY`).
fn query_call(name: &str) -> bool {
    let base = name
        .strip_suffix("ARB")
        .or(name.strip_suffix("EXT"))
        .unwrap_or(name);
    matches!(
        base,
        "glBeginQuery"
            | "glBeginQueryIndexed"
            | "glEndQuery"
            | "glEndQueryIndexed"
            | "glDeleteQueries"
            | "glGetQueryiv"
            | "glGetQueryIndexediv"
            | "glGetQueryObjectiv"
            | "glGetQueryObjectuiv"
            | "glGetQueryObjecti64v"
            | "glGetQueryObjectui64v"
            | "glGetQueryBufferObjectiv"
            | "glGetQueryBufferObjectuiv"
            | "glGetQueryBufferObjecti64v"
            | "glGetQueryBufferObjectui64v"
            | "glBeginConditionalRender"
    ) || name == "glBeginConditionalRenderNV"
}

/// Whether `name` is shader or program bookkeeping the daemon records
/// (`class::SHADER_RECORD`).
fn shader_record(name: &str) -> bool {
    matches!(
        name,
        "glCreateShader"
            | "glCreateShaderObjectARB"
            | "glCreateProgram"
            | "glCreateProgramObjectARB"
            | "glShaderSource"
            | "glShaderSourceARB"
            | "glAttachShader"
            | "glAttachObjectARB"
            | "glDetachShader"
            | "glDetachObjectARB"
            | "glLinkProgram"
            | "glLinkProgramARB"
            | "glCreateShaderProgramv"
            | "glNamedStringARB"
            | "glDeleteNamedStringARB"
            | "glCompileShaderIncludeARB"
            | "glProgramBinary"
            | "glProgramBinaryOES"
            | "glShaderBinary"
            | "glXCreateContext"
            | "glXCreateNewContext"
            | "glXCreateContextAttribsARB"
            | "eglCreateContext"
    )
}

/// Classification of a function by name (see [`class`]).
pub fn classify(name: &str) -> u32 {
    use class::*;
    let draw = name.starts_with("glDraw")
        && !name.starts_with("glDrawBuffer")
        && !name.starts_with("glDrawPixels")
        && !name.starts_with("glDrawTex")
        && !name.starts_with("glDrawCommands")
        && name != "glDrawVkImageNV";
    let mut c = 0;
    if draw
        || name.starts_with("glMultiDraw")
        || matches!(name, "glEnd" | "glCallList" | "glCallLists")
    {
        c |= DRAW;
    }
    if name.starts_with("glDispatchCompute") {
        c |= DISPATCH;
    }
    if matches!(
        name,
        "glUseProgram"
            | "glUseProgramObjectARB"
            | "glBindProgramPipeline"
            | "glUseProgramStages"
            | "glBindProgramPipelineEXT"
            | "glUseProgramStagesEXT"
    ) {
        c |= SHADER_SWITCH;
    }
    if matches!(
        name,
        "glXSwapBuffers"
            | "eglSwapBuffers"
            | "eglSwapBuffersWithDamageKHR"
            | "eglSwapBuffersWithDamageEXT"
    ) {
        c |= FRAME_END;
    }
    if matches!(
        name,
        "glBindFramebuffer" | "glBindFramebufferEXT" | "glBindFramebufferOES"
    ) {
        c |= FRAMEBUFFER;
    }
    if matches!(
        name,
        "glXGetProcAddress" | "glXGetProcAddressARB" | "eglGetProcAddress"
    ) {
        c |= GET_PROC_ADDRESS;
    }
    if name == "glGetError" {
        c |= GET_ERROR;
    }
    if query_call(name) {
        c |= QUERY;
    }
    if immediate_call(name) {
        c |= IMMEDIATE;
    }
    if gpu_sync(name) {
        c |= GPU_SYNC;
    }
    if matches!(
        name,
        "glBeginTransformFeedback" | "glBeginTransformFeedbackEXT" | "glBeginTransformFeedbackNV"
    ) {
        c |= FEEDBACK_BEGIN;
    }
    if shader_record(name) {
        c |= SHADER_RECORD;
    }
    if matches!(
        name,
        "glProgramBinary"
            | "glProgramBinaryOES"
            | "glGetIntegerv"
            | "glGetInteger64v"
            | "glGetBooleanv"
            | "glGetFloatv"
            | "glGetDoublev"
    ) {
        c |= BINARY;
    }
    if matches!(name, "glNewList" | "glEndList") {
        c |= LIST;
    }
    if matches!(
        name.strip_suffix("ARB").or(name.strip_suffix("NV")),
        Some(
            "glUniformHandleui64"
                | "glUniformHandleui64v"
                | "glProgramUniformHandleui64"
                | "glProgramUniformHandleui64v"
        )
    ) {
        c |= HANDLE_UNIFORM;
    }
    c
}
