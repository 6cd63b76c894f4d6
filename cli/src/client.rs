//! Connecting a gRPC client to a daemon: over a Unix socket (`unix:PATH`) or
//! TCP (`HOST:PORT`), with the token sent as `authorization: Bearer T`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use gldbg_proto::pb::debugger_client::DebuggerClient;
use hyper_util::rt::TokioIo;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Channel, Endpoint, Uri};

/// The client type used everywhere in the CLI.
pub type Client = DebuggerClient<InterceptedService<Channel, Auth>>;

/// Replies (dumps of large framebuffers) may be far above tonic's 4 MiB default.
const MAX_MESSAGE: usize = 1 << 30;

/// Adds `authorization: Bearer T` to every request when a token is set.
#[derive(Clone)]
pub struct Auth(Option<MetadataValue<Ascii>>);

impl Auth {
    pub fn new(token: Option<&str>) -> Result<Auth> {
        let value = match token {
            Some(t) => Some(
                format!("Bearer {t}")
                    .parse::<MetadataValue<Ascii>>()
                    .context("the token must be printable ASCII")?,
            ),
            None => None,
        };
        Ok(Auth(value))
    }
}

impl Interceptor for Auth {
    fn call(
        &mut self,
        mut request: tonic::Request<()>,
    ) -> Result<tonic::Request<()>, tonic::Status> {
        if let Some(v) = &self.0 {
            request.metadata_mut().insert("authorization", v.clone());
        }
        Ok(request)
    }
}

/// Where a daemon listens, as given on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Unix(PathBuf),
    Tcp(String),
}

impl Target {
    /// `unix:PATH` or `HOST:PORT` (also `http://HOST:PORT`).
    pub fn parse(addr: &str) -> Result<Target> {
        if let Some(path) = addr.strip_prefix("unix:") {
            if path.is_empty() {
                bail!("`{addr}`: expected unix:PATH");
            }
            return Ok(Target::Unix(PathBuf::from(path)));
        }
        let hostport = addr.strip_prefix("http://").unwrap_or(addr);
        match hostport.rsplit_once(':') {
            Some((host, port)) if !host.is_empty() && port.parse::<u16>().is_ok() => {
                Ok(Target::Tcp(hostport.to_string()))
            }
            _ => bail!("`{addr}`: expected unix:PATH or HOST:PORT"),
        }
    }
}

async fn unix_channel(path: &Path) -> Result<Channel> {
    let path = path.to_path_buf();
    // The URI is required by tonic but never used: the connector decides.
    Endpoint::try_from("http://[::1]:50051")?
        .connect_with_connector(tower::service_fn(move |_: Uri| {
            let path = path.clone();
            async move {
                let stream = tokio::net::UnixStream::connect(path).await?;
                Ok::<_, std::io::Error>(TokioIo::new(stream))
            }
        }))
        .await
        .map_err(root_cause)
}

async fn tcp_channel(hostport: &str) -> Result<Channel> {
    Endpoint::from_shared(format!("http://{hostport}"))?
        .connect_timeout(Duration::from_secs(10))
        .connect()
        .await
        .map_err(root_cause)
}

/// Transport errors repeat their source in their own text: keep only the innermost.
fn root_cause(e: tonic::transport::Error) -> anyhow::Error {
    let mut inner: &dyn std::error::Error = &e;
    while let Some(next) = inner.source() {
        inner = next;
    }
    anyhow::anyhow!("{inner}")
}

/// Connect to a daemon.
pub async fn connect(target: &Target, token: Option<&str>) -> Result<Client> {
    let channel = match target {
        Target::Unix(path) => unix_channel(path)
            .await
            .with_context(|| format!("cannot connect to unix:{}", path.display()))?,
        Target::Tcp(hostport) => tcp_channel(hostport)
            .await
            .with_context(|| format!("cannot connect to {hostport}"))?,
    };
    Ok(DebuggerClient::with_interceptor(channel, Auth::new(token)?)
        .max_decoding_message_size(MAX_MESSAGE)
        .max_encoding_message_size(MAX_MESSAGE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets() {
        assert_eq!(
            Target::parse("unix:/tmp/s").unwrap(),
            Target::Unix("/tmp/s".into())
        );
        assert_eq!(
            Target::parse("127.0.0.1:4000").unwrap(),
            Target::Tcp("127.0.0.1:4000".into())
        );
        assert_eq!(
            Target::parse("localhost:4000").unwrap(),
            Target::Tcp("localhost:4000".into())
        );
        assert_eq!(
            Target::parse("[::1]:4000").unwrap(),
            Target::Tcp("[::1]:4000".into())
        );
        assert!(Target::parse("unix:").is_err());
        assert!(Target::parse("localhost").is_err());
        assert!(Target::parse("host:port").is_err());
    }

    #[test]
    fn auth_header() {
        let mut auth = Auth::new(Some("s3cret")).unwrap();
        let req = auth.call(tonic::Request::new(())).unwrap();
        assert_eq!(
            req.metadata().get("authorization").unwrap(),
            "Bearer s3cret"
        );
        let mut none = Auth::new(None).unwrap();
        assert!(
            none.call(tonic::Request::new(()))
                .unwrap()
                .metadata()
                .get("authorization")
                .is_none()
        );
    }
}
