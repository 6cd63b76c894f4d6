//! Builds the C test apps of `apps/` into OUT_DIR with the C compiler the
//! `cc` crate picks, exposes their paths to the tests as `GLDBG_APP_<NAME>`,
//! and copies them to `target/<profile>/apps/` for the README's demo command.
//! Also writes `OUT_DIR/gl_state_enums.h`, the candidate pnames of
//! `apps/state_dump.h`, from the Khronos registry (`gldbg_proto::api`).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use gldbg_proto::api::{GL_ENUM_GROUPS, GL_ENUMS};

/// (source file, executable name, libraries to link)
const APPS: &[(&str, &str, &[&str])] = &[
    ("apps/egl_shade.c", "egl_shade", &["EGL"]),
    ("apps/glx_shade.c", "glx_shade", &["GL", "X11"]),
    ("apps/egl_compute.c", "egl_compute", &["EGL", "OpenGL"]),
    ("apps/egl_stages.c", "egl_stages", &["EGL", "OpenGL"]),
    ("apps/egl_gles.c", "egl_gles", &["EGL", "GLESv2"]),
    ("apps/egl_trace.c", "egl_trace", &["EGL", "OpenGL"]),
    ("apps/egl_files.c", "egl_files", &["EGL", "OpenGL"]),
    ("apps/egl_history.c", "egl_history", &["EGL", "OpenGL"]),
    ("apps/egl_memcheck.c", "egl_memcheck", &["EGL", "OpenGL"]),
    (
        "apps/egl_memcheck_link.c",
        "egl_memcheck_link",
        &["EGL", "OpenGL"],
    ),
];

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap());
    println!("cargo:rerun-if-changed=apps");
    println!("cargo:rerun-if-changed=build.rs");

    // OUT_DIR = target/<profile>/build/gldbg-tests-<hash>/out
    let profile_dir = out_dir.ancestors().nth(3).map(Path::to_path_buf);
    let apps_dir = profile_dir.as_ref().map(|d| d.join("apps"));
    if let Some(dir) = &apps_dir {
        let _ = std::fs::create_dir_all(dir);
    }

    write_state_enums(&out_dir.join("gl_state_enums.h"));

    for (source, name, libs) in APPS {
        let source = manifest.join(source);
        let exe = out_dir.join(name);
        let mut cmd = cc::Build::new()
            .warnings(true)
            .opt_level(1)
            .debug(true)
            .cargo_metadata(false)
            .get_compiler()
            .to_command();
        cmd.arg("-std=gnu99")
            .arg("-Wall")
            .arg("-I")
            .arg(manifest.join("apps"))
            .arg("-I")
            .arg(&out_dir)
            .arg("-o")
            .arg(&exe)
            .arg(&source);
        for lib in *libs {
            cmd.arg(format!("-l{lib}"));
        }
        run(cmd, name);
        println!(
            "cargo:rustc-env=GLDBG_APP_{}={}",
            name.to_uppercase(),
            exe.display()
        );
        if let Some(dir) = &apps_dir {
            let dest = dir.join(name);
            // Replace rather than overwrite: a running copy must not be modified in place.
            let tmp = dir.join(format!(".{name}.tmp"));
            if std::fs::copy(&exe, &tmp).is_ok() {
                let _ = std::fs::rename(&tmp, &dest);
            }
        }
    }
}

fn run(mut cmd: Command, name: &str) {
    let output = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler for {name}: {e}"));
    if !output.status.success() {
        panic!(
            "building test app {name} failed ({:?}):\n{}\n{}\n\
             (missing headers/libraries? run `bash .ci/setup`: it installs gcc, libegl-dev, libgl-dev, libopengl-dev, libx11-dev)",
            cmd,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    // Forward compiler warnings as cargo warnings.
    for line in String::from_utf8_lossy(&output.stderr).lines() {
        if line.contains("warning") {
            println!("cargo:warning={line}");
        }
    }
}

/// The candidate pnames of each query of `apps/state_dump.h`: (C array,
/// registry groups naming its enums, prefixes of the names of the enums
/// tried besides the groups'). The groups of the registry that
/// gl_generator bundles miss newer enums (GetPName has no
/// GL_ATOMIC_COUNTER_BUFFER_BINDING or GL_PATCH_VERTICES), so more enums
/// are tried; the dump keeps those that raise no error. Prefix "GL_" is
/// every enum.
const STATE_LISTS: &[(&str, &[&str], &[&str])] = &[
    // glGet*, glGet*i_v
    ("STATE_GET", &["GetPName"], &["GL_"]),
    // glIsEnabled, glIsEnabledi
    ("STATE_ENABLE", &["EnableCap"], &["GL_"]),
    // glGetTexParameter*, glGetTexLevelParameteriv
    (
        "STATE_TEXTURE",
        &["TextureParameterName", "GetTextureParameter"],
        &[
            "GL_TEXTURE_",
            "GL_DEPTH_STENCIL_TEXTURE_MODE",
            "GL_IMAGE_FORMAT_COMPATIBILITY_TYPE",
        ],
    ),
    ("STATE_SAMPLER", &["SamplerParameterName"], &["GL_TEXTURE_"]),
    (
        "STATE_VERTEX_ATTRIB",
        &["VertexAttribEnum"],
        &[
            "GL_VERTEX_ATTRIB_ARRAY_",
            "GL_VERTEX_ATTRIB_BINDING",
            "GL_VERTEX_ATTRIB_RELATIVE_OFFSET",
        ],
    ),
    // glGetFramebufferAttachmentParameteriv: attachment points, then pnames
    ("STATE_ATTACHMENT", &["FramebufferAttachment"], &["GL_"]),
    (
        "STATE_ATTACHMENT_PNAME",
        &["FramebufferAttachmentParameterName"],
        &["GL_FRAMEBUFFER_ATTACHMENT_"],
    ),
    (
        "STATE_FRAMEBUFFER",
        &["GetFramebufferParameter", "FramebufferParameterName"],
        &["GL_FRAMEBUFFER_DEFAULT_"],
    ),
    (
        "STATE_RENDERBUFFER",
        &["RenderbufferParameterName"],
        &["GL_RENDERBUFFER_"],
    ),
    (
        "STATE_BUFFER",
        &["VertexBufferObjectParameter"],
        &["GL_BUFFER_"],
    ),
    ("STATE_PROGRAM", &["ProgramPropertyARB"], &["GL_"]),
    ("STATE_PIPELINE", &["PipelineParameterName"], &["GL_"]),
    ("STATE_SHADER", &["ShaderParameterName"], &["GL_SHADER_"]),
    ("STATE_SHADER_TYPE", &["ShaderType"], &[]),
    (
        "STATE_UNIFORM_BLOCK",
        &["UniformBlockPName"],
        &["GL_UNIFORM_BLOCK_"],
    ),
    (
        "STATE_ATOMIC_BUFFER",
        &["AtomicCounterBufferPName"],
        &["GL_ATOMIC_COUNTER_BUFFER_"],
    ),
    // glGetQueryiv: targets, then pnames
    ("STATE_QUERY_TARGET", &["QueryTarget"], &["GL_"]),
    ("STATE_QUERY_PNAME", &["QueryParameterName"], &[]),
    ("STATE_POINTER", &["GetPointervPName"], &[]),
    // glGetError's values, for printing
    ("STATE_ERROR", &["ErrorCode"], &[]),
];

fn group(name: &str) -> &'static [(u32, &'static str)] {
    GL_ENUM_GROUPS
        .binary_search_by(|(n, _)| (*n).cmp(name))
        .map(|i| GL_ENUM_GROUPS[i].1)
        .unwrap_or_else(|_| panic!("no registry group {name}"))
}

/// `OUT_DIR/gl_state_enums.h`: `static const state_enum NAME[]` per list of
/// [`STATE_LISTS`] (sorted by value, one name per value: the groups' first,
/// else the registry's best), `STATE_ENUM_NAMES` (every enum, for printing
/// values), and `STATE_TEXTURE_BINDINGS` (each GL_TEXTURE_BINDING_X with its
/// target GL_TEXTURE_X).
fn write_state_enums(path: &Path) {
    let mut h = String::from(
        r#"/* Generated by tests/build.rs from the Khronos registry
 * (gldbg_proto::api::GL_ENUMS, GL_ENUM_GROUPS): candidate pnames of
 * state_dump.h. Do not edit. */
#ifndef GL_STATE_ENUMS_H
#define GL_STATE_ENUMS_H

typedef struct {
    unsigned value;
    const char *name;
} state_enum;

typedef struct {
    unsigned target, binding;
    const char *target_name, *binding_name;
} state_texture_binding;

#define STATE_COUNT(a) (sizeof(a) / sizeof((a)[0]))

"#,
    );
    let array = |h: &mut String, name: &str, entries: &BTreeMap<u32, &str>| {
        writeln!(h, "static const state_enum {name}[{}] = {{", entries.len()).unwrap();
        for (v, n) in entries {
            writeln!(h, "    {{{v:#x}, \"{n}\"}},").unwrap();
        }
        h.push_str("};\n\n");
    };
    for (name, groups, prefixes) in STATE_LISTS {
        let mut entries: BTreeMap<u32, &str> = BTreeMap::new();
        for g in *groups {
            for (v, n) in group(g) {
                entries.entry(*v).or_insert(n);
            }
        }
        for (v, n) in GL_ENUMS.iter() {
            if prefixes.iter().any(|p| n.starts_with(p)) {
                entries.entry(*v).or_insert(n);
            }
        }
        let mut what = format!("Group {}", groups.join(", "));
        if !prefixes.is_empty() {
            let names: Vec<String> = prefixes.iter().map(|p| format!("{p}*")).collect();
            what += &format!("; enums {}", names.join(", "));
        }
        writeln!(h, "/* {what} */").unwrap();
        array(&mut h, name, &entries);
    }
    let all: BTreeMap<u32, &str> = GL_ENUMS.iter().map(|(v, n)| (*v, *n)).collect();
    h.push_str("/* Every GL enum, for printing enum values. */\n");
    array(&mut h, "STATE_ENUM_NAMES", &all);

    // Every name of every value (GL_ENUMS keeps one per value).
    let mut by_name: BTreeMap<&str, u32> = GL_ENUMS.iter().map(|(v, n)| (*n, *v)).collect();
    for (_, entries) in GL_ENUM_GROUPS.iter() {
        for (v, n) in entries.iter() {
            by_name.entry(n).or_insert(*v);
        }
    }
    let mut seen = BTreeSet::new();
    h.push_str("static const state_texture_binding STATE_TEXTURE_BINDINGS[] = {\n");
    for (binding_name, binding) in &by_name {
        let Some(rest) = binding_name.strip_prefix("GL_TEXTURE_BINDING_") else {
            continue;
        };
        let target_name = format!("GL_TEXTURE_{rest}");
        if let Some(target) = by_name.get(target_name.as_str())
            && seen.insert(*binding)
        {
            writeln!(
                h,
                "    {{{target:#x}, {binding:#x}, \"{target_name}\", \"{binding_name}\"}},"
            )
            .unwrap();
        }
    }
    h.push_str("};\n\n#endif\n");
    std::fs::write(path, h).expect("write gl_state_enums.h");
}
