//! The daemon inside this process (`gldbg run`, `gldbg dap`'s launch): a
//! `gldbg_debugd::Daemon` serving its gRPC API on a Unix socket in a private
//! directory (and on `--listen` if asked), its shutdown, and the first
//! connection to it. The directory (socket, a generated token's file, the
//! rejected debug shaders) goes with the guard on every way out.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use tokio::sync::watch;

use crate::client::{self, Target};
use crate::signals;

/// How the embedded daemon serves: TLS for a TCP --listen, and the saved debug shaders.
#[derive(Debug, Clone, Default)]
pub struct Serve {
    pub tls_cert: Option<PathBuf>,
    pub tls_key: Option<PathBuf>,
    pub keep_debug_shaders: bool,
}

/// The embedded daemon of `gldbg run`: its shutdown switch, tasks and socket dir.
pub struct Embedded {
    shutdown: watch::Sender<bool>,
    servers: Vec<tokio::task::JoinHandle<Result<()>>>,
    /// The private directory: the socket, a generated token's file and the
    /// saved debug shaders' directory, all removed with it.
    pub dir: PathBuf,
    /// Removes the rejected debug shaders' directory (unless kept).
    _saved: gldbg_debugd::saved_shaders::Cleanup,
}

impl Embedded {
    pub fn start(
        listen: Option<&str>,
        token: Option<String>,
        serve: &Serve,
    ) -> Result<(Embedded, Target)> {
        let saved = gldbg_debugd::saved_shaders::Cleanup::new(
            gldbg_debugd::saved_shaders::keep_requested(serve.keep_debug_shaders),
        );
        let listen: Option<gldbg_debugd::ListenAddr> = listen
            .map(|l| {
                l.parse()
                    .with_context(|| format!("--listen {l}: expected unix:PATH or HOST:PORT"))
            })
            .transpose()?;
        if listen.is_none() && serve.tls_cert.is_some() {
            bail!("--tls-cert and --tls-key are for a TCP --listen address");
        }
        let preload = gldbg_debugd::find_preload().context("cannot find libgldbg_preload.so")?;
        let dir = private_dir()?;
        let extra = match listen {
            // A generated token's file goes into `dir`.
            Some(addr) => match listen_access(&addr, token, serve, &dir) {
                Ok(access) => Some((addr, access)),
                Err(e) => {
                    let _ = std::fs::remove_dir_all(&dir);
                    return Err(e);
                }
            },
            None => None,
        };
        if !gldbg_debugd::saved_shaders::kept() {
            // Gone with the socket directory, on every way out (signals,
            // aborts and the next run's sweep after a SIGKILL included).
            gldbg_debugd::saved_shaders::set_base(dir.clone());
        }
        let socket = dir.join("gldbg.sock");
        let daemon = gldbg_debugd::Daemon::new(gldbg_debugd::Config {
            preload,
            app_ends_with_daemon: true,
        });
        let (shutdown, rx) = watch::channel(false);
        let mut servers = Vec::new();
        let mut addrs = vec![(
            gldbg_debugd::ListenAddr::Unix(socket.clone()),
            gldbg_debugd::Access::default(),
        )];
        addrs.extend(extra);
        for (addr, access) in addrs {
            let daemon = daemon.clone();
            let mut rx = rx.clone();
            let stop = async move {
                let _ = rx.wait_for(|stop| *stop).await;
            };
            servers.push(tokio::spawn(async move {
                daemon.serve_with(addr, access, stop).await
            }));
        }
        Ok((
            Embedded {
                shutdown,
                servers,
                dir,
                _saved: saved,
            },
            Target::Unix(socket),
        ))
    }

    /// A serve task that already ended is an error (e.g. the address is in use).
    pub fn check(&mut self) -> Result<()> {
        for server in &mut self.servers {
            if server.is_finished() {
                let result = poll_now(server);
                return match result {
                    Some(Ok(Err(e))) => Err(e.context("the embedded daemon failed")),
                    Some(Err(e)) => Err(anyhow::anyhow!("the embedded daemon panicked: {e}")),
                    _ => Err(anyhow::anyhow!("the embedded daemon stopped")),
                };
            }
        }
        Ok(())
    }

    pub async fn stop(mut self) {
        let _ = self.shutdown.send(true);
        for server in std::mem::take(&mut self.servers) {
            let _ = tokio::time::timeout(Duration::from_secs(2), server).await;
        }
    }
}

impl Drop for Embedded {
    /// The socket directory goes on every path out, errors included.
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Token and TLS of `gldbg run --listen ADDR`; on TCP without a token, one
/// is generated into the file `token` (0600, new, no symlink) of the private
/// directory `dir`, whose path is printed: it goes with `dir` on every way
/// out (signals, aborts, the next run's sweep after a SIGKILL).
fn listen_access(
    addr: &gldbg_debugd::ListenAddr,
    token: Option<String>,
    serve: &Serve,
    dir: &Path,
) -> Result<gldbg_debugd::Access> {
    let tcp = matches!(addr, gldbg_debugd::ListenAddr::Tcp(_));
    let tls = match (&serve.tls_cert, &serve.tls_key) {
        (Some(cert), Some(key)) if tcp => Some(gldbg_debugd::TlsFiles {
            cert: cert.clone(),
            key: key.clone(),
        }),
        (Some(_), _) => bail!("--tls-cert and --tls-key are for a TCP --listen address"),
        _ => None,
    };
    let token = match token {
        None if tcp => {
            let t = gldbg_debugd::token::generate()?;
            let path = dir.join("token");
            gldbg_debugd::private_dir::write_new_file(&path, format!("{t}\n").as_bytes())
                .with_context(|| format!("cannot write {}", path.display()))?;
            eprintln!(
                "gldbg: the token for {addr} is in {} (gldbg connect {addr} --token-file {})",
                path.display(),
                path.display()
            );
            Some(t)
        }
        t => t,
    };
    Ok(gldbg_debugd::Access { token, tls })
}

/// The result of a finished task, without waiting.
fn poll_now<T>(
    handle: &mut tokio::task::JoinHandle<T>,
) -> Option<Result<T, tokio::task::JoinError>> {
    use std::future::Future as _;
    use std::task::{Context, Poll};
    let waker = std::task::Waker::noop();
    let mut cx = Context::from_waker(waker);
    match std::pin::Pin::new(handle).poll(&mut cx) {
        Poll::Ready(r) => Some(r),
        Poll::Pending => None,
    }
}

/// A fresh directory only this user can enter, for the daemon's socket.
fn private_dir() -> Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt as _;
    let base = std::env::temp_dir();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    for attempt in 0..100u32 {
        let dir = base.join(format!(
            "{}{}-{:x}-{attempt}",
            signals::DIR_PREFIX,
            std::process::id(),
            nanos
        ));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot create {}", dir.display())),
        }
    }
    bail!("cannot create a private directory in {}", base.display())
}

/// Connect, retrying while the embedded daemon is still binding its socket.
pub async fn connect(embedded: &mut Embedded, target: &Target) -> Result<client::Client> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        embedded.check()?;
        match client::connect(target, None, None).await {
            Ok(c) => {
                if embedded.servers.len() > 1 {
                    // Give a --listen address the time to fail to bind (in use, bad host).
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    embedded.check()?;
                }
                return Ok(c);
            }
            Err(e) if tokio::time::Instant::now() >= deadline => return Err(e),
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
}
