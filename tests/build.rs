//! Builds the C test apps of `apps/` into OUT_DIR with the C compiler the
//! `cc` crate picks, exposes their paths to the tests as `GLDBG_APP_<NAME>`,
//! and copies them to `target/<profile>/apps/` for the README's demo command.

use std::path::{Path, PathBuf};
use std::process::Command;

/// (source file, executable name, libraries to link)
const APPS: &[(&str, &str, &[&str])] = &[
    ("apps/egl_shade.c", "egl_shade", &["EGL"]),
    ("apps/glx_shade.c", "glx_shade", &["GL", "X11"]),
    ("apps/egl_compute.c", "egl_compute", &["EGL", "OpenGL"]),
    ("apps/egl_stages.c", "egl_stages", &["EGL", "OpenGL"]),
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
