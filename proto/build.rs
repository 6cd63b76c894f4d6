//! Generates, from the Khronos registry shipped in `khronos_api`:
//!
//! * `functions.rs`: the dense function table (`FUNCTIONS`): every command of
//!   GL 4.6 compatibility, GLES 1/2/3.2, GLX 1.4 and EGL 1.5 with all their
//!   extensions, each with its parameters reduced to their ABI class. The
//!   index in this table is the function id used on the shared-memory wire.
//! * `enums.rs`: GL enum names by value, globally and per registry group.
//! * with the `grpc` feature, the tonic/prost code of `proto/gldbg.proto`.
//!
//! The preload's build script turns `FUNCTIONS` into exported wrappers; the
//! daemon uses it at run time to name calls and decode arguments. One source,
//! so ids always agree.

use gl_generator::{Api, Fallbacks, Profile, Registry};

/// `classify` and its `class` table, shared with `api.rs`: the shapes of
/// draws follow the DRAW class.
#[allow(dead_code)]
mod classes {
    include!("src/classify.rs");
}
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let (functions, enums) = generate_tables();
    std::fs::write(out.join("functions.rs"), functions).unwrap();
    std::fs::write(out.join("enums.rs"), enums).unwrap();

    if std::env::var_os("CARGO_FEATURE_GRPC").is_some() {
        let protoc = protoc_bin_vendored::protoc_bin_path().expect("vendored protoc");
        // SAFETY: build scripts are single-threaded; prost-build reads PROTOC.
        unsafe { std::env::set_var("PROTOC", protoc) };
        tonic_prost_build::configure()
            .file_descriptor_set_path(out.join("gldbg_descriptor.bin"))
            // Malformed request bytes are INVALID_ARGUMENT, not INTERNAL.
            .codec_path("crate::codec::ProtoCodec")
            .compile_protos(&["proto/gldbg.proto"], &["proto"])
            .expect("compile proto/gldbg.proto");
    }
    println!("cargo:rerun-if-changed=proto/gldbg.proto");
    println!("cargo:rerun-if-changed=build.rs");
}

/// Names of the extensions the XML declares as supported by `api_name`.
fn extensions_of(xml: &str, api_name: &str) -> Vec<String> {
    let mut names = Vec::new();
    for chunk in xml.split("<extension ").skip(1) {
        let head = &chunk[..chunk.find('>').unwrap_or(chunk.len())];
        let attr = |key: &str| {
            let start = head.find(&format!("{key}=\""))? + key.len() + 2;
            let end = head[start..].find('"')? + start;
            Some(head[start..end].to_string())
        };
        if let (Some(name), Some(supported)) = (attr("name"), attr("supported"))
            && supported.split('|').any(|s| s == api_name)
        {
            names.push(name);
        }
    }
    names
}

fn registry(api: Api, version: (u8, u8), xml: &[u8], api_name: &str) -> Registry {
    let xml = std::str::from_utf8(xml).expect("registry XML is UTF-8");
    let exts = extensions_of(xml, api_name);
    let exts: Vec<&str> = exts.iter().map(String::as_str).collect();
    Registry::new(api, version, Profile::Compatibility, Fallbacks::All, exts)
}

/// ABI class of a gl_generator Rust type string. A wrapper only needs to
/// know how an argument travels in registers, never what it means.
fn abi_class(ty: &str) -> &'static str {
    let t = ty.trim();
    if t == "()" {
        return "Void";
    }
    if t.contains('*') || t.starts_with('[') {
        return "Ptr";
    }
    let base = t
        .trim_start_matches("const ")
        .rsplit("::")
        .next()
        .unwrap_or(t);
    match base {
        "GLboolean" | "GLubyte" | "c_uchar" => "U8",
        "GLbyte" | "GLchar" | "GLcharARB" | "c_char" => "I8",
        "GLshort" | "c_short" => "I16",
        "GLushort" | "GLhalfNV" | "GLhalf" | "GLhalfARB" | "c_ushort" => "U16",
        "GLint"
        | "GLsizei"
        | "GLclampx"
        | "GLfixed"
        | "c_int"
        | "Bool"
        | "EGLint"
        | "BOOL"
        | "INT"
        | "GLXVideoDeviceNV"
        | "EGLNativeFileDescriptorKHR"
        | "Status"
        | "i32" => "I32",
        "GLenum" | "GLbitfield" | "GLuint" | "c_uint" | "EGLBoolean" | "EGLenum"
        | "GLhandleARB" | "UINT" | "DWORD" | "u32" => "U32",
        "GLintptr" | "GLsizeiptr" | "GLintptrARB" | "GLsizeiptrARB" | "GLint64" | "GLint64EXT"
        | "EGLAttrib" | "EGLAttribKHR" | "isize" | "i64" | "GLvdpauSurfaceNV" | "INT64"
        | "c_long" | "khronos_ssize_t" | "EGLsizeiANDROID" => "I64",
        "GLuint64"
        | "GLuint64EXT"
        | "XID"
        | "Window"
        | "Pixmap"
        | "Font"
        | "Colormap"
        | "GLXDrawable"
        | "GLXContextID"
        | "GLXPixmap"
        | "GLXWindow"
        | "GLXPbuffer"
        | "GLXVideoCaptureDeviceNV"
        | "GLXVideoSourceSGIX"
        | "GLXPbufferSGIX"
        | "GLXFBConfigIDSGIX"
        | "GLXFBConfigID"
        | "c_ulong"
        | "EGLTime"
        | "EGLTimeKHR"
        | "EGLTimeNV"
        | "EGLuint64NV"
        | "EGLuint64KHR"
        | "khronos_utime_nanoseconds_t"
        | "khronos_uint64_t"
        | "VisualID"
        | "u64" => "U64",
        "EGLnsecsANDROID" | "khronos_stime_nanoseconds_t" => "I64",
        "GLfloat" | "GLclampf" | "c_float" | "FLOAT" => "F32",
        "GLdouble" | "GLclampd" | "c_double" => "F64",
        // Handles, opaque pointers and function pointers; also the types the
        // 2019 XML uses but never defines (they are all pointers).
        "GLsync"
        | "GLeglImageOES"
        | "GLXContext"
        | "GLXFBConfig"
        | "GLXFBConfigSGIX"
        | "EGLDisplay"
        | "EGLConfig"
        | "EGLContext"
        | "EGLSurface"
        | "EGLClientBuffer"
        | "EGLImage"
        | "EGLImageKHR"
        | "EGLSync"
        | "EGLSyncKHR"
        | "EGLSyncNV"
        | "EGLStreamKHR"
        | "EGLDeviceEXT"
        | "EGLOutputLayerEXT"
        | "EGLOutputPortEXT"
        | "EGLNativeDisplayType"
        | "EGLNativeWindowType"
        | "EGLNativePixmapType"
        | "NativeDisplayType"
        | "NativeWindowType"
        | "NativePixmapType"
        | "GLDEBUGPROC"
        | "GLDEBUGPROCARB"
        | "GLDEBUGPROCKHR"
        | "GLDEBUGPROCAMD"
        | "__GLXextFuncPtr"
        | "__eglMustCastToProperFunctionPointerType"
        | "DMbuffer"
        | "VLServer"
        | "VLPath"
        | "VLNode"
        | "EGLSetBlobFuncANDROID"
        | "EGLGetBlobFuncANDROID"
        | "GLVULKANPROCNV"
        | "EGLObjectKHR"
        | "GLeglClientBufferEXT"
        | "EGLLabelKHR"
        | "EGLDEBUGPROCKHR"
        | "GLXHyperpipeConfigSGIX"
        | "GLXHyperpipeNetworkSGIX"
        | "HANDLE"
        | "PROC"
        | "LPVOID"
        | "Display"
        | "XVisualInfo" => "Ptr",
        other => panic!("gldbg-proto build: no ABI class for registry type `{other}` ({ty})"),
    }
}

/// A readable C-like spelling of a gl_generator type for display.
fn c_spelling(ty: &str) -> String {
    let t = ty
        .replace("types::", "")
        .replace("__gl_imports::raw::", "")
        .replace("c_void", "void")
        .replace("c_char", "char")
        .replace("c_int", "int")
        .replace("c_uint", "unsigned int")
        .replace("c_ulong", "unsigned long")
        .replace("c_long", "long")
        .replace("c_float", "float");
    if t == "()" {
        return "void".into();
    }
    // "*const *mut T" -> "T * *const": rebuild from the pointer chain.
    let mut rest = t.trim();
    let mut stars = Vec::new();
    loop {
        if let Some(r) = rest.strip_prefix("*const ") {
            stars.push(true);
            rest = r;
        } else if let Some(r) = rest.strip_prefix("*mut ") {
            stars.push(false);
            rest = r;
        } else {
            break;
        }
    }
    let base = rest.trim_start_matches("const ").to_string();
    if stars.is_empty() {
        return base;
    }
    let mut s = String::new();
    // The innermost pointee's constness comes from the last pointer.
    if *stars.last().unwrap() {
        s.push_str("const ");
    }
    s.push_str(&base);
    s.push(' ');
    for (i, c) in stars.iter().enumerate().rev() {
        s.push('*');
        if i > 0 && *c && i != stars.len() - 1 {
            s.push_str("const");
        }
    }
    s
}

fn escape(name: &str) -> String {
    match name {
        "box" | "type" | "ref" | "in" | "fn" | "mod" | "match" | "impl" | "loop" | "move"
        | "self" | "use" | "where" | "async" | "await" | "dyn" | "priv" | "final" | "override"
        | "macro" | "virtual" | "yield" | "try" | "gen" | "const" | "static" | "struct"
        | "enum" | "trait" | "let" | "mut" | "pub" | "return" | "super" | "crate" => {
            format!("{name}_")
        }
        _ => name.to_string(),
    }
}

/// The `len` attribute of every `<param>` of every `<command>` in a registry
/// XML, keyed by the command's full name (gl_generator's `Binding` drops it).
fn param_lens(xml: &[u8]) -> BTreeMap<String, Vec<String>> {
    let xml = std::str::from_utf8(xml).expect("registry XML is UTF-8");
    let mut out = BTreeMap::new();
    for chunk in xml.split("<command").skip(1) {
        if !chunk.starts_with('>') && !chunk.starts_with(' ') {
            continue; // <commands>
        }
        let body = &chunk[..chunk.find("</command>").unwrap_or(chunk.len())];
        let name_of = |s: &str| -> Option<String> {
            let a = s.find("<name>")? + 6;
            let b = s[a..].find("</name>")? + a;
            Some(s[a..b].to_string())
        };
        let Some(proto_end) = body.find("</proto>") else {
            continue;
        };
        let Some(name) = name_of(&body[..proto_end]) else {
            continue;
        };
        let mut lens = Vec::new();
        for p in body.split("<param").skip(1) {
            let head = &p[..p.find('>').unwrap_or(p.len())];
            let len = head
                .find("len=\"")
                .and_then(|i| {
                    head[i + 5..]
                        .find('"')
                        .map(|j| head[i + 5..i + 5 + j].to_string())
                })
                .unwrap_or_default();
            lens.push(len);
        }
        out.entry(name).or_insert(lens);
    }
    out
}

fn generate_tables() -> (String, String) {
    let mut lens = param_lens(khronos_api::GL_XML);
    for x in [khronos_api::GLX_XML, khronos_api::EGL_XML] {
        for (k, v) in param_lens(x) {
            lens.entry(k).or_insert(v);
        }
    }
    let gl = registry(Api::Gl, (4, 6), khronos_api::GL_XML, "gl");
    let gles2 = registry(Api::Gles2, (3, 2), khronos_api::GL_XML, "gles2");
    let gles1 = registry(Api::Gles1, (1, 0), khronos_api::GL_XML, "gles1");
    let glx = registry(Api::Glx, (1, 4), khronos_api::GLX_XML, "glx");
    let egl = registry(Api::Egl, (1, 5), khronos_api::EGL_XML, "egl");

    // name -> (api, cmd); the first registry to define a name wins.
    let mut cmds: BTreeMap<String, (&'static str, &gl_generator::Cmd)> = BTreeMap::new();
    for (prefix, api, reg) in [
        ("gl", "Gl", &gl),
        ("gl", "Gl", &gles2),
        ("gl", "Gl", &gles1),
        ("glX", "Glx", &glx),
        ("egl", "Egl", &egl),
    ] {
        for cmd in &reg.cmds {
            let name = format!("{prefix}{}", cmd.proto.ident);
            cmds.entry(name).or_insert((api, cmd));
        }
    }

    let mut f = String::new();
    writeln!(
        f,
        "/// Every wrapped function; the index is the function id."
    )
    .unwrap();
    writeln!(f, "pub static FUNCTIONS: [Function; {}] = [", cmds.len()).unwrap();
    for (name, (api, cmd)) in &cmds {
        write!(
            f,
            "  Function {{ name: {name:?}, api: Api::{api}, ret: Abi::{}, ret_type: {:?}, params: &[",
            abi_class(&cmd.proto.ty),
            c_spelling(&cmd.proto.ty)
        )
        .unwrap();
        let cmd_lens = lens
            .get(name.as_str())
            .filter(|l| l.len() == cmd.params.len());
        for (i, p) in cmd.params.iter().enumerate() {
            write!(
                f,
                "Param {{ name: {:?}, abi: Abi::{}, c_type: {:?}, group: {:?}, len: {:?} }},",
                escape(&p.ident),
                abi_class(&p.ty),
                c_spelling(&p.ty),
                p.group.as_deref().unwrap_or(""),
                cmd_lens.map_or("", |l| l[i].as_str())
            )
            .unwrap();
        }
        writeln!(f, "] }},").unwrap();
    }
    writeln!(f, "];").unwrap();
    write_call_shapes(&mut f, &cmds);
    writeln!(
        f,
        "/// Function ids by name, for code that names a function statically.\n\
         #[allow(non_upper_case_globals)]\npub mod ids {{"
    )
    .unwrap();
    for (id, name) in cmds.keys().enumerate() {
        writeln!(f, "  pub const {name}: u32 = {id};").unwrap();
    }
    writeln!(f, "}}").unwrap();

    // Enums: GL only (GLX/EGL values are shown as numbers).
    let mut by_value: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    let mut value_of: BTreeMap<String, u32> = BTreeMap::new();
    for reg in [&gl, &gles2, &gles1] {
        for e in &reg.enums {
            let v = e.value.trim();
            let parsed = if let Some(hex) = v.strip_prefix("0x") {
                u32::from_str_radix(hex, 16).ok()
            } else {
                v.parse::<u32>().ok()
            };
            if let Some(val) = parsed {
                let name = format!("GL_{}", e.ident);
                value_of.insert(name.clone(), val);
                let names = by_value.entry(val).or_default();
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
    }
    // Prefer core names (no vendor suffix), then the shortest.
    let rank = |n: &str| {
        let vendor = n.rsplit('_').next().is_some_and(|s| {
            s.len() >= 2
                && s.chars().all(|c| c.is_ascii_uppercase())
                && n.matches('_').count() > 1
                && [
                    "ARB", "EXT", "OES", "NV", "AMD", "KHR", "APPLE", "INTEL", "SGIX", "SGIS",
                    "ATI", "IBM", "MESA", "SUN", "IMG", "QCOM", "ANGLE", "ARM", "SGI", "HP",
                    "3DFX", "PGI", "INGR", "OML", "S3", "REND", "WIN", "GREMEDY", "OVR", "DMP",
                    "FJ", "VIV", "MESAX", "SUNX", "NVX",
                ]
                .contains(&s)
        });
        (vendor, n.len())
    };
    let mut e = String::new();
    writeln!(
        e,
        "/// GL enum names by value (best name per value), sorted by value."
    )
    .unwrap();
    writeln!(
        e,
        "pub static GL_ENUMS: [(u32, &str); {}] = [",
        by_value.len()
    )
    .unwrap();
    for (val, names) in &by_value {
        let best = names.iter().min_by_key(|n| rank(n)).unwrap();
        writeln!(e, "  ({val:#x}, {best:?}),").unwrap();
    }
    writeln!(e, "];").unwrap();

    let mut groups: BTreeMap<&str, BTreeSet<(u32, String)>> = BTreeMap::new();
    for reg in [&gl, &gles2, &gles1] {
        for (gname, g) in &reg.groups {
            for en in &g.enums {
                let name = format!("GL_{en}");
                if let Some(v) = value_of.get(&name) {
                    groups.entry(gname.as_str()).or_default().insert((*v, name));
                }
            }
        }
    }
    writeln!(
        e,
        "/// GL enum names per registry group, each sorted by value."
    )
    .unwrap();
    writeln!(
        e,
        "pub static GL_ENUM_GROUPS: [(&str, &[(u32, &str)]); {}] = [",
        groups.len()
    )
    .unwrap();
    for (gname, entries) in &groups {
        // One name per value inside a group, best first.
        let mut best: BTreeMap<u32, &String> = BTreeMap::new();
        for (v, n) in entries {
            let slot = best.entry(*v).or_insert(n);
            if rank(n) < rank(slot) {
                *slot = n;
            }
        }
        write!(e, "  ({gname:?}, &[").unwrap();
        for (v, n) in best {
            write!(e, "({v:#x}, {n:?}),").unwrap();
        }
        writeln!(e, "]),").unwrap();
    }
    writeln!(e, "];").unwrap();
    (f, e)
}

/// The parameters of draws whose meaning the call shapes know.
/// (`type` is spelled `type_` in the registry reader.)
const KNOWN: [&str; 21] = [
    "mode",
    "first",
    "start",
    "end",
    "count",
    "type_",
    "indices",
    "instancecount",
    "primcount",
    "basevertex",
    "baseinstance",
    "drawcount",
    "drawCount",
    "maxdrawcount",
    "maxDrawCount",
    "stride",
    "indirect",
    "id",
    "stream",
    "baseInstance",
    "vertexBufferCount",
];

/// `CALL_SHAPES`: each draw's and dispatch's `CallShape` (api.rs), from
/// its parameter names, by function id.
fn write_call_shapes(f: &mut String, cmds: &BTreeMap<String, (&'static str, &gl_generator::Cmd)>) {
    writeln!(
        f,
        "/// What each function's parameters say about a draw's or dispatch's shape, by id."
    )
    .unwrap();
    writeln!(f, "pub static CALL_SHAPES: [CallShape; {}] = [", cmds.len()).unwrap();
    for (name, (_, cmd)) in cmds {
        // Any call taking its primitive mode first (glDrawTransformFeedback too).
        let has_mode = cmd.params.first().is_some_and(|p| p.ident == "mode");
        let class = classes::classify(name);
        // A DRAW-class call of primitives whose every parameter says a known
        // thing (not glDrawMeshTasksNV's task groups, glDrawMeshArraysSUN's
        // width, glCallList's list).
        let draw = class & classes::class::DRAW != 0
            && has_mode
            && cmd.params.iter().all(|p| KNOWN.contains(&p.ident.as_str()));
        let dispatch = class & classes::class::DISPATCH != 0;
        let shaped = draw || dispatch;
        let find = |names: &[&str]| {
            cmd.params
                .iter()
                .position(|p| shaped && names.contains(&p.ident.as_str()))
        };
        let show = |i: Option<usize>| format!("{:?}", i.map(|i| i as u8));
        let pointer = |i: Option<usize>| i.is_some_and(|i| abi_class(&cmd.params[i].ty) == "Ptr");
        let mode = match has_mode {
            true => "Some(0)",
            false => "None",
        };
        // `first` is `start` in glDrawArraysInstancedEXT; in an indexed
        // draw `start` is the lowest index (glDrawRangeElements), not a first.
        // glDrawElements*, glDraw[Range]ElementArray{APPLE,ATI}.
        let indexed = shaped && name.contains("Element");
        let indirect = shaped && name.contains("Indirect");
        let first = find(&["first"]).or(find(&["start"]).filter(|_| !indexed));
        let count = find(&["count"]);
        // A multi-draw's `primcount` (glMultiDrawArraysEXT: per-draw
        // pointers) is its number of draws, elsewhere the instances.
        let multi = name.starts_with("glMultiDraw") || pointer(count);
        let primcount = find(&["primcount"]);
        let instances = find(&["instancecount"]).or(primcount.filter(|_| !multi));
        let draw_count = find(&["drawcount", "drawCount"]).or(primcount.filter(|_| multi));
        // One `first`, `count` range of vertices in order: every parameter
        // known and none a pointer (not glMultiDrawArraysEXT's per-draw
        // arrays, not glDrawMeshArraysSUN's `width`).
        const DIRECT: [&str; 7] = [
            "mode",
            "first",
            "start",
            "count",
            "instancecount",
            "primcount",
            "baseinstance",
        ];
        let direct = draw
            && has_mode
            && first.is_some()
            && count.is_some()
            && draw_count.is_none()
            && !indexed
            && !indirect
            && cmd
                .params
                .iter()
                .all(|p| DIRECT.contains(&p.ident.as_str()) && abi_class(&p.ty) != "Ptr");
        writeln!(
            f,
            "  CallShape {{ mode: {mode}, first: {}, count: {}, instances: {}, draw_count: {}, group_size: {}, indexed: {indexed}, indirect: {indirect}, direct_arrays: {direct} }},",
            show(first),
            show(count),
            show(instances),
            show(draw_count),
            show(find(&["group_size_x"])),
        )
        .unwrap();
    }
    writeln!(f, "];").unwrap();
}
