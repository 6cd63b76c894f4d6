//! What the daemon knows about shaders and programs: sources recorded from
//! the app's own calls (`glShaderSource`, attach/detach, snapshots at
//! `glLinkProgram`), the preload's `CMD_QUERY_PROGRAM` reply text, and small
//! helpers (stage names, `#version`, GLSL type names).

use std::collections::{BTreeMap, HashMap};

use gldbg_proto::api;
use glsl_instrument::{Api, Includes, Stage};

/// One shader as recorded from the app's calls.
#[derive(Clone, Debug, Default)]
pub struct RecordedShader {
    pub gl_type: u32,
    pub source: Option<String>,
    /// The search paths of its `glCompileShaderIncludeARB`.
    pub search_paths: Vec<String>,
}

/// One stage of a linked program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageSource {
    pub id: u32,
    pub gl_type: u32,
    pub source: String,
    /// True when recorded from the app's calls, false when queried from the driver.
    pub recorded: bool,
    /// What its `#include`s name (ARB_shading_language_include): the named
    /// strings at `glLinkProgram`, the compile's search paths. Empty for a
    /// source without `#include`.
    pub includes: Includes,
}

/// Shader bookkeeping of one session (object names of all contexts share
/// one namespace here: good enough for apps with one share group).
#[derive(Clone, Debug, Default)]
pub struct Recorded {
    pub shaders: HashMap<u32, RecordedShader>,
    pub attached: HashMap<u32, Vec<u32>>,
    /// Stages of each program as they were at its last `glLinkProgram`.
    pub linked: HashMap<u32, Vec<StageSource>>,
    /// `glNamedStringARB`'s named strings: name → text.
    pub named_strings: BTreeMap<String, String>,
    /// Programs whose latest load was `glProgramBinary` (no source).
    pub binary_programs: std::collections::HashSet<u32>,
    /// Shaders whose latest load was `glShaderBinary` (SPIR-V or a
    /// vendor format: no GLSL source).
    pub binary_shaders: std::collections::HashSet<u32>,
}

impl Recorded {
    /// A new program object: nothing attached, nothing linked. A driver
    /// may give a deleted program's name again (NVIDIA's does), and
    /// `glDeleteProgram` is not recorded: the old object's shaders must
    /// not become the new one's.
    pub fn create_program(&mut self, program: u32) {
        self.attached.remove(&program);
        self.linked.remove(&program);
        self.binary_programs.remove(&program);
    }

    pub fn create_shader(&mut self, id: u32, gl_type: u32) {
        self.shaders.insert(
            id,
            RecordedShader {
                gl_type,
                source: None,
                search_paths: Vec::new(),
            },
        );
    }

    pub fn shader_source(&mut self, id: u32, source: String) {
        self.shaders.entry(id).or_default().source = Some(source);
        self.binary_shaders.remove(&id);
    }

    /// `glShaderBinary`: these shaders now hold a binary, no GLSL source.
    pub fn shader_binary(&mut self, ids: &[u32]) {
        for &id in ids {
            self.shaders.entry(id).or_default().source = None;
            self.binary_shaders.insert(id);
        }
    }

    /// `glProgramBinary` (which gldbg makes fail: the app should link
    /// from source next).
    pub fn program_binary(&mut self, program: u32) {
        self.linked.remove(&program);
        self.binary_programs.insert(program);
    }

    /// Why no program may be current: one was loaded with
    /// `glProgramBinary` (which fails under gldbg) and never linked since.
    pub fn unlinked_binary_note(&self) -> Option<String> {
        let mut programs: Vec<u32> = self.binary_programs.iter().copied().collect();
        programs.sort_unstable();
        self.binary_note(&programs, &[])
    }

    /// Why the sources of `programs` (attached `shaders`) are unknown, and
    /// what to do; `None` when nothing was loaded as a binary.
    pub fn binary_note(&self, programs: &[u32], shaders: &[u32]) -> Option<String> {
        if let Some(p) = programs.iter().find(|p| self.binary_programs.contains(p)) {
            return Some(format!(
                "program {p} was loaded with glProgramBinary and has no source: gldbg makes \
                 glProgramBinary fail (and reports no binary formats) so that apps compile \
                 from source, but this app did not fall back to its sources; clear the app's \
                 shader cache or turn it off, then run it again"
            ));
        }
        let binary: Vec<String> = shaders
            .iter()
            .filter(|s| self.binary_shaders.contains(s))
            .map(u32::to_string)
            .collect();
        let (noun, verb) = match binary.len() {
            0 => return None,
            1 => ("shader", "was"),
            _ => ("shaders", "were"),
        };
        Some(format!(
            "{noun} {} {verb} loaded with glShaderBinary (SPIR-V or a driver binary): there is \
             no GLSL source to debug; make the app load GLSL with glShaderSource instead",
            binary.join(", ")
        ))
    }

    /// `glCompileShaderIncludeARB`: the search paths of its `#include`s.
    pub fn compile_include(&mut self, id: u32, search_paths: Vec<String>) {
        self.shaders.entry(id).or_default().search_paths = search_paths;
    }

    /// `glNamedStringARB` (`None`: `glDeleteNamedStringARB`).
    pub fn named_string(&mut self, name: String, text: Option<String>) {
        match text {
            Some(t) => self.named_strings.insert(name, t),
            None => self.named_strings.remove(&name),
        };
    }

    /// What `source`'s `#include`s can name now.
    pub fn includes(&self, source: &str, search_paths: &[String]) -> Includes {
        if !source.contains("include") {
            return Includes::default();
        }
        Includes {
            strings: self.named_strings.clone(),
            search_paths: search_paths.to_vec(),
        }
    }

    pub fn attach(&mut self, program: u32, shader: u32) {
        let v = self.attached.entry(program).or_default();
        if !v.contains(&shader) {
            v.push(shader);
        }
    }

    pub fn detach(&mut self, program: u32, shader: u32) {
        if let Some(v) = self.attached.get_mut(&program) {
            v.retain(|s| *s != shader);
        }
    }

    /// Snapshot the attached shaders' sources (at `glLinkProgram`).
    pub fn link(&mut self, program: u32) {
        self.binary_programs.remove(&program);
        let stages: Vec<StageSource> = self
            .attached
            .get(&program)
            .into_iter()
            .flatten()
            .filter_map(|id| {
                let s = self.shaders.get(id)?;
                let source = s.source.clone()?;
                Some(StageSource {
                    id: *id,
                    gl_type: s.gl_type,
                    includes: self.includes(&source, &s.search_paths),
                    source,
                    recorded: true,
                })
            })
            .collect();
        self.linked.insert(program, stages);
    }

    /// A separable program made by `glCreateShaderProgramv`.
    pub fn shader_program(&mut self, program: u32, gl_type: u32, source: String) {
        self.linked.insert(
            program,
            vec![StageSource {
                id: 0,
                gl_type,
                includes: self.includes(&source, &[]),
                source,
                recorded: true,
            }],
        );
    }
}

/// The preload's description of the current program (`CMD_QUERY_PROGRAM`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProgramText {
    /// The current program, or a pipeline's first stage program.
    pub program: u32,
    /// The bound separable pipeline when no program is current (else 0).
    pub pipeline: u32,
    /// Every program described: the current one, or the pipeline's stage
    /// programs, vertex first.
    pub programs: Vec<u32>,
    /// Attached shaders: (id, GL type).
    pub shaders: Vec<(u32, u32)>,
    pub attributes: Vec<ProgramVariable>,
    pub uniforms: Vec<ProgramVariable>,
    /// (name, location, index): the index is that of dual-source blending
    /// (0 or 1) for fragment outputs, -1 where GL does not say.
    pub outputs: Vec<(String, i32, i32)>,
    /// The driver's copy of attached shaders' sources.
    pub sources: HashMap<u32, String>,
    /// The context's API (GL ES: a shader without `#version` is GLSL ES 1.00).
    pub api: Api,
}

/// An active attribute or uniform of a program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProgramVariable {
    pub name: String,
    /// GL type enum (`GL_FLOAT_VEC4`, ...).
    pub gl_type: u32,
    /// Array size (1 for a non-array).
    pub size: i32,
    pub location: i32,
    /// Current value as GLSL writes it (uniforms with a location; else empty).
    pub value: String,
    /// A uniform block member's block: "NAME, binding N" (else empty).
    pub block: String,
}

/// Parse the tab-separated record text of a `ProgramReply`.
pub fn parse_program_text(text: &[u8]) -> ProgramText {
    let mut p = ProgramText::default();
    let mut at = 0;
    while at < text.len() {
        let end = text[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |e| at + e);
        let line = String::from_utf8_lossy(&text[at..end]).into_owned();
        at = end + 1;
        let f: Vec<&str> = line.split('\t').collect();
        let num = |i: usize| {
            f.get(i)
                .and_then(|s| s.trim().parse::<i64>().ok())
                .unwrap_or(0)
        };
        match f[0] {
            "api" if f.get(1) == Some(&"es") => p.api = Api::Es,
            "api" if f.get(1) == Some(&"es2") => p.api = Api::Es2,
            "pipeline" => p.pipeline = num(1) as u32,
            "program" => {
                let id = num(1) as u32;
                if p.programs.is_empty() {
                    p.program = id;
                }
                p.programs.push(id);
            }
            "shader" => p.shaders.push((num(1) as u32, num(2) as u32)),
            "attribute" | "uniform" => {
                let v = ProgramVariable {
                    name: f.get(1).unwrap_or(&"").to_string(),
                    gl_type: num(2) as u32,
                    size: num(3) as i32,
                    location: num(4) as i32,
                    value: f.get(5).unwrap_or(&"").to_string(),
                    block: f.get(6).unwrap_or(&"").to_string(),
                };
                if f[0] == "attribute" {
                    p.attributes.push(v)
                } else {
                    p.uniforms.push(v)
                }
            }
            "output" => p.outputs.push((
                f.get(1).unwrap_or(&"").to_string(),
                num(2) as i32,
                f.get(3).map_or(-1, |_| num(3) as i32),
            )),
            "source" => {
                let id = num(1) as u32;
                let len = num(2).max(0) as usize;
                let stop = (at + len).min(text.len());
                p.sources
                    .insert(id, String::from_utf8_lossy(&text[at..stop]).into_owned());
                at = stop + 1;
            }
            _ => {}
        }
    }
    p
}

/// CLI name of a GL shader type ("fragment"), or the enum name.
pub fn stage_name(gl_type: u32) -> String {
    Stage::from_gl_enum(gl_type)
        .map(|s| s.name().to_string())
        .unwrap_or_else(|| {
            api::gl_enum_name(gl_type, "")
                .unwrap_or("unknown")
                .to_string()
        })
}

/// The text after `#version` ("330 core"), empty if none.
pub fn glsl_version(source: &str) -> String {
    source
        .lines()
        .map(str::trim)
        .find_map(|l| {
            l.strip_prefix('#')
                .map(str::trim_start)
                .and_then(|l| l.strip_prefix("version"))
        })
        .map(|v| {
            v.split("//")
                .next()
                .unwrap_or("")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

/// GLSL spelling of a uniform/attribute type enum (`GL_FLOAT_VEC3` → `vec3`).
pub fn glsl_type_name(gl_type: u32) -> String {
    let Some(name) =
        api::gl_enum_name(gl_type, "UniformType").or_else(|| api::gl_enum_name(gl_type, ""))
    else {
        return format!("{gl_type:#x}");
    };
    let n = name.strip_prefix("GL_").unwrap_or(name);
    let fixed = match n {
        "FLOAT" => Some("float"),
        "DOUBLE" => Some("double"),
        "INT" => Some("int"),
        "UNSIGNED_INT" => Some("uint"),
        "BOOL" => Some("bool"),
        _ => None,
    };
    if let Some(f) = fixed {
        return f.to_string();
    }
    let vec =
        |prefix: &str, rest: &str| rest.strip_prefix("VEC").map(|d| format!("{prefix}vec{d}"));
    if let Some(r) = n.strip_prefix("FLOAT_").and_then(|r| vec("", r)) {
        return r;
    }
    if let Some(r) = n.strip_prefix("DOUBLE_").and_then(|r| vec("d", r)) {
        return r;
    }
    if let Some(r) = n.strip_prefix("UNSIGNED_INT_").and_then(|r| vec("u", r)) {
        return r;
    }
    if let Some(r) = n.strip_prefix("INT_").and_then(|r| vec("i", r)) {
        return r;
    }
    if let Some(r) = n.strip_prefix("BOOL_").and_then(|r| vec("b", r)) {
        return r;
    }
    if let Some(m) = n.strip_prefix("FLOAT_MAT") {
        return format!("mat{}", m.to_lowercase());
    }
    if let Some(m) = n.strip_prefix("DOUBLE_MAT") {
        return format!("dmat{}", m.to_lowercase());
    }
    // Samplers and images: GL_SAMPLER_2D_SHADOW -> sampler2DShadow.
    for (prefix, glsl) in [
        ("UNSIGNED_INT_SAMPLER_", "usampler"),
        ("INT_SAMPLER_", "isampler"),
        ("SAMPLER_", "sampler"),
        ("UNSIGNED_INT_IMAGE_", "uimage"),
        ("INT_IMAGE_", "iimage"),
        ("IMAGE_", "image"),
    ] {
        if let Some(rest) = n.strip_prefix(prefix) {
            let mut out = glsl.to_string();
            for part in rest.split('_') {
                match part {
                    "1D" | "2D" | "3D" => out.push_str(part),
                    "CUBE" => out.push_str("Cube"),
                    "RECT" => out.push_str("Rect"),
                    "ARRAY" => out.push_str("Array"),
                    "SHADOW" => out.push_str("Shadow"),
                    "BUFFER" => out.push_str("Buffer"),
                    "MULTISAMPLE" => out.push_str("MS"),
                    p => out.push_str(&p.to_lowercase()),
                }
            }
            return out;
        }
    }
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_program_text() {
        let src = "#version 330 core\nvoid main(){}\n";
        let text = format!(
            "program\t3\nshader\t1\t35633\nshader\t2\t35632\nuniform\tu_r\t5126\t1\t0\t0.5\nattribute\tpos\t35665\t1\t0\noutput\tcolor\t0\t1\nsource\t2\t{}\n{}\nsource\t1\t0\n\n",
            src.len(),
            src
        );
        let p = parse_program_text(text.as_bytes());
        assert_eq!(p.program, 3);
        assert_eq!(p.shaders, vec![(1, 35633), (2, 35632)]);
        assert_eq!(
            p.uniforms,
            vec![ProgramVariable {
                name: "u_r".into(),
                gl_type: 5126,
                size: 1,
                location: 0,
                value: "0.5".into(),
                block: String::new(),
            }]
        );
        assert_eq!(p.attributes[0].name, "pos");
        assert_eq!(p.attributes[0].value, "");
        assert_eq!(p.outputs, vec![("color".to_string(), 0, 1)]);
        assert_eq!(p.sources[&2], src);
        assert_eq!(p.sources[&1], "");
    }

    #[test]
    fn versions_and_types() {
        assert_eq!(
            glsl_version("// hi\n#version 330 core\nvoid main(){}"),
            "330 core"
        );
        assert_eq!(glsl_version("  #  version 100\n"), "100");
        assert_eq!(glsl_version("void main(){}"), "");
        assert_eq!(glsl_type_name(0x1406), "float");
        assert_eq!(glsl_type_name(0x8B52), "vec4");
        assert_eq!(glsl_type_name(0x8B5E), "sampler2D");
        assert_eq!(glsl_type_name(0x8B5C), "mat4");
        assert_eq!(stage_name(0x8B30), "fragment");
    }

    #[test]
    fn records_links() {
        let mut r = Recorded::default();
        r.create_shader(1, 0x8B31);
        r.create_shader(2, 0x8B30);
        r.shader_source(1, "v".into());
        r.shader_source(2, "f".into());
        r.attach(5, 1);
        r.attach(5, 2);
        r.link(5);
        r.detach(5, 1);
        r.shader_source(2, "changed".into());
        assert_eq!(r.linked[&5].len(), 2);
        assert_eq!(r.linked[&5][1].source, "f");
        assert_eq!(r.attached[&5], vec![2]);
    }

    /// NVIDIA gives a deleted program's name to the next one created: the
    /// new object starts with none of the old one's shaders or stages.
    #[test]
    fn a_program_name_given_again_starts_empty() {
        let mut r = Recorded::default();
        r.create_shader(1, 0x91B9);
        r.shader_source(1, "old".into());
        r.create_program(5);
        r.attach(5, 1);
        r.link(5);
        // The app deletes program 5 (not recorded) and creates another.
        r.create_program(5);
        assert!(!r.linked.contains_key(&5) && !r.attached.contains_key(&5));
        r.create_shader(2, 0x91B9);
        r.shader_source(2, "new".into());
        r.attach(5, 2);
        r.link(5);
        let sources: Vec<&str> = r.linked[&5].iter().map(|s| s.source.as_str()).collect();
        assert_eq!(sources, ["new"]);
    }

    #[test]
    fn binaries_are_remembered_until_sources_replace_them() {
        let mut r = Recorded::default();
        r.program_binary(7);
        assert!(
            r.binary_note(&[7], &[])
                .unwrap()
                .contains("glProgramBinary")
        );
        r.link(7);
        assert_eq!(r.binary_note(&[7], &[]), None);
        r.shader_binary(&[3, 4]);
        assert!(
            r.binary_note(&[8], &[3, 4])
                .unwrap()
                .starts_with("shaders 3, 4 were loaded")
        );
        assert!(
            r.binary_note(&[8], &[3])
                .unwrap()
                .contains("glShaderBinary")
        );
        r.shader_source(3, "void main(){}".into());
        assert_eq!(r.binary_note(&[8], &[3]), None);
    }
}
