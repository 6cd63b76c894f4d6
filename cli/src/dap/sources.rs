//! Shader sources for the editor: a shader that maps to a user's file is
//! that file (`path`); any other is served read-only as the text the app
//! passed to `glShaderSource` (`sourceReference` = the GL shader object's
//! name, stable for the session). `loadedSources` lists every shader the
//! app made.

use gldbg_proto::pb;
use serde_json::{Value, json};

use super::adapter::{Adapter, NOT_LAUNCHED, Reply};
use super::args::req_i64;

/// How a shader without a file is named in the editor.
pub fn shader_name(shader: u32, stage: &str) -> String {
    format!("shader {shader} ({stage})")
}

fn source_json(s: &pb::ShaderSource) -> Value {
    match s.file.as_ref().filter(|f| !f.file.is_empty()) {
        Some(f) => {
            let name = std::path::Path::new(&f.file)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| f.file.clone());
            json!({"name": name, "path": f.file})
        }
        None => json!({
            "name": shader_name(s.shader, &s.stage),
            "sourceReference": s.shader,
            "presentationHint": "deemphasize",
        }),
    }
}

impl Adapter {
    async fn shaders(&mut self) -> Result<Vec<pb::ShaderSource>, String> {
        let mut client = self.client.clone().ok_or(NOT_LAUNCHED)?;
        Ok(client
            .list_shaders(pb::Empty {})
            .await
            .map_err(|s| s.message().to_string())?
            .into_inner()
            .shaders)
    }

    pub async fn source(&mut self, args: &Value) -> Reply {
        let reference = match args.get("source").and_then(|s| s.get("sourceReference")) {
            Some(r) => r.as_i64().ok_or("sourceReference must be an integer")?,
            None => req_i64(args, "sourceReference")?,
        };
        let shaders = self.shaders().await?;
        match shaders.iter().find(|s| i64::from(s.shader) == reference) {
            Some(s) => Ok(json!({"content": s.text, "mimeType": "text/x-glsl"})),
            None => Err(format!("no shader {reference} was recorded")),
        }
    }

    pub async fn loaded_sources(&mut self) -> Reply {
        let shaders = self.shaders().await?;
        let sources: Vec<Value> = shaders.iter().map(source_json).collect();
        Ok(json!({"sources": sources}))
    }
}
