//! `gldbg dap`: a Debug Adapter Protocol server, so that VS Code, Neovim
//! (nvim-dap), Emacs (dap-mode), Helix and every other DAP client debug
//! shaders with gldbg.
//!
//! The adapter is one more gRPC client of the daemon: `launch` starts the
//! embedded daemon (as `gldbg run` does) and the app, `attach` connects to a
//! running `gldbg-debugd`. It speaks the command language underneath: each
//! DAP request becomes the gldbg command a CLI user would type (`next`,
//! `reverse-next`, `info locals`, `print x @ 3,4`), run by the CLI's own
//! `exec::Session`, so the editor and the CLI cannot disagree, and the debug
//! console runs any command.
//!
//! Modules: `wire` (framing, message shapes), `model` (the session's data), `args`
//! (typed request arguments), `adapter` (the session: state,
//! the request loop, events from the daemon), `moves` (continue and steps,
//! and the `stopped` events they end in), `launch` (launch, attach, disconnect, terminate), `breakpoints`
//! (source, function, hit-count and log points), `frames` (threads, stack,
//! scopes, variables and their references), `sources` (shader sources:
//! the user's files or the recorded text), `evaluate` (the debug console,
//! hovers, watches, the value image), `history` (pixel history: the
//! `pixelHistory` and `debugHistory` requests), `memcheck` (the launch
//! argument, findings as exception stops and console output).

mod adapter;
mod args;
mod base64;
mod breakpoints;
mod evaluate;
mod frames;
mod history;
mod launch;
mod memcheck;
mod model;
mod moves;
mod sources;
mod wire;

use std::process::ExitCode;

use anyhow::{Context as _, Result};
use clap::Args;
use tokio::io::BufReader;

/// `gldbg dap [--listen ADDR]`.
#[derive(Args, Debug, Clone)]
pub struct DapArgs {
    /// Serve one client on HOST:PORT (TCP) instead of stdin/stdout.
    #[arg(long, value_name = "HOST:PORT")]
    listen: Option<String>,
}

/// Serve DAP until the client goes away.
pub fn run(args: &DapArgs) -> Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let result = rt.block_on(async {
        match &args.listen {
            None => {
                let reader = BufReader::new(tokio::io::stdin());
                adapter::serve(reader, tokio::io::stdout()).await
            }
            Some(addr) => {
                let listener = tokio::net::TcpListener::bind(addr)
                    .await
                    .with_context(|| format!("cannot listen on {addr}"))?;
                let local = listener.local_addr()?;
                // The one line a client's launcher waits for (stderr: stdout is not DAP here, but scripts read it).
                eprintln!("gldbg dap: listening on {local}");
                let (stream, _) = listener.accept().await.context("accept failed")?;
                let (r, w) = stream.into_split();
                adapter::serve(BufReader::new(r), w).await
            }
        }
    });
    // Tasks blocked on the daemon's threads are not waited for.
    rt.shutdown_timeout(std::time::Duration::from_millis(200));
    result.map(|()| ExitCode::SUCCESS)
}
