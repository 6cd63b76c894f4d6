//! The gldbg daemon: launches an OpenGL app under ptrace with the preload
//! library, talks to the preload over an inherited memfd (futex wake-ups),
//! keeps one debugging session (GL stops, breakpoints, recorded shader
//! sources, shader debugging through instrumented replays) and serves it
//! as the gRPC `Debugger` service (plus health and reflection).
//!
//! Modules: [`launch`] (fork/seize/exec and the tracer thread), [`shm`]
//! (the daemon side of the shared memory), [`session`] (process control,
//! GL-call control, program recording, and the shader-debugging requests),
//! [`shader`] (shader stepping and probes: the probe cycle end to end,
//! reaching the preload through its `Link`), [`service`] (the tonic edge,
//! with `convert`: protobuf to and from the shader debugger's types), with
//! [`format`], [`image`], [`program`], [`remote`],
//! [`pointee`] (what pointer arguments point at, from the registry's `len`),
//! [`glstate`] (the `info state` table), [`inflight`] and [`cancel`] (requests
//! whose client went away take no effect) as helpers;
//! local-attacker hygiene in [`private_dir`] (0700 directories, 0600
//! files, no symlink following), [`saved_shaders`] (rejected debug shaders),
//! [`token`] (the TCP token off argv) and [`unix_authority`] (stock gRPC
//! clients on a Unix socket).
//!
//! GL-level control (issue 3):
//! * Breakpoints: a function, any draw, the N-th draw (`Header::draw_count`),
//!   shader switch, frame end, and `error`: while an error breakpoint exists
//!   the daemon sets `Header::check_errors` and every bit; the preload asks
//!   the real `glGetError` after each GL call, keeps the error for the app
//!   and stops *after* the call (`Slot::error`; `CallInfo::error`).
//! * Stops are per thread (one slot per GL thread; a stop names its thread
//!   and process); other threads run on until they stop themselves and
//!   queue behind the current stop.
//! * `pause`: the tracer PTRACE_INTERRUPTs every thread and holds them; the
//!   session is STOPPED with a `paused` CallInfo (thread, pc) and no GL
//!   call; `continue`/`step` resume every thread.
//! * Launcher scripts: the app finds the shared memory by path
//!   (`GLDBG_SHM=/proc/<daemon>/fd/<n>`), kept across `exec`; the first
//!   process that calls GL claims the session, every other process (the
//!   shell, the app's own children) runs pass-through. The tracer follows
//!   forks, so an app the script forks is traced too (crashes, pause, kill);
//!   reads and writes of app memory go to the claiming process.
//! * Crash reports carry the last calls (up to 8) of the crashing thread
//!   that went through the stop path — only calls gldbg saw, not every call.
//!
//! **Architecture invariants:**
//! * ptrace requests come only from the one tracer thread of a launch; the
//!   rest of the daemon talks to it over channels.
//! * No RPC waits for a running app except the ones that resume it
//!   (Launch, Continue, Step, Skip) and Kill/Detach/Pause; everything else
//!   fails with FAILED_PRECONDITION at once.
//! * The app outlives the daemon: no `PTRACE_O_EXITKILL`; the preload falls
//!   back to pass-through when the daemon is gone.
//! * A request whose client went away commits no effect it had not
//!   committed yet ([`cancel`]); a command to an app that has ended fails
//!   at once, never at its timeout.
//! * `tonic::Status` appears only in [`service`] and the auth interceptor
//!   in `serve_with` (its UNAUTHENTICATED); library code returns
//!   [`error::Error`]; `anyhow` only at the serve/binary edge.

pub mod cancel;
pub mod colormap;
mod convert;
pub mod error;
pub mod format;
pub mod glstate;
pub mod history;
pub mod image;
pub mod inflight;
pub mod launch;
pub mod memcheck;
pub mod pointee;
pub mod private_dir;
pub mod program;
pub mod remote;
pub mod saved_shaders;
pub mod service;
pub mod session;
pub mod shader;
pub mod shm;
mod status;
pub mod token;
pub mod unix_authority;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

use anyhow::{Context, bail};
use gldbg_proto::pb;
use tokio_stream::StreamExt as _;
use tonic::transport::Server;

pub use session::{LaunchOptions, Session};

/// Daemon configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// Path of `libgldbg_preload.so`.
    pub preload: PathBuf,
    /// The launched app ends with the daemon's process (`PTRACE_O_EXITKILL`),
    /// as an app launched by `gldbg run` ends with gldbg, unless detached.
    /// `gldbg-debugd` leaves it off: there the app survives the daemon.
    pub app_ends_with_daemon: bool,
}

/// Name of the preload library.
pub const PRELOAD_NAME: &str = "libgldbg_preload.so";

/// Find the preload library: beside the current executable, then
/// `../lib/gldbg/`, then `../lib/` (installed layouts). For test
/// executables in `target/debug/deps`, the parent directory is tried too.
pub fn find_preload() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot find the current executable")?;
    let dir = exe.parent().context("the executable has no directory")?;
    let mut candidates = vec![
        dir.join(PRELOAD_NAME),
        dir.join("../lib/gldbg").join(PRELOAD_NAME),
        dir.join("../lib").join(PRELOAD_NAME),
    ];
    if dir.file_name().is_some_and(|n| n == "deps") {
        candidates.push(dir.join("..").join(PRELOAD_NAME));
    }
    for c in &candidates {
        if c.is_file() {
            return Ok(c.canonicalize().unwrap_or_else(|_| c.clone()));
        }
    }
    bail!(
        "cannot find {PRELOAD_NAME}; looked in: {}",
        candidates
            .iter()
            .map(|c| c.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Where the daemon listens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListenAddr {
    /// `unix:PATH`
    Unix(PathBuf),
    /// `HOST:PORT`
    Tcp(SocketAddr),
}

impl FromStr for ListenAddr {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> anyhow::Result<Self> {
        if let Some(p) = s.strip_prefix("unix:") {
            if p.is_empty() {
                bail!("empty Unix socket path in {s:?}");
            }
            return Ok(ListenAddr::Unix(PathBuf::from(p)));
        }
        if let Ok(a) = s.parse::<SocketAddr>() {
            return Ok(ListenAddr::Tcp(a));
        }
        // HOST:PORT with a host name (e.g. localhost:5000).
        use std::net::ToSocketAddrs;
        match s.to_socket_addrs() {
            Ok(mut it) => it
                .next()
                .map(ListenAddr::Tcp)
                .with_context(|| format!("{s:?} resolves to no address")),
            Err(e) => bail!("bad listen address {s:?} (want unix:PATH or HOST:PORT): {e}"),
        }
    }
}

impl std::fmt::Display for ListenAddr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ListenAddr::Unix(p) => write!(f, "unix:{}", p.display()),
            ListenAddr::Tcp(a) => write!(f, "{a}"),
        }
    }
}

/// One debugging session behind a gRPC server; cheap to clone.
#[derive(Clone)]
pub struct Daemon {
    session: Arc<Session>,
}

impl Daemon {
    pub fn new(config: Config) -> Daemon {
        Daemon {
            session: Session::new(config),
        }
    }

    /// The session (for in-process use, e.g. launching before serving).
    pub fn session(&self) -> &Arc<Session> {
        &self.session
    }

    /// Serve on `addr` with `token` and no TLS: see [`Daemon::serve_with`].
    pub async fn serve(
        &self,
        addr: ListenAddr,
        token: Option<String>,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        let access = Access { token, tls: None };
        self.serve_with(addr, access, shutdown).await
    }

    /// Serve the Debugger service (+ grpc.health.v1 + reflection v1 and
    /// v1alpha) on addr until shutdown. Unix sockets are created mode 0600,
    /// never over a socket where a daemon answers, and accept the
    /// `:authority` stock gRPC clients send there ([`unix_authority`]). With
    /// a token, every request must carry metadata `authorization: Bearer
    /// <token>` (else UNAUTHENTICATED). TCP requires a token; TLS is offered
    /// on TCP.
    pub async fn serve_with(
        &self,
        addr: ListenAddr,
        access: Access,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        if matches!(addr, ListenAddr::Tcp(_)) && access.token.as_deref().is_none_or(str::is_empty) {
            bail!("listening on TCP needs a token (--token-file or GLDBG_TOKEN)");
        }
        if matches!(addr, ListenAddr::Unix(_)) && access.tls.is_some() {
            bail!("TLS is for TCP listeners (a Unix socket is private to its user)");
        }
        let (down_tx, down_rx) = tokio::sync::watch::channel(false);
        let shutdown = async move {
            shutdown.await;
            let _ = down_tx.send(true);
        };
        let svc = service::Service::new(self.session.clone(), down_rx);
        let (health, health_svc) = tonic_health::server::health_reporter();
        health
            .set_serving::<pb::debugger_server::DebuggerServer<service::Service>>()
            .await;
        let reflection = || {
            tonic_reflection::server::Builder::configure()
                .register_encoded_file_descriptor_set(pb::FILE_DESCRIPTOR_SET)
        };
        let reflection_v1 = reflection()
            .build_v1()
            .context("building the reflection service")?;
        let reflection_v1alpha = reflection()
            .build_v1alpha()
            .context("building the reflection service (v1alpha)")?;
        let expected = access
            .token
            .filter(|t| !t.is_empty())
            .map(|t| format!("Bearer {t}"));
        let check = move |req: tonic::Request<()>| -> Result<tonic::Request<()>, tonic::Status> {
            let Some(want) = &expected else {
                return Ok(req);
            };
            match req
                .metadata()
                .get("authorization")
                .and_then(|v| v.to_str().ok())
            {
                Some(got) if token::constant_time_eq(got.as_bytes(), want.as_bytes()) => Ok(req),
                _ => Err(tonic::Status::unauthenticated(
                    "missing or wrong token (authorization: Bearer TOKEN)",
                )),
            }
        };
        let mut builder = Server::builder();
        if let Some(tls) = &access.tls {
            builder = builder.tls_config(tls.server_config()?)?;
        }
        let router = builder
            .layer(tonic::service::InterceptorLayer::new(check))
            .add_service(
                pb::debugger_server::DebuggerServer::new(svc)
                    .max_decoding_message_size(64 << 20)
                    .max_encoding_message_size(1 << 30),
            )
            .add_service(health_svc)
            .add_service(reflection_v1)
            .add_service(reflection_v1alpha);
        match addr {
            ListenAddr::Tcp(a) => {
                router
                    .serve_with_shutdown(a, shutdown)
                    .await
                    .with_context(|| format!("serving on {a}"))?;
            }
            ListenAddr::Unix(path) => {
                let listener = bind_unix(&path)?;
                let ours = socket_identity(&path);
                let incoming = tokio_stream::wrappers::UnixListenerStream::new(listener)
                    .map(|conn| conn.map(unix_authority::AuthorityFix::new));
                let r = router
                    .serve_with_incoming_shutdown(incoming, shutdown)
                    .await;
                // Only our own socket: never one another daemon bound since.
                if ours.is_some() && socket_identity(&path) == ours {
                    let _ = std::fs::remove_file(&path);
                }
                r.with_context(|| format!("serving on {}", path.display()))?;
            }
        }
        Ok(())
    }
}

/// How a listener admits clients.
#[derive(Clone, Debug, Default)]
pub struct Access {
    /// Required as `authorization: Bearer TOKEN` on every request.
    pub token: Option<String>,
    /// TLS on a TCP listener.
    pub tls: Option<TlsFiles>,
}

/// A server certificate (chain) and its private key, PEM files.
#[derive(Clone, Debug)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// The `--tls-cert`/`--tls-key` options of a command that serves (flatten
/// them into its clap arguments).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct TlsArgs {
    /// TLS on a TCP listener: the server certificate (PEM; needs --tls-key).
    #[arg(long, value_name = "PEM", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// TLS on a TCP listener: the certificate's private key (PEM).
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
}

impl TlsArgs {
    /// The files given, if both were (clap requires each with the other).
    pub fn files(&self) -> Option<TlsFiles> {
        match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => Some(TlsFiles {
                cert: cert.clone(),
                key: key.clone(),
            }),
            _ => None,
        }
    }
}

impl TlsFiles {
    /// Read both files and check that they make a server identity (a
    /// certificate and its key): for a daemon to refuse bad files before
    /// it launches anything.
    pub fn check(&self) -> anyhow::Result<()> {
        tonic::transport::Server::builder()
            .tls_config(self.server_config()?)
            .with_context(|| {
                format!(
                    "the TLS certificate {} and key {} do not make a server identity",
                    self.cert.display(),
                    self.key.display()
                )
            })?;
        Ok(())
    }

    fn server_config(&self) -> anyhow::Result<tonic::transport::ServerTlsConfig> {
        let cert = std::fs::read(&self.cert)
            .with_context(|| format!("reading the TLS certificate {}", self.cert.display()))?;
        let key = std::fs::read(&self.key)
            .with_context(|| format!("reading the TLS key {}", self.key.display()))?;
        Ok(tonic::transport::ServerTlsConfig::new()
            .identity(tonic::transport::Identity::from_pem(cert, key)))
    }
}

/// Bind a Unix socket at `path`, mode 0600. An existing socket is replaced
/// only when nobody answers on it (a stale one); a live one, or anything
/// that is not a socket, is refused. The check and the bind are one step
/// for daemons started together on the path (under [`PathLock`]).
fn bind_unix(path: &std::path::Path) -> anyhow::Result<tokio::net::UnixListener> {
    let _lock = PathLock::take(path)?;
    check_unlocked(path)?;
    // Created with mode 0600: umask 0177 around bind (no window where others may connect).
    let listener = {
        let _umask = UmaskGuard::set(0o177);
        tokio::net::UnixListener::bind(path)
            .with_context(|| format!("binding {}", path.display()))?
    };
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
        .with_context(|| format!("chmod 0600 {}", path.display()))?;
    Ok(listener)
}

/// Make `path` free for a new socket: nothing there, or a stale socket
/// (removed). A socket where a daemon answers, or anything that is not a
/// socket, is an error.
pub fn check_unix_path(path: &std::path::Path) -> anyhow::Result<()> {
    let _lock = PathLock::take(path)?;
    check_unlocked(path)
}

/// An exclusive `flock` on `PATH.lock` (mode 0600, never through a
/// symlink), so that of two daemons started on one stale socket path, one
/// checks and binds while the other waits and then finds a live socket.
/// The file is removed when this is dropped; a waiter that then holds the
/// lock of a removed file takes the lock again on the path's new file.
struct PathLock {
    path: std::path::PathBuf,
    _file: std::fs::File,
}

impl PathLock {
    fn take(socket: &std::path::Path) -> anyhow::Result<PathLock> {
        use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _};
        let mut name = socket.as_os_str().to_owned();
        name.push(".lock");
        let path = std::path::PathBuf::from(name);
        loop {
            let file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
                .open(&path)
                .with_context(|| format!("opening the lock file {}", path.display()))?;
            rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
                .with_context(|| format!("locking {}", path.display()))?;
            let held = file.metadata()?;
            let same = std::fs::symlink_metadata(&path)
                .is_ok_and(|m| m.dev() == held.dev() && m.ino() == held.ino());
            if same {
                return Ok(PathLock { path, _file: file });
            }
        }
    }
}

impl Drop for PathLock {
    fn drop(&mut self) {
        // Removed while locked (the lock goes with the file, after this).
        let _ = std::fs::remove_file(&self.path);
    }
}

fn check_unlocked(path: &std::path::Path) -> anyhow::Result<()> {
    use std::os::unix::fs::FileTypeExt;
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("checking {}", path.display())),
        Ok(meta) if !meta.file_type().is_socket() => {
            bail!("{} exists and is not a socket", path.display())
        }
        Ok(_) => match std::os::unix::net::UnixStream::connect(path) {
            Ok(_) => bail!("a daemon already listens on {}", path.display()),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {
                std::fs::remove_file(path)
                    .with_context(|| format!("removing the stale socket {}", path.display()))?;
            }
            Err(e) => bail!(
                "{} is a socket that cannot be checked ({e}); not replacing it",
                path.display()
            ),
        },
    }
    Ok(())
}

/// (device, inode) of the file at `path`, not following a symlink.
fn socket_identity(path: &std::path::Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino()))
}

/// Sets the process umask and restores it on drop.
struct UmaskGuard(rustix::fs::Mode);

impl UmaskGuard {
    fn set(mask: u32) -> Self {
        UmaskGuard(rustix::process::umask(rustix::fs::Mode::from_raw_mode(
            mask,
        )))
    }
}

impl Drop for UmaskGuard {
    fn drop(&mut self) {
        rustix::process::umask(self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_listen_addrs() {
        assert_eq!(
            "unix:/tmp/x.sock".parse::<ListenAddr>().unwrap(),
            ListenAddr::Unix("/tmp/x.sock".into())
        );
        assert_eq!(
            "127.0.0.1:5000".parse::<ListenAddr>().unwrap(),
            ListenAddr::Tcp("127.0.0.1:5000".parse().unwrap())
        );
        assert_eq!(
            "[::1]:7".parse::<ListenAddr>().unwrap(),
            ListenAddr::Tcp("[::1]:7".parse().unwrap())
        );
        assert!(
            matches!("localhost:5000".parse::<ListenAddr>().unwrap(), ListenAddr::Tcp(a) if a.port() == 5000)
        );
        assert!("unix:".parse::<ListenAddr>().is_err());
        assert!("nonsense".parse::<ListenAddr>().is_err());
        assert_eq!(ListenAddr::Unix("/a".into()).to_string(), "unix:/a");
    }

    /// Two daemons started together on a stale socket's path: one binds,
    /// the other finds it live (neither unlinks the other's socket).
    #[test]
    fn two_binds_on_a_stale_socket_one_wins() {
        let dir = std::env::temp_dir().join(format!("gldbg-lock-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("d.sock");
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        for round in 0..200 {
            drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
            let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
            let bind = |b: std::sync::Arc<std::sync::Barrier>| {
                let (path, handle) = (path.clone(), rt.handle().clone());
                std::thread::spawn(move || {
                    let _rt = handle.enter();
                    b.wait();
                    bind_unix(&path)
                })
            };
            let (a, b) = (bind(barrier.clone()), bind(barrier));
            let results = [a.join().unwrap(), b.join().unwrap()];
            let won: Vec<_> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
            assert_eq!(won.len(), 1, "round {round}: {results:?}");
            let lost = results.iter().find_map(|r| r.as_ref().err()).unwrap();
            assert!(
                lost.to_string().contains("already listens"),
                "round {round}: {lost:#}"
            );
            assert!(std::os::unix::net::UnixStream::connect(&path).is_ok());
            assert!(!dir.join("d.sock.lock").exists(), "the lock file goes");
            drop(results);
            let _ = std::fs::remove_file(&path);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
