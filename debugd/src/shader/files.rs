//! The debugged shader seen from the user's file (issue 15): which GL
//! shader object the stage is, and where its lines are in the user's file
//! (`glsl_instrument::source_map`), so stops, frames and listings say
//! `FILE:LINE` besides the driver's line.

use glsl_instrument::StepId;
use glsl_instrument::source_map::{FileSpan, find_file};

use super::ShaderDebug;

/// A user's file and where its lines are in the debugged shader's source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileMap {
    /// The file as the user named it.
    pub file: String,
    pub span: FileSpan,
}

/// A user's file to look for in a shader: its text, or (`shader`) the
/// whole source of that shader object, line for line (`SourceFile.shader`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserFile {
    pub path: String,
    pub text: String,
    pub shader: Option<u32>,
}

impl UserFile {
    /// Where this file is in shader object `id`'s `source`, if it is there.
    pub fn span_in(&self, id: u32, source: &str) -> Option<FileSpan> {
        match self.shader {
            Some(s) if s == id => Some(FileSpan::whole(source)),
            Some(_) => None,
            None => find_file(source, &self.text),
        }
    }
}

impl ShaderDebug {
    /// The GL shader object this stage is and the first of `files` found
    /// in its source (the model's, as the driver numbers it).
    pub fn set_files(&mut self, shader: u32, files: &[UserFile]) {
        self.shader_object = shader;
        self.file_map = files.iter().find_map(|f| {
            Some(FileMap {
                file: f.path.clone(),
                span: f.span_in(shader, self.model.source())?,
            })
        });
    }

    /// The user's file the shader maps to ("": none).
    pub fn mapped_file(&self) -> &str {
        self.file_map.as_ref().map_or("", |m| m.file.as_str())
    }

    /// The GL shader object of the debugged stage.
    pub fn shader_object(&self) -> u32 {
        self.shader_object
    }

    /// The file and file line of 1-based line `source_line` of the
    /// shader's source, where it comes from the user's file.
    pub(super) fn file_of_source_line(&self, source_line: u32) -> Option<(String, u32)> {
        let m = self.file_map.as_ref()?;
        Some((m.file.clone(), m.span.file_line(source_line)?))
    }

    /// The file and file line the driver numbers `driver_line`.
    pub fn file_of_driver_line(&self, driver_line: u32) -> Option<(String, u32)> {
        let m = self.file_map.as_ref()?;
        let l = self.model.file_line_of_driver(m.span, driver_line)?;
        Some((m.file.clone(), l))
    }

    /// Where a breakpoint on `file_line` of the mapped file named `file`
    /// stops: the driver's line of the step line and its steps, exactly
    /// (`ShaderModel::file_line_steps`: never other code `#line` numbers
    /// the same, never across inactive regions or out of a function).
    pub fn steps_of_file_line(&self, file: &str, file_line: u32) -> Option<(u32, Vec<StepId>)> {
        let m = self.file_map.as_ref().filter(|m| m.file == file)?;
        let (line, steps) = self.model.file_line_steps(m.span, file_line)?;
        Some((self.model.driver_line(line), steps))
    }

    /// The driver's line of `step`.
    pub fn driver_line_of_step(&self, step: StepId) -> u32 {
        self.model.driver_line(self.model.step(step).line)
    }

    /// The driver's line of `file_line` of the mapped file named `file`.
    pub fn driver_line_of_file(&self, file: &str, file_line: u32) -> Option<u32> {
        let m = self.file_map.as_ref().filter(|m| m.file == file)?;
        self.model.driver_line_of_file(m.span, file_line)
    }
}
